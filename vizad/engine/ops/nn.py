"""Neural-network ops with rules of their own: log_softmax."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from vizad.engine.op import Op, register
from vizad.engine.ops.arithmetic import mul, sub
from vizad.engine.ops.elementary import exp
from vizad.engine.node import Node
from vizad.engine.ops.tensor import axes_argument, normalize_axes, sum
from vizad.engine.ops.types import ArrayValue, Operand, StaticShape

__all__ = ["log_softmax"]


class LogSoftmax(Op):
    """log softmax(x) along ``axis``: x − log Σ eˣ, computed stably (shifted by the max).

    Its vjp is v̄ − softmax(x) Σ v̄ (softmax read as e to the node's own value), not the
    chain of exp, sum and log, which overflows and wastes work."""

    name, arity, symbol = "log_softmax", 1, "log softmax"

    def compute(self, x: ArrayValue, axis: tuple[int, ...] | None) -> ArrayValue:
        shifted = x - np.max(x, axis=axis, keepdims=True)
        return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))

    def infer_shape(self, shapes: Sequence[Any], attrs: Mapping[str, Any]) -> StaticShape:
        (s,) = shapes
        if s is not None:
            normalize_axes(attrs["axis"], len(s), s, "log_softmax")
        return s

    def vjp(self, node: Node, adjoint: Node) -> list[Node | None]:
        axis = node.attrs["axis"]
        return [sub(adjoint, mul(exp(node), sum(adjoint, axis, keepdims=True)))]

    def jvp(self, node: Node, tangents: Sequence[Node | None]) -> Node | None:
        (t,) = tangents
        axis = node.attrs["axis"]
        return sub(t, sum(mul(exp(node), t), axis, keepdims=True))

    def latex(self, args: Sequence[str], attrs: Mapping[str, Any]) -> str:
        return rf"\log\operatorname{{softmax}}\left({args[0]}\right)"

    def vjp_latex(
        self, args: Sequence[str], adjoint: str, attrs: Mapping[str, Any], index: int
    ) -> str | None:
        return (
            rf"{adjoint} - \operatorname{{softmax}}\left({args[0]}\right) \textstyle\sum {adjoint}"
        )


_LOG_SOFTMAX = register(LogSoftmax())


def log_softmax(a: Operand, axis: int = -1) -> Node:
    """log softmax of ``a`` along ``axis``, numerically stable.

    Examples:
        >>> x = vz.Variable("x", shape=(3,))
        >>> vz.evaluate(vz.log_softmax(x), {x: np.zeros(3)})
        array([-1.09861229, -1.09861229, -1.09861229])
    """
    return _LOG_SOFTMAX(a, axis=axes_argument(axis, "log_softmax"))
