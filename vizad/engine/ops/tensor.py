"""Tensor ops: matmul, transpose, reshape, sum, mean, broadcast_to, sum_to_shape, expand_dims.

``broadcast_to``, ``sum_to_shape`` and ``reshape`` take their target shape either as a tuple or
as a node, whose value's shape is read at run time. Adjoints use the node form when a shape is
not known while building the graph (a Variable declared without a shape).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeGuard

import numpy as np

from vizad.errors import ShapeError
from vizad.engine.node import OPERATORS, Node, _as_shape, static_shape
from vizad.engine.op import Op, eager_class, register
from vizad.engine.ops.elementwise import broadcast_shapes, reduce_target
from vizad.engine.text import latex_operator
from vizad.engine.tree import floating_dtype
from vizad.engine.ops.arithmetic import add, div
from vizad.engine.ops.types import ArrayValue, Axes, Operand, ShapeLike, StaticShape

if TYPE_CHECKING:  # pragma: no cover
    from vizad.engine.eager import EagerNode


__all__ = [
    "matmul",
    "transpose",
    "reshape",
    "sum",
    "mean",
    "broadcast_to",
    "sum_to_shape",
    "expand_dims",
    "size",
]


_ADD_REDUCE = np.add.reduce
_FLOAT_SCALARS = frozenset({np.float64, np.float32, np.float16})


# -- shape helpers -------------------------------------------------------------------------
def axes_argument(axis: object, what: str) -> tuple[int, ...] | None:
    """``axis`` (None, an int or a sequence of ints) as None or a tuple of ints."""
    if axis is None:
        return None

    def integral(a: object) -> TypeGuard[int | np.integer[Any]]:
        return isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_))

    if integral(axis):
        return (int(axis),)
    if isinstance(axis, (tuple, list)) and all(map(integral, axis)):
        return tuple(int(a) for a in axis)
    raise ShapeError(
        f"{what}: axis must be None, an int or a tuple of ints (axis=0, axis=(0, 1)), got "
        f"{type(axis).__name__} {axis!r:.40}; give one of those"
    )


def normalize_axes(
    axes: Sequence[int] | None, ndim: int, shape: Sequence[int], what: str
) -> tuple[int, ...]:
    """Axes as non-negative ints, checked against ``ndim``."""
    if axes is None:
        return tuple(range(ndim))
    out = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise ShapeError(
                f"{what}: axis {a} is out of range for shape {tuple(shape)}; give an axis from "
                f"{-ndim} to {ndim - 1}"
            )
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ShapeError(f"{what}: repeated axis in {axes}")
    return tuple(sorted(out))


def _sum_to(g: ArrayValue, shape: tuple[int, ...]) -> ArrayValue:
    """Sum a broadcast value ``g`` back down to ``shape``: the inverse of broadcasting."""
    g_shape = np.shape(g)
    if g_shape == shape:
        return g
    lead = len(g_shape) - len(shape)
    if lead < 0 or any(d != 1 and d != e for d, e in zip(shape, g_shape[lead:])):
        raise ShapeError(
            f"cannot sum a value of shape {g_shape} to shape {shape}: "
            "that shape does not broadcast to it"
        )
    axes = tuple(range(lead)) + tuple(
        lead + k for k, d in enumerate(shape) if d == 1 and g_shape[lead + k] != 1
    )
    return np.reshape(np.sum(g, axis=axes), shape)


def _with_target(op: Op, a: Operand, target: ShapeLike, **attrs: Any) -> Node:
    """Build ``op(a)`` aiming at ``target``: a shape tuple, or a node whose shape is used."""
    if isinstance(target, Node):
        return op(a, target, **attrs)
    return op(a, shape=_as_shape(target, op.name, allow_unknown=op is _RESHAPE), **attrs)


class _TargetShapeOp(Op):
    """An op with a target shape, given as the ``shape`` attribute or by a second input."""

    def _target(self, ref: ArrayValue | None, shape: tuple[int, ...] | None) -> tuple[int, ...]:
        return np.shape(ref) if shape is None else shape  # type: ignore[arg-type]  # (ref given)

    def _static_target(self, shapes: Sequence[Any], attrs: Mapping[str, Any]) -> Any:
        return attrs.get("shape") if len(shapes) == 1 else shapes[1]

    def latex(self, args: Sequence[str], attrs: Mapping[str, Any]) -> str:
        target = args[1] if len(args) > 1 else str(attrs["shape"])
        return latex_operator(self.name) + rf"\left({args[0]}, {target}\right)"


# -- the ops -------------------------------------------------------------------------------
class BroadcastTo(_TargetShapeOp):
    """Broadcast a value to a larger shape, as numpy does."""

    name, symbol = "broadcast_to", "broadcast"

    def compute(
        self, a: ArrayValue, ref: ArrayValue | None = None, shape: tuple[int, ...] | None = None
    ) -> ArrayValue:
        return np.broadcast_to(a, self._target(ref, shape))

    def infer_shape(self, shapes: Sequence[Any], attrs: Mapping[str, Any]) -> StaticShape:
        target = self._static_target(shapes, attrs)
        if shapes[0] is not None and target is not None:
            _check_broadcastable(shapes[0], target, "broadcast_to")
        return target

    def vjp(self, node: Node, adjoint: Node) -> list[Node | None]:
        return [sum_to_shape(adjoint, reduce_target(node.inputs[0]))] + [None] * (
            len(node.inputs) - 1
        )

    def jvp(self, node: Node, tangents: Sequence[Node | None]) -> Node | None:
        return _target_jvp(self, node, tangents)

    def vjp_latex(
        self, args: Sequence[str], adjoint: str, attrs: Mapping[str, Any], index: int
    ) -> str | None:
        return rf"\textstyle\sum_{{\to \text{{shape}}}} {adjoint}" if index == 0 else None


class SumToShape(_TargetShapeOp):
    """Sum a broadcast adjoint back to an input's shape: the one place where the adjoints of
    broadcasting ops are reduced, visible as its own node in the adjoint graph."""

    name, symbol = "sum_to_shape", "Σ→shape"

    def compute(
        self, g: ArrayValue, ref: ArrayValue | None = None, shape: tuple[int, ...] | None = None
    ) -> ArrayValue:
        return _sum_to(g, self._target(ref, shape))

    def infer_shape(self, shapes: Sequence[Any], attrs: Mapping[str, Any]) -> StaticShape:
        target = self._static_target(shapes, attrs)
        if shapes[0] is not None and target is not None:
            _check_broadcastable(target, shapes[0], "sum_to_shape")
        return target

    def vjp(self, node: Node, adjoint: Node) -> list[Node | None]:
        return [broadcast_to(adjoint, reduce_target(node.inputs[0]))] + [None] * (
            len(node.inputs) - 1
        )

    def jvp(self, node: Node, tangents: Sequence[Node | None]) -> Node | None:
        return _target_jvp(self, node, tangents)


class Reshape(_TargetShapeOp):
    """A new shape with the same elements (one dimension may be -1)."""

    def compute(
        self, a: ArrayValue, ref: ArrayValue | None = None, shape: tuple[int, ...] | None = None
    ) -> ArrayValue:
        return np.reshape(a, self._target(ref, shape))

    def infer_shape(self, shapes: Sequence[Any], attrs: Mapping[str, Any]) -> StaticShape:
        target = self._static_target(shapes, attrs)
        if target is None:
            return None
        if shapes[0] is None:
            return None if -1 in target else target
        size = math.prod(shapes[0])
        known = math.prod(d for d in target if d != -1)
        if (
            list(target).count(-1) > 1
            or (-1 in target and (known == 0 or size % known))
            or (-1 not in target and known != size)
        ):
            raise ShapeError(
                f"cannot reshape shape {shapes[0]} (size {size}) to {target}; give a shape of "
                "the same size (one dimension may be -1)"
            )
        return tuple(size // known if d == -1 else d for d in target)

    def vjp(self, node: Node, adjoint: Node) -> list[Node | None]:
        return [reshape(adjoint, reduce_target(node.inputs[0]))] + [None] * (len(node.inputs) - 1)

    def jvp(self, node: Node, tangents: Sequence[Node | None]) -> Node | None:
        return _target_jvp(self, node, tangents)

    def vjp_latex(
        self, args: Sequence[str], adjoint: str, attrs: Mapping[str, Any], index: int
    ) -> str | None:
        return rf"\operatorname{{reshape}}\left({adjoint}\right)" if index == 0 else None


def _target_jvp(op: Op, node: Node, tangents: Sequence[Node | None]) -> Node | None:
    """The tangent of a target-shape node: the same op on the data's tangent (these ops are
    linear in the data). A target given as a node only lends its shape: its tangent plays no
    part, and with no tangent on the data the result's tangent is zero."""
    if tangents[0] is None:
        return None
    target = node.inputs[1] if len(node.inputs) > 1 else node.attrs["shape"]
    return _with_target(op, tangents[0], target)


def _check_broadcastable(small: Sequence[int], big: Sequence[int], what: str) -> None:
    lead = len(big) - len(small)
    if lead < 0 or any(d != 1 and d != e for d, e in zip(small, big[lead:])):
        raise ShapeError(f"{what}: shape {tuple(small)} does not broadcast to {tuple(big)}")


class MatMul(Op):
    """numpy's matmul of op(A) and op(B), op = swapping the last two axes where its flag is
    set (nothing for a 1-D operand): matrix products, 1-D operands as vectors (vector·matrix,
    matrix·vector, the dot product) and stacks of matrices whose leading dimensions broadcast.
    The adjoints are reduced back to each operand's shape."""

    name, arity, symbol = "matmul", 2, "@"

    def compute(
        self,
        a: ArrayValue,
        b: ArrayValue,
        trans_a: bool = False,
        trans_b: bool = False,
        operand: int | None = None,
    ) -> ArrayValue:
        if operand is not None and np.ndim((a, b)[operand]) < 2:
            raise ShapeError(
                "this adjoint of a matmul was built, its operands' shapes unknown, by the rule "
                "for operands of 2 or more dimensions, and an operand has shape "
                f"{np.shape((a, b)[operand])} at run time: "
                "reverse mode needs the shape of a 1-D matmul operand while it builds the "
                'adjoint graph; declare it (vz.Variable("v", shape=(3,)))'
            )
        return np.matmul(_swap_last(a) if trans_a else a, _swap_last(b) if trans_b else b)

    def infer_shape(self, shapes: Sequence[Any], attrs: Mapping[str, Any]) -> StaticShape:
        sa, sb = shapes
        for s, side in ((sa, "left"), (sb, "right")):
            if s is not None and len(s) == 0:
                raise ShapeError(
                    f"matmul takes operands of 1 or more dimensions; the {side} "
                    "one is a scalar (use mul)"
                )
        if sa is None or sb is None:
            return None
        ta, tb = attrs.get("trans_a"), attrs.get("trans_b")
        ea, eb = _swapped(sa, ta), _swapped(sb, tb)
        a2 = (1,) + ea if len(ea) == 1 else ea
        b2 = eb + (1,) if len(eb) == 1 else eb
        if a2[-1] != b2[-2]:
            raise ShapeError(
                f"shapes {sa}{'ᵀ' if ta and len(sa) > 1 else ''} and "
                f"{sb}{'ᵀ' if tb and len(sb) > 1 else ''} do not matmul "
                f"(inner dimensions {a2[-1]} and {b2[-2]}): the left operand's last dimension "
                "must equal the right one's second to last: transpose one (trans_a, trans_b) or "
                "reshape"
            )
        try:
            batch = broadcast_shapes(a2[:-2], b2[:-2])
        except ShapeError:
            raise ShapeError(
                f"the leading (batch) dimensions of shapes {sa} and {sb} do not broadcast"
            ) from None
        return batch + ea[-2:-1] + eb[-1:] if len(eb) > 1 else batch + ea[-2:-1]

    _vjp_needed = True

    def vjp(
        self, node: Node, adjoint: Node, needed: Sequence[bool] = (True, True)
    ) -> list[Node | None]:
        a, b = node.inputs
        ta, tb = node.attrs["trans_a"], node.attrs["trans_b"]
        sa, sb = static_shape(a), static_shape(b)
        if sa is None and sb is None:
            # dimensions unknown while building: the rule for operands of 2 or more
            # dimensions (which its matmuls check at run time), reduced at run time to each
            # operand's shape (broadcast batches)
            ga, gb = _matmul_adjoints(a, b, adjoint, ta, tb, checked=True, needed=needed)
            return [_maybe(sum_to_shape, ga, a), _maybe(sum_to_shape, gb, b)]
        va, vb = sa is not None and len(sa) == 1, sb is not None and len(sb) == 1
        # a 1-D operand is a row (left) or a column (right) of a matrix, as in numpy; an
        # operand of unknown shape has 2 or more dimensions (checked at run time)
        a2 = expand_dims(a, 0) if va else a
        b2 = expand_dims(b, -1) if vb else b
        lost = (-2,) * va + (-1,) * vb
        c2 = expand_dims(adjoint, lost) if lost else adjoint
        checked = sa is None or sb is None
        ga, gb = _matmul_adjoints(
            a2, b2, c2, ta and not va, tb and not vb, checked=checked, needed=needed
        )
        sa2 = None if sa is None else (1,) + tuple(sa) if va else tuple(sa)
        sb2 = None if sb is None else tuple(sb) + (1,) if vb else tuple(sb)
        if checked:  # one shape unknown: reduce each batch at run time or to the known shape
            ga = _maybe(sum_to_shape, ga, a if sa2 is None else sa2)
            gb = _maybe(sum_to_shape, gb, b if sb2 is None else sb2)
        else:  # (both shapes known: sa2 and sb2 are tuples)
            batch = broadcast_shapes(sa2[:-2], sb2[:-2])  # type: ignore[index]
            if sa2[:-2] != batch:  # type: ignore[index]
                ga = _maybe(sum_to_shape, ga, sa2)
            if sb2[:-2] != batch:  # type: ignore[index]
                gb = _maybe(sum_to_shape, gb, sb2)
        return [_maybe(reshape, ga, sa) if va else ga, _maybe(reshape, gb, sb) if vb else gb]

    def jvp(self, node: Node, tangents: Sequence[Node | None]) -> Node | None:
        a, b = node.inputs
        ta, tb = tangents
        flags = dict(trans_a=node.attrs["trans_a"], trans_b=node.attrs["trans_b"])
        terms = [
            matmul(ta, b, **flags) if ta is not None else None,
            matmul(a, tb, **flags) if tb is not None else None,
        ]
        terms = [t for t in terms if t is not None]
        return terms[0] if len(terms) == 1 else add(*terms)

    def latex(self, args: Sequence[str], attrs: Mapping[str, Any]) -> str:
        a, b = args
        return f"{a}{'^{T}' if attrs['trans_a'] else ''} {b}{'^{T}' if attrs['trans_b'] else ''}"

    def vjp_latex(
        self, args: Sequence[str], adjoint: str, attrs: Mapping[str, Any], index: int
    ) -> str | None:
        a, b = args
        ta, tb = attrs["trans_a"], attrs["trans_b"]
        table = {
            (False, False): (f"{adjoint} {b}^{{T}}", f"{a}^{{T}} {adjoint}"),
            (True, False): (f"{b} {adjoint}^{{T}}", f"{a} {adjoint}"),
            (False, True): (f"{adjoint} {b}", f"{adjoint}^{{T}} {a}"),
            (True, True): (f"{b}^{{T}} {adjoint}^{{T}}", f"{adjoint}^{{T}} {a}^{{T}}"),
        }
        return table[(ta, tb)][index]


def _swap_last(x: ArrayValue) -> ArrayValue:
    """x with its last two axes swapped (a 1-D x as it is)."""
    return np.swapaxes(x, -1, -2) if np.ndim(x) >= 2 else x


def _swapped(shape: tuple[int, ...], flag: bool | None) -> tuple[int, ...]:
    return shape[:-2] + (shape[-1], shape[-2]) if flag and len(shape) >= 2 else tuple(shape)


def _maybe(f: Callable[..., Node], g: Node | None, *args: Any) -> Node | None:
    """``f(g, *args)``, or None for a gradient ``g`` that was not needed."""
    return None if g is None else f(g, *args)


def _matmul_adjoints(
    a: Node,
    b: Node,
    adjoint: Node,
    ta: bool,
    tb: bool,
    checked: bool = False,
    needed: Sequence[bool] = (True, True),
) -> tuple[Node | None, Node | None]:
    """Ā and B̄ of C = op(A) op(B) for operands of 2 or more dimensions (batch dimensions as
    in C): Ā = C̄ op(B)ᵀ and B̄ = op(A)ᵀ C̄, transposed back where A or B was transposed;
    None for one that ``needed`` leaves out (no dX for a data batch: a matmul fewer).
    With ``checked``, each matmul refuses at run time a 1-D forward operand (A or B), for
    which its rule is wrong (the other operand's adjoint is then an outer product)."""

    # (a type comment, not annotations: this function is made at each call, on the eager
    # backward pass of a matmul, and annotations would be built with it)
    def mm(x, y, trans_a=False, trans_b=False, which=0):
        # type: (Node, Node, bool, bool, int) -> Node | None
        if not needed[which]:
            return None
        if not checked:
            return _MATMUL(x, y, trans_a=trans_a, trans_b=trans_b)
        operand = 1 if x is adjoint else 0
        return _MATMUL(x, y, trans_a=trans_a, trans_b=trans_b, operand=operand)

    if not ta and not tb:  # C = A B
        return mm(adjoint, b, trans_b=True), mm(a, adjoint, trans_a=True, which=1)
    if ta and not tb:  # C = Aᵀ B
        return mm(b, adjoint, trans_b=True), mm(a, adjoint, which=1)
    if not ta and tb:  # C = A Bᵀ
        return mm(adjoint, b), mm(adjoint, a, trans_a=True, which=1)
    return (
        mm(b, adjoint, trans_a=True, trans_b=True),  # C = Aᵀ Bᵀ
        mm(adjoint, a, trans_a=True, trans_b=True, which=1),
    )


class Transpose(Op):
    """Permute the axes (reverse them when ``axes`` is None)."""

    arity, symbol = 1, "ᵀ"

    def compute(self, a: ArrayValue, axes: tuple[int, ...] | None = None) -> ArrayValue:
        return np.transpose(a, axes)

    def infer_shape(self, shapes: Sequence[Any], attrs: Mapping[str, Any]) -> StaticShape:
        (s,) = shapes
        axes = attrs.get("axes")
        if s is None:
            return None
        if axes is None:
            return tuple(reversed(s))
        if sorted(a % len(s) if -len(s) <= a < len(s) else -99 for a in axes) != list(
            range(len(s))
        ):
            raise ShapeError(
                f"axes {axes} are not a permutation of the axes of shape {s}; give each axis "
                "once, such as (1, 0)"
            )
        return tuple(s[a] for a in axes)

    def vjp(self, node: Node, adjoint: Node) -> list[Node | None]:
        axes = node.attrs.get("axes")
        inverse = None if axes is None else tuple(np.argsort(axes).tolist())
        return [transpose(adjoint, inverse)]

    def jvp(self, node: Node, tangents: Sequence[Node | None]) -> Node | None:
        # (a one-input op: its jvp is asked for with that input's tangent, never None)
        return transpose(tangents[0], node.attrs.get("axes"))  # type: ignore[arg-type]

    def vjp_latex(
        self, args: Sequence[str], adjoint: str, attrs: Mapping[str, Any], index: int
    ) -> str | None:
        return f"{adjoint}^{{T}}" if attrs.get("axes") is None else None

    def latex(self, args: Sequence[str], attrs: Mapping[str, Any]) -> str:
        if attrs.get("axes") is None:
            return f"{args[0]}^{{T}}"
        return rf"\operatorname{{transpose}}\left({args[0]}, {attrs['axes']}\right)"


class _Reduction(Op):
    """sum or mean over axes; the adjoint is broadcast back (through expand_dims when the
    reduced axes were dropped)."""

    arity = 1
    #: The TeX command of the reduction's sign (after a backslash): sum, operatorname{mean}
    latex_name: str

    def infer_shape(self, shapes: Sequence[Any], attrs: Mapping[str, Any]) -> StaticShape:
        (s,) = shapes
        if s is None:
            return None
        axes = normalize_axes(attrs.get("axis"), len(s), s, self.name)
        if attrs.get("keepdims"):
            return tuple(1 if k in axes else d for k, d in enumerate(s))
        return tuple(d for k, d in enumerate(s) if k not in axes)

    def _spread(self, node: Node, adjoint: Node) -> Node:
        axis = node.attrs.get("axis")
        if axis is not None and not node.attrs.get("keepdims"):
            adjoint = expand_dims(adjoint, axis)
        return broadcast_to(adjoint, reduce_target(node.inputs[0]))

    def jvp(self, node: Node, tangents: Sequence[Node | None]) -> Node | None:
        return self(tangents[0], **node.attrs)  # linear: the same reduction of the tangent

    def vjp_latex(
        self, args: Sequence[str], adjoint: str, attrs: Mapping[str, Any], index: int
    ) -> str | None:
        spread = rf"\operatorname{{broadcast}}\left({adjoint}\right)"
        return spread if self.name == "sum" else rf"\frac{{{spread}}}{{n}}"

    def latex(self, args: Sequence[str], attrs: Mapping[str, Any]) -> str:
        axis = attrs.get("axis")
        sub = "" if axis is None else f"_{{\\text{{axis}}={','.join(map(str, axis))}}}"
        return rf"\{self.latex_name}{sub} {args[0]}"


class Sum(_Reduction):
    """The sum over ``axis`` (all axes when None)."""

    symbol, latex_name = "Σ", "sum"

    def compute(
        self, a: ArrayValue, axis: tuple[int, ...] | None = None, keepdims: bool = False
    ) -> ArrayValue:
        kind = a.__class__
        if kind is np.ndarray:  # np.sum's own reduction, without its wrappers (mypy: a is one)
            return _ADD_REDUCE(a, axis=axis, keepdims=keepdims)  # type: ignore[call-overload]
        if kind in _FLOAT_SCALARS and not keepdims:  # one float: 0 + it, as np.sum (-0.0 → 0.0)
            return a + 0.0
        return np.sum(a, axis=axis, keepdims=keepdims)

    def vjp(self, node: Node, adjoint: Node) -> list[Node | None]:
        return [self._spread(node, adjoint)]


class Mean(_Reduction):
    """The mean over ``axis`` (all axes when None)."""

    symbol, latex_name = "mean", "operatorname{mean}"

    def compute(
        self, a: ArrayValue, axis: tuple[int, ...] | None = None, keepdims: bool = False
    ) -> ArrayValue:
        return np.mean(a, axis=axis, keepdims=keepdims)

    def vjp(self, node: Node, adjoint: Node) -> list[Node | None]:
        (a,) = node.inputs
        axis = node.attrs.get("axis")
        shape = static_shape(a)
        if shape is not None:
            count: float | Node = float(
                math.prod(shape[k] for k in normalize_axes(axis, len(shape), shape, "mean"))
            )
        else:
            count = size(a, axis)
        return [div(self._spread(node, adjoint), count)]


class ExpandDims(Op):
    """Insert axes of length 1 at the positions ``axis`` (of the result)."""

    name, arity = "expand_dims", 1

    def compute(self, a: ArrayValue, axis: tuple[int, ...]) -> ArrayValue:
        return np.expand_dims(a, axis)

    def infer_shape(self, shapes: Sequence[Any], attrs: Mapping[str, Any]) -> StaticShape:
        (s,) = shapes
        if s is None:
            return None
        ndim = len(s) + len(attrs["axis"])
        axes = normalize_axes(attrs["axis"], ndim, s, "expand_dims")
        rest = iter(s)
        return tuple(1 if k in axes else next(rest) for k in range(ndim))

    def vjp(self, node: Node, adjoint: Node) -> list[Node | None]:
        return [reshape(adjoint, reduce_target(node.inputs[0]))]

    def jvp(self, node: Node, tangents: Sequence[Node | None]) -> Node | None:
        # (a one-input op: its jvp is asked for with that input's tangent, never None)
        return expand_dims(tangents[0], node.attrs["axis"])  # type: ignore[arg-type]


class Size(Op):
    """The number of elements over ``axis`` (all when None), in the input's float type
    (float64 for integer inputs); no gradient."""

    arity = 1
    shape_only = True  # the input's shape (and float type), not its numbers

    def compute(self, a: ArrayValue, axis: tuple[int, ...] | None = None) -> ArrayValue:
        shape = np.shape(a)
        axes = range(len(shape)) if axis is None else axis
        return floating_dtype(a).type(math.prod(shape[k] for k in axes))

    def infer_shape(self, shapes: Sequence[Any], attrs: Mapping[str, Any]) -> StaticShape:
        return ()

    def vjp(self, node: Node, adjoint: Node) -> list[Node | None]:
        return [None]

    def jvp(self, node: Node, tangents: Sequence[Node | None]) -> Node | None:
        return None


_MATMUL = register(MatMul())
_TRANSPOSE = register(Transpose())
_RESHAPE = register(Reshape())
_SUM = register(Sum())
_MEAN = register(Mean())
_BROADCAST_TO = register(BroadcastTo())
_SUM_TO_SHAPE = register(SumToShape())
_EXPAND_DIMS = register(ExpandDims())
_SIZE = register(Size())


def matmul(a: Operand, b: Operand, trans_a: bool = False, trans_b: bool = False) -> Node:
    """op(a) @ op(b) as numpy's ``@`` (1-D operands as vectors, leading dimensions as batches),
    op = swapping the last two axes where the flag is set.

    Examples:
        >>> w, x = vz.Variable("w", shape=(2, 2)), vz.Variable("x", shape=(2,))
        >>> vz.evaluate(vz.matmul(w, x), {w: np.eye(2), x: np.array([3.0, 4.0])})
        array([3., 4.])
    """
    cls = a.__class__
    if b.__class__ is cls and eager_class(cls) and not trans_a and not trans_b:
        # hot: two eager matrices that fit (eager nodes, told by their class: no isinstance)
        sa: tuple
        sb: tuple
        sa, sb = a._shape, b._shape  # type: ignore[union-attr, assignment]
        if len(sa) == 2 and len(sb) == 2 and sa[1] == sb[0] and sa.__class__ is tuple:
            attrs = {"trans_a": False, "trans_b": False}
            return cls._computed(_MATMUL, (a, b), attrs, None, (sa[0], sb[1]))
    return _MATMUL(a, b, trans_a=bool(trans_a), trans_b=bool(trans_b))


def transpose(a: Operand, axes: tuple[int, ...] | list[int] | None = None) -> Node:
    """Permute the axes of ``a`` (reverse them when ``axes`` is None); negative axes count
    from the end, as in numpy.

    Examples:
        >>> x = vz.Variable("x", shape=(2, 3))
        >>> vz.transpose(x).shape
        (3, 2)
    """
    axes = axes_argument(axes, "transpose")
    if axes is not None:
        n = len(axes)
        if any(not -n <= k < n for k in axes) or len({k % n for k in axes}) != n:
            raise ShapeError(
                f"transpose: axes {axes} are not a permutation of {n} axes; give each axis once, "
                "such as (1, 0)"
            )
        axes = tuple(k % n for k in axes)
    return _TRANSPOSE(a, axes=axes)


def reshape(a: Operand, shape: ShapeLike) -> Node:
    """``a`` with a new shape (a tuple, one entry may be -1; or a node whose shape to take).

    Examples:
        >>> x = vz.Variable("x", shape=(4,))
        >>> vz.evaluate(vz.reshape(x, (2, 2)), {x: np.arange(4.0)})
        array([[0., 1.],
               [2., 3.]])
    """
    return _with_target(_RESHAPE, a, shape)


def sum(a: Operand, axis: Axes = None, keepdims: bool = False) -> Node:  # noqa: A001  (vz.sum, like np.sum)
    """The sum of ``a`` over ``axis`` (all axes when None).

    Examples:
        >>> from vizad.engine import ops
        >>> x = vz.Variable("x", shape=(2, 2))
        >>> vz.evaluate(ops.sum(x, axis=1), {x: np.array([[1.0, 2.0], [3.0, 4.0]])})
        array([3., 7.])
    """
    if axis is None and eager_class(a.__class__):  # hot: a whole eager value
        return _whole(_SUM, a, keepdims)  # type: ignore[arg-type]  # (eager: by its class)
    return _SUM(a, axis=axes_argument(axis, "sum"), keepdims=bool(keepdims))


def mean(a: Operand, axis: Axes = None, keepdims: bool = False) -> Node:
    """The mean of ``a`` over ``axis`` (all axes when None).

    Examples:
        >>> x = vz.Variable("x", shape=(2, 2))
        >>> vz.evaluate(vz.mean(x, axis=0), {x: np.array([[1.0, 2.0], [3.0, 4.0]])})
        array([2., 3.])
    """
    if axis is None and eager_class(a.__class__):  # hot: a whole eager value
        return _whole(_MEAN, a, keepdims)  # type: ignore[arg-type]  # (eager: by its class)
    return _MEAN(a, axis=axes_argument(axis, "mean"), keepdims=bool(keepdims))


def _whole(op: Op, a: EagerNode, keepdims: bool) -> Node:
    """``op(a, axis=None, keepdims=…)`` for an eager node holding an array (or a scalar): its
    shape needs no inference (() or ones), so it goes straight to the eager node."""
    shape = a._shape
    if shape.__class__ is not tuple:  # a tuple value: refused by the op's call
        return op(a, axis=None, keepdims=bool(keepdims))
    keepdims = bool(keepdims)
    out = (1,) * len(shape) if keepdims else ()
    return a.__class__._computed(op, (a,), _WHOLE[keepdims], None, out)


#: The attributes of a reduction over every axis (shared: a node's attributes are read-only).
_WHOLE = {k: {"axis": None, "keepdims": k} for k in (False, True)}


def broadcast_to(a: Operand, shape: ShapeLike) -> Node:
    """``a`` broadcast to ``shape`` (a tuple, or a node whose shape to take).

    Examples:
        >>> from vizad.engine import ops
        >>> x = vz.Variable("x", shape=(2,))
        >>> vz.evaluate(ops.broadcast_to(x, (3, 2)), {x: np.array([1.0, 2.0])})
        array([[1., 2.],
               [1., 2.],
               [1., 2.]])
    """
    return _with_target(_BROADCAST_TO, a, shape)


def sum_to_shape(a: Operand, shape: ShapeLike) -> Node:
    """``a`` summed down to ``shape`` (a tuple, or a node whose shape to take): the reduction
    of a broadcast adjoint to its input's shape.

    Examples:
        >>> from vizad.engine import ops
        >>> x = vz.Variable("x", shape=(3, 2))
        >>> vz.evaluate(ops.sum_to_shape(x, (2,)), {x: np.ones((3, 2))})
        array([3., 3.])
    """
    return _with_target(_SUM_TO_SHAPE, a, shape)


def expand_dims(a: Operand, axis: int | tuple[int, ...]) -> Node:
    """``a`` with new axes of length 1 at ``axis`` (positions in the result).

    Examples:
        >>> from vizad.engine import ops
        >>> x = vz.Variable("x", shape=(2,))
        >>> ops.expand_dims(x, 0).shape
        (1, 2)
    """
    return _EXPAND_DIMS(a, axis=axes_argument(axis, "expand_dims"))


def size(a: Operand, axis: Axes = None) -> Node:
    """The number of elements of ``a`` over ``axis`` (all when None), as a float node.

    Examples:
        >>> from vizad.engine import ops
        >>> x = vz.Variable("x", shape=(2, 3))
        >>> vz.evaluate(ops.size(x, axis=1), {x: np.zeros((2, 3))})
        array(3.)
    """
    return _SIZE(a, axis=axes_argument(axis, "size"))


# x @ y is matmul(x, y)
OPERATORS["matmul"] = matmul
