"""The public API is annotated: every parameter and every return of every public callable
(the front door's names and lazy names, vizad.extend, vizad.engine.ops, vizad.trace, vizad.errors,
and the public methods of the public classes). A new public function without annotations
fails here; ``make typecheck`` (mypy, configured in pyproject.toml) checks them, and every
module of STRICT_PACKAGES (the op modules, the bridges) with every function annotated: a module
left out of that configuration fails here too."""

from __future__ import annotations

import dataclasses
import fnmatch
import inspect
from pathlib import Path

import pytest

import vizad
import vizad.errors
import vizad.extend
import vizad.engine.ops
import vizad.trace

#: Public callables still unannotated, each with who owns its module (the lead removes an
#: entry when its owner's branch annotates it; a stale entry fails below).
PENDING: dict[str, str] = {}

#: Packages whose every module mypy checks (``make typecheck``) with every function annotated
#: (disallow_untyped_defs): the op classes' rules, and the bridges to PyTorch and JAX.
STRICT_PACKAGES = ("vizad/engine/ops", "vizad/bridges")
ROOT = Path(__file__).resolve().parent.parent


def _public_objects():
    for name in [*vizad.__all__, *vizad._LAZY]:
        yield getattr(vizad, name)
    for module in (vizad.extend, vizad.engine.ops, vizad.trace):
        for name in module.__all__:
            yield getattr(module, name)
    for name, value in vars(vizad.errors).items():
        if not name.startswith("_") and getattr(value, "__module__", "") == "vizad.errors":
            yield value


def _functions(obj):
    """(qualified name, function) of ``obj`` if it is a function, of its public methods and
    properties (and ``__init__``) if it is a class, of its ``__call__`` if it is an op (the
    op classes' rules are not called by users: they implement the annotated Op protocol)."""
    if inspect.isclass(obj):
        generated = dataclasses.is_dataclass(obj) and obj.__dataclass_params__.init
        for attr, f in vars(obj).items():
            if attr.startswith("_") and attr not in ("__init__", "__call__"):
                continue
            if attr == "__init__" and generated:
                continue  # written by dataclasses from the annotated fields
            if isinstance(f, (staticmethod, classmethod)):
                f = f.__func__
            if isinstance(f, property):
                f = f.fget
            if inspect.isfunction(f):
                yield f"{f.__module__}.{f.__qualname__}", f
    elif inspect.isfunction(obj):
        yield f"{obj.__module__}.{obj.__qualname__}", obj
    elif callable(obj) and type(obj).__module__.startswith("vizad"):  # an op: its call
        call = type(obj).__call__
        yield f"{call.__module__}.{call.__qualname__}", call


def _unannotated(f) -> list[str]:
    sig = inspect.signature(f)
    missing = [
        p.name
        for p in sig.parameters.values()
        if p.annotation is p.empty and p.name not in ("self", "cls")
    ]
    if sig.return_annotation is sig.empty:
        missing.append("return")
    return missing


def _report() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for obj in _public_objects():
        for name, f in _functions(obj):
            missing = _unannotated(f)
            if missing:
                found[name] = missing
    return found


def test_every_public_callable_is_annotated():
    found = _report()
    new = {name: missing for name, missing in found.items() if name not in PENDING}
    assert not new, "public callables without annotations (parameter or return):\n" + "\n".join(
        f"  {name}: {', '.join(missing)}" for name, missing in sorted(new.items())
    )
    stale = sorted(set(PENDING) - set(found))
    assert not stale, f"annotated now: remove from PENDING in tests/test_typing.py: {stale}"


def test_the_check_sees_a_missing_annotation():
    def public(a, b: int = 1):
        return a

    assert _unannotated(public) == ["a", "return"]
    assert list(_functions(public)) == [(f"{__name__}.{public.__qualname__}", public)]

    class Public:
        def method(self, x: int) -> int:
            return x

        @property
        def value(self):
            return 1

    names = {name.rsplit(".", 1)[-1]: _unannotated(f) for name, f in _functions(Public)}
    assert names == {"method": [], "value": ["return"]}


def test_the_check_covers_the_public_surface():
    names = {name for obj in _public_objects() for name, _ in _functions(obj)}
    for expected in (
        "vizad.view.export.export_html",
        "vizad.view.widget.stepper.Stepper.__init__",
        "vizad.engine.ops.tensor.matmul",
        "vizad.engine.op.Op.__call__",
        "vizad.trace.records.Contribution.partial",
        "vizad.errors.GradcheckError.__init__",
        "vizad.engine.adapters.register_adapter",
    ):
        assert expected in names


def test_operators_and_methods_are_declared_on_the_classes():
    """Type checkers and IDEs read the class bodies: Node's operators and an eager node's
    backward() and detach() are declared there (calling the functions the op modules
    register), not attached from other modules at import."""
    from vizad.engine.eager import EagerNode
    from vizad.engine.node import Node

    operators = ["__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__"]
    operators += ["__truediv__", "__rtruediv__", "__pow__", "__matmul__", "__rmatmul__"]
    operators += ["__neg__", "__pos__", "__getitem__"]
    for name in operators:
        assert inspect.isfunction(vars(Node).get(name)), name
        assert vars(Node)[name].__module__ == "vizad.engine.node", name
    for name in ("backward", "detach"):
        assert inspect.isfunction(vars(EagerNode).get(name)), name
        assert vars(EagerNode)[name].__module__ == "vizad.engine.eager", name


def _mypy_config() -> dict:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        tomllib = pytest.importorskip("tomli")
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]


def _strict(config: dict) -> list[str]:
    """The module patterns of the overrides that require every function annotated."""
    patterns: list[str] = []
    for override in config.get("overrides", []):
        if override.get("disallow_untyped_defs") and override.get("disallow_incomplete_defs"):
            modules = override["module"]
            patterns += [modules] if isinstance(modules, str) else modules
    return patterns


def _unchecked(config: dict) -> list[str]:
    """The modules of STRICT_PACKAGES that mypy does not check, or checks without requiring
    every function annotated."""
    files, strict = set(config["files"]), _strict(config)
    missing = []
    for package in STRICT_PACKAGES:
        for path in sorted((ROOT / package).glob("*.py")):
            file = path.relative_to(ROOT).as_posix()
            module = file.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
            if file not in files:
                missing.append(f"{file} (not in [tool.mypy] files)")
            elif not any(fnmatch.fnmatchcase(module, p) for p in strict):
                missing.append(f"{module} (not in the disallow_untyped_defs override)")
    return missing


def test_the_strict_packages_are_checked_strictly():
    """Every module of STRICT_PACKAGES is in mypy's files and in the override that
    requires every function annotated (a new module, or one taken out, fails here)."""
    missing = _unchecked(_mypy_config())
    assert not missing, "add to pyproject.toml's [tool.mypy]:\n" + "\n".join(missing)


def test_the_strictness_check_sees_a_module_left_out():
    config = _mypy_config()
    files = [f for f in config["files"] if f != "vizad/engine/ops/tensor.py"]
    assert _unchecked({**config, "files": files}) == [
        "vizad/engine/ops/tensor.py (not in [tool.mypy] files)"
    ]
    overrides = [
        {**o, "module": [m for m in o["module"] if m != "vizad.engine.ops.nn"]}
        for o in config["overrides"]
    ]
    assert _unchecked({**config, "overrides": overrides}) == [
        "vizad.engine.ops.nn (not in the disallow_untyped_defs override)"
    ]
    files = [f for f in config["files"] if f != "vizad/bridges/jax_args.py"]
    assert _unchecked({**config, "files": files}) == [
        "vizad/bridges/jax_args.py (not in [tool.mypy] files)"
    ]
