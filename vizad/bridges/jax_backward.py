"""``vz.jax_backward(fn, *args)``: JAX's own backward pass of a function, step by step.

JAX differentiates in reverse by linearizing a function (``jax.linearize``) and transposing
the linear program (``jax.linear_transpose``): its ``backward_pass`` walks the equations in
reverse, applies each primitive's transpose rule to the cotangent of its result, and adds the
cotangents that reach a variable read more than once with ``add_any``. This module does that
walk over the function's jaxpr in the open: for each equation, in reverse, JAX's own vjp of
that primitive alone (its linearization transposed) gives the partial adjoint v̄ᵢ→ⱼ of each
input, and the sum of those that reach a variable is its adjoint v̄ᵢ = Σⱼ v̄ᵢ→ⱼ, the ``add_any``
of JAX's backward jaxpr. Every value is computed by JAX, the whole walk in a few compiled
programs (:mod:`~vizad.bridges.jax_program`); the whole transposed program, as JAX prints it,
is ``trace.program``.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from vizad.engine import ops
from vizad.errors import BridgeError
from vizad.trace.recorded import RecordedNode, RecordedReverseTrace, Recording, recorded_trace
from vizad.engine.tree import Unrecorded
from vizad.bridges.jax_import import bind_params, closed_jaxpr, eqn_source, traced
from vizad.bridges.jax_loops import CONTROL_FLOW, dynamic_index, unrolled
from vizad.bridges.jax_program import Plan, cached_plan, signature
from vizad.bridges.optional import require

if TYPE_CHECKING:  # pragma: no cover
    from jax.extend.core import ClosedJaxpr, JaxprEqn, Literal, Var

    from vizad.bridges.jax_import import Jax

jax = require("jax", "jax")
jnp = require("jax.numpy", "jax")
jax_core = require("jax.extend.core", "jax")

__all__ = ["jax_backward"]

#: Primitives whose transpose reads no forward value (they are linear in every input).
_LINEAR = frozenset(
    "add sub neg add_any reduce_sum broadcast_in_dim reshape squeeze expand_dims transpose "
    "convert_element_type copy copy_p concatenate pad slice dynamic_slice rev".split()
)

#: JAX's primitives that a vizad op writes the same way (mul: v₁ × v₂, and its partials).
_LIKE = {
    **{n: getattr(ops, n) for n in ("add", "sub", "mul", "div", "neg", "exp", "log", "sin")},
    **{n: getattr(ops, n) for n in ("cos", "tanh", "sqrt")},
    "add_any": ops.add,
    "logistic": ops.sigmoid,
}


def jax_backward(
    fn: Callable,
    *args: Any,
    decimals: int = 3,
    static_argnums: int | Sequence[int] = (),
    static_argnames: str | Sequence[str] = (),
    **kwargs: Any,
) -> RecordedReverseTrace:
    """JAX's backward pass of ``fn`` (a function of arrays giving a scalar) at ``args`` as a
    reverse trace: one step per equation of its jaxpr that the gradient flows through, in the
    reverse order JAX transposes them, then one per argument. Each step shows the cotangent
    JAX summed for the equation's result (``add_any`` of the partial adjoints its consumers
    passed back, each from JAX's transpose of that consumer's linearization), all JAX's
    numbers. ``trace.program`` is JAX's transposed linearized jaxpr. Nested ``jit`` calls are
    walked into; a ``custom_jvp``/``custom_vjp`` function is one step with its own rule.

    Arguments are pytrees (dicts, lists, NamedTuples … of arrays), each array an argument
    named by its path (``params['W1']``); ``trace.grads`` gives the gradients laid out as the
    arguments were given. A ``lax.scan`` (``fori_loop``) is walked time step by time step,
    one scope per step (``scan t=1`` …: backpropagation through time, folded into one "× T"
    box in drawings); a ``lax.cond`` walks the branch the example takes. A ``while_loop`` on
    the gradient's path is refused: JAX cannot reverse it.

    The forward values and the whole backward pass are computed by compiled XLA programs (a
    forward and a backward one for the code between loops and for a loop's time step, which
    every step shares), compiled on the first call and kept for later calls of a function
    with the same jaxpr (the same equations, parameters, literals, types and source lines;
    constants it closes over are arguments of the programs, so their values may change).

    Examples:
        >>> import jax.numpy as jnp
        >>> def f(x1, x2):
        ...     return jnp.log(x1) + x1 * x2 - jnp.sin(x2)
        ...
        >>> trace = vz.jax_backward(f, 2.0, 5.0)
        >>> trace
        JAX's backward pass of v₇: 7 steps, in the order JAX ran them
        step  vᵢ  definition  value   partial adjoints v̄ᵢ→ⱼ     v̄ᵢ
        1     v₇  v₆ - v₅     11.652  seed                       1
        2     v₅  sin v₂      -0.959  v̄₅→₇ = -1                 -1
        3     v₆  v₃ + v₄     10.693  v̄₆→₇ = 1                  1
        4     v₄  v₁ × v₂     10      v̄₄→₆ = 1                  1
        5     v₃  ln v₁       0.693   v̄₃→₆ = 1                  1
        6     v₁  x₁          2       v̄₁→₄ = 5, v̄₁→₃ = 0.5     5.5
        7     v₂  x₂          5       v̄₂→₅ = -0.284, v̄₂→₄ = 2  1.716
    """
    arguments, framework, closed = traced(
        fn, args, kwargs, static_argnums, static_argnames, "jax_backward"
    )
    arrays = arguments.leaves
    with framework.mode():
        (out,) = _single_output(closed)
        if out.aval.shape != () or not jnp.issubdtype(out.aval.dtype, jnp.inexact):
            raise BridgeError(
                f"jax_backward: fn gives a {out.aval.dtype} value of shape {out.aval.shape}; "
                "its backward pass starts from a single floating-point number: reduce the "
                "result (jnp.sum(...)) first"
            )
        plan, given = _planned(closed, arrays)
        values, partials, cotangents = plan.results(given)
    recording = _recording(
        plan,
        arrays,
        arguments.names,
        (values, partials, cotangents),
        lambda: _program(arguments.function(), arrays, framework),
    )
    trace = recorded_trace(recording, decimals)
    trace.grads = arguments.tree(
        [
            _leaf_adjoint(v, arrays[k], cotangents) if plan.floating_leaf[k] else None
            for k, v in enumerate(plan.leaves)
        ]
    )
    return trace


def _single_output(closed: ClosedJaxpr) -> list:
    outs = closed.jaxpr.outvars
    if len(outs) != 1:
        raise BridgeError(
            f"jax_backward: fn gives {len(outs)} results; its backward pass starts from one "
            "(return the loss alone)"
        )
    return outs


def _planned(closed: ClosedJaxpr, arrays: list[np.ndarray]) -> tuple[Plan, list]:
    """The plan of ``closed``'s backward pass (cached by its signature) and its program's
    arguments. A function without ``cond``/``while`` is laid out without computing anything;
    one with them is run op by op first, for the branches and trip counts its example takes
    (then part of the key)."""
    key = signature(closed)
    compiled = key is not None
    try:
        plan = cached_plan(key, lambda: _Walk(closed, arrays, eager=False).plan(compiled))
        return plan, [*arrays, *closed.consts]
    except _NeedsValues:
        walk = _Walk(closed, arrays, eager=True)
        decided = None if key is None else (key, tuple(walk.decisions))
        plan = cached_plan(decided, lambda: walk.plan(compiled))
        return plan, [walk.values[v] for v in plan.arguments]  # type: ignore[index]  # (eager)


def _program(fn: Callable, arrays: list[np.ndarray], framework: Jax) -> str:
    """JAX's own backward program of ``fn`` at ``arrays``: its linearization transposed,
    as JAX prints it (of the floating-point arguments; the others are held fixed)."""
    with framework.mode():
        return _transposed(fn, arrays)


def _transposed(fn: Callable, arrays: list[np.ndarray]) -> str:
    floats = [k for k, a in enumerate(arrays) if a.dtype.kind in "fc"]

    def of_floats(*xs: Any) -> Any:
        full = list(arrays)
        for k, x in zip(floats, xs):
            full[k] = x
        return fn(*full)

    primals = [arrays[k] for k in floats]
    _, linear = jax.linearize(of_floats, *primals)
    transposed = jax.linear_transpose(linear, *primals)
    program = jax.make_jaxpr(transposed)(jnp.ones((), dtype=jnp.result_type(*primals)))
    return program.pretty_print(use_color=False)  # the same text in a terminal and a notebook


def _canonical(dtype: np.dtype) -> np.dtype:
    """The dtype JAX gives an argument of ``dtype`` (int64 is int32 outside 64-bit mode)."""
    return np.dtype(jax.dtypes.canonicalize_dtype(dtype))


class _NeedsValues(Exception):
    """The walk met a cond or a while_loop: laying it out needs the example's values."""


class _Eqn:
    """An equation of the (inlined, unrolled) jaxpr, its inputs and results as slots."""

    __slots__ = ("eqn", "inputs", "outputs", "scope", "forward_only", "source")

    def __init__(
        self,
        eqn: JaxprEqn,
        inputs: list,
        outputs: list,
        scope: tuple,
        forward_only: bool,
        source: str | None,
    ) -> None:
        self.eqn, self.inputs, self.outputs = eqn, inputs, outputs
        #: The loop steps and branches it runs in (``("scan t=2",)``).
        self.scope = scope
        #: Whether it runs in a while_loop (which JAX cannot reverse).
        self.forward_only = forward_only
        #: The user's line (:func:`~vizad.bridges.jax_import.eqn_source`; for an equation
        #: vizad made in unrolling a loop, the loop's line).
        self.source = source


class _Walk:
    """The function's equations laid out flat: nested jits inlined, loops unrolled. Every
    value is a slot (an int: the arguments first, then the constants, then as made); with
    ``eager`` each equation is also run by JAX as it is laid out (a ``cond`` or ``while``
    needs the values to choose its branch and count its steps)."""

    def __init__(self, closed: ClosedJaxpr, arrays: list[np.ndarray], eager: bool) -> None:
        self.shapes: list[tuple] = []
        self.dtypes: list = []
        self.fixed: dict[int, np.ndarray] = {}  # literals and nested constants: their values
        self.values: dict[int, Any] | None = {} if eager else None
        self.decisions: list[tuple] = []  # the concrete values read (branches, predicates)
        self.eqns: list[_Eqn] = []
        self.leaves = [self._new(a.shape, _canonical(a.dtype), a) for a in arrays]
        self.consts = [self._new(np.shape(c), c.dtype, c) for c in closed.consts]
        self._scope: tuple[str, ...] = ()
        self._line: str | None = None  # the line of the loop or call being laid out
        self._whiles = 0
        (self.output,) = self._inline(closed, self.leaves, self.consts)

    # -- what unrolling a loop needs (jax_loops.Runner) --------------------------------
    def run(self, closed: Any, args: list) -> list:
        return self._inline(closed_jaxpr(closed), args)

    def concrete(self, slot: int) -> np.ndarray:
        if self.values is None:
            raise _NeedsValues
        value = np.asarray(self.values[slot])
        self.decisions.append((value.dtype.str, value.shape, value.tobytes()))
        return value

    def take(self, xs: int, t: int, aval: Any) -> int:  # (a ShapedArray)
        """``xs[t]`` with ``t`` a value (not a parameter): every time step of a scan is then
        the same equations, and shares its compiled programs."""
        index = self._fixed(np.asarray(t, np.int32))
        return self._inline(dynamic_index(tuple(aval.shape), aval.dtype), [xs, index])[0]

    @contextmanager
    def scoped(self, name: str) -> Iterator[None]:
        outer = self._scope
        self._scope = (*outer, name)
        try:
            yield
        finally:
            self._scope = outer

    @contextmanager
    def loop(self, kind: str) -> Iterator[None]:
        self._whiles += 1
        try:
            yield
        finally:
            self._whiles -= 1

    def _new(self, shape: Sequence[int], dtype: Any, value: Any = None) -> int:
        slot = len(self.shapes)
        self.shapes.append(tuple(shape))
        self.dtypes.append(np.dtype(dtype))
        if self.values is not None and value is not None:
            self.values[slot] = jnp.asarray(value)
        return slot

    def _fixed(self, value: np.ndarray) -> int:
        slot = self._new(value.shape, value.dtype, value)
        self.fixed[slot] = value
        return slot

    def _inline(self, closed: ClosedJaxpr, args: list, consts: list | None = None) -> list:
        """Lay out ``closed`` on the slots ``args`` (the equations of a nested jit walked
        into); returns the slots of its results."""
        jaxpr = closed.jaxpr
        local: dict = dict(zip(jaxpr.invars, args))
        if consts is None:  # a nested jaxpr's constants: part of its equations
            consts = [self._fixed(np.asarray(c)) for c in closed.consts]
        local.update(zip(jaxpr.constvars, consts))

        def read(atom: Var | Literal) -> int:
            if isinstance(atom, jax_core.Literal):
                return self._fixed(np.asarray(atom.val, dtype=atom.aval.dtype))
            return local[atom]

        outer = self._line
        for eqn in jaxpr.eqns:
            inputs = [read(a) for a in eqn.invars]
            name = eqn.primitive.name
            self._line = eqn_source(eqn) or outer
            if name in ("jit", "pjit", "closed_call", "core_call"):
                inner = eqn.params.get("jaxpr") or eqn.params.get("call_jaxpr")
                results = self._inline(closed_jaxpr(inner), inputs)
                local.update(zip(eqn.outvars, results))
                continue
            if name in CONTROL_FLOW:
                local.update(zip(eqn.outvars, unrolled(eqn, inputs, self)))
                continue
            outs = [self._new(v.aval.shape, v.aval.dtype) for v in eqn.outvars]
            if self.values is not None:
                subfunctions, params = bind_params(eqn)
                out = eqn.primitive.bind(*subfunctions, *(self.values[v] for v in inputs), **params)
                self.values.update(zip(outs, out if eqn.primitive.multiple_results else [out]))
            local.update(zip(eqn.outvars, outs))
            self.eqns.append(_Eqn(eqn, inputs, outs, self._scope, self._whiles > 0, self._line))
        self._line = outer
        return [read(v) for v in jaxpr.outvars]

    def _floating(self, slot: int) -> bool:
        return slot not in self.fixed and self.dtypes[slot].kind in "fc"

    def plan(self, compiled: bool) -> Plan:
        """The backward pass's plan (a BridgeError when there is none to show)."""
        producer = {v: k for k, e in enumerate(self.eqns) for v in e.outputs}
        needed = self._needed()
        looped = next((self.eqns[k] for k in sorted(needed) if self.eqns[k].forward_only), None)
        if looped is not None:
            raise BridgeError(
                f"jax_backward: the gradient flows through a lax.while_loop "
                f"({looped.eqn.primitive.name} in {'/'.join(looped.scope)}), and JAX cannot "
                "reverse-differentiate a while_loop (its trip count is only known by running "
                "it): write it as lax.scan or a fori_loop with static bounds, or import it "
                "with vz.from_jax for its forward values and forward mode"
            )
        if producer.get(self.output) not in needed:
            raise BridgeError(
                "jax_backward: the result does not depend on a floating-point argument "
                "through any computation: there is no backward pass to show"
            )
        if self.values is None:
            arguments = [*self.leaves, *self.consts]
        else:  # what the kept equations read from the rest, computed already
            made = {v for k in needed for v in self.eqns[k].outputs}
            read = {v for k in needed for v in self.eqns[k].inputs}
            arguments = sorted(read - made - set(self.fixed))
        plan = Plan(
            self.eqns,
            needed,
            self.output,
            self.leaves,
            arguments,
            self.fixed,
            self._floating,
            self.shapes,
            self.dtypes,
            compiled,
        )
        plan.floating_leaf = [self._floating(v) for v in self.leaves]
        plan.nodes = _templates(plan, self._floating)
        return plan

    def _needed(self) -> set[int]:
        """The equations the gradient flows through: on a path from a floating argument to
        the output, with a floating result."""
        reaches: set = {v for v in self.leaves if self._floating(v)}
        forward = set()
        for k, e in enumerate(self.eqns):
            if any(v in reaches for v in e.inputs) and any(self._floating(v) for v in e.outputs):
                forward.add(k)
                reaches.update(v for v in e.outputs if self._floating(v))
        wanted, needed = {self.output}, set()
        for k in reversed(range(len(self.eqns))):
            e = self.eqns[k]
            if k in forward and any(v in wanted for v in e.outputs):
                needed.add(k)
                wanted.update(v for v in e.inputs if v in reaches)
        return needed


def _templates(plan: Plan, floating: Callable[[int], bool]) -> list[RecordedNode]:
    """The recording's nodes of the kept equations, without their numbers (those of a call
    are filled in by :func:`_recording`)."""
    leaves = [v for v in plan.leaves if floating(v)]
    kept = plan.kept
    position = {v: j for j, v in enumerate(leaves)}
    at = {k: len(leaves) + j for j, k in enumerate(kept)}
    made = {v: (at[k], n) for k in kept for n, v in enumerate(plan.eqns[k].outputs)}

    def edge(v: int) -> tuple[int, int] | None:
        return (position[v], 0) if v in position else made.get(v)

    nodes = []
    for k in kept:
        e = plan.eqns[k]
        name = e.eqn.primitive.name
        inputs = tuple(edge(v) for v in e.inputs)
        reads = () if name in _LINEAR else tuple(j for j, _ in (i for i in inputs if i is not None))
        nodes.append(
            RecordedNode(
                op=name,
                inputs=inputs,
                reads=reads,
                backward=f"{name}_transpose",
                like=_LIKE.get(name),
                outputs=len(e.outputs),
                scope=e.scope,
                source=e.source,
            )
        )
    plan.shown_leaves = leaves
    plan.ran = tuple(at[k] for k in plan.order) + tuple(range(len(leaves)))
    plan.output_at = made[plan.output][0]
    return nodes


def _recording(
    plan: Plan,
    arrays: Sequence[np.ndarray],
    names: Sequence[str],
    results: tuple[dict, dict, dict],
    program: Callable[[], str],
) -> Recording:
    """The recording of one call: the arguments, then the equations the gradient flows
    through, with this call's values, partial adjoints and sums."""
    values, partials, cotangents = results
    name_of = dict(zip(plan.leaves, names))
    array_of = dict(zip(plan.leaves, arrays))
    nodes = [
        RecordedNode(
            op=None,
            name=name_of[v],
            value=array_of[v],
            adjoint=_leaf_adjoint(v, array_of[v], cotangents),
            backward="cotangent",
        )
        for v in plan.shown_leaves
    ]
    for k, template in zip(plan.kept, plan.nodes):
        e = plan.eqns[k]
        out = [values[v] for v in e.outputs]
        nodes.append(
            template._replace(
                value=out[0] if len(out) == 1 else tuple(out),
                adjoint=_adjoint([cotangents.get(v) for v in e.outputs]),
                partials=tuple(
                    None if edge is None else partials.get((k, j))
                    for j, edge in enumerate(template.inputs)
                ),
            )
        )
    seed = cotangents[plan.output]
    return Recording("JAX", tuple(nodes), plan.ran, plan.output_at, seed, program=program)


def _leaf_adjoint(slot: int, array: np.ndarray, cotangents: dict) -> np.ndarray:
    got = cotangents.get(slot)
    return got if got is not None else np.zeros(array.shape, array.dtype)


def _adjoint(adjoints: list) -> Any:
    given = [a for a in adjoints if a is not None]
    if len(adjoints) == 1 or len(given) <= 1:
        return given[0] if given else None
    return tuple(a if a is not None else Unrecorded("no gradient", ()) for a in adjoints)
