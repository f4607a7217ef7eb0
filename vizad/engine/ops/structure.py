"""Values made from other values: ones_like, zeros_like, and tuple values.

A tuple value's adjoint is a tuple: the adjoint of ``make_tuple(a, b)`` is read element by
element with ``tuple_get``, and the adjoint of ``tuple_get(t, i)`` is a tuple holding the adjoint
at ``i`` and zeros elsewhere.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from vizad.engine import tree
from vizad.errors import GraphError, NodeTypeError, ShapeError
from vizad.engine.node import OPERATORS, Node, static_shape
from vizad.engine.tree import TupleShape
from vizad.engine.op import Op, register
from vizad.engine.ops.types import Operand, StaticShape, Value

__all__ = ["ones_like", "zeros_like", "make_tuple", "tuple_get", "stop_gradient"]


class _Like(Op):
    arity = 1
    _takes_tuples = True
    shape_only = True  # the input's shape, not its numbers
    fill: int

    def compute(self, a: Value) -> Value:
        return tree.ones_like(a) if self.fill else tree.zeros_like(a)

    def infer_shape(self, shapes: Sequence[Any], attrs: Mapping[str, Any]) -> StaticShape:
        return shapes[0]

    def vjp(self, node: Node, adjoint: Node) -> list[Node | None]:
        return [None]

    def jvp(self, node: Node, tangents: Sequence[Node | None]) -> Node | None:
        return None

    def latex(self, args: Sequence[str], attrs: Mapping[str, Any]) -> str:
        return rf"\mathbf{{{self.fill}}}"


class OnesLike(_Like):
    """An array of ones shaped like the input (a tuple of them for a tuple).

    Examples:
        >>> from vizad.engine import ops
        >>> x = vz.Variable("x", shape=(2,))
        >>> vz.evaluate(ops.ones_like(x), {x: np.array([5.0, 7.0])})
        array([1., 1.])
    """

    name, symbol, fill = "ones_like", "1", 1


class ZerosLike(_Like):
    """An array of zeros shaped like the input (a tuple of them for a tuple).

    Examples:
        >>> from vizad.engine import ops
        >>> x = vz.Variable("x", shape=(2,))
        >>> vz.evaluate(ops.zeros_like(x), {x: np.array([5.0, 7.0])})
        array([0., 0.])
    """

    name, symbol, fill = "zeros_like", "0", 0


class StopGradient(Op):
    """The input's value, through which no derivative flows: what PyTorch's ``detach`` and
    ``no_grad`` and JAX's ``stop_gradient`` make of a value (its adjoint is not passed on,
    its tangent is zero).

    Examples:
        >>> from vizad.engine import ops
        >>> x = vz.Variable("x")
        >>> y = x * ops.stop_gradient(x)
        >>> (g,) = vz.gradients(y, [x])
        >>> vz.evaluate([y, g], {x: 3.0})
        [array(9.), array(3.)]
    """

    name, symbol = "stop_gradient", "sg"
    arity = 1
    _takes_tuples = True

    def compute(self, a: Value) -> Value:
        return a

    def infer_shape(self, shapes: Sequence[Any], attrs: Mapping[str, Any]) -> StaticShape:
        return shapes[0]

    def vjp(self, node: Node, adjoint: Node) -> list[Node | None]:
        return [None]

    def jvp(self, node: Node, tangents: Sequence[Node | None]) -> Node | None:
        return None

    def latex(self, args: Sequence[str], attrs: Mapping[str, Any]) -> str:
        return rf"\operatorname{{sg}}\left({args[0]}\right)"


class MakeTuple(Op):
    """A tuple value made of its inputs' values."""

    name, symbol = "make_tuple", "tuple"
    _takes_tuples = True

    def compute(self, *values: Value) -> tuple[Value, ...]:
        return values

    def infer_shape(self, shapes: Sequence[Any], attrs: Mapping[str, Any]) -> StaticShape:
        return TupleShape(shapes)

    def vjp(self, node: Node, adjoint: Node) -> list[Node | None]:
        return [tuple_get(adjoint, k) for k in range(len(node.inputs))]

    def jvp(self, node: Node, tangents: Sequence[Node | None]) -> Node | None:
        return make_tuple(
            *(t if t is not None else zeros_like(x) for x, t in zip(node.inputs, tangents))
        )

    def latex(self, args: Sequence[str], attrs: Mapping[str, Any]) -> str:
        return rf"\left({', '.join(args)}\right)"


class TupleGet(Op):
    """Element ``index`` of a tuple value."""

    name, arity = "tuple_get", 1
    _takes_tuples = True

    def compute(self, t: Value, index: int) -> Value:
        if not isinstance(t, tuple):
            raise ShapeError(
                f"tuple_get reads a tuple value, got an array of shape {np.shape(t)}: use it on "
                "the values of vz.make_tuple or of ops that give tuples"
            )
        return t[index]

    def infer_shape(self, shapes: Sequence[Any], attrs: Mapping[str, Any]) -> StaticShape:
        (s,) = shapes
        if s is None:
            return None
        if not isinstance(s, TupleShape):
            raise ShapeError(
                f"tuple_get reads a tuple value, got a value of shape {s}: use it on the values "
                "of vz.make_tuple or of ops that give tuples"
            )
        if not -len(s) <= attrs["index"] < len(s):
            raise ShapeError(f"index {attrs['index']} is out of range for a tuple of {len(s)}")
        return s[attrs["index"]]

    def vjp(self, node: Node, adjoint: Node) -> list[Node | None]:
        (t,) = node.inputs
        layout = static_shape(t)
        if not isinstance(layout, TupleShape):
            raise GraphError(
                f"{node.describe()}: the adjoint of a tuple is a tuple, and the "
                f"length of {t.describe()} is unknown; give its op an infer_shape "
                "that returns a vz.TupleShape"
            )
        i = node.attrs["index"] % len(layout)
        return [
            make_tuple(
                *(adjoint if k == i else zeros_like(tuple_get(t, k)) for k in range(len(layout)))
            )
        ]

    def jvp(self, node: Node, tangents: Sequence[Node | None]) -> Node | None:
        # (a one-input op: its jvp is asked for with that input's tangent, never None)
        return tuple_get(tangents[0], node.attrs["index"])  # type: ignore[arg-type]

    def latex(self, args: Sequence[str], attrs: Mapping[str, Any]) -> str:
        return f"{args[0]}[{attrs['index']}]"


ones_like = register(OnesLike())
zeros_like = register(ZerosLike())
stop_gradient = register(StopGradient())
_MAKE_TUPLE = register(MakeTuple())
_TUPLE_GET = register(TupleGet())


def make_tuple(*nodes: Operand) -> Node:
    """A tuple value of the given nodes.

    Examples:
        >>> a, b = vz.Variable("a"), vz.Variable("b")
        >>> pair = vz.make_tuple(a, 2.0 * b)
        >>> vz.evaluate(vz.tuple_get(pair, 1), {a: 1.0, b: 3.0})
        array(6.)
    """
    if not nodes:
        raise GraphError("make_tuple needs at least one element: give one or more")
    return _MAKE_TUPLE(*nodes)


def tuple_get(t: Node, index: int) -> Node:
    """Element ``index`` of the tuple value ``t``.

    Examples:
        >>> a, b = vz.Variable("a"), vz.Variable("b")
        >>> vz.evaluate(vz.tuple_get(vz.make_tuple(a, b), 0), {a: 1.0, b: 2.0})
        array(1.)
    """
    if not isinstance(index, (int, np.integer)):
        raise GraphError(f"tuple_get: index must be an int, got {index!r}")
    return _TUPLE_GET(t, index=int(index))


def _getitem(self: Node, index: object) -> Node:
    if isinstance(index, int):
        return tuple_get(self, index)
    raise NodeTypeError(f"{self.describe()}: only integer indexing of tuple values is supported")


# t[i] reads element i of a tuple value
OPERATORS["getitem"] = _getitem
