"""JAX's control flow as the loops and branches it runs: ``scan``, ``while`` and ``cond``
equations unrolled into the equations of their bodies.

``lax.scan`` (and ``fori_loop`` with static bounds, which JAX writes as a scan) runs its body
``length`` times: each time step becomes a scope ``scan t=1`` … ``scan t=T`` holding the
body's equations, so drawings fold the steps into one "× T" box that opens on click, and a
walkthrough steps backpropagation through time inside it. The slices ``xs[t]`` that the body
reads and the stack of its outputs ``ys`` are JAX's own ``index_in_dim`` and ``stack``
(``jax_backward`` slices with ``dynamic_index_in_dim``, t a value, as JAX's own scan does:
every time step is then the same equations, compiled once).
``lax.cond`` runs the branch that the example's predicate takes (scope ``cond: branch k``);
``while_loop`` runs its body while the predicate holds, at the example's values.

Both importers (``from_jax`` builds vizad nodes, ``jax_backward`` walks JAX's values) run the
same unrolling through a small interface, :class:`Runner`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from vizad.errors import BridgeError
from vizad.bridges.optional import require

if TYPE_CHECKING:  # pragma: no cover
    from jax.extend.core import ClosedJaxpr, JaxprEqn
    from numpy.typing import DTypeLike

jax = require("jax", "jax")
jnp = require("jax.numpy", "jax")

__all__ = ["CONTROL_FLOW", "MAX_ITERATIONS", "Runner", "dynamic_index", "unrolled"]

#: The primitives unrolled here.
CONTROL_FLOW = frozenset({"scan", "while", "cond"})
#: A while_loop running longer than this at the example's values is refused.
MAX_ITERATIONS = 10_000


class Runner(Protocol):
    """What unrolling needs of an importer."""

    def run(self, closed: Any, args: list) -> list:
        """The results of the closed jaxpr ``closed`` run on ``args`` (the importer's values)."""

    def concrete(self, value: Any) -> np.ndarray:
        """The example's value of one of the importer's values (a predicate, an index)."""

    def scoped(self, name: str) -> AbstractContextManager:
        """A context in which the equations run are grouped under ``name``."""

    def loop(self, kind: str) -> AbstractContextManager:
        """A context around the whole loop ``kind`` ("while")."""


def unrolled(eqn: JaxprEqn, args: list, runner: Runner) -> list:
    """The results of the control-flow equation ``eqn`` (scan, while, cond) on ``args``, its
    body's equations run by ``runner`` as many times as the example runs them."""
    name = eqn.primitive.name
    if name == "scan":
        return _scan(eqn, args, runner)
    if name == "cond":
        return _cond(eqn, args, runner)
    return _while(eqn, args, runner)


def _scan(eqn: JaxprEqn, args: list, runner: Runner) -> list:
    p = eqn.params
    n_consts, n_carry, length = p["num_consts"], p["num_carry"], p["length"]
    consts, carry, xs = (
        args[:n_consts],
        args[n_consts : n_consts + n_carry],
        args[n_consts + n_carry :],
    )
    x_avals = [v.aval for v in eqn.invars[n_consts + n_carry :]]
    y_avals = [v.aval for v in eqn.outvars[n_carry:]]
    steps = range(length - 1, -1, -1) if p["reverse"] else range(length)
    ys: list[list] = [[None] * length for _ in y_avals]
    for t in steps:
        with runner.scoped(f"scan t={t + 1}"):
            x_t = [_take(runner, x, t, a) for a, x in zip(x_avals, xs)]
            out = runner.run(p["jaxpr"], [*consts, *carry, *x_t])
        carry = out[:n_carry]
        for k, y in enumerate(out[n_carry:]):
            ys[k][t] = y
    stacked = [  # (a scan's results are arrays: their avals are ShapedArrays)
        runner.run(_stack(a.shape[1:], a.dtype, length), column)[0]  # type: ignore[attr-defined]
        for a, column in zip(y_avals, ys)
    ]
    return [*carry, *stacked]


def _take(runner: Runner, xs: Any, t: int, aval: Any) -> Any:
    """``xs[t]``: the runner's own way (``take``, when it has one: jax_backward slices with
    t as a value, so that every time step runs the same equations), else JAX's
    ``index_in_dim`` with t in its parameters."""
    take = getattr(runner, "take", None)
    if take is not None:
        return take(xs, t, aval)
    return runner.run(_index(aval.shape, aval.dtype, t), [xs])[0]


def _cond(eqn: JaxprEqn, args: list, runner: Runner) -> list:
    branches = eqn.params["branches"]
    index = int(np.clip(runner.concrete(args[0]), 0, len(branches) - 1))
    with runner.scoped(f"cond: branch {index}"):
        return runner.run(branches[index], list(args[1:]))


def _while(eqn: JaxprEqn, args: list, runner: Runner) -> list:
    p = eqn.params
    n_cond, n_body = p["cond_nconsts"], p["body_nconsts"]
    cond_consts, body_consts = args[:n_cond], args[n_cond : n_cond + n_body]
    carry = list(args[n_cond + n_body :])
    with runner.loop("while"):
        for t in _counted():
            (holds,) = runner.run(p["cond_jaxpr"], [*cond_consts, *carry])
            if not bool(runner.concrete(holds)):
                return carry
            with runner.scoped(f"while t={t + 1}"):
                carry = runner.run(p["body_jaxpr"], [*body_consts, *carry])
    raise AssertionError("unreachable")  # pragma: no cover


def _counted() -> Iterator[int]:
    for t in range(MAX_ITERATIONS + 1):
        if t == MAX_ITERATIONS:
            raise BridgeError(
                f"while_loop: still running after {MAX_ITERATIONS} iterations at the example's "
                "values; a loop this long cannot be drawn step by step"
            )
        yield t


@functools.lru_cache(maxsize=256)
def _index(shape: tuple, dtype: DTypeLike, t: int) -> ClosedJaxpr:
    """JAX's ``xs[t]`` (along the first axis) as a closed jaxpr."""
    return jax.make_jaxpr(lambda a: jax.lax.index_in_dim(a, t, keepdims=False))(
        jax.ShapeDtypeStruct(shape, dtype)
    )


@functools.lru_cache(maxsize=256)
def dynamic_index(shape: tuple, dtype: DTypeLike) -> ClosedJaxpr:
    """JAX's ``xs[t]`` (along the first axis) as a closed jaxpr of ``xs`` and ``t``."""
    return jax.make_jaxpr(lambda a, t: jax.lax.dynamic_index_in_dim(a, t, keepdims=False))(
        jax.ShapeDtypeStruct(shape, dtype), jax.ShapeDtypeStruct((), np.int32)
    )


@functools.lru_cache(maxsize=256)
def _stack(shape: tuple, dtype: DTypeLike, length: int) -> ClosedJaxpr:
    """JAX's ``jnp.stack`` of ``length`` arrays of ``shape`` as a closed jaxpr."""
    return jax.make_jaxpr(lambda *ys: jnp.stack(ys))(
        *(jax.ShapeDtypeStruct(shape, dtype) for _ in range(length))
    )
