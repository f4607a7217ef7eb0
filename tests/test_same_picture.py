"""The same cell gives the same picture on every machine: the layout rung depends on the graph,
never on the load (a layout is stopped by its CPU time, and a stopped one falls back to the rung
chosen for a slow machine, remembered per graph). Run for real: beside busy processes."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import vizad as vz
from vizad.view.render import budget
from vizad.view.render.summary import scene_for

ROOT = Path(__file__).resolve().parents[1]

#: What the cell draws: the weight-shared chain's adjoint view (its rung flipped with the load:
#: bounded when quiet, folded when busy) and the README's MLP, laid out by dot.
CELL = """
import hashlib, json, vizad as vz
out = {}
for name, trace in (("rnn45", vz.examples.rnn(45)), ("mlp", vz.examples.mlp())):
    layout = vz.render.Layout(trace, "adjoint", in_browser=False)
    out[name] = [layout.scene.note, hashlib.sha256(layout.dot_source.encode()).hexdigest()]
print(json.dumps(out))
"""


def _cell() -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "VIZAD_LAYOUT": "dot"}
    done = subprocess.run(
        [sys.executable, "-c", CELL], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


@pytest.mark.slow  # runs the cell in child interpreters, idle and beside busy processes
def test_the_same_cell_idle_and_beside_busy_processes_gives_the_same_picture():
    quiet = _cell()
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        loaded = _cell()
    finally:
        for p in busy:
            p.kill()
            p.wait()
    assert loaded == quiet  # the same rung (the note says which) and byte-identical DOT
    assert "nodes summarised" not in quiet["rnn45"][0]


@pytest.fixture
def dot_that(tmp_path, monkeypatch):
    """Put a ``dot`` on PATH that runs ``prefix`` (shell) first, then the real dot on a DOT
    with nslimit (a bounded rung) and on any DOT when ``always``."""
    real = next(
        str(Path(d) / "dot")
        for d in os.environ["PATH"].split(os.pathsep)
        if (Path(d) / "dot").is_file()
    )
    monkeypatch.setattr(budget, "_CHOSEN", {})
    monkeypatch.setenv("VIZAD_LAYOUT", "dot")
    runs = tmp_path / "runs"

    def make(prefix: str) -> Path:
        script = tmp_path / "bin" / "dot"
        script.parent.mkdir(exist_ok=True)
        script.write_text(
            "#!/bin/sh\n"
            f'input=$(cat); echo x >> {runs}; case "$input" in *nslimit*) ;; *) {prefix};; esac; '
            f'printf "%s" "$input" | {real} "$@"\n'
        )
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
        monkeypatch.setenv("PATH", f"{script.parent}{os.pathsep}{os.environ['PATH']}")
        return runs

    return make


@pytest.mark.heavy  # dot run until stopped by its budget
def test_a_layout_slow_by_the_clock_but_not_by_its_cpu_time_is_kept(dot_that):
    """A dot that waits 1.5 s (as on a busy machine) and computes little is not stopped at
    kill_after(0.5) = 1 s: what counts is the CPU time it spends."""
    dot_that("sleep 1.5")
    layout = vz.render.Layout(vz.examples.lecture(), "adjoint", budget=0.5)
    assert layout.scene.layout == {} and "stopped" not in layout.scene.note


@pytest.mark.heavy  # dot run until stopped by its budget
def test_a_layout_that_computes_too_long_falls_back_and_the_choice_is_kept(dot_that):
    """A dot that burns CPU is stopped by its CPU limit; the rung chosen instead is the slow
    machine's, and a re-run of the same graph lays that rung out directly (same picture,
    same note) without trying the full layout again."""
    runs = dot_that("while :; do :; done")
    first = vz.render.Layout(vz.examples.lecture(), "adjoint", budget=0.5)
    assert first.scene.layout == budget.BOUNDED
    assert "the full layout was stopped after 1 s" in first.scene.note
    assert len(runs.read_text().split()) == 2
    again = vz.render.Layout(vz.examples.lecture(), "adjoint", budget=0.5)
    assert again.dot_source == first.dot_source
    assert len(runs.read_text().split()) == 3  # only the bounded rung, this time


def test_the_fallback_is_the_rung_a_slow_machine_would_choose():
    """The weight-shared chain: bounded here; on a machine four times slower, folded."""
    chain = scene_for(vz.examples.rnn(45), "adjoint", 3)
    assert next(budget.ladder(chain))[0] == "bounded"
    assert budget._slow_rung(chain, budget.LAYOUT_BUDGET, "bounded") == "folded"
    assert budget._slow_rung(chain, budget.LAYOUT_BUDGET, "folded") == "summary"
    key = budget.scene_key(chain, 2.0)
    assert key == budget.scene_key(scene_for(vz.examples.rnn(45), "adjoint", 3), 2.0)
    assert key != budget.scene_key(chain, 1.0)
