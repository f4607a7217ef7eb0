"""Reading a needle-style engine (the dlsys course's homework, as in
:mod:`vizad.classroom.courses.needle`) for :func:`vizad.diagnose`.

Its tensors have ``inputs``, ``op`` and ``realize_cached_data()`` (the value each keeps), with
``op.compute(*arrays)`` and ``op.gradient(out_grad, node)`` returning tensors; ``backward()``
fills each tensor's ``grad``. The student's ``find_topo_sort`` is found where their Tensor's
methods find it, and must give the exact post-order the homework's test compares. Reports
speak needle's words: a node is its op with its attributes and shapes,
``Summation(axes=(1,)) (4, 4)→(4,)``.
"""

from __future__ import annotations

import numpy as np

from vizad.classroom.diagnosis.checker import Checker
from vizad.classroom.diagnosis.known_ops import Known, Words, known_op

__all__ = ["NeedleChecker"]

#: needle's op classes by name: (family, the attribute holding the family's parameter).
_FAMILIES = {
    "EWiseAdd": ("add", None),
    "AddScalar": ("add_const", "scalar"),
    "EWiseMul": ("mul", None),
    "MulScalar": ("mul_const", "scalar"),
    "PowerScalar": ("power", "scalar"),
    "EWisePow": ("pow", None),
    "EWiseDiv": ("div", None),
    "DivScalar": ("div_const", "scalar"),
    "Transpose": ("transpose", "axes"),
    "Reshape": ("reshape", "shape"),
    "BroadcastTo": ("broadcast_to", "shape"),
    "Summation": ("summation", "axes"),
    "MatMul": ("matmul", None),
    "Negate": ("negate", None),
    "Log": ("log", None),
    "Exp": ("exp", None),
    "ReLU": ("relu", None),
    "Tanh": ("tanh", None),
    "Sigmoid": ("sigmoid", None),
}

#: The name each family's parameter has in known_ops.
_PARAM = {"scalar": "c", "axes": "axes", "shape": "shape"}

WORDS = Words(
    grad="out_grad", inputs=("a", "b"), const="self.scalar", walk="compute_gradient_of_variables"
)


def _array(tensor):
    return None if tensor is None else np.asarray(tensor.realize_cached_data())


def _shape(shape: tuple) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


class NeedleChecker(Checker):
    """Checks a needle-style engine: its ops' compute and gradient, backward() and
    find_topo_sort."""

    style = "needle"
    words = WORDS
    exact_order = True

    @staticmethod
    def reads(y) -> bool:
        return hasattr(y, "inputs") and hasattr(y, "op") and hasattr(y, "realize_cached_data")

    def classes(self) -> list[type]:
        found = [type(self.graph[-1])]
        found += [type(n.op) for n in reversed(self.graph) if n.op is not None]
        return list(dict.fromkeys(found))

    def is_leaf(self, node) -> bool:
        return not self.inputs(node)

    def op_name(self, node) -> str:
        return type(node.op).__name__ if node.op is not None else "leaf"

    def describe(self, node, k: int) -> str:
        """``Summation(axes=(1,)) (4, 4)→(4,)``; a leaf: ``Tensor (4, 4)`` (``wrt[0] (4, 4)``
        for the gradients asked for)."""
        shape = _shape(np.shape(node.realize_cached_data()))
        if self.is_leaf(node):
            k = next((j for j, x in enumerate(self.wrt) if x is node), None)
            return f"wrt[{k}] {shape}" if k is not None else f"Tensor {shape}"
        return f"{self._op_text(node)} {self._shapes(node)}"

    def define(self, node, k: int) -> str:
        """``Summation(axes=(1,)) of v₃, (4, 4)→(4,)``: the op, its inputs' labels, the
        shapes."""
        if self.is_leaf(node):
            return self.describe(node, k)
        args = ", ".join(map(self.label, self.inputs(node)))
        return f"{self._op_text(node)} of {args}, {self._shapes(node)}"

    def _op_text(self, node) -> str:
        """``Summation(axes=(1,))``: the op's class and its parameters."""
        params = ", ".join(
            f"{name}={value!r}"
            for name, value in sorted(vars(node.op).items())
            if not name.startswith("_") and not callable(value)
        )
        return f"{self.op_name(node)}{f'({params})' if params else ''}"

    @staticmethod
    def _shapes(node) -> str:
        """``(4, 4)→(4,)``: the inputs' shapes and the node's."""
        ins = ", ".join(_shape(np.shape(x.realize_cached_data())) for x in node.inputs)
        return f"{ins}→{_shape(np.shape(node.realize_cached_data()))}"

    def known(self, node) -> Known | None:
        family, attribute = _FAMILIES.get(type(node.op).__name__, (None, None))
        params = {}
        if attribute is not None:
            params[_PARAM[attribute]] = getattr(node.op, attribute, None)
        if family == "power" and params.get("n") is None:
            params["n"] = params.pop("c", None)
        return known_op(family, params, WORDS, len(self.inputs(node)))

    def rule(self, node):
        return getattr(type(node.op), "gradient", None)

    def stored(self, node):
        return np.asarray(node.realize_cached_data())

    def compute(self, node, args: list):
        return node.op.compute(*args)

    def rule_gradients(self, node, w) -> list | None:
        """The arrays of the tensors the student's rule returns for ``out_grad`` = ``w``."""
        cls = type(node)
        make = getattr(cls, "make_const", None)
        out_grad = make(w) if make is not None else cls(w, requires_grad=False)
        grads = node.op.gradient(out_grad, node)
        if grads is None:
            return None
        grads = list(grads) if isinstance(grads, (tuple, list)) else [grads]
        return [_array(g) for g in grads]

    def final_gradients(self, y, wrt, order):
        return self.backward_grads(y, order, wrt, _array)
