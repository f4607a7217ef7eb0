"""Reading a CSE 599W-style engine (the assignment's ``autodiff`` module, as in
:mod:`vizad.classroom.courses.autodiff`) for :func:`vizad.diagnose`.

Its nodes are those :func:`vizad.classroom.courses.foreign.is_foreign` recognises: ``inputs``,
``op``, ``name`` and ``const_attr``, with ``op.compute(node, input_vals)`` and ``op.gradient(node,
output_grad)`` building gradient nodes. The student's ``find_topo_sort`` and ``gradients``
are found where their ops' methods find them (their module's globals); placeholders take their
values from the feed, which the skeleton wants as numpy arrays.
"""

from __future__ import annotations

import numpy as np

from vizad.classroom.courses.foreign import is_foreign
from vizad.errors import ArgumentError
from vizad.classroom.diagnosis.checker import Checker, Raised
from vizad.classroom.diagnosis.hints import exc_text
from vizad.classroom.diagnosis.known_ops import Known, Words, known_op
from vizad.classroom.diagnosis.report import Problem

__all__ = ["AutodiffChecker"]

#: The skeleton's op classes (and the usual additions) by name, without "Op", lowered.
_FAMILIES = {
    "add": "add",
    "addbyconst": "add_const",
    "mul": "mul",
    "mulbyconst": "mul_const",
    "div": "div",
    "divbyconst": "div_const",
    "matmul": "matmul",
    "log": "log",
    "exp": "exp",
    "tanh": "tanh",
    "sigmoid": "sigmoid",
    "relu": "relu",
    "sin": "sin",
    "cos": "cos",
    "neg": "negate",
    "oneslike": "oneslike",
    "zeroslike": "zeroslike",
}

WORDS = Words()  # the skeleton's: output_grad, node.const_attr, gradients()


class AutodiffChecker(Checker):
    """Checks a CSE 599W-style engine: its ops' compute and gradient, gradients() and
    find_topo_sort."""

    style = "CSE 599W"
    words = WORDS
    repeatable = True

    @staticmethod
    def reads(y) -> bool:
        return is_foreign(y)

    def classes(self) -> list[type]:
        found = [type(n.op) for n in reversed(self.graph) if n.op is not None]
        return list(dict.fromkeys([*found, type(self.graph[-1])]))

    def name(self, node) -> str:
        return str(node.name) if getattr(node, "name", "") else ""

    def known(self, node) -> Known | None:
        family = _FAMILIES.get(type(node.op).__name__.removesuffix("Op").lower())
        params = {"c": node.const_attr}
        if hasattr(node, "matmul_attr_trans_A"):
            params["trans_A"] = bool(node.matmul_attr_trans_A)
            params["trans_B"] = bool(getattr(node, "matmul_attr_trans_B", False))
        return known_op(family, params, WORDS, len(node.inputs))

    def rule(self, node):
        return getattr(type(node.op), "gradient", None)

    def compute(self, node, args: list):
        return node.op.compute(node, args)

    def rule_flags(self, node) -> str:
        if hasattr(node, "matmul_attr_trans_A"):
            return " (check the matmul_attr_trans_A/B flags)"
        return ""

    def feed_hint(self) -> str:
        """What to say when the feed holds values that are not numpy arrays (the skeleton's
        ops assert arrays: a correct engine fails on Python numbers)."""
        loose = [(k, v) for k, v in self.feed.items() if not isinstance(v, np.ndarray)]
        if not loose:
            return ""
        k, v = loose[0]
        return (
            f"the feed gives {self.called(k)} as a {type(v).__name__} ({v!r:.40}): a CSE "
            f"599W engine computes on numpy arrays (the skeleton's OnesLikeOp asserts one), "
            f"so feed np.array({v!r:.40}) and the like"
        )

    def evaluate(self, order, problems) -> bool:
        """Each node's value by the student's compute from the feed (nothing is stored)."""
        for node in order:
            if node in self.feed:
                self.values[id(node)] = self.feed[node]
                continue
            if self.is_leaf(node):
                raise ArgumentError(f"diagnose: placeholder {self.label(node)!r} is not in feed")
            try:
                self.values[id(node)] = self.computed(node, self.values)
            except Exception as exc:  # the student's code
                problems.append(self.raised(node, "compute", exc, self.feed_hint()))
                return True
        return False

    def rule_gradients(self, node, w) -> list | None:
        """The values of the nodes the student's rule builds, the output gradient being a
        bare placeholder node valued ``w`` (a :class:`Raised` for one that raised)."""
        grad = object.__new__(type(node))
        grad.inputs, grad.op, grad.const_attr, grad.name = [], None, None, "output_grad"
        grads = node.op.gradient(node, grad)
        if not isinstance(grads, (list, tuple)):
            return grads
        out = []
        for g in grads:
            if g is None or not is_foreign(g):
                out.append(g)
                continue
            try:
                out.append(self.run([g], {**self.values, id(grad): w})[0])
            except Exception as exc:  # the student's compute of the nodes the rule built
                out.append(Raised(exc))
        return out

    def final_gradients(self, y, wrt, order):
        """The values of the nodes the student's gradients() builds, or the problem of it
        not being found, raising, or building nodes that do not compute."""
        gradients = self.function("gradients")
        if gradients is None:
            why = (
                "define gradients(output_node, node_list) where your ops are defined (or import "
                "it there), so that diagnose can run it"
            )
            return Problem(
                "unchecked", self.label(y), "gradients()", None, None, None, why,
                f"no gradients() found in {self.searched()}: the final gradients were not "
                f"checked; {why}",
            )  # fmt: skip
        try:
            nodes = gradients(y, wrt)
        except Exception as exc:  # the student's code
            return self.final_raised(y, "gradients", exc)
        if not isinstance(nodes, (list, tuple)) or len(nodes) != len(wrt):
            count = len(nodes) if isinstance(nodes, (list, tuple)) else type(nodes).__name__
            why = f"gradients() returns {count} for {len(wrt)} node(s): return one node each"
            return Problem("gradient", self.label(y), "gradients()", None, None, nodes, why, why)
        try:
            return self.run(list(nodes), dict(self.values))
        except Exception as exc:  # the student's compute, on the nodes gradients() built
            frame, where = self.frame(exc)
            why = self.feed_hint() or "one of the ops they use fails on these values"
            return Problem(
                "gradient", self.label(y), "gradients()", None, None, exc, why,
                f"the nodes gradients() built raised {exc_text(exc)}{frame} when evaluated: "
                f"{why}",
                where=where,
            )  # fmt: skip
