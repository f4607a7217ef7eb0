"""bench/report.py, the one script behind docs/benchmarks.md (issue 50 item 6): each benchmark's
output under its command, the load and the commit; ``--only`` replaces those sections and keeps
the others; a failing benchmark is written as failed and the run goes on. Run here on small
stand-in scripts (the real benchmarks take half an hour: ``make bench``)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load(monkeypatch):
    """bench/report.py as a module (registered: its dataclasses look their module up)."""
    spec = importlib.util.spec_from_file_location("bench_report", ROOT / "bench" / "report.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_report", module)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def report(monkeypatch, tmp_path):
    module = _load(monkeypatch)
    scripts = {
        "fast": "print('vizad 1.0 ms   peer 2.0 ms   ratio 0.50')",
        "fenced": "print('```'); print('a line')",
        "broken": "import sys; print('half a table'); sys.exit(3)",
    }
    for name, code in scripts.items():
        (tmp_path / f"{name}.py").write_text(code + "\n")
    benches = tuple(
        module.Bench(name, f"The {name} one", (str(tmp_path / f"{name}.py"),), f"what {name} times")
        for name in scripts
    )
    monkeypatch.setattr(module, "BENCHES", benches)
    return module


def test_every_benchmark_under_its_command_with_load_and_commit(report, tmp_path):
    out = tmp_path / "benchmarks.md"
    assert report.main(["--output", str(out)]) == 1  # one of them failed
    text = out.read_text()
    assert text.startswith("# Benchmarks\n") and "Machine of the latest run: " in text
    fast = report.kept(out)["fast"]
    assert "## The fast one (`fast`)\n\nWhat fast times.\n" in fast
    assert f"`PYTHONPATH=. .venv/bin/python {tmp_path}/fast.py` — " in fast
    assert "load " in fast and " → " in fast and report.commit() in fast
    assert "```text\nvizad 1.0 ms   peer 2.0 ms   ratio 0.50\n```\n" in fast
    # a benchmark printing a fence is not cut by it
    assert "````text\n```\na line\n````\n" in report.kept(out)["fenced"]
    broken = report.kept(out)["broken"]
    assert "**failed** (exit status 3)" in broken and "half a table" in broken
    assert text.index("`fast`") < text.index("`fenced`") < text.index("`broken`")


def test_only_replaces_its_sections_and_keeps_the_others(report, tmp_path, monkeypatch):
    out = tmp_path / "benchmarks.md"
    report.main(["--output", str(out)])
    before = report.kept(out)
    (tmp_path / "fast.py").write_text("print('vizad 0.5 ms   peer 2.0 ms   ratio 0.25')\n")
    assert report.main(["--only", "fast", "--output", str(out)]) == 0
    after = report.kept(out)
    assert "ratio 0.25" in after["fast"] and "ratio 0.50" not in out.read_text()
    assert after["fenced"] == before["fenced"] and after["broken"] == before["broken"]


def test_a_benchmark_past_its_time_is_written_as_timed_out(report, tmp_path, monkeypatch):
    (tmp_path / "slow.py").write_text("import time\nprint('started', flush=True)\ntime.sleep(30)\n")
    slow = report.Bench("slow", "The slow one", (str(tmp_path / "slow.py"),), "nothing", 1)
    monkeypatch.setattr(report, "BENCHES", (slow,))
    out = tmp_path / "benchmarks.md"
    assert report.main(["--output", str(out)]) == 1
    assert "**timed out** after 1 s" in report.kept(out)["slow"]


def test_the_real_list_names_every_script_of_bench(monkeypatch):
    module = _load(monkeypatch)
    run = {Path(b.args[0]).name for b in module.BENCHES}
    scripts = {p.name for p in (ROOT / "bench").glob("*.py") if not p.name.startswith("_")}
    # instructions.py compares two trees (about 20 minutes); report.py is this script
    assert run == scripts - {"instructions.py", "report.py"}
    assert len({b.name for b in module.BENCHES}) == len(module.BENCHES)
    assert sys.executable == module.BENCHES[0].command()[0]
