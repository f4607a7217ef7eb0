"""The package's imports follow the layers of docs/architecture.md, with no import circle
(but in compat/needle, which mirrors needle), and the committed diagram is the code's."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("architecture", ROOT / "tools" / "architecture.py")
architecture = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(architecture)


def test_every_import_goes_down_the_layer_list():
    problems = architecture.against_the_layers(architecture.imports(), architecture.layers())
    assert not problems, "\n".join(problems)


def test_no_import_circle_outside_compat_needle():
    assert architecture.circles(architecture.imports()) == []


def test_the_checks_see_an_import_against_the_layers_and_a_circle():
    """The two checks fail on a graph that breaks them (so the tests above can fail)."""
    edges = architecture.imports()
    edges["vizad.node"] = edges["vizad.node"] | {"vizad.render.dot"}
    problems = architecture.against_the_layers(edges, architecture.layers())
    assert problems == ["vizad.node imports vizad.render.dot, a layer above it"]
    edges = architecture.imports()
    edges["vizad.extension"] = edges["vizad.extension"] | {"vizad.node"}
    assert architecture.circles(edges) == [["vizad.extension", "vizad.node"]]
    needle = {m: e for m, e in edges.items() if m.startswith("vizad.compat.needle")}
    assert needle and architecture.circles(needle) == []  # its own circle is allowed


def test_function_level_and_type_checking_imports_are_told_apart():
    edges = architecture.imports()
    assert "vizad.widget" in edges["vizad.diagnosis.report"]  # imported inside step()
    assert "vizad.op" not in edges["vizad.node"]  # only for type hints


def test_the_committed_diagram_is_the_one_the_code_gives():
    table = architecture.layers()
    names = [name for name, _ in architecture.layer_rows()]
    made = architecture.diagram(architecture.imports(), table, names)
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
    allowed = {"vizad/compat/needle/autograd.py"}  # needle's own circle: autograd <-> ops
    assert [m for m in marked if m.split(":")[0] not in allowed] == []
