"""Reading a CSE 599W-style engine (the assignment's ``autodiff`` module, as in
:mod:`vizad.compat.autodiff`) for :func:`vizad.diagnose`.

Its nodes are those :func:`vizad.foreign.is_foreign` recognises: ``inputs``, ``op``, ``name``
and ``const_attr``, with ``op.compute(node, input_vals)`` and ``op.gradient(node,
output_grad)`` building gradient nodes. The module of the op's class gives the student's
``find_topo_sort`` and ``gradients``; placeholders take their values from the feed.
"""

from __future__ import annotations

import sys

from ..errors import ArgumentError
from ..compat.foreign import is_foreign
from .checker import Checker

__all__ = ["AutodiffChecker"]


class AutodiffChecker(Checker):
    """Checks a CSE 599W-style engine: its ops' compute and gradient, gradients() and
    find_topo_sort."""

    style = "CSE 599W"
    steppable = True

    @staticmethod
    def reads(y) -> bool:
        return is_foreign(y)

    def engine_module(self, y):
        return sys.modules.get(type(y.op).__module__) if y.op is not None else None

    def name(self, node) -> str:
        return str(node.name) if getattr(node, "name", "") else ""

    def compute(self, node, args: list):
        return node.op.compute(node, args)

    def rule_flags(self, node) -> str:
        if hasattr(node, "matmul_attr_trans_A"):
            return " (check the matmul_attr_trans_A/B flags)"
        return ""

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
                problems.append(self.raised(node, "compute", exc))
                return True
        return False

    def rule_gradients(self, node, w) -> list:
        """The values of the nodes the student's rule builds, the output gradient being a
        bare placeholder node valued ``w``."""
        grad = object.__new__(type(node))
        grad.inputs, grad.op, grad.const_attr, grad.name = [], None, None, "output_grad"
        grads = node.op.gradient(node, grad)
        return self.run(list(grads), {**self.values, id(grad): w})

    def final_gradients(self, y, wrt, order):
        """The values of the nodes the student's gradients() builds (None, with a note, when
        the module has none)."""
        gradients = getattr(self.module, "gradients", None)
        if gradients is None:
            self.notes.append("no gradients() in the op's module: final gradients not checked")
            return None
        try:
            return self.run(list(gradients(y, wrt)), dict(self.values))
        except Exception as exc:  # the student's code
            return self.final_raised(y, "gradients", exc)
