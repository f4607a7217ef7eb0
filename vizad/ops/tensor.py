"""Tensor ops: matmul, transpose, reshape, sum, mean, broadcast_to, sum_to_shape, expand_dims.

``broadcast_to``, ``sum_to_shape`` and ``reshape`` take their target shape either as a tuple or
as a node, whose value's shape is read at run time. Adjoints use the node form when a shape is
not known while building the graph (a Variable declared without a shape).
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import ShapeError
from ..node import Node, _as_shape, static_shape
from ..op import Op, reduce_target, register
from .arithmetic import add, div

__all__ = ["matmul", "transpose", "reshape", "sum", "mean", "broadcast_to", "sum_to_shape",
           "expand_dims", "size"]


# -- shape helpers -------------------------------------------------------------------------
def _axes(axis, what: str):
    """``axis`` (None, an int or a sequence of ints) as None or a tuple of ints."""
    if axis is None:
        return None
    if isinstance(axis, (int, np.integer)):
        return (int(axis),)
    try:
        return tuple(int(a) for a in axis)
    except TypeError:
        raise ShapeError(f"{what}: axis must be None, an int or a tuple of ints, "
                         f"got {axis!r}") from None


def _normalize_axes(axes, ndim: int, shape, what: str) -> tuple:
    """Axes as non-negative ints, checked against ``ndim``."""
    if axes is None:
        return tuple(range(ndim))
    out = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise ShapeError(f"{what}: axis {a} is out of range for shape {tuple(shape)}")
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ShapeError(f"{what}: repeated axis in {axes}")
    return tuple(sorted(out))


def _sum_to(g, shape: tuple):
    """Sum a broadcast value ``g`` back down to ``shape``: the inverse of broadcasting."""
    g_shape = np.shape(g)
    if g_shape == shape:
        return g
    lead = len(g_shape) - len(shape)
    if lead < 0 or any(d != 1 and d != e for d, e in zip(shape, g_shape[lead:])):
        raise ShapeError(f"cannot sum a value of shape {g_shape} to shape {shape}: "
                         "that shape does not broadcast to it")
    axes = tuple(range(lead)) + tuple(lead + k for k, d in enumerate(shape)
                                      if d == 1 and g_shape[lead + k] != 1)
    return np.reshape(np.sum(g, axis=axes), shape)


def _with_target(op: Op, a, target, **attrs) -> Node:
    """Build ``op(a)`` aiming at ``target``: a shape tuple, or a node whose shape is used."""
    if isinstance(target, Node):
        return op(a, target, **attrs)
    return op(a, shape=_as_shape(target, op.name, allow_unknown=op is _RESHAPE), **attrs)


class _TargetShapeOp(Op):
    """An op with a target shape, given as the ``shape`` attribute or by a second input."""

    def _target(self, ref, shape):
        return np.shape(ref) if shape is None else shape

    def _static_target(self, shapes, attrs):
        return attrs.get("shape") if len(shapes) == 1 else shapes[1]

    def latex(self, args, attrs):
        target = args[1] if len(args) > 1 else str(attrs["shape"])
        return rf"\operatorname{{{self.name}}}\left({args[0]}, {target}\right)"


# -- the ops -------------------------------------------------------------------------------
class BroadcastTo(_TargetShapeOp):
    """Broadcast a value to a larger shape, as numpy does."""
    name, symbol = "broadcast_to", "broadcast"

    def compute(self, a, ref=None, shape=None):
        return np.broadcast_to(a, self._target(ref, shape))

    def infer_shape(self, shapes, attrs):
        target = self._static_target(shapes, attrs)
        if shapes[0] is not None and target is not None:
            _check_broadcastable(shapes[0], target, "broadcast_to")
        return target

    def vjp(self, node, adjoint):
        return [sum_to_shape(adjoint, reduce_target(node.inputs[0]))] + [None] * (len(node.inputs) - 1)

    def jvp(self, node, tangents):
        return _with_target(self, tangents[0], _target_of(node))

    def vjp_latex(self, args, adjoint, attrs, index):
        return rf"\textstyle\sum_{{\to \text{{shape}}}} {adjoint}" if index == 0 else None


class SumToShape(_TargetShapeOp):
    """Sum a broadcast adjoint back to an input's shape: the one place where the adjoints of
    broadcasting ops are reduced, visible as its own node in the adjoint graph."""
    name, symbol = "sum_to_shape", "Σ→shape"

    def compute(self, g, ref=None, shape=None):
        return _sum_to(g, self._target(ref, shape))

    def infer_shape(self, shapes, attrs):
        target = self._static_target(shapes, attrs)
        if shapes[0] is not None and target is not None:
            _check_broadcastable(target, shapes[0], "sum_to_shape")
        return target

    def vjp(self, node, adjoint):
        return [broadcast_to(adjoint, reduce_target(node.inputs[0]))] + [None] * (len(node.inputs) - 1)

    def jvp(self, node, tangents):
        return _with_target(self, tangents[0], _target_of(node))


class Reshape(_TargetShapeOp):
    """A new shape with the same elements (one dimension may be -1)."""

    def compute(self, a, ref=None, shape=None):
        return np.reshape(a, self._target(ref, shape))

    def infer_shape(self, shapes, attrs):
        target = self._static_target(shapes, attrs)
        if target is None:
            return None
        if shapes[0] is None:
            return None if -1 in target else target
        size = math.prod(shapes[0])
        known = math.prod(d for d in target if d != -1)
        if list(target).count(-1) > 1 or (-1 in target and (known == 0 or size % known)) or (
                -1 not in target and known != size):
            raise ShapeError(f"cannot reshape shape {shapes[0]} (size {size}) to {target}")
        return tuple(size // known if d == -1 else d for d in target)

    def vjp(self, node, adjoint):
        return [reshape(adjoint, reduce_target(node.inputs[0]))] + [None] * (len(node.inputs) - 1)

    def jvp(self, node, tangents):
        return _with_target(self, tangents[0], _target_of(node))

    def vjp_latex(self, args, adjoint, attrs, index):
        return rf"\operatorname{{reshape}}\left({adjoint}\right)" if index == 0 else None


def _target_of(node: Node):
    """The target of a target-shape node, in the form it was built with."""
    return node.inputs[1] if len(node.inputs) > 1 else node.attrs["shape"]


def _check_broadcastable(small, big, what):
    lead = len(big) - len(small)
    if lead < 0 or any(d != 1 and d != e for d, e in zip(small, big[lead:])):
        raise ShapeError(f"{what}: shape {tuple(small)} does not broadcast to {tuple(big)}")


class MatMul(Op):
    """The matrix product op(A) op(B) of 2-D arrays, op = transpose where its flag is set."""
    name, arity, symbol = "matmul", 2, "@"

    def compute(self, a, b, trans_a=False, trans_b=False):
        if np.ndim(a) != 2 or np.ndim(b) != 2:
            raise ShapeError("matmul takes 2-D operands")
        return np.matmul(a.T if trans_a else a, b.T if trans_b else b)

    def infer_shape(self, shapes, attrs):
        sa, sb = shapes
        for s, side in ((sa, "left"), (sb, "right")):
            if s is not None and len(s) != 2:
                raise ShapeError(f"matmul takes 2-D operands; the {side} one has shape {s}")
        if sa is None or sb is None:
            return None
        m, k = sa[::-1] if attrs.get("trans_a") else sa
        k2, n = sb[::-1] if attrs.get("trans_b") else sb
        if k != k2:
            raise ShapeError(f"shapes {sa}{'ᵀ' if attrs.get('trans_a') else ''} and "
                             f"{sb}{'ᵀ' if attrs.get('trans_b') else ''} do not matmul "
                             f"(inner dimensions {k} and {k2})")
        return (m, n)

    def vjp(self, node, adjoint):
        a, b = node.inputs
        ta, tb = node.attrs["trans_a"], node.attrs["trans_b"]
        if not ta and not tb:     # C = A B
            return [matmul(adjoint, b, trans_b=True), matmul(a, adjoint, trans_a=True)]
        if ta and not tb:         # C = Aᵀ B
            return [matmul(b, adjoint, trans_b=True), matmul(a, adjoint)]
        if not ta and tb:         # C = A Bᵀ
            return [matmul(adjoint, b), matmul(adjoint, a, trans_a=True)]
        return [matmul(b, adjoint, trans_a=True, trans_b=True),   # C = Aᵀ Bᵀ
                matmul(adjoint, a, trans_a=True, trans_b=True)]

    def jvp(self, node, tangents):
        a, b = node.inputs
        ta, tb = tangents
        flags = dict(trans_a=node.attrs["trans_a"], trans_b=node.attrs["trans_b"])
        terms = [matmul(ta, b, **flags) if ta is not None else None,
                 matmul(a, tb, **flags) if tb is not None else None]
        terms = [t for t in terms if t is not None]
        return terms[0] if len(terms) == 1 else add(*terms)

    def latex(self, args, attrs):
        a, b = args
        return (f"{a}{'^{T}' if attrs['trans_a'] else ''} "
                f"{b}{'^{T}' if attrs['trans_b'] else ''}")

    def vjp_latex(self, args, adjoint, attrs, index):
        a, b = args
        ta, tb = attrs["trans_a"], attrs["trans_b"]
        table = {
            (False, False): (f"{adjoint} {b}^{{T}}", f"{a}^{{T}} {adjoint}"),
            (True, False): (f"{b} {adjoint}^{{T}}", f"{a} {adjoint}"),
            (False, True): (f"{adjoint} {b}", f"{adjoint}^{{T}} {a}"),
            (True, True): (f"{b}^{{T}} {adjoint}^{{T}}", f"{adjoint}^{{T}} {a}^{{T}}"),
        }
        return table[(ta, tb)][index]


class Transpose(Op):
    """Permute the axes (reverse them when ``axes`` is None)."""
    arity, symbol = 1, "ᵀ"

    def compute(self, a, axes=None):
        return np.transpose(a, axes)

    def infer_shape(self, shapes, attrs):
        (s,) = shapes
        axes = attrs.get("axes")
        if s is None:
            return None
        if axes is None:
            return tuple(reversed(s))
        if sorted(a % len(s) if -len(s) <= a < len(s) else -99 for a in axes) != list(range(len(s))):
            raise ShapeError(f"axes {axes} are not a permutation of the axes of shape {s}")
        return tuple(s[a] for a in axes)

    def vjp(self, node, adjoint):
        axes = node.attrs.get("axes")
        inverse = None if axes is None else tuple(np.argsort(axes).tolist())
        return [transpose(adjoint, inverse)]

    def jvp(self, node, tangents):
        return transpose(tangents[0], node.attrs.get("axes"))

    def vjp_latex(self, args, adjoint, attrs, index):
        return f"{adjoint}^{{T}}" if attrs.get("axes") is None else None

    def latex(self, args, attrs):
        if attrs.get("axes") is None:
            return f"{args[0]}^{{T}}"
        return rf"\operatorname{{transpose}}\left({args[0]}, {attrs['axes']}\right)"


class _Reduction(Op):
    """sum or mean over axes; the adjoint is broadcast back (through expand_dims when the
    reduced axes were dropped)."""
    arity = 1

    def infer_shape(self, shapes, attrs):
        (s,) = shapes
        if s is None:
            return None
        axes = _normalize_axes(attrs.get("axis"), len(s), s, self.name)
        if attrs.get("keepdims"):
            return tuple(1 if k in axes else d for k, d in enumerate(s))
        return tuple(d for k, d in enumerate(s) if k not in axes)

    def _spread(self, node, adjoint):
        axis = node.attrs.get("axis")
        if axis is not None and not node.attrs.get("keepdims"):
            adjoint = expand_dims(adjoint, axis)
        return broadcast_to(adjoint, reduce_target(node.inputs[0]))

    def jvp(self, node, tangents):
        return self(tangents[0], **node.attrs)     # linear: the same reduction of the tangent

    def vjp_latex(self, args, adjoint, attrs, index):
        spread = rf"\operatorname{{broadcast}}\left({adjoint}\right)"
        return spread if self.name == "sum" else rf"\frac{{{spread}}}{{n}}"

    def latex(self, args, attrs):
        axis = attrs.get("axis")
        sub = "" if axis is None else f"_{{\\text{{axis}}={','.join(map(str, axis))}}}"
        return rf"\{self.latex_name}{sub} {args[0]}"


class Sum(_Reduction):
    """The sum over ``axis`` (all axes when None)."""
    symbol, latex_name = "Σ", "sum"

    def compute(self, a, axis=None, keepdims=False):
        return np.sum(a, axis=axis, keepdims=keepdims)

    def vjp(self, node, adjoint):
        return [self._spread(node, adjoint)]


class Mean(_Reduction):
    """The mean over ``axis`` (all axes when None)."""
    symbol, latex_name = "mean", "operatorname{mean}"

    def compute(self, a, axis=None, keepdims=False):
        return np.mean(a, axis=axis, keepdims=keepdims)

    def vjp(self, node, adjoint):
        (a,) = node.inputs
        axis = node.attrs.get("axis")
        shape = static_shape(a)
        if shape is not None:
            count = float(math.prod(shape[k] for k in _normalize_axes(axis, len(shape), shape, "mean")))
        else:
            count = size(a, axis)
        return [div(self._spread(node, adjoint), count)]


class ExpandDims(Op):
    """Insert axes of length 1 at the positions ``axis`` (of the result)."""
    name, arity = "expand_dims", 1

    def compute(self, a, axis):
        return np.expand_dims(a, axis)

    def infer_shape(self, shapes, attrs):
        (s,) = shapes
        if s is None:
            return None
        ndim = len(s) + len(attrs["axis"])
        axes = _normalize_axes(attrs["axis"], ndim, s, "expand_dims")
        rest = iter(s)
        return tuple(1 if k in axes else next(rest) for k in range(ndim))

    def vjp(self, node, adjoint):
        return [reshape(adjoint, reduce_target(node.inputs[0]))]

    def jvp(self, node, tangents):
        return expand_dims(tangents[0], node.attrs["axis"])


class Size(Op):
    """The number of elements over ``axis`` (all when None), as a float; no gradient."""
    arity = 1

    def compute(self, a, axis=None):
        shape = np.shape(a)
        axes = range(len(shape)) if axis is None else axis
        return np.float64(math.prod(shape[k] for k in axes))

    def infer_shape(self, shapes, attrs):
        return ()

    def vjp(self, node, adjoint):
        return [None]

    def jvp(self, node, tangents):
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


def matmul(a, b, trans_a: bool = False, trans_b: bool = False) -> Node:
    """op(a) @ op(b) for 2-D a and b, op = transpose where the flag is set."""
    return _MATMUL(a, b, trans_a=bool(trans_a), trans_b=bool(trans_b))


def transpose(a, axes=None) -> Node:
    """Permute the axes of ``a`` (reverse them when ``axes`` is None)."""
    return _TRANSPOSE(a, axes=_axes(axes, "transpose"))


def reshape(a, shape) -> Node:
    """``a`` with a new shape (a tuple, one entry may be -1; or a node whose shape to take)."""
    return _with_target(_RESHAPE, a, shape)


def sum(a, axis=None, keepdims: bool = False) -> Node:  # noqa: A001  (vz.sum, like np.sum)
    """The sum of ``a`` over ``axis`` (all axes when None)."""
    return _SUM(a, axis=_axes(axis, "sum"), keepdims=bool(keepdims))


def mean(a, axis=None, keepdims: bool = False) -> Node:
    """The mean of ``a`` over ``axis`` (all axes when None)."""
    return _MEAN(a, axis=_axes(axis, "mean"), keepdims=bool(keepdims))


def broadcast_to(a, shape) -> Node:
    """``a`` broadcast to ``shape`` (a tuple, or a node whose shape to take)."""
    return _with_target(_BROADCAST_TO, a, shape)


def sum_to_shape(a, shape) -> Node:
    """``a`` summed down to ``shape`` (a tuple, or a node whose shape to take): the reduction
    of a broadcast adjoint to its input's shape."""
    return _with_target(_SUM_TO_SHAPE, a, shape)


def expand_dims(a, axis) -> Node:
    """``a`` with new axes of length 1 at ``axis`` (positions in the result)."""
    return _EXPAND_DIMS(a, axis=_axes(axis, "expand_dims"))


def size(a, axis=None) -> Node:
    """The number of elements of ``a`` over ``axis`` (all when None), as a float node."""
    return _SIZE(a, axis=_axes(axis, "size"))


