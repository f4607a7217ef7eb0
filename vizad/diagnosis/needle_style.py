"""Reading a needle-style engine (the dlsys course's homework, as in
:mod:`vizad.compat.needle`) for :func:`vizad.diagnose`.

Its tensors have ``inputs``, ``op`` and ``realize_cached_data()`` (the value each keeps), with
``op.compute(*arrays)`` and ``op.gradient(out_grad, node)`` returning tensors; ``backward()``
fills each tensor's ``grad``. The module of the tensor's class gives ``find_topo_sort``.
"""

from __future__ import annotations

import sys

import numpy as np

from .checker import Checker

__all__ = ["NeedleChecker"]


def _array(tensor):
    return None if tensor is None else np.asarray(tensor.realize_cached_data())


class NeedleChecker(Checker):
    """Checks a needle-style engine: its ops' compute and gradient, backward() and
    find_topo_sort."""

    style = "needle"

    @staticmethod
    def reads(y) -> bool:
        return hasattr(y, "inputs") and hasattr(y, "op") and hasattr(y, "realize_cached_data")

    def engine_module(self, y):
        return sys.modules.get(type(y).__module__)

    def op_name(self, node) -> str:
        return type(node.op).__name__ if node.op is not None else "leaf"

    def stored(self, node):
        return np.asarray(node.realize_cached_data())

    def compute(self, node, args: list):
        return node.op.compute(*args)

    def rule_gradients(self, node, w) -> list:
        """The arrays of the tensors the student's rule returns for ``out_grad`` = ``w``."""
        cls = type(node)
        make = getattr(cls, "make_const", None)
        out_grad = make(w) if make is not None else cls(w, requires_grad=False)
        grads = node.op.gradient(out_grad, node)
        return [_array(g) for g in (grads if isinstance(grads, (tuple, list)) else (grads,))]

    def final_gradients(self, y, wrt, order):
        return self.backward_grads(y, order, wrt, _array)
