"""The examples of the API reference: a public callable's docstring shows how to call it in an
``Examples:`` section of doctest lines (``>>>``), which the docs build runs as it renders the
page (docs/conf.py: an example that raises or whose output differs fails the build) and
tests/test_api_examples.py runs too. An example runs with ``vz`` (vizad) and ``np`` (numpy)
imported; one that imports a framework that is not installed (torch, jax) is skipped, and says
so. No side effect on import."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import inspect
import re
from typing import Any

from api_names import MODULES, public_names

#: How an example's output is compared: ``...`` stands for any text, spaces are spaces.
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

#: The public callables whose docstring has no example yet (each listed here is a debt: the
#: tests fail when one of them gains an example, so that it leaves this list).
PENDING: frozenset[str] = frozenset(
    """
    vizad.extend.register vizad.extend.register_adapter vizad.errors.GraphvizNotFoundError
    vizad.errors.LayoutTimeoutError vizad.errors.MissingExtraError vizad.errors.MissingNameError
    vizad.errors.OutputError vizad.errors.RenderError vizad.classroom.diagnosis.Printout
    vizad.classroom.diagnosis.Problem vizad.classroom.diagnosis.Replay
    vizad.classroom.diagnosis.adjoint_printout vizad.classroom.diagnosis.replay
    vizad.classroom.grading.Case vizad.classroom.grading.Submission
    """.split()
)

_IMPORT = re.compile(r"^\s*(?:import|from)\s+([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)


def public_callables() -> dict[str, Any]:
    """Each public callable once, by the name of its page: the first module (in MODULES'
    order) that lists it, as docs/conf.py gives it its page."""
    found: dict[str, Any] = {}
    seen: set[int] = set()
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in public_names(module_name):
            value = getattr(module, name)
            if callable(value) and id(value) not in seen:
                seen.add(id(value))
                found[f"{module_name}.{name}"] = value
    return found


def example(name: str, value: Any) -> doctest.DocTest | None:
    """The doctest of ``value``'s docstring (its ``>>>`` lines), None when it has none."""
    doc = inspect.getdoc(value) or ""
    globs = {"vz": importlib.import_module("vizad"), "np": importlib.import_module("numpy")}
    test = doctest.DocTestParser().get_doctest(doc, globs, name, None, 0)
    return test if test.examples else None


def missing_frameworks(test: doctest.DocTest) -> list[str]:
    """The top-level modules the example imports that are not installed."""
    wanted = {m for e in test.examples for m in _IMPORT.findall(e.source)}
    return sorted(m for m in wanted if importlib.util.find_spec(m) is None)


def run(name: str, value: Any) -> tuple[str, str]:
    """Run the example of ``value``: ("passed", ""), ("skipped", why), ("failed", doctest's
    report) or ("missing", why)."""
    test = example(name, value)
    if test is None:
        return "missing", f"{name}: its docstring has no example (an Examples: section of >>>)"
    absent = missing_frameworks(test)
    if absent:
        return "skipped", f"{name}: its example needs {', '.join(absent)}, not installed"
    out: list[str] = []
    runner = doctest.DocTestRunner(optionflags=FLAGS, verbose=False)
    result = runner.run(test, out=out.append, clear_globs=True)
    if result.failed:
        return "failed", "".join(out)
    return "passed", ""


if __name__ == "__main__":  # `python docs/api_examples.py`: the public callables with no example
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's vizad
    found = public_callables()
    missing = [name for name, value in found.items() if example(name, value) is None]
    sys.stdout.write(f"{len(missing)} of {len(found)} public callables have no example\n")
    sys.stdout.writelines(f"  {name}\n" for name in missing)
