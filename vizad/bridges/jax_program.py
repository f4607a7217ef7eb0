"""``vz.jax_backward``'s arithmetic as one compiled XLA program, cached by the jaxpr's structure.

The walk (:mod:`~vizad.bridges.jax_backward`) lays the function's equations out flat (nested
``jit`` calls inlined, loops unrolled) as slots and equations, without computing anything.
:class:`Plan` reads that structure once: which equations the gradient flows through, in which
order JAX transposes them, which partial adjoints v̄ᵢ→ⱼ reach which variable and in which order
``add_any`` sums them. Its program then computes, in one call of one XLA executable, every
forward value the walkthrough shows, each equation's vjp (JAX's linearization of that primitive
alone, transposed) and each sum: the whole backward pass, whose intermediate results are exactly
the partial adjoints the stepper shows. The results come back packed, one flat buffer per dtype,
and are read out as numpy views.

Plans are cached by :func:`signature`: everything that decides the walk and the program
(primitives, parameters, literals' values, the types of the arguments and of the jaxpr's
constants, whose values are arguments of the program, the source lines), so a later call of
the same function (or an equal one) costs the trace of the function, one call of compiled code
and the recording. A jaxpr whose parameters cannot be a key (a ``custom_jvp``/``custom_vjp``
function carries its rules as Python functions) gets a plan that is not cached and runs its
program op by op, uncompiled.
"""

from __future__ import annotations

import enum
import functools
import types
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from .jax_import import bind_params, eqn_source
from .optional import require

jax = require("jax", "jax")
jnp = require("jax.numpy", "jax")
jax_core = require("jax.extend.core", "jax")

__all__ = ["Plan", "cached_plan", "signature"]

#: Plans by key; the oldest is dropped past the limit.
_PLANS: dict[Hashable, Plan] = {}
_MAX_PLANS = 64
#: XLA options for the program: it is small arrays, and compiles about twice as fast without
#: the expensive passes.
_QUICK = {"xla_backend_optimization_level": 0, "xla_llvm_disable_expensive_passes": True}


class _NotAKey(Exception):
    """A parameter that cannot be part of a cache key."""


def signature(closed) -> tuple | None:
    """A key for ``closed`` (the function's jaxpr) that determines its walk and its program,
    or None when a parameter cannot be part of one (a custom rule's Python functions)."""
    try:
        return (_jaxpr_key(closed, top=True), _config())
    except _NotAKey:
        return None


def _config() -> tuple:
    config = jax.config
    return (config.jax_enable_x64, str(config.jax_default_matmul_precision))


def _jaxpr_key(closed, top: bool = False) -> tuple:
    """Per equation: the primitive, its inputs (positions, or a literal's value), the types of
    its results, its parameters (a sub-jaxpr by its own key) and its source line; the types
    of the arguments; the constants' types (``top``: the program's arguments) or values."""
    jaxpr = getattr(closed, "jaxpr", closed)
    consts = getattr(closed, "consts", ())
    number: dict = {}
    for var in (*jaxpr.constvars, *jaxpr.invars):
        number[var] = len(number)

    def atom(a):
        if isinstance(a, jax_core.Literal):
            return ("literal", _aval(a.aval), _array_key(np.asarray(a.val, dtype=a.aval.dtype)))
        return number[a]

    eqns = []
    for eqn in jaxpr.eqns:
        inputs = tuple(atom(a) for a in eqn.invars)
        for var in eqn.outvars:
            number[var] = len(number)
        eqns.append(
            (
                eqn.primitive,
                inputs,
                tuple(_aval(v.aval) for v in eqn.outvars),
                _param_key(eqn.params),
                eqn_source(eqn),
            )
        )
    if top:
        held = tuple(_aval(v.aval) for v in jaxpr.constvars)
    else:
        held = tuple(_array_key(np.asarray(c)) for c in consts)
    arguments = tuple(_aval(v.aval) for v in jaxpr.invars)
    return (arguments, held, tuple(eqns), tuple(atom(a) for a in jaxpr.outvars))


def _aval(aval) -> tuple:
    return (tuple(aval.shape), str(aval.dtype), bool(getattr(aval, "weak_type", False)))


def _array_key(value: np.ndarray) -> tuple:
    return (value.dtype.str, value.shape, value.tobytes())


_PLAIN = (int, float, complex, str, bytes, bool, type(None), np.dtype, np.generic, enum.Enum)


def _param_key(value) -> Hashable:
    """A parameter as part of a key: sub-jaxprs by their key, containers item by item, plain
    values (numbers, names, dtypes, enums, JAX's hashable descriptions) as themselves."""
    if isinstance(value, (jax_core.ClosedJaxpr, jax_core.Jaxpr)):
        return ("jaxpr", _jaxpr_key(value))
    if isinstance(value, dict):
        return ("dict", tuple((k, _param_key(v)) for k, v in sorted(value.items())))
    if isinstance(value, (tuple, list, frozenset)):
        return (type(value), tuple(_param_key(v) for v in value))
    if isinstance(value, np.ndarray):
        return ("array", _array_key(value))
    if isinstance(value, _PLAIN):
        return value
    module = type(value).__module__ or ""
    if module.split(".")[0] in ("jax", "jaxlib", "numpy") and not _function(value):
        try:  # JAX's own value types (meshes, shardings, dimension numbers): by value
            hash(value)
        except TypeError:
            raise _NotAKey from None
        return value
    raise _NotAKey  # a Python function (a custom rule), or an unknown object


def _function(value) -> bool:
    """Whether ``value`` is code (a function, or JAX's wrapper of one: a custom rule)."""
    code = (types.FunctionType, types.MethodType, types.BuiltinFunctionType, functools.partial)
    return isinstance(value, code) or type(value).__name__ == "WrappedFun"


def cached_plan(key: Hashable | None, make: Callable[[], Plan]) -> Plan:
    """The plan of ``key`` (made by ``make`` and kept, unless ``key`` is None)."""
    if key is None:
        return make()
    plan = _PLANS.get(key)
    if plan is None:
        if len(_PLANS) >= _MAX_PLANS:
            del _PLANS[next(iter(_PLANS))]
        plan = _PLANS[key] = make()
    return plan


class Plan:
    """The structure of the backward pass over a walk's equations, and its program.

    ``eqns`` are the walk's equations (``.eqn``, ``.inputs`` and ``.outputs`` slots,
    ``.scope``); ``floating(slot)`` says whether a slot takes a cotangent; ``fixed`` holds
    the values of literals and nested constants (part of the program); the program's
    arguments are the values of ``arguments`` (slots)."""

    def __init__(
        self,
        eqns: Sequence,
        needed: set[int],
        output: int,
        leaves: Sequence[int],
        arguments: Sequence[int],
        fixed: dict[int, Any],
        floating: Callable[[int], bool],
        shapes: Sequence[tuple],
        dtypes: Sequence[Any],
        compiled: bool,
    ):
        self.eqns, self.output, self.leaves = eqns, output, list(leaves)
        #: The equations the gradient flows through, in the order JAX transposes them.
        self.order = [k for k in reversed(range(len(eqns))) if k in needed]
        self.kept = sorted(needed)
        self.floats = {
            k: tuple(j for j, v in enumerate(eqns[k].inputs) if floating(v)) for k in self.order
        }
        producer = {v: k for k in self.kept for v in eqns[k].outputs}
        shown = set(producer) | {v for v in leaves if floating(v)}
        #: Per slot that takes a cotangent: the partial adjoints (equation, input) that reach
        #: it, in the order they arrive (add_any sums them in that order).
        self.sums: dict[int, tuple] = {}
        arrived: dict[int, list] = {}
        for k in self.order:
            for v in eqns[k].outputs:
                self._sum(v, arrived)
            for j in self.floats[k]:
                arrived.setdefault(eqns[k].inputs[j], []).append((k, j))
        for v in leaves:
            self._sum(v, arrived)
        #: What the program gives back: the kept equations' results, the partial adjoints
        #: that reach a shown slot, the sums of more than one.
        self.values = [v for k in self.kept for v in eqns[k].outputs]
        self.partials = [
            (k, j) for k in self.order for j in self.floats[k] if eqns[k].inputs[j] in shown
        ]
        self.totals = [v for v, parts in self.sums.items() if len(parts) > 1]
        self.arguments, self.shapes, self.dtypes = list(arguments), shapes, dtypes
        self._forward = self._forward_eqns(needed, fixed)
        read = {v for k in (*self._forward, *self.order) for v in eqns[k].inputs}
        self.fixed = {v: value for v, value in fixed.items() if v in read}
        self._layout = self._packing()
        self.run = jax.jit(self._program, compiler_options=_QUICK) if compiled else self._program

    def _sum(self, v: int, arrived: dict) -> None:
        if v == self.output or v in self.sums:
            return
        parts = arrived.get(v)
        if parts:
            self.sums[v] = tuple(parts)

    def _forward_eqns(self, needed: set[int], fixed: dict) -> list[int]:
        """The equations whose results the kept ones read (computed from the arguments)."""
        live = {v for k in needed for v in (*self.eqns[k].inputs, *self.eqns[k].outputs)}
        made = set(self.arguments) | set(fixed)
        forward = []
        for k in reversed(range(len(self.eqns))):
            e = self.eqns[k]
            if any(v in live for v in e.outputs) and not all(v in made for v in e.outputs):
                forward.append(k)
                live.update(e.inputs)
        return forward[::-1]

    def _packing(self) -> list[tuple]:
        """Where each result of the program sits: (dtype group, offset, shape), in the order
        values, partial adjoints, sums."""
        slots = [*self.values, *(self.eqns[k].inputs[j] for k, j in self.partials), *self.totals]
        groups: dict[str, int] = {}
        layout = []
        for v in slots:
            dtype, shape = np.dtype(self.dtypes[v]), tuple(self.shapes[v])
            offset = groups.get(dtype.str, 0)
            layout.append((dtype.str, offset, shape))
            groups[dtype.str] = offset + int(np.prod(shape, dtype=np.int64))
        self._groups = sorted(groups)
        return layout

    def _program(self, *arguments):
        """Every forward value, partial adjoint and sum, packed by dtype."""
        env: dict[int, Any] = dict(zip(self.arguments, arguments))
        for v, value in self.fixed.items():
            env[v] = jnp.asarray(value)
        for k in self._forward:
            e = self.eqns[k]
            subfunctions, params = bind_params(e.eqn)
            out = e.eqn.primitive.bind(*subfunctions, *(env[v] for v in e.inputs), **params)
            env.update(zip(e.outputs, out if e.eqn.primitive.multiple_results else [out]))
        partial: dict[tuple, Any] = {}
        total: dict[int, Any] = {self.output: jnp.ones((), self.dtypes[self.output])}

        def cotangent(v):
            if v not in total and v in self.sums:
                parts = self.sums[v]
                t = partial[parts[0]]
                for p in parts[1:]:
                    t = t + partial[p]  # add_any
                total[v] = t
            return total.get(v)

        for k in self.order:
            e = self.eqns[k]
            cts = [cotangent(v) for v in e.outputs]
            filled = tuple(
                c if c is not None else jnp.zeros(self.shapes[v], self.dtypes[v])
                for c, v in zip(cts, e.outputs)
            )
            grads = _vjp(e.eqn, self.floats[k], tuple(env[v] for v in e.inputs), filled)
            partial.update(((k, j), g) for j, g in zip(self.floats[k], grads))
        for v in self.leaves:
            cotangent(v)
        results = [
            *(env[v] for v in self.values),
            *(partial[p] for p in self.partials),
            *(total[v] for v in self.totals),
        ]
        return tuple(
            jnp.concatenate(
                [jnp.ravel(r) for r, (d, _, _) in zip(results, self._layout) if d == group]
            )
            for group in self._groups
        )

    def results(self, arguments: Sequence[Any]) -> tuple[dict, dict, dict]:
        """Run the program: (value of each kept slot, each partial adjoint by (equation,
        input), each slot's cotangent as add_any summed it), numpy arrays."""
        packed = dict(zip(self._groups, (np.asarray(b) for b in self.run(*arguments))))
        views = []
        for group, offset, shape in self._layout:
            size = int(np.prod(shape, dtype=np.int64))
            views.append(packed[group][offset : offset + size].reshape(shape))
        n, m = len(self.values), len(self.partials)
        values = dict(zip(self.values, views[:n]))
        partials = dict(zip(self.partials, views[n : n + m]))
        sums = dict(zip(self.totals, views[n + m :]))
        cotangents = {self.output: np.ones((), self.dtypes[self.output])}
        for v, parts in self.sums.items():
            cotangents[v] = sums[v] if len(parts) > 1 else partials.get(parts[0])
        return values, partials, cotangents


def _vjp(eqn, floats: tuple, inputs: tuple, cts: tuple) -> tuple:
    """JAX's partial adjoints of ``inputs[floats]`` for ``eqn``'s primitive alone (its
    linearization transposed by JAX)."""
    subfunctions, params = bind_params(eqn)
    primitive = eqn.primitive
    many = primitive.multiple_results

    def local(*xs):
        full = list(inputs)
        for k, x in zip(floats, xs):
            full[k] = x
        out = primitive.bind(*subfunctions, *full, **params)
        return tuple(out) if many else out

    _, back = jax.vjp(local, *(inputs[k] for k in floats))
    return back(cts if many else cts[0])
