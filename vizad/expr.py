"""Safe parsing of expressions like ``log(x1) + x1*x2 - sin(x2)`` into graphs.

A whitelist over Python's ``ast``: numbers, names (Variables, in order of first use), the
operators ``+ - * / ** @`` and unary ``-``/``+``, and calls of vizad's elementwise and
reduction functions. Never ``eval``. A bad expression gets an ExpressionError with the position
of the problem and a caret under it.
"""

from __future__ import annotations

import ast
import operator

from . import ops
from .errors import ExpressionError
from .node import Node, Variable, constant

__all__ = ["parse_expression", "ExpressionError", "FUNCTIONS"]

#: The functions an expression may call.
FUNCTIONS = {
    name: getattr(ops, name)
    for name in (
        "exp",
        "log",
        "sin",
        "cos",
        "tanh",
        "sigmoid",
        "relu",
        "sqrt",
        "sum",
        "mean",
        "log_softmax",
        "transpose",
    )
}
_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
    ast.MatMult: operator.matmul,
}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos}


def parse_expression(text: str) -> tuple[Node, dict[str, Node]]:
    """The node of ``text`` and its Variables by name (in order of first use)."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise _error(text.strip(), exc.offset or 1, exc.msg) from None
    variables: dict[str, Node] = {}
    return _Builder(text.strip(), variables).visit(tree.body), variables


def _error(text: str, column: int, message: str) -> ExpressionError:
    return ExpressionError(f"{message} at column {column}:\n  {text}\n  {' ' * (column - 1)}^")


class _Builder:
    def __init__(self, text: str, variables: dict[str, Node]):
        self.text, self.variables = text, variables

    def fail(self, node: ast.AST, message: str):
        raise _error(self.text, getattr(node, "col_offset", 0) + 1, message)

    def visit(self, node: ast.AST) -> Node:
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            return (
                _BINARY[type(node.op)](self.visit(node.left), self.visit(node.right))
                if not isinstance(node.op, ast.Pow)
                else self._power(node)
            )
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            return _UNARY[type(node.op)](self.visit(node.operand))
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return constant(node.value)
        if isinstance(node, ast.Name):
            if node.id in FUNCTIONS:
                self.fail(node, f"{node.id} is a function: call it, as in {node.id}(x)")
            if node.id not in self.variables:
                self.variables[node.id] = Variable(node.id)
            return self.variables[node.id]
        if isinstance(node, ast.Call):
            return self._call(node)
        what = type(node).__name__
        if isinstance(node, ast.Constant):
            what = f"the {type(node.value).__name__} {node.value!r}"
        self.fail(
            node,
            f"{what} is not allowed in an expression (numbers, names, "
            f"+ - * / ** @ and {', '.join(sorted(FUNCTIONS))} are)",
        )

    def _power(self, node: ast.BinOp) -> Node:
        exponent = node.right
        sign = 1
        if isinstance(exponent, ast.UnaryOp) and isinstance(exponent.op, ast.USub):
            sign, exponent = -1, exponent.operand
        if not (isinstance(exponent, ast.Constant) and type(exponent.value) in (int, float)):
            self.fail(node.right, "the exponent of ** must be a number")
        return ops.power(self.visit(node.left), sign * exponent.value)

    def _call(self, node: ast.Call) -> Node:
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            name = node.func.id if isinstance(node.func, ast.Name) else "this"
            self.fail(
                node.func, f"unknown function {name!r} (known: {', '.join(sorted(FUNCTIONS))})"
            )
        if node.keywords or len(node.args) != 1:
            self.fail(node, f"{node.func.id} takes one argument here")
        return FUNCTIONS[node.func.id](self.visit(node.args[0]))
