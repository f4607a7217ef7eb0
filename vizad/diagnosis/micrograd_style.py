"""Reading a micrograd-style engine (Karpathy's micrograd, as in :mod:`vizad.compat.micrograd`)
for :func:`vizad.diagnose`.

Its values have ``_prev`` (a set of children), ``_op`` (the op's text), ``data``, ``grad`` and
``_backward()`` (one node's local step, adding to its children's ``grad``); ``backward()``
runs them all. There is no separate compute: an op is known by its ``_op`` text, so ops that
are not micrograd's are noted and left unchecked. A rule is checked by running the node's
``_backward()`` alone, which also tells an assignment (``=``) from the sum (``+=``) it needs.
"""

from __future__ import annotations

import math
import re

import numpy as np

from .checker import Checker, central
from .hints import hint
from .report import Problem

__all__ = ["MicrogradChecker"]

#: micrograd's ops by their _op text: (arity, function of the operands' data).
_OPS = {
    "+": (2, lambda a, b: a + b),
    "*": (2, lambda a, b: a * b),
    "tanh": (1, np.tanh),
    "exp": (1, np.exp),
    "ReLU": (1, lambda a: np.maximum(a, 0.0)),
    "relu": (1, lambda a: np.maximum(a, 0.0)),
}


def _op(text: str):
    """(arity, function) of micrograd's op ``text`` (``**p`` for any number p), or None."""
    match = re.fullmatch(r"\*\*(-?[\d.]+)", text)
    if match:
        p = float(match.group(1))
        return 1, lambda a: a**p
    return _OPS.get(text)


class MicrogradChecker(Checker):
    """Checks a micrograd-style engine: each node's _backward() and backward()."""

    style = "micrograd"

    @staticmethod
    def reads(y) -> bool:
        return hasattr(y, "_prev") and hasattr(y, "_backward") and hasattr(y, "data")

    def inputs(self, node) -> list:
        return sorted(node._prev, key=id)

    def operands(self, node) -> list:
        """The operands in order: micrograd's _prev is a set (a·a has one child)."""
        known = _op(node._op)
        children = self.inputs(node)
        if known is not None and known[0] == 2 and len(children) == 1:
            return children * 2
        return children

    def name(self, node) -> str:
        return str(getattr(node, "label", "") or "")

    def op_name(self, node) -> str:
        return repr(node._op)

    def number(self, value) -> float:
        return float(value)

    def stored(self, node) -> float:
        return float(node.data)

    def compute(self, node, args: list):
        return _op(node._op)[1](*args)

    def check_rule(self, node, rng) -> list[Problem]:
        """The node's ``_backward()`` alone, for a random output grad w, each child's grad
        starting at a sentinel: what it adds against central differences of the op."""
        if _op(node._op) is None:
            self.notes.append(
                f"op {node._op!r} at {self.label(node)} is not micrograd's: not checked"
            )
            return []
        operands = self.operands(node)
        children = self.inputs(node)
        w = float(rng.standard_normal())
        sentinel = 0.375
        saved = [(n, n.grad) for n in [node, *children]]
        try:
            node.grad = w
            for c in children:
                c.grad = sentinel
            node._backward()
            after = {id(c): c.grad for c in children}
        finally:
            for n, g in saved:
                n.grad = g
        xs = [np.asarray(self.values[id(c)]) for c in operands]
        expected_by_operand = central(lambda a: self.compute(node, a), xs, np.asarray(w))
        expected = {}
        for c, e in zip(operands, expected_by_operand):
            expected[id(c)] = expected.get(id(c), 0.0) + float(e)
        problems = []
        for i, c in enumerate(children):
            got_total = after[id(c)]
            e = expected[id(c)]
            if math.isclose(got_total - sentinel, e, rel_tol=1e-4, abs_tol=1e-6):
                continue
            op = self.op_name(node)
            if math.isclose(got_total, e, rel_tol=1e-4, abs_tol=1e-6) and abs(e) > 1e-9:
                problems.append(
                    Problem(
                        "accumulate", self.label(node), op, i, e, got_total,
                        "assigns instead of adding (+=)",
                        f"_backward of {op} at {self.label(node)} assigns the gradient of "
                        f"input {i} ({self.label(c)}) instead of adding to it (use +=): a "
                        "value read twice loses one of its partial adjoints",
                    )
                )  # fmt: skip
                continue
            got = got_total - sentinel
            others = [expected[id(o)] for o in children if o is not c]
            why = hint(np.asarray(got), np.asarray(e), [np.asarray(o) for o in others])
            problems.append(
                Problem(
                    "rule", self.label(node), op, i, e, got, why,
                    f"the _backward of {op} at {self.label(node)} for input {i} "
                    f"({self.label(c)}) {why}: expected {e:.6g}, got {got:.6g}",
                )
            )  # fmt: skip
        return problems

    def final_gradients(self, y, wrt, order):
        """The grads ``backward()`` leaves on ``wrt``, every grad starting at 0 (None, with a
        note, when an op is not micrograd's: there is no compute to difference)."""
        got = self.backward_grads(y, order, wrt, float, zero=0.0)
        if isinstance(got, Problem):
            return got
        if any(not self.is_leaf(n) and _op(n._op) is None for n in order):
            self.notes.append("ops that are not micrograd's: final gradients not checked")
            return None
        return got
