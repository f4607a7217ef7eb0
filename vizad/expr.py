"""Safe parsing of expressions like ``log(x1) + x1*x2 - sin(x2)`` into graphs.

A whitelist over Python's ``ast``: numbers, names (Variables, in order of first use), the
operators ``+ - * / ** @`` and unary ``-``/``+``, and calls of vizad's elementwise and
reduction functions. Never ``eval``. A bad expression gets an ExpressionError with the position
of the problem and a caret under it.
"""

from __future__ import annotations

import ast
import operator
import re
import sys

from vizad.engine import ops
from vizad.errors import ExpressionError, VizadError
from vizad.engine.node import Node
from vizad.engine.op import Variable, constant

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


#: Longest expression (characters) and most operators: Python's parser builds its tree
#: recursively, so a deeper expression would exhaust memory or the recursion limit.
MAX_LENGTH = 100_000
MAX_OPERATORS = 5_000
_OPERATOR = re.compile(r"[-+*/@(]")


def parse_expression(text: str) -> tuple[Node, dict[str, Node]]:
    """The node of ``text`` and its Variables by name (in order of first use)."""
    if not isinstance(text, str):
        raise ExpressionError(f"an expression is a str, got {type(text).__name__}")
    text = text.strip()
    if not text:
        raise ExpressionError("the expression is empty")
    if len(text) > MAX_LENGTH:
        raise ExpressionError(
            f"the expression has {len(text):,} characters (at most {MAX_LENGTH:,})"
        )
    operators = len(_OPERATOR.findall(text))
    if operators > MAX_OPERATORS:
        raise ExpressionError(
            f"the expression has {operators:,} operators and parentheses (at most "
            f"{MAX_OPERATORS:,}); build a graph this large in Python with vizad's functions"
        )
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * MAX_OPERATORS + 1_000))  # the parser's tree is deep
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise _error(text, exc.offset or 1, exc.msg) from None
    except (RecursionError, MemoryError):
        raise ExpressionError(
            "the expression nests too deeply for Python's parser; split it"
        ) from None
    finally:
        sys.setrecursionlimit(limit)
    variables: dict[str, Node] = {}
    return _Builder(text, variables).build(tree.body), variables


def _error(text: str, column: int, message: str) -> ExpressionError:
    shown = text if len(text) <= 120 else text[max(0, column - 60) : column + 60]
    caret = column - 1 if len(text) <= 120 else min(column - 1, 60)
    return ExpressionError(f"{message} at column {column}:\n  {shown}\n  {' ' * caret}^")


class _Builder:
    """Builds the graph of a parsed expression, iteratively (a sum of 5,000 terms is a tree
    5,000 deep)."""

    def __init__(self, text: str, variables: dict[str, Node]):
        self.text, self.variables = text, variables

    def fail(self, node: ast.AST, message: str):
        raise _error(self.text, getattr(node, "col_offset", 0) + 1, message)

    def build(self, root: ast.AST) -> Node:
        built: dict[int, Node] = {}
        stack: list[tuple[ast.AST, bool]] = [(root, False)]
        while stack:
            node, ready = stack.pop()
            children = self._children(node)
            if not ready:
                stack.append((node, True))
                stack.extend((c, False) for c in reversed(children))
                continue
            built[id(node)] = self._make(node, [built[id(c)] for c in children])
        return built[id(root)]

    def _children(self, node: ast.AST) -> list[ast.AST]:
        """The subexpressions ``node`` is built from; fails for what is not allowed."""
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            if isinstance(node.op, ast.Pow):
                self._exponent(node)
                return [node.left]
            return [node.left, node.right]
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            return [node.operand]
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return []
        if isinstance(node, ast.Name):
            if node.id in FUNCTIONS:
                self.fail(node, f"{node.id} is a function: call it, as in {node.id}(x)")
            return []
        if isinstance(node, ast.Call):
            known = ", ".join(sorted(FUNCTIONS))
            if not isinstance(node.func, ast.Name):  # np.sin(x), x.exp(): no attributes
                called = ast.unparse(node.func)
                self.fail(
                    node.func,
                    f"{called!r} cannot be called: call a function by its own name, as in "
                    f"sin(x) (known: {known})",
                )
            if node.func.id not in FUNCTIONS:
                self.fail(node.func, f"unknown function {node.func.id!r} (known: {known})")
            if node.keywords or len(node.args) != 1:
                self.fail(node, f"{node.func.id} takes one argument here")
            return [node.args[0]]
        what = type(node).__name__
        if isinstance(node, ast.Constant):
            what = f"the {type(node.value).__name__} {node.value!r:.40}"
        self.fail(
            node,
            f"{what} is not allowed in an expression (numbers, names, "
            f"+ - * / ** @ and {', '.join(sorted(FUNCTIONS))} are)",
        )

    def _make(self, node: ast.AST, args: list[Node]) -> Node:
        try:
            if isinstance(node, ast.BinOp):
                if isinstance(node.op, ast.Pow):
                    return ops.power(args[0], self._exponent(node))
                return _BINARY[type(node.op)](*args)
            if isinstance(node, ast.UnaryOp):
                return _UNARY[type(node.op)](args[0])
            if isinstance(node, ast.Constant):
                return constant(node.value)
            if isinstance(node, ast.Name):
                if node.id not in self.variables:
                    self.variables[node.id] = Variable(node.id)
                return self.variables[node.id]
            return FUNCTIONS[node.func.id](args[0])
        except VizadError as exc:  # a constant out of range, shapes that cannot fit
            self.fail(node, str(exc))

    def _exponent(self, node: ast.BinOp) -> float:
        exponent, sign = node.right, 1
        if isinstance(exponent, ast.UnaryOp) and isinstance(exponent.op, ast.USub):
            sign, exponent = -1, exponent.operand
        if not (isinstance(exponent, ast.Constant) and type(exponent.value) in (int, float)):
            self.fail(node.right, "the exponent of ** must be a number")
        return sign * exponent.value
