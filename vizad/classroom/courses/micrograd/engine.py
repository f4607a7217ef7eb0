"""micrograd's ``Value`` as an eager vizad node.

What matches micrograd: the constructor ``Value(data, label=...)``; ``data`` and ``grad``
(Python numbers; ``grad`` starts at 0 and ``backward()`` adds to it on every node of the graph,
as micrograd's does, after setting the output's grad to 1); ``label``; the operators ``+ - * /
**`` (number exponents) with numbers on either side, wrapped as Values as micrograd does, so
``a - b`` is ``a + (-b)``, ``-a`` is ``a * -1`` and ``a / b`` is ``a * b**-1``; ``tanh``,
``exp``, ``relu``; ``_prev``, ``_op`` and ``_backward()`` (one node's local step, for the
lecture's manual backpropagation); ``repr``.

What differs: ``backward()`` runs vizad's reverse mode on values (each op's own rule, as the
adjoint graph's nodes would compute it) instead of closures; the result is the same, summed in
vizad's order. A Value cannot be built from children and an op string by hand
(``Value(x, (a, b), "op")``) with a ``_backward`` closure of its own: define a vizad Op instead.
"""

from __future__ import annotations

import numbers

import numpy as np

from vizad.engine import ops as _ops
from vizad.engine.eager import EagerNode
from vizad.errors import GraphError, NodeTypeError
from vizad.engine.node import OPERATORS, Node
from vizad.engine.op import leaf
from vizad.engine.backward import adjoint_values
from vizad.engine.reverse import local_adjoints
from vizad.engine.text import printable
from vizad.classroom.courses.copies import copy_node, deepcopy_graph

__all__ = ["Value"]

_add, _mul = OPERATORS["add"], OPERATORS["mul"]  # fast for two Values

#: What backward() leaves in ``_grad`` (read as Python floats: written lazily).
_NUMPY_FLOATS = frozenset({np.float64, np.float32, np.ndarray})

#: micrograd's ``_op`` strings for vizad's ops.
_OP_TEXT = {"add": "+", "mul": "*", "tanh": "tanh", "exp": "exp", "relu": "ReLU"}


class Value(EagerNode):
    """A scalar value and its gradient, as micrograd's ``Value``."""

    __slots__ = ()

    def __new__(cls, data=None, _children=(), _op="", label=""):
        if data.__class__ is float and label == "" and not _children and not _op:
            return leaf(np.float64(data), None, True, cls)  # hot: Value(0.5), as the checks say
        if _children or _op:
            raise GraphError(
                "Value(data, _children, _op): vizad records the graph itself; build Values with "
                "their operators and methods (+ - * / **, tanh, exp, relu), or define a "
                "vizad Op for a new operation"
            )
        if isinstance(data, Node):
            raise NodeTypeError(f"Value: data must be a number, got {data!r:.60}; give a number")
        if not isinstance(data, numbers.Number):
            raise NodeTypeError(
                f"Value: data must be a number, got {type(data).__name__} {data!r:.60}; give one"
            )
        if not isinstance(label, str):
            raise NodeTypeError(
                f"Value.label must be a str, got {type(label).__name__}; give a str"
            )
        # a numpy scalar (float64 for a float): arithmetic on it costs a fifth of a 0-d array's
        return leaf(np.asarray(data)[()], printable(label) or None, True, cls)

    def __init__(self, data=None, _children=(), _op="", label=""):
        pass  # made in __new__ (leaves) or by the ops (everything else)

    _initial_grad = 0.0

    # -- micrograd's fields ----------------------------------------------------------------
    @property
    def data(self):
        """The value, a Python number."""
        return self._value.item()

    @data.setter
    def data(self, value) -> None:
        if isinstance(value, Node) or not isinstance(value, numbers.Real):
            raise NodeTypeError(
                f"Value.data must be a number, got {type(value).__name__} {value!r:.60}; give one"
            )
        self._value = np.asarray(value)[()]

    @property
    def grad(self):
        """The gradient, a Python number (0.0 before any backward)."""
        grad = self._grad
        return float(grad) if grad.__class__ in _NUMPY_FLOATS else grad

    @grad.setter
    def grad(self, value) -> None:
        self._grad = value

    @property
    def label(self) -> str:
        return self._name or ""

    @label.setter
    def label(self, text: str) -> None:
        if not isinstance(text, str):
            raise NodeTypeError(f"Value.label must be a str, got {type(text).__name__}; give a str")
        self._name = printable(text) or None

    @property
    def _prev(self) -> set:
        return set(self._inputs)

    @property
    def _op(self) -> str:
        op = self.op
        if not self._inputs:
            return ""
        if op.name == "power":
            return f"**{self.attrs['p']}"
        return _OP_TEXT.get(op.name, op.name)

    # -- operators, as micrograd defines them ------------------------------------------------
    def __add__(self, other):
        return _add(self, other if other.__class__ is Value else _wrap(other))

    def __mul__(self, other):
        return _mul(self, other if other.__class__ is Value else _wrap(other))

    def __pow__(self, other):
        if not isinstance(other, (int, float)):
            raise NodeTypeError("only supporting int/float powers for now: give an int or a float")
        return _ops.power(self, other)

    def relu(self):
        return _ops.relu(self)

    def tanh(self):
        return _ops.tanh(self)

    def exp(self):
        return _ops.exp(self)

    def __neg__(self):  # -self
        return self * -1

    def __radd__(self, other):  # other + self
        return self + other

    def __sub__(self, other):  # self - other
        return self + (-other)

    def __rsub__(self, other):  # other - self
        return other + (-self)

    def __rmul__(self, other):  # other * self
        return self * other

    def __truediv__(self, other):  # self / other
        return self * other**-1

    def __rtruediv__(self, other):  # other / self
        return other * self**-1

    def __rpow__(self, other):
        raise NodeTypeError("only supporting int/float powers for now: give an int or a float")

    def __matmul__(self, other):
        return NotImplemented

    __rmatmul__ = __matmul__

    # -- gradients -------------------------------------------------------------------------
    def backward(self) -> None:
        """Set this node's grad to 1 and add d(self)/d(node) to the grad of every node of its
        graph: vizad's reverse mode on values (the ops' own rules; no adjoint graph is built,
        as micrograd builds none)."""
        adjoints = adjoint_values(self, every=True)
        self._grad = 1.0
        for node, adjoint in adjoints.items():  # numpy's floats: made Python's when read
            if node is not self and node.__class__ is Value:
                node._grad = node._grad + adjoint

    def _backward(self) -> None:
        """micrograd's local step: add this node's grad times each local derivative to its
        inputs' grads (the lecture calls it node by node)."""
        if not self._inputs:
            return
        seed = leaf(np.asarray(self._grad, dtype=float), None, False)
        for node, partial in zip(self._inputs, local_adjoints(self, seed)):
            if partial is not None and isinstance(node, Value):
                node._grad = node._grad + partial._value.item()

    # -- copies: a Value changes (data, grad, label), so a copy is a new Value --------------
    def __copy__(self):
        return copy_node(self)

    def __deepcopy__(self, memo):
        return deepcopy_graph(self, memo)

    def __repr__(self) -> str:
        return f"Value(data={self.data}, grad={self.grad})"

    __str__ = __repr__  # print(v), as micrograd


def _wrap(other):
    return other if isinstance(other, Value) else Value(other)
