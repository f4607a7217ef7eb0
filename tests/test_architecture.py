"""The package's imports keep import-linter's contracts (pyproject.toml: the wings' layers,
the engine's own layers, no display library or framework below the view), with no import
circle (but in classroom/courses/needle, which mirrors needle), and the committed diagram is
the code's."""

import functools
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("architecture", ROOT / "tools" / "architecture.py")
architecture = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(architecture)


def _lint_imports(root: Path) -> subprocess.CompletedProcess:
    lint = Path(sys.executable).with_name("lint-imports")
    return subprocess.run(
        [str(lint), "--no-logo", "--no-cache", "--config", str(root / "pyproject.toml")],
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
    )


@functools.cache
def _imports() -> dict:
    """The package's imports, read once for the tests that only read them."""
    return architecture.imports()


def test_import_linter_keeps_every_contract():
    done = _lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


@pytest.mark.heavy  # lint-imports in a process of its own, on a copy of the package
def test_import_linter_sees_an_import_against_the_layers(tmp_path):
    """The same contracts, on a copy of the package where the engine imports the view and the
    trace imports ipywidgets: both are broken (so the test above can fail)."""
    shutil.copytree(ROOT / "vizad", tmp_path / "vizad", ignore=shutil.ignore_patterns("static"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    with open(tmp_path / "vizad" / "engine" / "tree.py", "a") as f:
        f.write("\nfrom vizad.view.render import dot as _dot\n")
    with open(tmp_path / "vizad" / "trace" / "names.py", "a") as f:
        f.write("\nimport ipywidgets as _ipywidgets\n")
    out = _lint_imports(tmp_path).stdout
    assert "the wings: classroom over view and bridges, over trace, over engine BROKEN" in out
    assert "vizad.engine.tree -> vizad.view.render.dot" in out
    assert "import no display library and no framework BROKEN" in out
    assert "vizad.trace.names -> ipywidgets" in out


def test_no_import_circle_outside_compat_needle():
    assert architecture.circles(_imports()) == []


def test_the_check_sees_a_circle():
    """The circle check fails on a graph with a circle (so the test above can fail)."""
    edges = dict(_imports())
    edges["vizad.engine.extension"] = edges["vizad.engine.extension"] | {"vizad.engine.node"}
    assert architecture.circles(edges) == [["vizad.engine.extension", "vizad.engine.node"]]
    needle = {m: e for m, e in edges.items() if m.startswith("vizad.classroom.courses.needle")}
    assert needle and architecture.circles(needle) == []  # its own circle is allowed


def test_function_level_and_type_checking_imports_are_told_apart():
    edges = _imports()
    assert (
        "vizad.view.widget" in edges["vizad.classroom.diagnosis.report"]
    )  # imported inside step()
    assert "vizad.engine.op" not in edges["vizad.engine.node"]  # only for type hints


def test_the_committed_diagram_is_the_one_the_code_gives():
    table = architecture.layers()
    names = [name for name, _ in architecture.layer_rows()]
    made = architecture.diagram(_imports(), table, names)
    assert architecture.DIAGRAM.read_text(encoding="utf-8") == made, (
        "run `.venv/bin/python tools/architecture.py` and commit docs/architecture.dot/.svg"
    )


def test_no_import_is_placed_to_dodge_a_loop():
    marked = [
        f"{path.relative_to(ROOT)}:{k}"
        for path in sorted((ROOT / "vizad").rglob("*.py"))
        for k, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if "PLC0415" in line or ("noqa: E402" in line and "import" in line)
    ]
    allowed = {
        "vizad/classroom/courses/needle/autograd.py"
    }  # needle's own circle: autograd <-> ops
    assert [m for m in marked if m.split(":")[0] not in allowed] == []
