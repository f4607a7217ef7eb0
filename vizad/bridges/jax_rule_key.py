"""A cache key for the Python rules of a ``jax.custom_jvp``/``jax.custom_vjp`` function.

The equation of a custom function carries its rules as Python code (JAX's ``WrappedFun`` of
the user's ``fwd``/``bwd``/jvp rule, wrapped in JAX's own flattening closures, remade at every
trace). ``vz.jax_backward`` compiles and keeps its programs by key, and JAX traces a rule only
when a program is compiled; so the key of a rule must hold everything that tracing it could
read: the rule's code, its default arguments, the values it closes over and the globals its
code names (numbers, strings, arrays by value; lists, tuples and dicts item by item; functions
it calls the same way, recursively), and the static arguments JAX's wrappers hold (tree
structures, ``nondiff_argnums`` values). Code that does not change (modules, classes, JAX's
and numpy's functions) is keyed by identity, JAX's own machinery (the trace a rule is traced
into, the stores its results go to, a memo) is left out. Anything else (an object whose state
the rule might read) has no key: :class:`NoKey`, and the function is not cached.

A rule that changes what it computes through such a value is then traced again, as JAX's
eager ``jax.grad`` would; a rule whose values are the same reuses the compiled programs and is
not traced again (as under ``jax.jit``).
"""

from __future__ import annotations

import enum
import functools
import sys
import types
from collections.abc import Hashable, Iterator
from typing import Any

import numpy as np

from vizad.bridges.optional import require

jax = require("jax", "jax")

__all__ = ["NoKey", "rule_key"]

#: How many values one key may visit before the function is left uncached (a rule reading a
#: large structure costs more to key than to trace).
_BUDGET = 10_000

#: The largest array a key holds by value (a rule reading a larger one is not cached: copying
#: it at every call would cost more than tracing the rule).
_MAX_BYTES = 1 << 22

#: Libraries whose functions are keyed by identity (their code does not change).
_LIBRARIES = frozenset({"numpy", "scipy", "jax", "jaxlib", "opt_einsum", "ml_dtypes"})

#: JAX's machinery inside its wrappers of a rule: not part of what the rule computes.
_MACHINERY = frozenset({"DynamicJaxprTrace", "EqualStore", "Store", "JaxprTrace"})

_PLAIN = (int, float, complex, str, bytes, bool, type(None), np.dtype, np.generic, enum.Enum)


class NoKey(Exception):
    """A value a rule reads that cannot be part of a key (its function is not cached)."""


def rule_key(value: Any) -> Hashable:
    """The key of ``value``: a rule (a function, JAX's ``WrappedFun`` of one, a
    ``functools.partial``) or a value it reads. Raises :class:`NoKey` when there is none."""
    return _Keys().key(value)


class _Keys:
    """One key's walk: the functions seen (a recursive rule refers to itself by its place)
    and the values visited so far (against :data:`_BUDGET`)."""

    def __init__(self) -> None:
        self.seen: dict[int, int] = {}
        self.held: list[Any] = []  # the functions seen, so that their ids stay theirs
        self.visited = 0

    def key(self, value: Any) -> Hashable:
        self.visited += 1
        if self.visited > _BUDGET:
            raise NoKey
        if isinstance(value, _PLAIN):
            return (type(value).__name__, value)  # 1, 1.0 and True trace differently
        if isinstance(value, (np.ndarray, jax.Array)):
            try:
                array = np.asarray(value)
            except Exception:  # a tracer (a rule closing over a traced value): no value
                raise NoKey from None
            if array.nbytes > _MAX_BYTES:
                raise NoKey
            return ("array", array.dtype.str, array.shape, array.tobytes())
        if isinstance(value, (tuple, list, frozenset, set)):
            items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
            return (type(value).__name__, tuple(self.key(v) for v in items))
        if isinstance(value, dict):
            return ("dict", tuple((self.key(k), self.key(v)) for k, v in value.items()))
        if isinstance(value, (types.ModuleType, type)):
            return ("code", value)
        if isinstance(value, types.FunctionType):
            return self._function(value)
        if isinstance(value, functools.partial):
            return ("partial", self.key(value.func), self.key(value.args), self.key(value.keywords))
        if isinstance(value, types.MethodType):
            return ("method", self.key(value.__func__), self.key(value.__self__))
        if isinstance(value, types.BuiltinFunctionType):
            owner = value.__self__
            if owner is None or isinstance(owner, types.ModuleType):
                return ("code", value)
            return ("builtin", value.__name__, self.key(owner))
        kind = type(value).__name__
        if kind == "WrappedFun":
            transforms = tuple((self.key(t), self.key(args)) for t, args in value.transforms)
            return ("wrapped", self.key(value.f), transforms, self.key(value.params))
        if kind in ("Unhashable", "Hashable") and type(value).__module__ == "jax._src.util":
            # JAX's box of a static argument (custom_jvp's nondiff_argnums): by its value
            return (kind, self.key(value.val))
        if kind in ("custom_jvp", "custom_vjp"):  # a custom function: its code and rules
            state = {k: v for k, v in vars(value).items() if not k.startswith("_")}
            return (kind, self.key(state))
        return self._library_value(value)

    def _function(self, fn: types.FunctionType) -> Hashable:
        place = self.seen.get(id(fn))
        if place is not None:
            return ("seen", place)
        self.seen[id(fn)] = len(self.seen)
        self.held.append(fn)
        module = (fn.__module__ or "").split(".")[0]
        if module in ("jax", "jaxlib"):  # JAX's wrapper of a rule: its code and what it holds
            cells = tuple(self._wrapper_cell(c) for c in fn.__closure__ or ())
            return ("jax", fn.__code__, cells)
        if (module in _LIBRARIES or module in sys.stdlib_module_names) and not fn.__closure__:
            return ("code", fn)
        names = sorted(set(_global_names(fn.__code__)) & set(fn.__globals__))
        return (
            "function",
            fn.__code__,
            self.key(fn.__defaults__),
            self.key(fn.__kwdefaults__),
            tuple(self.key(_contents(c)) for c in fn.__closure__ or ()),
            tuple((name, self.key(fn.__globals__[name])) for name in names),
        )

    def _wrapper_cell(self, cell: types.CellType) -> Hashable:
        value = _contents(cell)
        if type(value).__name__ in _MACHINERY or type(value) is object or isinstance(value, dict):
            return None  # the trace, a store, a sentinel, a memo: machinery
        return self.key(value)

    def _library_value(self, value: Any) -> Hashable:
        """JAX's and numpy's own values (tree structures, shapes, debug information, jitted
        functions): by value, as they hash."""
        module = (type(value).__module__ or "").split(".")[0]
        if module not in ("jax", "jaxlib", "numpy"):
            raise NoKey
        try:
            hash(value)
        except TypeError:
            raise NoKey from None
        return ("value", value)


def _contents(cell: types.CellType) -> Any:
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell: a name not bound yet
        return None


def _global_names(code: types.CodeType) -> Iterator[str]:
    """The names ``code`` and the code nested in it (lambdas, comprehensions) may read as
    globals (attribute names too: a superset)."""
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _global_names(const)
