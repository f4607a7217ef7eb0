"""A student's engine as :func:`vizad.diagnose` sees it, whatever its style: its graph read
through a few methods that a style overrides (``inputs``, ``name``, ``op_name``, ``compute``,
``stored`` …), its values at the point, the one evaluator that runs the student's compute on
any nodes from known values, and the student's ``backward()`` run with every grad restored."""

from __future__ import annotations

from typing import Any

from ..graph import post_order
from .hints import exc_text, student_frame
from .report import Problem

__all__ = ["StudentEngine"]

_KEEP = object()  # backward_grads: leave the grads as they are before backward()


class StudentEngine:
    """The student's graph and code, read in one style; :class:`~.checker.Checker` checks it.
    A style says whether it ``reads(y)`` (a node of the style) and how to read ``inputs``,
    ``name``, ``op_name``, ``compute`` (the student's compute on operand values) and
    ``stored`` (a node's value as the engine keeps it) where the defaults do not fit."""

    style = ""
    #: Whether vz.step draws and steps the graph (vizad.foreign reads CSE 599W-style graphs).
    steppable = False

    def __init__(self, y, feed: dict | None):
        self.feed = feed or {}
        #: The module of the student's engine (its find_topo_sort, gradients), if it has one.
        self.module = self.engine_module(y)
        self.values: dict[int, Any] = {}
        self.notes: list[str] = []
        self.labels: dict[int, str] = {}

    # -- reading the graph: what a style does not say is read as here
    def engine_module(self, y):
        return None

    def inputs(self, node) -> list:
        return list(node.inputs)

    def operands(self, node) -> list:
        """The values an op's compute takes, in order (the inputs, but for micrograd)."""
        return self.inputs(node)

    def is_leaf(self, node) -> bool:
        return not self.inputs(node)

    def name(self, node) -> str:
        return ""

    def op_name(self, node) -> str:
        return type(node.op).__name__

    def rule_flags(self, node) -> str:
        """Words a hint about the rule at ``node`` ends with (the node's attributes to check)."""
        return ""

    def number(self, value):
        """A central difference as the style's gradients are (micrograd's are floats)."""
        return value

    # a post-order DFS of our own (the student's may be what is broken)
    def order(self, y) -> list:
        out = post_order([y], self.inputs)
        for k, node in enumerate(out, 1):
            self.labels[id(node)] = self.name(node) or f"node {k} of the topological order"
        return out

    def label(self, node) -> str:
        return self.labels.get(id(node)) or self.name(node) or "a node"

    # -- values
    def evaluate(self, order: list, problems: list[Problem]) -> bool:
        """Each node's value at the point (``values``), as the engine stored it; True when the
        student's code raised on the way (its problem added to ``problems``)."""
        for node in order:
            self.values[id(node)] = self.stored(node)
        return False

    def computed(self, node, known: dict[int, Any]):
        """The student's compute at ``node``, on the ``known`` values of its operands."""
        return self.compute(node, [known[id(i)] for i in self.operands(node)])

    def run(self, nodes: list, known: dict[int, Any]) -> list:
        """The values of ``nodes`` by the student's compute from the ``known`` values (by id;
        filled in): the one evaluator, for the nodes a rule builds and for the graph at the
        points central differences probe."""
        for node in post_order(nodes, self.inputs, known):
            known[id(node)] = self.computed(node, known)
        return [known[id(n)] for n in nodes]

    # -- the student's code at work, and the problem of it raising
    def backward_grads(self, y, order, wrt, read, zero: Any = _KEEP) -> list | Problem:
        """The student's ``y.backward()``: each ``read(x.grad)`` of ``wrt`` (every node's grad
        set to ``zero`` first, when given), or the problem of it raising; every grad restored
        afterwards."""
        saved = [(n, getattr(n, "grad", None)) for n in order]
        try:
            if zero is not _KEEP:
                for n in order:
                    n.grad = zero
            y.backward()
            return [read(x.grad) for x in wrt]
        except Exception as exc:
            return self.final_raised(y, "backward", exc)
        finally:
            for n, g in saved:
                n.grad = g

    def final_raised(self, y, call: str, exc: BaseException) -> Problem:
        """The problem of the student's ``call()`` (gradients, backward) raising on ``y``."""
        return Problem(
            "gradient", self.label(y), call, None, None, exc, f"{call}() raised",
            f"{call}() raised {exc_text(exc)}{student_frame(exc)}",
        )  # fmt: skip

    def raised(self, node, what: str, exc: BaseException) -> Problem:
        """The problem of the student's ``what`` (compute, gradient) raising at ``node``."""
        op = self.op_name(node)
        kind = "compute" if what == "compute" else "rule"
        return Problem(
            kind, self.label(node), op, None, None, exc, f"{what} raised",
            f"{op}.{what} at {self.label(node)} raised {exc_text(exc)}{student_frame(exc)}",
        )  # fmt: skip
