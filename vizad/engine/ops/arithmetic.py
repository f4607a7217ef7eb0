"""Arithmetic: add, sub, mul, div, neg, power, identity and add_n (the sum of partial adjoints)."""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from vizad.errors import GraphError, NodeTypeError, ShapeError
from vizad.engine.node import OPERATORS, Node
from vizad.engine.eager import SWAPPED
from vizad.engine.op import binary, register
from vizad.engine.ops.elementwise import MINUS_ONE, ONE, ZERO, ElementwiseOp, Symbolic
from vizad.engine.tree import merge_shapes, shapes_conflict
from vizad.engine import tree
from vizad.engine.ops.types import ArrayValue, Operand, StaticShape, Value

#: Local partials on values that are constants (no work to record: an op's ``_recorded``).
_ONES_2, _ONE_MINUS_ONE = (ONE, ONE), (ONE, MINUS_ONE)
_ONE_1, _MINUS_ONE_1, _ZERO_1 = (ONE,), (MINUS_ONE,), (ZERO,)

__all__ = ["add", "sub", "mul", "div", "neg", "power", "identity", "add_n"]


class Add(ElementwiseOp):
    """a + b, broadcasting.

    Examples:
        >>> from vizad.engine import ops
        >>> a, b = vz.Variable("a"), vz.Variable("b")
        >>> vz.evaluate(ops.add(a, b), {a: 2.0, b: 3.0})
        array(5.)
        >>> ops.add(a, b).op is (a + b).op
        True
    """

    arity, symbol = 2, "+"

    def compute(self, a: ArrayValue, b: ArrayValue) -> ArrayValue:
        return a + b

    def partials(self, node: Node) -> Sequence[Node | Symbolic]:
        return [ONE, ONE]

    _partials_now = True
    _recorded = _ONES_2

    def _partial_values(
        self, value: ArrayValue, values: Sequence[ArrayValue], attrs: Mapping[str, Any]
    ) -> Sequence[ArrayValue]:
        return _ONES_2

    def latex(self, args: Sequence[str], attrs: Mapping[str, Any]) -> str:
        return f"{args[0]} + {args[1]}"

    def partial_latex(
        self, args: Sequence[str], attrs: Mapping[str, Any], index: int
    ) -> str | None:
        return "1"


class Sub(ElementwiseOp):
    """a − b, broadcasting. One node, as in the lecture's v7 = v6 − v5.

    Examples:
        >>> from vizad.engine import ops
        >>> a, b = vz.Variable("a"), vz.Variable("b")
        >>> vz.evaluate(ops.sub(a, b), {a: 2.0, b: 3.0})
        array(-1.)
    """

    arity, symbol = 2, "−"

    def compute(self, a: ArrayValue, b: ArrayValue) -> ArrayValue:
        return a - b  # type: ignore[operator]  # numpy refuses bool − bool, as at run time

    def partials(self, node: Node) -> Sequence[Node | Symbolic]:
        return [ONE, MINUS_ONE]

    _partials_now = True
    _recorded = _ONE_MINUS_ONE

    def _partial_values(
        self, value: ArrayValue, values: Sequence[ArrayValue], attrs: Mapping[str, Any]
    ) -> Sequence[ArrayValue]:
        return _ONE_MINUS_ONE

    def latex(self, args: Sequence[str], attrs: Mapping[str, Any]) -> str:
        return f"{args[0]} - {args[1]}"

    def partial_latex(
        self, args: Sequence[str], attrs: Mapping[str, Any], index: int
    ) -> str | None:
        return "1" if index == 0 else "-1"


class Mul(ElementwiseOp):
    """a × b, elementwise, broadcasting.

    Examples:
        >>> from vizad.engine import ops
        >>> a, b = vz.Variable("a"), vz.Variable("b")
        >>> vz.evaluate(ops.mul(a, b), {a: 2.0, b: 3.0})
        array(6.)
    """

    arity, symbol = 2, "×"

    def compute(self, a: ArrayValue, b: ArrayValue) -> ArrayValue:
        return a * b

    def partials(self, node: Node) -> Sequence[Node | Symbolic]:
        a, b = node._inputs
        return [b, a]

    #: recorded as SWAPPED: the partials are the inputs' own values, read by
    #: backward() (no tuple per product for the cyclic GC to count)
    _partials_now = True
    _recorded = SWAPPED

    def _partial_values(
        self, value: ArrayValue, values: Sequence[ArrayValue], attrs: Mapping[str, Any]
    ) -> Sequence[ArrayValue]:
        a, b = values
        return (b, a)

    def latex(self, args: Sequence[str], attrs: Mapping[str, Any]) -> str:
        return rf"{args[0]} \times {args[1]}"

    def partial_latex(
        self, args: Sequence[str], attrs: Mapping[str, Any], index: int
    ) -> str | None:
        return args[1 - index]


class Div(ElementwiseOp):
    """a / b, elementwise, broadcasting.

    Examples:
        >>> from vizad.engine import ops
        >>> a, b = vz.Variable("a"), vz.Variable("b")
        >>> vz.evaluate(ops.div(a, b), {a: 3.0, b: 4.0})
        array(0.75)
    """

    arity, symbol = 2, "÷"

    def compute(self, a: ArrayValue, b: ArrayValue) -> ArrayValue:
        return a / b

    def partials(self, node: Node) -> Sequence[Node | Symbolic]:
        a, b = node.inputs
        return [div(1.0, b), neg(div(node, b))]

    def _partial_values(
        self, value: ArrayValue, values: Sequence[ArrayValue], attrs: Mapping[str, Any]
    ) -> Sequence[ArrayValue]:
        b = values[1]
        return (1.0 / b, -(value / b))  # div(1.0, b), neg(div(node, b))

    def latex(self, args: Sequence[str], attrs: Mapping[str, Any]) -> str:
        return rf"\frac{{{args[0]}}}{{{args[1]}}}"

    def partial_latex(
        self, args: Sequence[str], attrs: Mapping[str, Any], index: int
    ) -> str | None:
        a, b = args
        return rf"\frac{{1}}{{{b}}}" if index == 0 else rf"-\frac{{{a}}}{{{b}^{{2}}}}"

    def vjp_latex(
        self, args: Sequence[str], adjoint: str, attrs: Mapping[str, Any], index: int
    ) -> str | None:
        if index == 0:
            return super().vjp_latex(args, adjoint, attrs, index)  # \frac{v̄}{b}
        a, b = args
        return rf"-\frac{{{adjoint} {a}}}{{{b}^{{2}}}}"


class Neg(ElementwiseOp):
    """−a.

    Examples:
        >>> from vizad.engine import ops
        >>> x = vz.Variable("x")
        >>> vz.evaluate(ops.neg(x), {x: 4.0})
        array(-4.)
    """

    arity, symbol = 1, "−"

    def compute(self, a: ArrayValue) -> ArrayValue:
        return -a  # type: ignore[operator]  # numpy refuses −bool, as at run time

    def partials(self, node: Node) -> Sequence[Node | Symbolic]:
        return [MINUS_ONE]

    _partials_now = True
    _recorded = _MINUS_ONE_1

    def _partial_values(
        self, value: ArrayValue, values: Sequence[ArrayValue], attrs: Mapping[str, Any]
    ) -> Sequence[ArrayValue]:
        return _MINUS_ONE_1

    def latex(self, args: Sequence[str], attrs: Mapping[str, Any]) -> str:
        return f"-{args[0]}"

    def partial_latex(
        self, args: Sequence[str], attrs: Mapping[str, Any], index: int
    ) -> str | None:
        return "-1"


class Identity(ElementwiseOp):
    """The value itself: the partial adjoint v̄ᵢ→ⱼ = v̄ⱼ when ∂vⱼ/∂vᵢ = 1.

    Examples:
        >>> from vizad.engine import ops
        >>> x = vz.Variable("x")
        >>> vz.evaluate(ops.identity(x), {x: 4.0})
        array(4.)
    """

    arity, symbol = 1, "id"
    _takes_tuples = True  # the partial adjoint of a tuple value passes through

    def compute(self, a: Value) -> Value:
        return a

    def infer_shape(self, shapes: Sequence[Any], attrs: Mapping[str, Any]) -> StaticShape:
        return shapes[0]

    def partials(self, node: Node) -> Sequence[Node | Symbolic]:
        return [ONE]

    _partials_now = True
    _recorded = _ONE_1

    def _partial_values(
        self, value: ArrayValue, values: Sequence[ArrayValue], attrs: Mapping[str, Any]
    ) -> Sequence[ArrayValue]:
        return _ONE_1

    def latex(self, args: Sequence[str], attrs: Mapping[str, Any]) -> str:
        return args[0]

    def partial_latex(
        self, args: Sequence[str], attrs: Mapping[str, Any], index: int
    ) -> str | None:
        return "1"


class Power(ElementwiseOp):
    """a ** p for a constant exponent p (a number). Integer a keeps integer values for p ≥ 0
    and becomes float for negative p, as the maths says (numpy would refuse)."""

    arity = 1

    def compute(self, a: ArrayValue, p: float) -> ArrayValue:
        kind = np.asarray(a).dtype.kind
        if kind in "biu":
            if p < 0:
                return np.power(a, float(p))
            # integer powers wrap around silently past the integer type's range: refuse first
            dtype = np.result_type(np.asarray(a).dtype, p)
            info = np.iinfo(dtype)
            largest = float(np.max(np.abs(np.asarray(a, dtype=np.float64)), initial=0.0))
            if largest > 1 and p * math.log2(largest) >= info.bits - (info.min < 0):
                raise OverflowError(
                    f"{largest:g} ** {p} does not fit in {dtype} (at most {info.max}); use a "
                    "float base, or a wider integer type"
                )
        return a**p

    def partials(self, node: Node) -> Sequence[Node | Symbolic]:
        (a,) = node.inputs
        p = node.attrs["p"]
        if p == 0:
            return [ZERO]  # the derivative of a constant power 0 is exactly 0
        if p == 1:
            return [ONE]
        if p == 2:
            return [mul(2, a)]
        return [mul(p, power(a, p - 1))]

    def _partial_values(
        self, value: ArrayValue, values: Sequence[ArrayValue], attrs: Mapping[str, Any]
    ) -> Sequence[ArrayValue]:
        p = attrs["p"]
        if p == 0:
            return _ZERO_1
        if p == 1:
            return _ONE_1
        if p == 2:
            return (2 * values[0],)  # mul(2, a)
        return (p * self.compute(values[0], p - 1),)  # mul(p, power(a, p - 1))

    def latex(self, args: Sequence[str], attrs: Mapping[str, Any]) -> str:
        return f"{{{args[0]}}}^{{{_number(attrs['p'])}}}"

    def partial_latex(
        self, args: Sequence[str], attrs: Mapping[str, Any], index: int
    ) -> str | None:
        p = attrs["p"]
        if p == 0:
            return "0"
        if p == 1:
            return "1"
        if p == 2:
            return f"2 {args[0]}"
        return f"{_number(p)} {{{args[0]}}}^{{{_number(p - 1)}}}"


class AddN(ElementwiseOp):
    """x₁ + x₂ + … of values of one shape: sums the partial adjoints v̄ᵢ→ⱼ into v̄ᵢ. Tuple
    values are added element by element (nested tuples too)."""

    name, symbol = "add_n", "+"
    broadcasting = False
    _takes_tuples = True

    def compute(self, *values: Value, order: Sequence[int] | None = None) -> Value:
        # ``order``: the positions of the inputs in the order to add them (reverse mode
        # sums partial adjoints in reverse creation order, and lists them in display order)
        if order is not None:
            values = [values[k] for k in order]  # type: ignore[assignment]  # (read like it)
        total = values[0]
        for v in values[1:]:
            total = tree.add(total, v)
        return total

    def infer_shape(self, shapes: Sequence[Any], attrs: Mapping[str, Any]) -> StaticShape:
        merged = shapes[0]
        for s in shapes[1:]:
            if shapes_conflict(merged, s):
                raise ShapeError(
                    f"add_n sums values of one shape, got shapes {', '.join(map(str, shapes))}"
                )
            merged = merge_shapes(merged, s)
        return merged

    def partials(self, node: Node) -> Sequence[Node | Symbolic]:
        return [ONE] * len(node.inputs)

    _partials_now = True

    def _partial_values(
        self, value: ArrayValue, values: Sequence[ArrayValue], attrs: Mapping[str, Any]
    ) -> Sequence[ArrayValue]:
        return (ONE,) * len(values)

    def latex(self, args: Sequence[str], attrs: Mapping[str, Any]) -> str:
        return " + ".join(args)

    def partial_latex(
        self, args: Sequence[str], attrs: Mapping[str, Any], index: int
    ) -> str | None:
        return "1"


def _number(p: float) -> str:
    return f"{p:g}" if isinstance(p, float) else str(p)


add = register(Add())
sub = register(Sub())
mul = register(Mul())
div = register(Div())
neg = register(Neg())
identity = register(Identity())
_POWER = register(Power())
_ADD_N = register(AddN())


def power(a: Operand, p: float | np.number | np.bool_) -> Node:
    """a ** p with a constant exponent ``p`` (a Python or numpy number).

    Examples:
        >>> from vizad.engine import ops
        >>> x = vz.Variable("x")
        >>> y = ops.power(x, 3)
        >>> (g,) = vz.gradients(y, [x])
        >>> vz.evaluate([y, g], {x: 2.0})
        [array(8.), array(12.)]
    """
    if isinstance(p, Node):
        raise NodeTypeError(
            f"power: the exponent must be a constant number, got "
            f"{p.describe()}; write exp(p * log(a)) for a node exponent"
        )
    if not isinstance(p, numbers.Real):
        raise NodeTypeError(
            f"power: the exponent must be a number, got {type(p).__name__} {p!r}; give a number"
        )
    try:
        as_float = float(p)
    except OverflowError:
        digits = len(str(abs(int(p))))
        raise GraphError(
            f"power: the exponent ({digits} digits) is too large for a float; exponents are "
            "numbers below 1.8e308 (write the power of a smaller number)"
        ) from None
    p = int(p) if as_float.is_integer() and not isinstance(p, bool) else as_float
    return _POWER(a, p=p)


def add_n(*nodes: Operand) -> Node:
    """The sum of one or more nodes of the same shape (or of tuple values of the same layout).

    Examples:
        >>> from vizad.engine import ops
        >>> a, b = vz.Variable("a"), vz.Variable("b")
        >>> vz.evaluate(ops.add_n(a, b, a), {a: 2.0, b: 3.0})
        array(7.)
    """
    if not nodes:
        raise GraphError("add_n needs at least one input: give one or more")
    return _ADD_N(*nodes)


# -- Node's operators: x + y is add(x, y), and so on ---------------------------------------
OPERATORS.update(
    add=binary(add), sub=binary(sub), mul=binary(mul), truediv=binary(div), pow=power, neg=neg
)
