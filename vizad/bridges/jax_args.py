"""The arguments of a JAX function as its users pass them: pytrees of arrays.

A Flax or optax user calls ``loss(params, x, y)`` with ``params`` a dict (a list, a
NamedTuple, a registered dataclass …) of arrays, and marks Python values with
``static_argnums``/``static_argnames``. :class:`Arguments` flattens the dynamic arguments with
JAX's own ``tree_util`` into one array per leaf, names each leaf by its path as
``jax.tree_util.keystr`` writes it after the parameter's name (``params['W1']``,
``params.layers[0].b``), gives the function of the leaves that JAX traces, and lays one value
per leaf back out as the arguments were given (gradients in the structure of the parameters).
"""

from __future__ import annotations

import operator
from contextlib import ExitStack
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from vizad.errors import ArgumentTypeError
from vizad.bridges.imported import argument_names
from vizad.bridges.jax_keys import is_key
from vizad.bridges.optional import require

jax = require("jax", "jax")
tree_util = require("jax.tree_util", "jax")

__all__ = ["Arguments"]


class Arguments:
    """``fn``'s example arguments: the dynamic ones flattened into ``leaves`` (numpy arrays)
    named ``names``; the static ones (``static_argnums``, and every keyword argument: JAX
    differentiates positional arguments only) held fixed."""

    def __init__(
        self,
        fn: Callable,
        args: Sequence[Any],
        kwargs: dict[str, Any],
        static_argnums: int | Sequence[int],
        static_argnames: str | Sequence[str],
        what: str,
    ) -> None:
        self.fn, self.kwargs, self.what = fn, dict(kwargs), what
        self.static = _positions(static_argnums, len(args), what)
        for name in [static_argnames] if isinstance(static_argnames, str) else static_argnames:
            if not isinstance(name, str):
                raise ArgumentTypeError(f"{what}: static_argnames must be strings, got {name!r}")
        self.args = list(args)
        parameters = argument_names(fn, len(args))
        self.dynamic = [k for k in range(len(args)) if k not in self.static]
        with_paths, self.treedef = tree_util.tree_flatten_with_path(
            tuple(args[k] for k in self.dynamic)
        )
        #: Every leaf's name and value; ``held``: the positions of random keys among them,
        #: held fixed (constants of the trace, as a static argument is; see jax_keys).
        self._names: list[str] = []
        self._flat: list[Any] = []
        self.held: set[int] = set()
        #: Whether the function runs under ``jax.ensure_compile_time_eval`` (what its keys
        #: give computed while tracing), and, with ``inline``, ``jax.disable_jit`` too (keys
        #: used in a lax loop or a nested jit: the loop run in Python, the jit inlined).
        self.fold = self.inline = False
        for path, leaf in with_paths:
            name = parameters[self.dynamic[path[0].idx]] + tree_util.keystr(path[1:])
            self._names.append(name)
            if is_key(leaf):
                self.held.add(len(self._flat))
                self._flat.append(leaf)
            else:
                self._flat.append(_array(leaf, name, what))

    @property
    def names(self) -> list[str]:
        """The names of the leaves that are inputs (not held)."""
        return [n for k, n in enumerate(self._names) if k not in self.held]

    @property
    def leaves(self) -> list[np.ndarray]:
        """The leaves that are inputs, as numpy arrays."""
        return [a for k, a in enumerate(self._flat) if k not in self.held]

    def hold_keys(self, positions: Sequence[int]) -> None:
        """Hold the inputs at ``positions`` (among :attr:`leaves`: the uint32 data a key is
        made from) fixed, and trace the function with what its keys give computed."""
        free = [k for k in range(len(self._flat)) if k not in self.held]
        self.held.update(free[p] for p in positions)
        self.fold = True

    @property
    def x64(self) -> bool:
        """Whether a leaf is 64-bit floating (the function then runs in JAX's 64-bit mode)."""
        return any(a.dtype.itemsize == 8 and a.dtype.kind in "fc" for a in self.leaves)

    def canonicalize(self) -> None:
        """The leaves as ``jnp.asarray`` makes them outside 64-bit mode (float64 as float32,
        int64 as int32)."""
        self._flat = [
            a if k in self.held else a.astype(jax.dtypes.canonicalize_dtype(a.dtype), copy=False)
            for k, a in enumerate(self._flat)
        ]

    def function(self) -> Callable:
        """``fn`` as a function of the leaves (what JAX traces)."""

        def of_leaves(*leaves: Any) -> Any:
            full = list(self.args)
            given = tree_util.tree_unflatten(self.treedef, self._all(leaves))
            for k, value in zip(self.dynamic, given):
                full[k] = value
            with ExitStack() as stack:
                if self.fold:
                    stack.enter_context(jax.ensure_compile_time_eval())
                if self.inline:
                    stack.enter_context(jax.disable_jit())
                return self.fn(*full, **self.kwargs)

        return of_leaves

    def tree(self, values: Sequence[Any]) -> tuple:
        """One value per leaf laid out as the dynamic arguments were given: a tuple with one
        entry per dynamic argument (a dict for a dict of parameters …), as
        ``jax.grad(fn, argnums=...)`` gives gradients."""
        if len(values) != len(self.leaves):
            raise ArgumentTypeError(
                f"{self.what}: give one value per input ({len(self.leaves)}), got {len(values)}"
            )
        held = {k: None for k in self.held}  # (a key has no gradient)
        return tuple(tree_util.tree_unflatten(self.treedef, self._all(values, held)))

    def _all(self, values: Sequence[Any], held: dict[int, Any] | None = None) -> list:
        """One value per leaf: ``values`` at the inputs, the held keys (or ``held``'s) at
        theirs."""
        given = iter(values)
        return [
            (self._flat[k] if held is None else held[k]) if k in self.held else next(given)
            for k in range(len(self._flat))
        ]


def _positions(static: int | Sequence[int], count: int, what: str) -> frozenset[int]:
    """``static_argnums`` as positions in 0 … count-1 (negative ones from the end)."""
    given = [static] if isinstance(static, int) else list(static)
    out = set()
    for k in given:
        try:
            k = operator.index(k)
        except TypeError:
            raise ArgumentTypeError(f"{what}: static_argnums must be ints, got {k!r}") from None
        if not -count <= k < count:
            raise ArgumentTypeError(
                f"{what}: static_argnums {k} is out of range for {count} arguments"
            )
        out.add(k % count)
    return frozenset(out)


def _array(leaf: Any, name: str, what: str) -> np.ndarray:
    """A leaf as a numpy array (a BridgeError-like ArgumentTypeError naming its path when it
    is not numeric: mark such an argument static)."""
    try:
        value = np.array(leaf)
    except Exception:
        value = None
    if value is None or value.dtype.kind not in "biufc":
        raise ArgumentTypeError(
            f"{what}: {name} is a {type(leaf).__name__}, not an array or a number; give "
            "arrays (a dict, list, tuple or NamedTuple of them) or mark the argument static "
            "(static_argnums=...)"
        )
    return value
