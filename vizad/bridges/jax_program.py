"""``vz.jax_backward``'s arithmetic as a few compiled XLA programs, cached by the jaxpr's
structure.

The walk (:mod:`~vizad.bridges.jax_backward`) lays the function's equations out flat (nested
``jit`` calls inlined, loops unrolled) as slots and equations, without computing anything.
:class:`Plan` reads that structure once: which equations the gradient flows through, in which
order JAX transposes them, which partial adjoints v̄ᵢ→ⱼ reach which variable and in which order
``add_any`` sums them. It cuts the equations into pieces (:mod:`~vizad.bridges.jax_segment`:
the code between loops, each time step of a loop), each a compiled forward program (its
values) and a compiled backward program (each equation's vjp, JAX's linearization of that
primitive alone transposed, and each sum): the whole backward pass, whose intermediate results
are exactly the partial adjoints the stepper shows. A scan's time steps are the same pieces,
compiled once.

Plans are cached by :func:`signature`: everything that decides the walk and the programs
(primitives, parameters, literals' values, the types of the arguments and of the jaxpr's
constants, whose values are arguments of the programs, the source lines), so a later call of
the same function (or an equal one) costs the trace of the function, one call of each piece's
compiled code and the recording. A ``custom_jvp``/``custom_vjp`` function carries its rules as
Python functions: they are keyed by their code and every value they read
(:mod:`~vizad.bridges.jax_rule_key`), so a later call neither traces them again nor compiles.
A jaxpr whose parameters cannot be a key (a rule reading an object's state) gets a plan that
is not cached, whose pieces run op by op, uncompiled.
"""

from __future__ import annotations

import enum
import functools
import types
from collections.abc import Callable, Collection, Hashable, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from vizad.bridges.jax_import import eqn_source
from vizad.bridges.jax_rule_key import NoKey, rule_key
from vizad.bridges.jax_segment import Backward, Forward
from vizad.bridges.optional import require

if TYPE_CHECKING:  # pragma: no cover
    from jax.extend.core import ClosedJaxpr, Jaxpr, JaxprEqn, Literal as JaxLiteral, Var

    from vizad.trace.recorded import RecordedNode
    from vizad.bridges.jax_backward import _Eqn

jax = require("jax", "jax")
jnp = require("jax.numpy", "jax")
jax_core = require("jax.extend.core", "jax")

__all__ = ["Plan", "cached_plan", "signature"]

#: Plans by key; the oldest is dropped past the limit.
_PLANS: dict[Hashable, Plan] = {}
_MAX_PLANS = 64

#: The keys of nested jaxprs by identity (with the jaxpr, so that its id stays its own): JAX
#: keeps the jaxpr of a jitted function it traced (``jax.nn.log_softmax``'s) and hands the same
#: object to every later trace, so its key is made once. A jaxpr is immutable; one holding
#: numpy constants (which could change in place) is keyed afresh every time.
_SUBKEYS: dict[int, tuple[Any, tuple]] = {}
_MAX_SUBKEYS = 4096


class _NotAKey(Exception):
    """A parameter that cannot be part of a cache key."""


def signature(closed: ClosedJaxpr) -> tuple | None:
    """A key for ``closed`` (the function's jaxpr) that determines its walk and its program,
    or None when a parameter cannot be part of one (a custom rule's Python functions)."""
    try:
        return (_jaxpr_key(closed, top=True), _config())
    except _NotAKey:
        return None


def _config() -> tuple:
    config = jax.config
    return (config.jax_enable_x64, str(config.jax_default_matmul_precision))


def _jaxpr_key(closed: ClosedJaxpr | Jaxpr, top: bool = False) -> tuple:
    """Per equation: the primitive, its inputs (positions, or a literal's value), the types of
    its results, its parameters (a sub-jaxpr by its own key) and its source line; the types
    of the arguments; the constants' types (``top``: the program's arguments) or values."""
    if top:
        return _made_key(closed, top=True)
    held = _SUBKEYS.get(id(closed))
    if held is not None and held[0] is closed:
        return held[1]
    key = _made_key(closed, top=False)
    if all(isinstance(c, jax.Array) for c in getattr(closed, "consts", ())):
        if len(_SUBKEYS) >= _MAX_SUBKEYS:
            del _SUBKEYS[next(iter(_SUBKEYS))]
        _SUBKEYS[id(closed)] = (closed, key)
    return key


def _made_key(closed: Any, top: bool) -> tuple[Any, ...]:
    jaxpr = getattr(closed, "jaxpr", closed)
    consts = getattr(closed, "consts", ())
    number: dict = {}
    for var in (*jaxpr.constvars, *jaxpr.invars):
        number[var] = len(number)

    def atom(a: Var | JaxLiteral) -> tuple | int:
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


def _aval(aval: Any) -> tuple:  # (JAX types avals AbstractValue; these are ShapedArrays)
    """An abstract value's type: shape, dtype (numpy's dtype object: equal by value, and
    cheaper than its name) and weak type."""
    return (tuple(aval.shape), np.dtype(aval.dtype), bool(getattr(aval, "weak_type", False)))


def _array_key(value: np.ndarray) -> tuple:
    return (value.dtype.str, value.shape, value.tobytes())


_PLAIN = (int, float, complex, str, bytes, bool, type(None), np.dtype, np.generic, enum.Enum)


def _param_key(value: object) -> Hashable:
    """A parameter as part of a key: sub-jaxprs by their key, containers item by item, plain
    values (numbers, names, dtypes, enums, JAX's hashable descriptions) as themselves."""
    if isinstance(value, _PLAIN):  # most parameters: first
        return value
    if isinstance(value, (jax_core.ClosedJaxpr, jax_core.Jaxpr)):
        return ("jaxpr", _jaxpr_key(value))
    if isinstance(value, dict):
        return ("dict", tuple((k, _param_key(v)) for k, v in sorted(value.items())))
    if isinstance(value, (tuple, list, frozenset)):
        return (type(value), tuple(_param_key(v) for v in value))
    if isinstance(value, np.ndarray):
        return ("array", _array_key(value))
    module = type(value).__module__ or ""
    if module.split(".")[0] in ("jax", "jaxlib", "numpy") and not _function(value):
        try:  # JAX's own value types (meshes, shardings, dimension numbers): by value
            hash(value)
        except TypeError:
            raise _NotAKey from None
        return value
    if _function(value):  # a custom rule: its code and everything it reads
        try:
            return ("rule", rule_key(value))
        except NoKey:
            raise _NotAKey from None
    raise _NotAKey  # an unknown object


def _function(value: object) -> bool:
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
    """The structure of the backward pass over a walk's equations, and its programs.

    ``eqns`` are the walk's equations (``.eqn``, ``.inputs`` and ``.outputs`` slots,
    ``.scope``); ``floating(slot)`` says whether a slot takes a cotangent; ``fixed`` holds
    the values of literals and nested constants; the programs' arguments are the values of
    ``arguments`` (slots) and of ``fixed`` (a piece's key holds their types only).
    ``compiled``: whether the programs are compiled and cached (their equations can be part
    of a key)."""

    #: Set by jax_backward as it makes the plan: whether each leaf takes a gradient, the
    #: recording's nodes (a call's numbers filled in by its _recording), the leaves shown,
    #: the positions of the nodes in the order they ran, and the output's position.
    floating_leaf: list[bool]
    nodes: list[RecordedNode]
    shown_leaves: list[int]
    ran: tuple[int, ...]
    output_at: int

    def __init__(
        self,
        eqns: Sequence[_Eqn],
        needed: set[int],
        output: int,
        leaves: Sequence[int],
        arguments: Sequence[int],
        fixed: dict[int, Any],
        floating: Callable[[int], bool],
        shapes: Sequence[tuple],
        dtypes: Sequence[Any],
        compiled: bool,
    ) -> None:
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
        #: The partial adjoints the walkthrough shows (to an argument or a kept result).
        self.partials = {
            (k, j) for k in self.order for j in self.floats[k] if eqns[k].inputs[j] in shown
        }
        self.arguments = list(arguments)
        forward = self._forward_eqns(needed, fixed)
        read = {v for k in forward for v in eqns[k].inputs}
        #: Literals and nested constants: arguments of the pieces too (a key holds their
        #: types only, so the time steps of a scan, slicing xs[t], share their programs).
        self.fixed = {v: value for v, value in fixed.items() if v in read}
        self.segments = self._segments(forward, needed, shapes, dtypes, compiled)

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

    def _segments(
        self,
        forward: list[int],
        needed: set[int],
        shapes: Sequence[tuple],
        dtypes: Sequence[Any],
        compiled: bool,
    ) -> list[_Segment]:
        """The forward equations cut into runs of one scope (a loop's time step, or the code
        between loops), each with its forward and backward programs."""
        eqns = self.eqns
        runs: list[list[int]] = []
        for k in forward:
            if runs and eqns[runs[-1][-1]].scope == eqns[k].scope:
                runs[-1].append(k)
            else:
                runs.append([k])
        read_elsewhere: set[int] = set()
        for run in runs:
            made: Collection[int] = {v for k in run for v in eqns[k].outputs}
            read_elsewhere.update(v for k in run for v in eqns[k].inputs if v not in made)
        incoming: list[list] = []
        for run in runs:
            inside = set(run)
            arriving: list[tuple[int, int]] = []
            for k in reversed(run):
                if k in needed:
                    for v in eqns[k].outputs:
                        arriving.extend(p for p in self.sums.get(v, ()) if p[0] not in inside)
            incoming.append(list(dict.fromkeys(arriving)))
        handed = {p for arriving in incoming for p in arriving}
        keyof = _EqnKeys() if compiled else None
        segments = []
        for r, run in enumerate(runs):
            made = list(dict.fromkeys(v for k in run for v in eqns[k].outputs))
            kept = [k for k in run if k in needed]
            used = {v for k in kept for v in (*eqns[k].inputs, *eqns[k].outputs)}
            inputs = list(dict.fromkeys(v for k in run for v in eqns[k].inputs if v not in made))
            # a piece whose values no other piece reads computes them in its backward program
            alone = bool(kept) and not any(v in read_elsewhere for v in made)
            exports = [] if alone else [v for v in made if v in read_elsewhere or v in used]
            step = _Segment()
            step.inputs, step.exports = inputs, exports
            step.forward = Forward(eqns, run, inputs, exports, shapes, dtypes, keyof)
            step.backward = None
            if kept:
                order = kept[::-1]
                values = inputs if alone else list(
                    dict.fromkeys(v for k in order for v in (*eqns[k].inputs, *eqns[k].outputs))
                )  # fmt: skip
                shown = [("value", v) for k in kept for v in eqns[k].outputs]
                shown += [("partial", (k, j)) for k in order for j in self.floats[k]
                          if (k, j) in self.partials]  # fmt: skip
                shown += [("sum", v) for k in kept for v in eqns[k].outputs
                          if len(self.sums.get(v, ())) > 1]  # fmt: skip
                outgoing = [(k, j) for k in order for j in self.floats[k] if (k, j) in handed]
                step.values, step.incoming, step.outgoing = values, incoming[r], outgoing
                step.shown = shown
                step.backward = Backward(
                    eqns, order, values, incoming[r], self.floats, self._source,
                    shown, outgoing, shapes, dtypes, keyof, run if alone else (),
                )  # fmt: skip
            segments.append(step)
        return segments

    def _source(self, v: int) -> Literal["seed"] | tuple | None:
        """Where v̄ of the result ``v`` comes from (see :class:`Backward`)."""
        if v == self.output:
            return "seed"
        return self.sums.get(v)

    def results(self, arguments: Sequence[Any]) -> tuple[dict, dict, dict]:
        """Run the programs: (value of each kept slot, each partial adjoint the walkthrough
        shows by (equation, input), each slot's cotangent as add_any summed it), numpy."""
        env = dict(zip(self.arguments, arguments))
        env.update(self.fixed)
        for step in self.segments:
            if step.exports:
                env.update(zip(step.exports, step.forward.call(*(env[v] for v in step.inputs))))
        handed: dict = {}
        values: dict = {}
        partials: dict = {}
        sums: dict = {}
        by_kind = {"value": values, "partial": partials, "sum": sums}
        for step in reversed(self.segments):
            if step.backward is None:
                continue
            packed, outgoing = step.backward.call(
                *(env[v] for v in step.values), *(handed[p] for p in step.incoming)
            )
            handed.update(zip(step.outgoing, outgoing))
            for (kind, ref), view in zip(step.shown, step.backward.unpack(packed)):
                by_kind[kind][ref] = view
        cotangents: dict[int, np.ndarray | None] = {
            self.output: np.ones((), values[self.output].dtype)
        }
        for v, parts in self.sums.items():
            if v in sums:
                cotangents[v] = sums[v]
            elif len(parts) == 1:
                cotangents[v] = partials.get(parts[0])
            elif all(p in partials for p in parts):  # an argument's: summed here, in order
                t = partials[parts[0]]
                for p in parts[1:]:
                    t = t + partials[p]  # add_any: IEEE addition, the same bits in numpy
                cotangents[v] = t
        return values, partials, cotangents


class _Segment:
    """A run of equations in one scope: its programs and the slots they read and give."""

    #: The slots its forward program reads, and those it gives that later pieces read.
    inputs: list[int]
    exports: list[int]
    forward: Forward
    #: Its backward program (None: no equation of it is on the gradient's way), the slots
    #: and the partial adjoints from later pieces it reads, those it gives earlier pieces,
    #: and what it shows.
    backward: Backward | None
    values: list[int]
    incoming: list[tuple[int, int]]
    outgoing: list[tuple[int, int]]
    shown: list[tuple[str, Any]]


class _EqnKeys:
    """An equation's part of a piece's key (primitive, parameters, result types), made once
    per equation of the jaxpr (a loop body's equations recur in every time step)."""

    def __init__(self) -> None:
        self._made: dict[int, tuple] = {}
        self._held: list = []  # the equations keyed, so that their ids stay theirs

    def __call__(self, eqn: JaxprEqn) -> tuple:
        made = self._made.get(id(eqn))
        if made is None:
            made = (
                eqn.primitive,
                _param_key(eqn.params),
                tuple(_aval(v.aval) for v in eqn.outvars),
            )
            self._made[id(eqn)] = made
            self._held.append(eqn)
        return made
