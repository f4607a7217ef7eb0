"""Small student engines for the tests of vz.diagnose and vz.grade: correct ones
(``student599`` in the CSE 599W style, ``needlish`` in needle's, ``minigrad`` in micrograd's),
and copies with one bug seeded each (made by replacing one marked line of the source), loaded
the three ways students load their code: imported, by importlib without ``sys.modules``, or
pasted into ``__main__`` (a notebook)."""

from __future__ import annotations

import importlib.util
import linecache
import sys
import tempfile
import types
from pathlib import Path

HERE = Path(__file__).parent

#: How a student's code is loaded: imported (in sys.modules), by importlib's spec without
#: sys.modules, or pasted into a notebook (run as __main__).
MODES = ("import", "importlib", "main")


def source(base: str, *replacements: tuple[str, str]) -> str:
    """The source of tests/classroom/engines/<base>.py with lines replaced (each must be there)."""
    text = (HERE / f"{base}.py").read_text()
    for old, new in replacements:
        assert old in text, old
        text = text.replace(old, new)
    return text


def write(base: str, name: str, *replacements: tuple[str, str]) -> Path:
    """The engine, with its replacements, as the file <name>.py of a new directory."""
    path = Path(tempfile.mkdtemp()) / f"{name}.py"
    path.write_text(source(base, *replacements))
    return path


def load(base: str, name: str, *replacements: tuple[str, str], mode: str = "import"):
    """The engine ``base`` with lines replaced, loaded as ``mode`` says (see MODES): a module,
    or for "main" the namespace of the code run as ``__main__`` (its ``__file__`` the name
    its tracebacks give)."""
    path = write(base, name, *replacements)
    if mode == "import":
        module = types.ModuleType(name)
        module.__file__ = str(path)
        sys.modules[name] = module
        exec(compile(path.read_text(), str(path), "exec"), module.__dict__)
        return module
    if mode == "importlib":
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        assert name not in sys.modules
        return module
    if mode == "main":  # as IPython runs a cell: a made-up file name, its lines in linecache
        text, cell = path.read_text(), f"<ipython-input-{name}>"
        linecache.cache[cell] = (len(text), None, text.splitlines(keepends=True), cell)
        namespace = {"__name__": "__main__"}
        exec(compile(text, cell, "exec"), namespace)
        return types.SimpleNamespace(**namespace, __file__=cell)
    raise ValueError(mode)


def line_of(engine, text: str) -> int:
    """The line of a loaded engine where ``text`` first is."""
    lines = linecache.getlines(engine.__file__) or Path(engine.__file__).read_text().splitlines()
    return next(k for k, line in enumerate(lines, 1) if text in line)


def softsign_op(mg):
    """softsign(v) for a micrograd-style engine ``mg``: an op of a text vizad does not know
    (x / (1 + |x|)), with its _backward."""

    def softsign(value):
        out = mg.Value(value.data / (1 + abs(value.data)), (value,), "softsign")

        def _backward():
            value.grad += out.grad / (1 + abs(value.data)) ** 2

        out._backward = _backward
        return out

    return softsign
