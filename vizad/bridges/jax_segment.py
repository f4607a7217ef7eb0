"""The pieces of ``vz.jax_backward``'s program: one per run of equations in one scope.

A scan of T steps, unrolled, is T copies of its body; compiled as one program it costs XLA T
times the body's compile time. So :class:`~vizad.bridges.jax_program.Plan` cuts the flat
equations into segments (the equations between loops, each time step of a loop), and each
segment is two small programs: :class:`Forward` (its equations' values, from the values it
reads) and :class:`Backward` (its equations' vjps, in reverse, from the forward values they
read and the partial adjoints that reach its results from later segments; giving back what the
walkthrough shows, packed one flat buffer per dtype, and the partial adjoints that earlier
segments sum). Programs are cached by :func:`executable` under a key made of everything they
compute with, so the time steps of a scan share one compiled forward and one backward.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from vizad.bridges.jax_import import bind_params
from vizad.bridges.optional import require

if TYPE_CHECKING:  # pragma: no cover
    from jax.extend.core import JaxprEqn

    from vizad.bridges.jax_backward import _Eqn as Eqn

jax = require("jax", "jax")
jnp = require("jax.numpy", "jax")

__all__ = ["Backward", "Forward", "executable"]

#: Compiled programs by key; the oldest is dropped past the limit.
_EXECUTABLES: dict[Hashable, Callable] = {}
_MAX_EXECUTABLES = 1024
#: XLA options for a piece: LLVM's expensive passes off (they double the compile time of
#: programs this small); the backend's optimization level kept, so that the results are JAX's
#: op-by-op ones bit for bit where XLA can (at level 0, ``logistic`` differs by an ulp).
_QUICK = {"xla_llvm_disable_expensive_passes": True}


def executable(key: Hashable | None, program: Callable) -> Callable:
    """``program`` compiled (once per ``key``, and kept), or ``program`` itself, run op by op,
    when ``key`` is None (it computes with something that cannot be a key)."""
    if key is None:
        return program
    made = _EXECUTABLES.get(key)
    if made is None:
        if len(_EXECUTABLES) >= _MAX_EXECUTABLES:
            del _EXECUTABLES[next(iter(_EXECUTABLES))]
        made = _EXECUTABLES[key] = jax.jit(program, compiler_options=_QUICK)
    return made


class _Local:
    """Slots renumbered for one piece: its arguments first, then what it makes; ``avals``
    (shape, dtype) of each."""

    def __init__(
        self, arguments: Sequence[int], shapes: Sequence[tuple], dtypes: Sequence[Any]
    ) -> None:
        self.ids: dict[int, int] = {}
        self.avals: list[tuple] = []
        self._shapes, self._dtypes = shapes, dtypes
        for v in arguments:
            self.add(v)

    def add(self, v: int) -> int:
        if v not in self.ids:
            self.ids[v] = len(self.avals)
            self.avals.append((tuple(self._shapes[v]), np.dtype(self._dtypes[v]).str))
        return self.ids[v]


class Forward:
    """The values of ``exports`` from those of ``inputs``, by the equations ``run``."""

    def __init__(
        self,
        eqns: Sequence[Eqn],
        run: Sequence[int],
        inputs: Sequence[int],
        exports: Sequence[int],
        shapes: Sequence[tuple],
        dtypes: Sequence[Any],
        keyof: Callable[[JaxprEqn], tuple] | None,
    ) -> None:
        local = _Local(inputs, shapes, dtypes)
        self.steps = []
        for k in run:
            e = eqns[k]
            ins = tuple(local.ids[v] for v in e.inputs)
            outs = tuple(local.add(v) for v in e.outputs)
            self.steps.append((e.eqn, ins, outs))
        self.n = len(inputs)
        self.exports = tuple(local.ids[v] for v in exports)
        key = None
        if keyof is not None:
            key = (
                "forward",
                tuple((keyof(eqn), ins, outs) for eqn, ins, outs in self.steps),
                tuple(local.avals[: self.n]),
                self.exports,
            )
        self.call = executable(key, self._program)

    def _program(self, *arguments: Any) -> tuple:
        env: dict[int, Any] = dict(enumerate(arguments))
        _run(self.steps, env)
        return tuple(env[i] for i in self.exports)


class Backward:
    """The vjps of the equations ``order`` (in that order: reverse), from the values of
    ``values`` and the partial adjoints ``incoming`` (from later pieces). ``cotangent(v)``
    says where v̄ of a result comes from: None (nothing reaches it: zeros), "seed" (the
    output: ones), or the partial adjoints to sum, in order, as (equation, input) pairs.
    Gives back (packed, outgoing): ``shown`` (("value", slot), ("partial", (k, j)) or
    ("sum", slot)) packed one flat buffer per dtype, and the partial adjoints ``outgoing``
    (that earlier pieces sum) as arrays."""

    def __init__(
        self,
        eqns: Sequence[Eqn],
        order: Sequence[int],
        values: Sequence[int],
        incoming: Sequence[tuple[int, int]],
        floats: dict[int, tuple[int, ...]],
        cotangent: Callable[[int], Literal["seed"] | tuple[tuple[int, int], ...] | None],
        shown: Sequence[tuple[str, Any]],
        outgoing: Sequence[tuple[int, int]],
        shapes: Sequence[tuple],
        dtypes: Sequence[Any],
        keyof: Callable[[JaxprEqn], tuple] | None,
        run: Sequence[int] = (),
    ) -> None:
        local = _Local(values, shapes, dtypes)
        #: The forward equations ``run`` first, when ``values`` are the piece's inputs (a
        #: piece whose values no other piece reads computes them here: one program, not two).
        self.prologue = []
        for k in run:
            e = eqns[k]
            ins = tuple(local.ids[v] for v in e.inputs)
            self.prologue.append((e.eqn, ins, tuple(local.add(v) for v in e.outputs)))
        position = {k: s for s, k in enumerate(order)}
        arriving = {p: i for i, p in enumerate(incoming)}

        def part(p: tuple[int, int]) -> tuple:
            k, j = p
            return ("p", position[k], j) if k in position else ("in", arriving[p])

        self.steps = []
        for k in order:
            e = eqns[k]
            ins = tuple(local.ids[v] for v in e.inputs)
            outs = tuple(local.add(v) for v in e.outputs)
            cts = []
            for v in e.outputs:
                c = cotangent(v)
                cts.append(c if c is None or c == "seed" else tuple(part(p) for p in c))
            self.steps.append((e.eqn, ins, outs, floats[k], tuple(cts)))
        self.n, self.avals = len(values), local.avals
        self.shown = tuple(
            ("p", *part(ref)[1:]) if what == "partial" else (what[0], local.ids[ref])
            for what, ref in shown
        )
        self.outgoing = tuple(part(p) for p in outgoing)
        self.layout, self.groups = _layout(
            [_aval_of(s, self.steps, self.avals) for s in self.shown]
        )
        self._views = [(d, o, o + _size(shape), shape) for d, o, shape in self.layout]
        key = None
        if keyof is not None:
            key = (
                "backward",
                tuple((keyof(eqn), ins, outs) for eqn, ins, outs in self.prologue),
                tuple((keyof(st[0]), *st[1:]) for st in self.steps),
                tuple(local.avals[: self.n]),
                tuple(_type_of(p, eqns) for p in incoming),
                self.shown,
                self.outgoing,
            )
        self.call = executable(key, self._program)

    def _program(self, *arguments: Any) -> tuple[tuple, tuple]:
        env: dict[int, Any] = dict(enumerate(arguments[: self.n]))
        incoming = arguments[self.n :]
        _run(self.prologue, env)
        partial: dict[tuple, Any] = {}
        total: dict[int, Any] = {}

        def part(ref: tuple) -> Any:
            return incoming[ref[1]] if ref[0] == "in" else partial[ref[1:]]

        for s, (eqn, ins, outs, floats, cts) in enumerate(self.steps):
            filled = []
            for o, c in zip(outs, cts):
                shape, dtype = self.avals[o]
                if c is None:
                    filled.append(jnp.zeros(shape, dtype))
                    continue
                if c == "seed":
                    t = jnp.ones(shape, dtype)
                else:
                    t = part(c[0])
                    for r in c[1:]:
                        t = t + part(r)  # add_any, in the order the partials arrived
                total[o] = t
                filled.append(t)
            grads = _vjp(eqn, floats, tuple(env[i] for i in ins), tuple(filled))
            partial.update(((s, j), g) for j, g in zip(floats, grads))
        results = [
            env[ref[1]] if ref[0] == "v" else total[ref[1]] if ref[0] == "s" else partial[ref[1:]]
            for ref in self.shown
        ]
        packed = tuple(
            jnp.concatenate([jnp.ravel(r) for r, (d, _, _) in zip(results, self.layout) if d == g])
            for g in self.groups
        )
        return packed, tuple(part(p) for p in self.outgoing)

    def unpack(self, packed: Sequence[Any]) -> list[np.ndarray]:
        """The shown results as numpy views of the packed buffers."""
        buffers = dict(zip(self.groups, (np.asarray(b) for b in packed)))
        return [buffers[d][start:end].reshape(shape) for d, start, end, shape in self._views]


def _run(steps: Sequence[tuple[JaxprEqn, tuple, tuple]], env: dict) -> None:
    """Bind each equation ``(eqn, inputs, outputs)`` on the values ``env`` holds."""
    for eqn, ins, outs in steps:
        subfunctions, params = bind_params(eqn)
        out = eqn.primitive.bind(*subfunctions, *(env[i] for i in ins), **params)
        env.update(zip(outs, out if eqn.primitive.multiple_results else [out]))


def _type_of(p: tuple[int, int], eqns: Sequence[Eqn]) -> tuple:
    """The type of the partial adjoint (k, j): that of equation k's input j."""
    k, j = p
    aval: Any = eqns[k].eqn.invars[j].aval  # (JAX types it AbstractValue: a ShapedArray)
    return (tuple(aval.shape), np.dtype(aval.dtype).str)


def _aval_of(ref: tuple, steps: Sequence[tuple], avals: Sequence[tuple]) -> tuple:
    if ref[0] == "p":
        eqn = steps[ref[1]][0]
        aval = eqn.invars[ref[2]].aval
        return (tuple(aval.shape), np.dtype(aval.dtype).str)
    return avals[ref[1]]


def _size(shape: tuple) -> int:
    return int(np.prod(shape, dtype=np.int64))


def _layout(avals: list[tuple]) -> tuple[list[tuple], list[str]]:
    """Where each result sits: (dtype, offset, shape) in its dtype's flat buffer."""
    ends: dict[str, int] = {}
    layout = []
    for shape, dtype in avals:
        offset = ends.get(dtype, 0)
        layout.append((dtype, offset, shape))
        ends[dtype] = offset + _size(shape)
    return layout, sorted(ends)


def _vjp(eqn: JaxprEqn, floats: tuple, inputs: tuple, cts: tuple) -> tuple:
    """JAX's partial adjoints of ``inputs[floats]`` for ``eqn``'s primitive alone (its
    linearization transposed by JAX)."""
    subfunctions, params = bind_params(eqn)
    primitive = eqn.primitive
    many = primitive.multiple_results

    def local(*xs: Any) -> Any:
        full = list(inputs)
        for k, x in zip(floats, xs):
            full[k] = x
        out = primitive.bind(*subfunctions, *full, **params)
        return tuple(out) if many else out

    _, back = jax.vjp(local, *(inputs[k] for k in floats))
    return back(cts if many else cts[0])
