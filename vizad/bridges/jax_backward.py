"""``vz.jax_backward(fn, *args)``: JAX's own backward pass of a function, step by step.

JAX differentiates in reverse by linearizing a function (``jax.linearize``) and transposing
the linear program (``jax.linear_transpose``): its ``backward_pass`` walks the equations in
reverse, applies each primitive's transpose rule to the cotangent of its result, and adds the
cotangents that reach a variable read more than once with ``add_any``. This module does that
walk over the function's jaxpr in the open: for each equation, in reverse, JAX's own vjp of
that primitive alone (its linearization transposed) gives the partial adjoint v̄ᵢ→ⱼ of each
input, and the sum of those that reach a variable is its adjoint v̄ᵢ = Σⱼ v̄ᵢ→ⱼ, the ``add_any``
of JAX's backward jaxpr. Every value is computed by JAX; the whole transposed program, as JAX
prints it, is ``trace.program``.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from .. import ops
from ..errors import BridgeError
from ..trace.recorded import RecordedNode, RecordedReverseTrace, Recording, recorded_trace
from ..tree import Unrecorded
from .jax_import import bind_params, closed_jaxpr, eqn_source, traced
from .jax_loops import CONTROL_FLOW, unrolled
from .optional import require

jax = require("jax", "jax")
jnp = require("jax.numpy", "jax")
jax_core = require("jax.extend.core", "jax")

__all__ = ["jax_backward"]

#: Primitives whose transpose reads no forward value (they are linear in every input).
_LINEAR = frozenset(
    "add sub neg add_any reduce_sum broadcast_in_dim reshape squeeze expand_dims transpose "
    "convert_element_type copy copy_p concatenate pad slice rev".split()
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
    the gradient's path is refused: JAX cannot reverse it. Each primitive's vjp is compiled
    once per shapes and parameters and reused (by later equations and later calls)."""
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
        walk = _Walk(closed, arrays, arguments.names)
        recording = walk.recording(lambda: _program(arguments.function(), arrays, framework))
    trace = recorded_trace(recording, decimals)
    floating = [k for k, a in enumerate(arrays) if a.dtype.kind in "fc"]
    by_leaf = dict(zip(floating, trace.wrt))
    trace.grads = arguments.tree(
        [trace.adjoint(by_leaf[k]) if k in by_leaf else None for k in range(len(arrays))]
    )
    return trace


def _single_output(closed) -> list:
    outs = closed.jaxpr.outvars
    if len(outs) != 1:
        raise BridgeError(
            f"jax_backward: fn gives {len(outs)} results; its backward pass starts from one "
            "(return the loss alone)"
        )
    return outs


def _program(fn: Callable, arrays: list[np.ndarray], framework) -> str:
    """JAX's own backward program of ``fn`` at ``arrays``: its linearization transposed,
    as JAX prints it (of the floating-point arguments; the others are held fixed)."""
    with framework.mode():
        return _transposed(fn, arrays)


def _transposed(fn: Callable, arrays: list[np.ndarray]) -> str:
    floats = [k for k, a in enumerate(arrays) if a.dtype.kind in "fc"]

    def of_floats(*xs):
        full = list(arrays)
        for k, x in zip(floats, xs):
            full[k] = x
        return fn(*full)

    primals = [arrays[k] for k in floats]
    _, linear = jax.linearize(of_floats, *primals)
    transposed = jax.linear_transpose(linear, *primals)
    program = jax.make_jaxpr(transposed)(jnp.ones((), dtype=jnp.result_type(*primals)))
    return program.pretty_print(use_color=False)  # the same text in a terminal and a notebook


class _Value:
    """A value of the walk: an argument, a constant or an equation's result (a fresh one each
    time a nested jit is walked into, so two calls of one function are told apart)."""

    __slots__ = ()


class _Eqn:
    """An equation of the (inlined) jaxpr, its inputs and results as values of the walk."""

    __slots__ = ("eqn", "inputs", "outputs", "scope", "forward_only")

    def __init__(self, eqn, inputs: list, outputs: list, scope: tuple, forward_only: bool):
        self.eqn, self.inputs, self.outputs = eqn, inputs, outputs
        #: The loop steps and branches it runs in (``("scan t=2",)``).
        self.scope = scope
        #: Whether it runs in a while_loop (which JAX cannot reverse).
        self.forward_only = forward_only


class _Walk:
    """JAX's forward values of every equation, then its backward pass over them."""

    def __init__(self, closed, arrays: list[np.ndarray], names: list[str]):
        self.values: dict[_Value, Any] = {}  # JAX's value of each value of the walk
        self.const: set[_Value] = set()  # literals and constants of the jaxpr
        self.eqns: list[_Eqn] = []
        self.leaves = [self._new(jnp.asarray(a)) for a in arrays]
        self.names = names
        self._scope: tuple[str, ...] = ()
        self._whiles = 0
        (self.output,) = self._inline(closed, self.leaves)

    # -- what unrolling a loop needs (jax_loops.Runner) --------------------------------
    def run(self, closed, args: list) -> list:
        return self._inline(closed_jaxpr(closed), args)

    def concrete(self, value: _Value) -> np.ndarray:
        return np.asarray(self.values[value])

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

    def _new(self, value, const: bool = False) -> _Value:
        made = _Value()
        self.values[made] = value
        if const:
            self.const.add(made)
        return made

    def _inline(self, closed, args: list) -> list:
        """Evaluate ``closed`` on the values ``args``, adding its equations (those of a
        nested jit, walked into); returns the values of its results."""
        jaxpr = closed.jaxpr
        local: dict = dict(zip(jaxpr.invars, args))
        for var, value in zip(jaxpr.constvars, closed.consts):
            local[var] = self._new(jnp.asarray(value), const=True)

        def read(atom):
            if isinstance(atom, jax_core.Literal):
                return self._new(jnp.asarray(atom.val, dtype=atom.aval.dtype), const=True)
            return local[atom]

        for eqn in jaxpr.eqns:
            inputs = [read(a) for a in eqn.invars]
            name = eqn.primitive.name
            if name in ("jit", "pjit", "closed_call", "core_call"):
                inner = eqn.params.get("jaxpr") or eqn.params.get("call_jaxpr")
                results = self._inline(closed_jaxpr(inner), inputs)
                local.update(zip(eqn.outvars, results))
                continue
            if name in CONTROL_FLOW:
                local.update(zip(eqn.outvars, unrolled(eqn, inputs, self)))
                continue
            subfunctions, params = bind_params(eqn)
            out = eqn.primitive.bind(*subfunctions, *(self.values[v] for v in inputs), **params)
            outs = [self._new(o) for o in (out if eqn.primitive.multiple_results else [out])]
            local.update(zip(eqn.outvars, outs))
            self.eqns.append(_Eqn(eqn, inputs, outs, self._scope, self._whiles > 0))
        return [read(v) for v in jaxpr.outvars]

    def _floating(self, var) -> bool:
        return var not in self.const and jnp.issubdtype(self.values[var].dtype, jnp.inexact)

    def recording(self, program: Callable[[], str]) -> Recording:
        """The backward pass: equations in reverse, each one's partial adjoints from JAX's vjp
        of its primitive alone, summed per variable in the order they arrive."""
        producer = {v: k for k, e in enumerate(self.eqns) for v in e.outputs}
        needed = self._needed(producer)
        looped = next((self.eqns[k] for k in sorted(needed) if self.eqns[k].forward_only), None)
        if looped is not None:
            raise BridgeError(
                f"jax_backward: the gradient flows through a lax.while_loop "
                f"({looped.eqn.primitive.name} in {'/'.join(looped.scope)}), and JAX cannot "
                "reverse-differentiate a while_loop (its trip count is only known by running "
                "it): write it as lax.scan or a fori_loop with static bounds, or import it "
                "with vz.from_jax for its forward values and forward mode"
            )
        cotangent: dict = {self.output: np.ones((), self.values[self.output].dtype)}
        arrived: dict = {}  # variable -> partial adjoints, in the order they arrived
        partials: dict[int, tuple] = {}
        order: list = []
        for k in reversed(range(len(self.eqns))):
            if k not in needed:
                continue
            e = self.eqns[k]
            cts = [self._total(v, arrived, cotangent) for v in e.outputs]
            order.append(k)
            partials[k] = self._pullback(e, cts)
            for v, p in zip(e.inputs, partials[k]):
                if p is not None:
                    arrived.setdefault(v, []).append(p)
        for v in self.leaves:
            self._total(v, arrived, cotangent)
        return self._made(producer, needed, order, partials, cotangent, program)

    def _needed(self, producer) -> set[int]:
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

    def _total(self, var, arrived, cotangent):
        """The cotangent of ``var``: what was given (the output's seed), or the sum of the
        partial adjoints that arrived, added one by one as ``add_any`` adds them."""
        if var in cotangent:
            return cotangent[var]
        parts = arrived.get(var)
        if not parts:
            return None
        total = parts[0]
        for p in parts[1:]:
            total = total + p  # add_any: IEEE addition, the same bits in numpy
        cotangent[var] = total
        return total

    def _pullback(self, e: _Eqn, cts: list) -> tuple:
        """JAX's partial adjoints of ``e``'s inputs (its primitive's linearization, transposed
        by JAX), None for an input that takes none."""
        floats = tuple(k for k, v in enumerate(e.inputs) if self._floating(v))
        if not floats:
            return (None,) * len(e.inputs)
        fixed = tuple(self.values[v] for v in e.inputs)
        filled = tuple(
            c if c is not None else np.zeros(np.shape(self.values[v]), self.values[v].dtype)
            for c, v in zip(cts, e.outputs)
        )
        grads = _vjp(e.eqn, floats, fixed)(fixed, filled)
        out: list = [None] * len(e.inputs)
        for k, g in zip(floats, grads):
            out[k] = np.asarray(g)
        return tuple(out)

    def _made(self, producer, needed, order, partials, cotangent, program) -> Recording:
        """The recording: the arguments, then the equations the gradient flows through."""
        leaves = [v for v in self.leaves if self._floating(v)]
        kept = [k for k in range(len(self.eqns)) if k in needed]
        position = {("leaf", v): j for j, v in enumerate(leaves)}
        position.update({("eqn", k): len(leaves) + j for j, k in enumerate(kept)})

        def edge(v):
            if ("leaf", v) in position:
                return position[("leaf", v)], 0
            k = producer.get(v)
            if k is None or k not in needed:
                return None
            return position[("eqn", k)], self.eqns[k].outputs.index(v)

        names = dict(zip(self.leaves, self.names))
        nodes = [
            RecordedNode(
                op=None,
                name=names[v],
                value=_numpy(self.values[v]),
                adjoint=_numpy(cotangent.get(v, jnp.zeros_like(self.values[v]))),
                backward="cotangent",
            )
            for v in leaves
        ]
        for k in kept:
            e = self.eqns[k]
            name = e.eqn.primitive.name
            inputs = tuple(edge(v) for v in e.inputs)
            values = [_numpy(self.values[v]) for v in e.outputs]
            adjoints = [cotangent.get(v) for v in e.outputs]
            reads = (
                () if name in _LINEAR else tuple(j for j, _ in (i for i in inputs if i is not None))
            )
            nodes.append(
                RecordedNode(
                    op=name,
                    inputs=inputs,
                    value=values[0] if len(values) == 1 else tuple(values),
                    adjoint=_adjoint(adjoints),
                    partials=tuple(
                        None if i is None or p is None else _numpy(p)
                        for i, p in zip(inputs, partials[k])
                    ),
                    reads=reads,
                    backward=f"{name}_transpose",
                    like=_LIKE.get(name),
                    outputs=len(e.outputs),
                    scope=e.scope,
                    source=eqn_source(e.eqn),
                )
            )
        ran = [position[("eqn", k)] for k in order] + list(range(len(leaves)))
        if producer.get(self.output) not in needed:
            raise BridgeError(
                "jax_backward: the result does not depend on a floating-point argument "
                "through any computation: there is no backward pass to show"
            )
        output = position[("eqn", producer[self.output])]
        seed = _numpy(cotangent[self.output])
        return Recording("JAX", tuple(nodes), tuple(ran), output, seed, program=program)


#: Compiled vjps of single primitives, by primitive, parameters, input types and which inputs
#: are differentiated: the same equation in a later time step or a later call costs one
#: call of compiled code.
_PULLBACKS: dict = {}
_MAX_PULLBACKS = 4096
#: XLA options for the vjp of one primitive: a program this small runs as fast without the
#: expensive passes, and compiles in about half the time.
_QUICK = {"xla_backend_optimization_level": 0, "xla_llvm_disable_expensive_passes": True}


def _vjp(eqn, floats: tuple, fixed: tuple) -> Callable:
    """``(inputs, cotangents) -> partial adjoints of inputs[floats]``: JAX's vjp of ``eqn``'s
    primitive alone, compiled once per key and cached (uncompiled for a primitive whose
    parameters are not hashable or that carries subfunctions, a custom rule's)."""
    subfunctions, params = bind_params(eqn)
    primitive = eqn.primitive
    many = primitive.multiple_results

    def pullback(inputs, cts):
        def local(*xs):
            full = list(inputs)
            for k, x in zip(floats, xs):
                full[k] = x
            out = primitive.bind(*subfunctions, *full, **params)
            return tuple(out) if many else out

        _, back = jax.vjp(local, *(inputs[k] for k in floats))
        return back(cts if many else cts[0])

    if subfunctions:
        return pullback
    try:
        key = (
            primitive,
            tuple(sorted(params.items())),
            tuple((x.shape, x.dtype, _weak(x)) for x in fixed),
            floats,
            jax.config.jax_enable_x64,
        )
        compiled = _PULLBACKS.get(key)
    except TypeError:  # parameters that cannot be a key
        return pullback
    if compiled is None:
        if len(_PULLBACKS) >= _MAX_PULLBACKS:
            _PULLBACKS.clear()
        compiled = _PULLBACKS[key] = jax.jit(pullback, compiler_options=_QUICK)
    return compiled


def _weak(x) -> bool:
    return bool(getattr(getattr(x, "aval", None), "weak_type", False))


def _adjoint(adjoints: list) -> Any:
    given = [a for a in adjoints if a is not None]
    if len(adjoints) == 1 or len(given) <= 1:
        return _numpy(given[0]) if given else None
    return tuple(_numpy(a) if a is not None else Unrecorded("no gradient", ()) for a in adjoints)


def _numpy(value) -> np.ndarray:
    return np.asarray(value)
