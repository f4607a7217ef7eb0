"""Elementary functions, one input each: exp, log, sin, cos, tanh, sigmoid, relu, sqrt.

Each states its local partial derivative ∂v/∂x as a graph (reusing the node's own value where
that is cheaper, as for exp, tanh, sigmoid and sqrt) and as LaTeX.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from vizad.engine.node import Node
from vizad.engine.op import register
from vizad.engine.ops.elementwise import ZERO, ElementwiseOp, Symbolic
from vizad.engine.tree import floating_dtype
from vizad.engine.ops.arithmetic import div, mul, neg, sub
from vizad.engine.ops.types import ArrayValue, StaticShape

__all__ = ["exp", "log", "sin", "cos", "tanh", "sigmoid", "relu", "sqrt", "heaviside"]


def _real(x: ArrayValue) -> ArrayValue:
    """``x``, with booleans as float64: numpy gives float16 for np.log(True), which loses
    all but three digits."""
    if type(x) is bool or getattr(x, "dtype", None) == np.bool_:
        return np.asarray(x, dtype=np.float64)
    return x


#: 0 and 1 of numpy's float scalar types (what relu and heaviside give for a scalar, by type).
_SCALAR_ZEROS = {t: t(0) for t in (np.float64, np.float32)}
_SCALAR_ONES = {t: t(1) for t in (np.float64, np.float32)}
_ZERO_1 = (ZERO,)


class _Unary(ElementwiseOp):
    arity = 1
    #: LaTeX template of the op, with {x} for the argument.
    template = r"\operatorname{{name}}({x})"
    #: LaTeX template of the local partial derivative, with {x} for the argument.
    partial_template: str | None = None

    def infer_shape(self, shapes: Sequence[Any], attrs: Mapping[str, Any]) -> StaticShape:
        return shapes[0]

    def latex(self, args: Sequence[str], attrs: Mapping[str, Any]) -> str:
        return self.template.format(x=args[0])

    def partial_latex(
        self, args: Sequence[str], attrs: Mapping[str, Any], index: int
    ) -> str | None:
        return None if self.partial_template is None else self.partial_template.format(x=args[0])


class Exp(_Unary):
    """eˣ.

    Examples:
        >>> x = vz.Variable("x")
        >>> vz.evaluate(vz.exp(x), {x: 1.0})
        array(2.71828183)
    """

    template, partial_template = "e^{{{x}}}", "e^{{{x}}}"

    def compute(self, x: ArrayValue) -> ArrayValue:
        return np.exp(_real(x))

    _partials_now = True

    def _partial_values(
        self, value: ArrayValue, values: Sequence[ArrayValue], attrs: Mapping[str, Any]
    ) -> Sequence[ArrayValue]:
        return (value,)

    def partials(self, node: Node) -> Sequence[Node | Symbolic]:
        return [node]


class Log(_Unary):
    """The natural logarithm ln x.

    Examples:
        >>> x = vz.Variable("x")
        >>> vz.evaluate(vz.log(x), {x: np.e})
        array(1.)
    """

    template, partial_template = r"\ln {x}", r"\frac{{1}}{{{x}}}"

    def compute(self, x: ArrayValue) -> ArrayValue:
        return np.log(_real(x))

    def _partial_values(
        self, value: ArrayValue, values: Sequence[ArrayValue], attrs: Mapping[str, Any]
    ) -> Sequence[ArrayValue]:
        return (1.0 / values[0],)  # div(1.0, x)

    def partials(self, node: Node) -> Sequence[Node | Symbolic]:
        return [div(1.0, node.inputs[0])]


class Sin(_Unary):
    """sin x.

    Examples:
        >>> x = vz.Variable("x")
        >>> vz.evaluate(vz.sin(x), {x: np.pi / 2})
        array(1.)
    """

    template, partial_template = r"\sin {x}", r"\cos {x}"

    def compute(self, x: ArrayValue) -> ArrayValue:
        return np.sin(_real(x))

    def _partial_values(
        self, value: ArrayValue, values: Sequence[ArrayValue], attrs: Mapping[str, Any]
    ) -> Sequence[ArrayValue]:
        return (np.cos(_real(values[0])),)  # cos(x)

    def partials(self, node: Node) -> Sequence[Node | Symbolic]:
        return [cos(node.inputs[0])]


class Cos(_Unary):
    """cos x.

    Examples:
        >>> x = vz.Variable("x")
        >>> vz.evaluate(vz.cos(x), {x: 0.0})
        array(1.)
    """

    template, partial_template = r"\cos {x}", r"-\sin {x}"

    def compute(self, x: ArrayValue) -> ArrayValue:
        return np.cos(_real(x))

    def _partial_values(
        self, value: ArrayValue, values: Sequence[ArrayValue], attrs: Mapping[str, Any]
    ) -> Sequence[ArrayValue]:
        return (-np.sin(_real(values[0])),)  # neg(sin(x))

    def partials(self, node: Node) -> Sequence[Node | Symbolic]:
        return [neg(sin(node.inputs[0]))]


class Tanh(_Unary):
    """tanh x.

    Examples:
        >>> x = vz.Variable("x")
        >>> vz.evaluate(vz.tanh(x), {x: 0.0})
        array(0.)
    """

    template, partial_template = r"\tanh {x}", r"\left(1 - \tanh^{{2}} {x}\right)"

    def compute(self, x: ArrayValue) -> ArrayValue:
        return np.tanh(_real(x))

    _partials_now = True

    def _partial_values(
        self, value: ArrayValue, values: Sequence[ArrayValue], attrs: Mapping[str, Any]
    ) -> Sequence[ArrayValue]:
        return (1.0 - value * value,)  # sub(1.0, mul(node, node))

    def partials(self, node: Node) -> Sequence[Node | Symbolic]:
        return [sub(1.0, mul(node, node))]


class Sigmoid(_Unary):
    """The logistic function σ(x) = 1 / (1 + e⁻ˣ), computed without overflow.

    Examples:
        >>> x = vz.Variable("x")
        >>> vz.evaluate(vz.sigmoid(x), {x: 0.0})
        array(0.5)
    """

    template = r"\sigma\left({x}\right)"
    partial_template = r"\sigma\left({x}\right)\left(1 - \sigma\left({x}\right)\right)"

    def compute(self, x: ArrayValue) -> ArrayValue:
        # 1/(1+e^-x) for x >= 0 and e^x/(1+e^x) for x < 0: no overflow either way.
        x = _real(x)
        e = np.exp(-np.abs(x))
        return np.where(np.greater_equal(x, 0), 1.0 / (1.0 + e), e / (1.0 + e))

    _partials_now = True

    def _partial_values(
        self, value: ArrayValue, values: Sequence[ArrayValue], attrs: Mapping[str, Any]
    ) -> Sequence[ArrayValue]:
        return (value * (1.0 - value),)  # mul(node, sub(1.0, node))

    def partials(self, node: Node) -> Sequence[Node | Symbolic]:
        return [mul(node, sub(1.0, node))]


class Relu(_Unary):
    """max(x, 0).

    Examples:
        >>> x = vz.Variable("x", shape=(2,))
        >>> vz.evaluate(vz.relu(x), {x: np.array([-1.0, 2.0])})
        array([0., 2.])
    """

    template = r"\operatorname{{relu}}\left({x}\right)"
    partial_template = r"H\left({x}\right)"

    def compute(self, x: ArrayValue) -> ArrayValue:
        zero = _SCALAR_ZEROS.get(x.__class__)
        if zero is not None:  # a float scalar: np.maximum's result without its ~1 µs call
            return x if x > 0 or x != x else zero
        return np.maximum(x, 0)

    _partials_now = True

    def _partial_values(
        self, value: ArrayValue, values: Sequence[ArrayValue], attrs: Mapping[str, Any]
    ) -> Sequence[ArrayValue]:
        return (heaviside.compute(values[0]),)

    def partials(self, node: Node) -> Sequence[Node | Symbolic]:
        return [heaviside(node.inputs[0])]


class Sqrt(_Unary):
    """√x.

    Examples:
        >>> x = vz.Variable("x")
        >>> vz.evaluate(vz.sqrt(x), {x: 9.0})
        array(3.)
    """

    template, partial_template = r"\sqrt{{{x}}}", r"\frac{{1}}{{2\sqrt{{{x}}}}}"

    def compute(self, x: ArrayValue) -> ArrayValue:
        return np.sqrt(_real(x))

    def _partial_values(
        self, value: ArrayValue, values: Sequence[ArrayValue], attrs: Mapping[str, Any]
    ) -> Sequence[ArrayValue]:
        return (0.5 / value,)  # div(0.5, node)

    def partials(self, node: Node) -> Sequence[Node | Symbolic]:
        return [div(0.5, node)]


class Heaviside(_Unary):
    """The step function H(x): 1 where x > 0, else 0 (the derivative of relu).

    Examples:
        >>> from vizad.engine import ops
        >>> x = vz.Variable("x", shape=(2,))
        >>> vz.evaluate(ops.heaviside(x), {x: np.array([-1.0, 2.0])})
        array([0., 1.])
    """

    template, partial_template = r"H\left({x}\right)", "0"

    def compute(self, x: ArrayValue) -> ArrayValue:
        zero = _SCALAR_ZEROS.get(x.__class__)
        if zero is not None:  # a float scalar: 1 or 0 of its type, without two numpy calls
            return _SCALAR_ONES[x.__class__] if x > 0 else zero
        # x > 0 as 0.0/1.0 in x's float type (np.heaviside is several times slower)
        return np.greater(x, 0).astype(floating_dtype(x))

    _partials_now = True

    def _partial_values(
        self, value: ArrayValue, values: Sequence[ArrayValue], attrs: Mapping[str, Any]
    ) -> Sequence[ArrayValue]:
        return _ZERO_1

    def partials(self, node: Node) -> Sequence[Node | Symbolic]:
        return [ZERO]


exp = register(Exp())
log = register(Log())
sin = register(Sin())
cos = register(Cos())
tanh = register(Tanh())
sigmoid = register(Sigmoid())
relu = register(Relu())
sqrt = register(Sqrt())
heaviside = register(Heaviside())
