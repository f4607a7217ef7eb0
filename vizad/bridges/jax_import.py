"""``vz.from_jax(fn, *args)``: a JAX function as a vizad graph.

The function is traced to a jaxpr (``jax.make_jaxpr``, JAX's own tracer). A primitive with a
vizad counterpart becomes that vizad op (``mul`` → ``mul``, ``dot_general`` → ``matmul``,
``reduce_sum`` → ``sum``, ``broadcast_in_dim`` → ``reshape`` and ``broadcast_to``), so the
adjoint graph is vizad's own; any other becomes a
:class:`~vizad.bridges.framework_op.FrameworkOp` that binds the primitive and takes its vjp
and jvp from ``jax.vjp`` and ``jax.jvp`` (a ``custom_jvp``/``custom_vjp`` function keeps its
own rule that way). A nested ``jit`` becomes a ``vz.scope`` of its name.
"""

from __future__ import annotations

import linecache
import os
import re
import sys
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from vizad.engine import ops
from vizad.errors import ArgumentTypeError, BridgeError
from vizad.engine.executor import evaluate_into
from vizad.engine.node import Node, scope, source_line
from vizad.engine.op import Op, constant
from vizad.engine.tree import TupleShape
from vizad.bridges.framework_op import Framework, FrameworkOp
from vizad.bridges.imported import Imported, input_node
from vizad.bridges.jax_args import Arguments
from vizad.bridges.jax_keys import key_equation, key_inputs
from vizad.bridges.jax_loops import CONTROL_FLOW, unrolled
from vizad.bridges.optional import require

if TYPE_CHECKING:  # pragma: no cover
    from types import TracebackType

    from jax.extend.core import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var

jax = require("jax", "jax")
jnp = require("jax.numpy", "jax")
jax_core = require("jax.extend.core", "jax")
source_info_util = require("jax._src.source_info_util", "jax")

__all__ = ["from_jax", "Jax", "bind_params", "closed_jaxpr", "eqn_source", "traced", "within"]


class Jax(Framework):
    """JAX as a fallback op's framework: primitives bound on arrays, ``jax.vjp`` and
    ``jax.jvp`` rules, in the float mode the function was imported in (64-bit with float64
    values or JAX's 64-bit mode on then; 32-bit otherwise), whatever the mode is when the
    imported graph is run later: a float32 function imported with x64 off and evaluated with
    it on would otherwise mix float64 constants into its float32 ops."""

    name = "JAX"

    def __init__(self, x64: bool) -> None:
        self.x64 = x64

    def mode(self) -> AbstractContextManager:
        """The context that gives the imported function its float type."""
        return jax.enable_x64(self.x64)

    def call(self, fn: Callable, values: Sequence[Any]) -> Any:
        with self.mode():
            return super().call(fn, values)

    def native(self, value: Any) -> Any:
        if isinstance(value, tuple):
            return tuple(self.native(v) for v in value)
        return jnp.asarray(value)

    def numpy(self, value: Any) -> Any:
        if isinstance(value, (tuple, list)):
            return tuple(self.numpy(v) for v in value)
        return np.asarray(value)

    def floating(self, x: Any) -> bool:
        dtype = getattr(x, "dtype", None)
        return dtype is not None and jnp.issubdtype(dtype, jnp.inexact)

    def zeros(self, x: Any) -> Any:
        dtype = x.dtype if self.floating(x) else jnp.result_type(float)
        return jnp.zeros(jnp.shape(x), dtype)

    def pullback(self, f: Callable, primals: Sequence[Any]) -> Callable:
        return jax.vjp(f, *primals)[1]

    def pushforward(self, f: Callable, primals: Sequence[Any], tangents: Sequence[Any]) -> Any:
        return jax.jvp(f, tuple(primals), tuple(tangents))[1]


def from_jax(
    fn: Callable,
    *args: Any,
    static_argnums: int | Sequence[int] = (),
    static_argnames: str | Sequence[str] = (),
    **kwargs: Any,
) -> Imported:
    """``fn`` at the example ``args`` as a vizad graph: an
    :class:`~vizad.bridges.imported.Imported` with ``inputs`` (a Variable per floating-point
    array), ``outputs`` and ``feed``.

    Arguments are pytrees as JAX takes them (dicts, lists, tuples, NamedTuples, registered
    dataclasses of arrays): each array is an input named by its path (``params['W1']``,
    ``params.layers[0].b``), and ``imported.tree(values)`` lays one value per input (the
    gradients) back out as the arguments were given. ``static_argnums`` and keyword arguments
    are held fixed (JAX differentiates positional arguments only).

    Primitives that vizad has (add, sub, mul, div, neg, exp, log, sin, cos, tanh, logistic,
    sqrt, integer_pow, dot_general as a matmul, reduce_sum, broadcast_in_dim, reshape,
    squeeze, expand_dims, transpose) become vizad ops; any other becomes an op that binds the
    primitive and differentiates with ``jax.vjp``/``jax.jvp`` (gradients of any order work).
    A nested ``jax.jit`` is a ``vz.scope`` of its function's name. ``lax.scan`` (and a
    ``fori_loop``) is unrolled, one scope per time step (``scan t=1`` …: drawings fold them
    into one "× T" box); ``lax.cond`` records the branch the example takes, its predicate an
    input that is not differentiated; a ``while_loop`` is run forward (its reverse mode is
    refused, as JAX refuses it). Random keys (``PRNGKey`` or typed, passed, static or closed
    over, and the seeds they are made from) are constants of the trace: what they give (a
    dropout mask) is computed by JAX while tracing and held as a constant (where a key is
    used in a lax loop or a nested ``jit``, those run inline, without their scopes; a key
    computed from a floating input is refused, naming the line). float64 arguments are traced
    and run in JAX's 64-bit mode (``jax.enable_x64``), whatever the global setting; with that
    mode off, a function written in float32 (a float32 argument, or a float32 value it closes
    over or computes) runs as the user's own call runs it: float64 data made float32, as
    ``jnp.asarray`` makes it.

    Examples:
        >>> import jax.numpy as jnp
        >>> def f(x1, x2):
        ...     return jnp.log(x1) + x1 * x2 - jnp.sin(x2)
        ...
        >>> imported = vz.from_jax(f, 2.0, 5.0)
        >>> imported.inputs
        (<Node x1 shape=()>, <Node x2 shape=()>)
        >>> vz.evaluate(vz.gradients(imported.output, imported.inputs), imported.feed)
        [array(5.5), array(1.71633781)]
    """
    arguments, framework, closed = traced(
        fn, args, kwargs, static_argnums, static_argnames, "from_jax"
    )
    inputs: list[Node] = []
    feed: dict[Node, np.ndarray] = {}
    flat = [
        input_node(name, value, inputs, feed)
        for name, value in zip(arguments.names, arguments.leaves)
    ]
    with framework.mode():
        outputs = _Importer(framework, feed).run(closed, flat)
    return Imported(tuple(inputs), tuple(outputs), feed, _tree_of(arguments, inputs, flat))


def _tree_of(arguments: Arguments, inputs: list[Node], flat: list) -> Callable:
    """``Imported.tree``'s layout: one value per input placed at its leaf (None at a leaf that
    is not an input: an integer array)."""
    position = {node: k for k, node in enumerate(inputs)}

    def tree(values: Sequence[Any]) -> Any:
        values = list(values)
        return arguments.tree([values[position[x]] if x in position else None for x in flat])

    return tree


def traced(
    fn: Callable,
    args: tuple,
    kwargs: dict,
    static_argnums: int | Sequence[int],
    static_argnames: str | Sequence[str],
    what: str,
) -> tuple[Arguments, Jax, ClosedJaxpr]:
    """The example arguments (flattened to arrays), JAX in the float mode they need, and the
    jaxpr of ``fn`` of the arrays (a BridgeError saying why when JAX cannot trace it)."""
    if not callable(fn):
        raise ArgumentTypeError(f"{what}: fn must be callable, got {type(fn).__name__}")
    arguments = Arguments(fn, args, kwargs, static_argnums, static_argnames, what)
    framework = Jax(x64=arguments.x64 or bool(jax.config.jax_enable_x64))
    closed = _jaxpr(arguments, framework, what)
    if framework.x64 and not jax.config.jax_enable_x64 and _narrow(closed):
        # float64 data (numpy's) given to a function of float32 weights, outside JAX's
        # 64-bit mode: the user's own run is float32 throughout (an overflow to inf
        # included), as jnp.asarray makes the data: so is the import
        arguments.canonicalize()
        framework = Jax(x64=False)
        closed = _jaxpr(arguments, framework, what)
    return arguments, framework, closed


def _jaxpr(arguments: Arguments, framework: Jax, what: str) -> ClosedJaxpr:
    """The jaxpr of the function of the leaves; one using random keys traced again with
    them held fixed, what they give (a dropout mask) a constant of it (see jax_keys)."""
    closed = _made_jaxpr(arguments, framework, what)
    if arguments.fold or (not arguments.held and key_equation(closed) is None):
        return closed
    arguments.hold_keys(key_inputs(closed))
    closed = _made_jaxpr(arguments, framework, what)
    if key_equation(closed) is not None:  # in a lax loop or a nested jit: both run inline
        arguments.inline = True
        closed = _made_jaxpr(arguments, framework, what)
    left = key_equation(closed)
    if left is not None:
        line = eqn_source(left)
        raise BridgeError(
            f"{what}: a random key{f' at {line}' if line else ''} ({left.primitive.name}) "
            "depends on an input: vizad takes random keys as constants of the trace and "
            "cannot hold this one fixed. Make the random values (the mask, the noise) outside "
            "and pass them as an argument"
        )
    return closed


def _made_jaxpr(arguments: Arguments, framework: Jax, what: str) -> ClosedJaxpr:
    with framework.mode():
        try:
            return jax.make_jaxpr(arguments.function())(*arguments.leaves)
        except Exception as exc:
            fn = arguments.fn
            line = _traceback_line(exc.__traceback__)
            raise BridgeError(
                f"{what}: JAX could not trace {getattr(fn, '__name__', fn)!r} with "
                f"make_jaxpr{f', at {line}' if line else ''} "
                f"({type(exc).__name__}: {_in_user_terms(str(exc), arguments)})"
            ) from exc


#: Where code is not the user's: JAX's, numpy's, vizad's own.
_NOT_USER = tuple(
    os.path.dirname(m.__file__ or "") + os.sep
    for m in (jax, np, sys.modules["vizad"], sys.modules["contextlib"])
)


def _traceback_line(tb: TracebackType | None) -> str | None:
    """``"model.py:12  if jnp.sum(x) > 0:"``: the innermost line of the user's code in a
    traceback (JAX's, numpy's and vizad's frames skipped), or None."""
    found = None
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if not name.startswith(_NOT_USER):
            text = linecache.getline(name, tb.tb_lineno).strip()
            found = f"{os.path.basename(name)}:{tb.tb_lineno}" + (f"  {text}" if text else "")
        tb = tb.tb_next
    return found


def _in_user_terms(text: str, arguments: Arguments) -> str:
    """JAX's message with vizad's function of the leaves (``of_leaves at jax_args.py``,
    ``the argument leaves[0]``) said as the user's function and argument."""
    fn = arguments.fn
    code = getattr(fn, "__code__", None)
    where = f" at {code.co_filename}:{code.co_firstlineno}" if code is not None else ""
    named = f"{getattr(fn, '__name__', 'fn')}{where}"
    text = re.sub(r"of_leaves at \S+jax_args\.py:\d+", lambda _: named, text)

    def argument(m: re.Match) -> str:
        k = int(m[1])
        return f"argument {arguments.names[k]}" if k < len(arguments.names) else m[0]

    return re.sub(r"argument leaves\[(\d+)\]", argument, text)


def _narrow(closed: ClosedJaxpr) -> bool:
    """Whether a program traced in 64-bit mode holds a floating value narrower than 64 bits
    (an argument, a value it closes over, one it computes): the function is written in
    float32 (weights made by jnp outside 64-bit mode), and float64 values in it are only
    data that JAX itself would have made float32."""
    jaxpr = closed.jaxpr
    variables = [*jaxpr.invars, *jaxpr.constvars, *(v for e in jaxpr.eqns for v in e.outvars)]
    dtypes = [getattr(v.aval, "dtype", None) for v in variables]
    return any(d is not None and jnp.issubdtype(d, jnp.floating) and d.itemsize < 8 for d in dtypes)


class _Importer:
    """Turns the equations of a jaxpr into vizad nodes (a loop's body once per iteration:
    the example's values, ``feed``, say how many times and which branch)."""

    def __init__(self, framework: Jax, feed: dict) -> None:
        self.framework, self.feed = framework, feed
        self.values: dict = {}  # the example's values of the nodes evaluated so far

    def concrete(self, node: Node) -> np.ndarray:
        evaluate_into([node], self.values, self.feed)
        return np.asarray(self.values[node])

    def scoped(self, name: str) -> AbstractContextManager:
        return scope(name)

    def loop(self, kind: str) -> AbstractContextManager:
        return nullcontext()

    def run(self, closed: ClosedJaxpr, args: list) -> list[Node]:
        """The nodes of ``closed``'s outputs, its inputs being ``args``."""
        jaxpr = closed.jaxpr
        env: dict = {}
        for var, value in zip(jaxpr.constvars, closed.consts):
            env[var] = constant(np.asarray(value))
        for var, value in zip(jaxpr.invars, args):
            env[var] = value
        for eqn in jaxpr.eqns:
            with within(eqn):
                results = self.equation(eqn, [self.read(v, env) for v in eqn.invars])
            for var, value in zip(eqn.outvars, results):
                env[var] = value
        return [self.read(v, env) for v in jaxpr.outvars]

    def read(self, atom: Var | Literal, env: dict) -> Any:
        if isinstance(atom, jax_core.Literal):
            return _literal(atom)
        return env[atom]

    def equation(self, eqn: JaxprEqn, args: list) -> list:
        """The vizad nodes of one equation's results."""
        name = eqn.primitive.name
        if name in ("jit", "pjit", "closed_call", "core_call"):
            inner = eqn.params.get("jaxpr") or eqn.params.get("call_jaxpr")
            with scope(str(eqn.params.get("name", name))):
                return self.run(closed_jaxpr(inner), args)  # type: ignore[arg-type]  # (it has one)
        if name in CONTROL_FLOW:
            results = unrolled(eqn, args, self)
            if name == "cond":  # the predicate as an input of each result
                return [_taken(args[0], r) for r in results]
            if name == "while":
                return [_forward_only(r) for r in results]
            return results
        made = _PRIMITIVES.get(name)
        if made is not None and len(eqn.outvars) == 1:
            node = made(eqn, *args)
            if node is not None:
                return [node]
        return self.fallback(eqn, args)

    def fallback(self, eqn: JaxprEqn, args: list) -> list:
        """The op that binds ``eqn``'s primitive with JAX."""
        primitive, (subfunctions, params) = eqn.primitive, bind_params(eqn)
        many = primitive.multiple_results

        def run(*xs: Any) -> Any:
            return primitive.bind(*subfunctions, *xs, **params)

        # (JAX types an aval AbstractValue; a result's is a ShapedArray, with shape and dtype)
        avals: list[Any] = [v.aval for v in eqn.outvars]
        shapes = [tuple(a.shape) for a in avals]
        floating = any(jnp.issubdtype(a.dtype, jnp.inexact) for a in avals)
        shape = TupleShape(shapes) if many else shapes[0]
        op = FrameworkOp(_op_name(eqn), run, self.framework, len(args), shape, floating)
        if primitive.name.startswith("custom_vjp"):
            op.no_jvp = "JAX has no forward mode for a custom_vjp function"
        node = op(*args)
        return [ops.tuple_get(node, k) for k in range(len(avals))] if many else [node]


#: vizad's own folder: an equation vizad made (a scan's step read or its results stacked, by
#: vizad.bridges.jax_loops) is no line of the user's
_VIZAD = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def eqn_source(eqn: JaxprEqn) -> str | None:
    """The line of the user's code that made ``eqn`` (``"model.py:12  h = jnp.tanh(x)"``),
    from JAX's ``source_info``; None when JAX does not know it or vizad made the equation
    (then the line of the loop or call it is in stands: :func:`within`)."""
    try:
        frame = source_info_util.user_frame(eqn.source_info.traceback)
    except Exception:  # source_info is JAX's internal API: a line is a nicety, never an error
        return None
    if frame is None or os.path.abspath(frame.file_name).startswith(_VIZAD):
        return None
    text = linecache.getline(frame.file_name, frame.start_line).strip()
    short = os.path.basename(frame.file_name)
    return f"{short}:{frame.start_line}  {text}" if text else f"{short}:{frame.start_line}"


def within(eqn: JaxprEqn) -> AbstractContextManager:
    """The nodes built for ``eqn`` come from its line (:func:`eqn_source`); where it has none
    (an equation of a loop's body that vizad unrolls), from the line they are built in (the
    loop's)."""
    line = eqn_source(eqn)
    return nullcontext() if line is None else source_line(line)


def closed_jaxpr(jaxpr: ClosedJaxpr | Jaxpr) -> ClosedJaxpr:
    """A ClosedJaxpr of a jaxpr parameter (closed already, or without constants)."""
    if isinstance(jaxpr, jax_core.ClosedJaxpr):
        return jaxpr
    return jax_core.ClosedJaxpr(jaxpr, ())


def bind_params(eqn: JaxprEqn) -> tuple[tuple, dict]:
    """The arguments that bind ``eqn``'s primitive as ``eval_jaxpr`` does: (subfunctions,
    parameters) across JAX versions."""
    made = eqn.primitive.get_bind_params(eqn.params)
    if isinstance(made, tuple):
        return made[0], made[1]
    return (), made


def _op_name(eqn: JaxprEqn) -> str:
    """A fallback op's name: the primitive's, with the function's for a custom rule
    (``relu (custom_jvp_call)``)."""
    name = eqn.primitive.name
    inner = eqn.params.get("call_jaxpr") or eqn.params.get("fun_jaxpr")
    info = getattr(getattr(inner, "jaxpr", inner), "debug_info", None)
    source = getattr(info, "func_src_info", None) or ""
    function = source.split(" ", 1)[0]
    return f"{function} ({name})" if function else name


class _Taken(Op):
    """A result of the branch of a ``lax.cond`` that the example took: the value itself, read
    with the branch index (an input that is not differentiated: the other branch would give
    another function)."""

    name, arity = "cond", 2

    def compute(self, index: Any, value: Any) -> Any:
        return value

    def infer_shape(self, shapes: Sequence[Any], attrs: Mapping[str, Any]) -> Any:
        return shapes[1]

    def vjp(self, node: Node, adjoint: Node) -> list[Node | None]:
        return [None, adjoint]

    def jvp(self, node: Node, tangents: Sequence[Node | None]) -> Node | None:
        return tangents[1]

    def latex(self, args: Sequence[str], attrs: Mapping[str, Any]) -> str:
        return rf"\operatorname{{cond}}_{{{args[0]}}}\left({args[1]}\right)"


class _ForwardOnly(Op):
    """A result of a ``while_loop``: its value and tangent pass through; reverse mode is
    refused, as JAX refuses it (the number of iterations is not known before running)."""

    name, arity = "while", 1

    def compute(self, value: Any) -> Any:
        return value

    def infer_shape(self, shapes: Sequence[Any], attrs: Mapping[str, Any]) -> Any:
        return shapes[0]

    def vjp(self, node: Node, adjoint: Node) -> list[Node | None]:
        raise BridgeError(
            f"{node.name or 'a while_loop result'}: JAX cannot reverse-differentiate a "
            "lax.while_loop (its trip count is only known by running it), and vizad does not "
            "either: use forward mode (vz.trace_forward), or write the loop as lax.scan or a "
            "fori_loop with static bounds"
        )

    def jvp(self, node: Node, tangents: Sequence[Node | None]) -> Node | None:
        return tangents[0]

    def latex(self, args: Sequence[str], attrs: Mapping[str, Any]) -> str:
        return rf"\operatorname{{while}}\left({args[0]}\right)"


_TAKEN, _FORWARD_ONLY = _Taken(), _ForwardOnly()


def _taken(index: Node, value: Any) -> Node:
    return _TAKEN(index, value)


def _forward_only(value: Any) -> Node:
    return _FORWARD_ONLY(value)


def _literal(atom: Literal) -> Any:
    """A literal of a jaxpr as a constant of its dtype (a weakly typed one as a number)."""
    aval: Any = atom.aval  # (a ShapedArray; JAX types it AbstractValue)
    value = np.asarray(atom.val, dtype=aval.dtype)
    if getattr(aval, "weak_type", False) and value.ndim == 0:
        return constant(value.item())
    return constant(value)


# -- primitives that vizad has: each gives a vizad node, or None (then JAX's op is used) ----
def _dot_general(eqn: JaxprEqn, a: Node, b: Node) -> Node | None:
    """``dot_general`` as vizad's matmul where it is one (one contracting axis, at most one
    batch axis in front); None otherwise."""
    (contract_a, contract_b), (batch_a, batch_b) = eqn.params["dimension_numbers"]
    na, nb = (len(v.aval.shape) for v in eqn.invars)  # type: ignore[attr-defined]  # (a ShapedArray)
    if len(contract_a) != 1 or len(contract_b) != 1 or tuple(batch_a) != tuple(batch_b):
        return None
    if tuple(batch_a) not in ((), (0,)) or (batch_a and not na == nb == 3):
        return None
    (ca,), (cb,) = contract_a, contract_b
    k = len(batch_a)
    if na - k > 2 or nb - k > 2:
        return None
    trans_a = na - k == 2 and ca == k
    trans_b = nb - k == 2 and cb == nb - 1
    if (na - k == 2 and ca not in (k, na - 1)) or (nb - k == 2 and cb not in (k, nb - 1)):
        return None
    return ops.matmul(a, b, trans_a=trans_a, trans_b=trans_b)


def _broadcast_in_dim(eqn: JaxprEqn, a: Node, *dynamic: Node) -> Node | None:
    if dynamic:
        return None
    shape, dims = tuple(eqn.params["shape"]), tuple(eqn.params["broadcast_dimensions"])
    source = tuple(eqn.invars[0].aval.shape)  # type: ignore[attr-defined]  # (a ShapedArray)
    kept = [1] * len(shape)
    for d, n in zip(dims, source):
        kept[d] = n
    kept = tuple(kept)  # type: ignore[assignment]  # (the list, frozen)
    if kept != source:
        a = ops.reshape(a, kept)
    return a if kept == shape else ops.broadcast_to(a, shape)


def _to_shape_of_result(eqn: JaxprEqn, a: Node, *rest: Node) -> Node | None:
    return None if rest else ops.reshape(a, tuple(eqn.outvars[0].aval.shape))  # type: ignore[attr-defined]  # (a ShapedArray)


def _convert(eqn: JaxprEqn, a: Node) -> Node | None:
    same = eqn.invars[0].aval.dtype == eqn.params["new_dtype"]  # type: ignore[attr-defined]  # (a ShapedArray)
    return ops.identity(a) if same else None


def _unary(op: Callable[[Node], Node]) -> Callable[..., Node]:
    def made(eqn: JaxprEqn, a: Node, **_: Any) -> Node:
        return op(a)

    return made


def _binary(op: Callable[[Node, Node], Node]) -> Callable[..., Node]:
    def made(eqn: JaxprEqn, a: Node, b: Node) -> Node:
        return op(a, b)

    return made


_PRIMITIVES: dict[str, Callable[..., Node | None]] = {
    **{name: _binary(getattr(ops, name)) for name in ("add", "sub", "mul", "div")},
    "add_any": _binary(ops.add),
    **{
        name: _unary(getattr(ops, name))
        for name in ("neg", "exp", "log", "sin", "cos", "tanh", "sqrt")
    },
    "logistic": _unary(ops.sigmoid),
    "integer_pow": lambda eqn, a: ops.power(a, eqn.params["y"]),
    "dot_general": _dot_general,
    "reduce_sum": lambda eqn, a: ops.sum(a, axis=tuple(eqn.params["axes"])),
    "broadcast_in_dim": _broadcast_in_dim,
    "reshape": _to_shape_of_result,
    "squeeze": _to_shape_of_result,
    "expand_dims": _to_shape_of_result,
    "transpose": lambda eqn, a: ops.transpose(a, tuple(eqn.params["permutation"])),
    "convert_element_type": _convert,
    "copy": _unary(ops.identity),
    "copy_p": _unary(ops.identity),
}
