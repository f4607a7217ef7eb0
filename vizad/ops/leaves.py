"""The leaves of a graph: Variables (fed at run time) and constants."""

from __future__ import annotations

from ..errors import GraphError
from ..op import Op

__all__ = ["VARIABLE", "CONSTANT"]


class VariableOp(Op):
    """A placeholder whose value comes from the feed dict."""

    name = "variable"
    arity = 0

    def compute(self, *values, **attrs):  # the executor feeds variables; never called
        raise GraphError("a Variable's value comes from the feed dict")

    def vjp(self, node, adjoint):
        return []

    def jvp(self, node, tangents):
        return None

    def latex(self, args, attrs):
        return "x"


class ConstantOp(Op):
    """A fixed numeric value, held (read-only) in the node's attributes."""

    name = "constant"
    arity = 0
    _folds = True

    def compute(self, value, weak=False):
        return value.item() if weak else value

    def vjp(self, node, adjoint):
        return []

    def jvp(self, node, tangents):
        return None


VARIABLE = VariableOp()
CONSTANT = ConstantOp()
