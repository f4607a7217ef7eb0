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
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from vizad.errors import ArgumentTypeError
from vizad.bridges.imported import argument_names
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
        self.names: list[str] = []
        self.leaves: list[np.ndarray] = []
        for path, leaf in with_paths:
            name = parameters[self.dynamic[path[0].idx]] + tree_util.keystr(path[1:])
            self.names.append(name)
            self.leaves.append(_array(leaf, name, what))

    @property
    def x64(self) -> bool:
        """Whether a leaf is 64-bit floating (the function then runs in JAX's 64-bit mode)."""
        return any(a.dtype.itemsize == 8 and a.dtype.kind in "fc" for a in self.leaves)

    def canonicalize(self) -> None:
        """The leaves as ``jnp.asarray`` makes them outside 64-bit mode (float64 as float32,
        int64 as int32)."""
        self.leaves = [
            a.astype(jax.dtypes.canonicalize_dtype(a.dtype), copy=False) for a in self.leaves
        ]

    def function(self) -> Callable:
        """``fn`` as a function of the leaves (what JAX traces)."""

        def of_leaves(*leaves: Any) -> Any:
            full = list(self.args)
            for k, value in zip(self.dynamic, tree_util.tree_unflatten(self.treedef, leaves)):
                full[k] = value
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
        return tuple(tree_util.tree_unflatten(self.treedef, list(values)))


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
