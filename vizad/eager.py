"""Eager (define-by-run) nodes: values computed as the graph is built, as in PyTorch.

``vz.tensor(2.0)`` is a leaf that carries its value. Any op applied to eager nodes (and numbers
or constants) computes its value at once, with the op's own ``compute``, and returns an eager
node, so ``y.value`` is there; the graph that ran is recorded as an ordinary vizad graph, so
``vz.gradients``, ``vz.trace_reverse(y)``, ``vz.draw(y)`` and ``vz.step(y)`` work on it without
a feed dict (the executor reads the stored values instead of recomputing them).
``y.backward()`` extends the graph with adjoint nodes exactly as :func:`vizad.gradients` does;
built from eager nodes, the adjoint nodes are eager too, so their values are there at once and
gradients of gradients need nothing more.

Mixed use: an op that reads an eager node and a symbolic node (a Variable, or anything built
from one) builds an ordinary symbolic node; the eager node then takes part as a fixed input,
its stored value used by every run.

Python control flow records what ran: ``if y.item() > 0: ...`` reads a value and builds
whichever branch ran, as in PyTorch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import FeedError, GraphError, NodeTypeError
from .node import Node, _numeric_array, as_node, constant_value
from .text import printable
from .tree import as_array, shape_of

__all__ = ["EagerNode", "tensor", "prepared", "constants_only"]


class EagerNode(Node):
    """A node that carries its value (see the module's docs). Build leaves with
    :func:`vizad.tensor`; ops on eager nodes return eager nodes."""

    __slots__ = ("_value", "_grad", "_requires_grad")

    # -- construction ------------------------------------------------------------------------
    @classmethod
    def _computed(cls, op, inputs: tuple, attrs: dict, name, shape) -> EagerNode:
        """The node ``op(*inputs, **attrs)`` with its value computed now."""
        node = object.__new__(cls)  # not cls(): compat classes have constructors of their own
        Node.__init__(node, op, inputs, attrs, name, shape)
        values = []
        requires_grad = False
        for x in inputs:
            if x.__class__ is Node:  # a constant
                values.append(constant_value(x))
            else:
                values.append(x._value)
                requires_grad = requires_grad or x._requires_grad
        try:
            value = op.bind(node)(*values)
        except Exception as exc:
            from .executor import _evaluation_error  # noqa: PLC0415  (executor imports us)

            raise _evaluation_error(node, values, exc) from None
        node._value = value
        node._shape = value.shape if hasattr(value, "shape") else shape_of(value)
        node._grad = None
        node._requires_grad = requires_grad
        node._init_eager()
        return node

    @classmethod
    def _leaf(cls, value, name: str | None, requires_grad: bool) -> EagerNode:
        """A leaf holding ``value`` (an array, not copied): a Variable-like input when
        ``requires_grad`` (``wrt`` of gradients and traces by default), else a constant."""
        from .ops import CONSTANT, VARIABLE  # noqa: PLC0415  (ops import node, not us)

        node = object.__new__(cls)  # not cls(): compat classes have constructors of their own
        shape = shape_of(value)
        if requires_grad:
            Node.__init__(node, VARIABLE, (), {"shape": shape}, name, shape)
        else:
            Node.__init__(node, CONSTANT, (), {"value": value}, name, shape)
        node._value = value
        node._grad = None
        node._requires_grad = requires_grad
        node._init_eager()
        return node

    def _init_eager(self) -> None:
        """Hook for subclasses (compat APIs) to set their own fields."""

    # -- values ------------------------------------------------------------------------------
    @property
    def value(self) -> Any:
        """The value computed when the node was built (a numpy array, or a tuple of them)."""
        return as_array(self._value)

    def numpy(self) -> Any:
        """The value as a numpy array (as ``value``)."""
        return as_array(self._value)

    def item(self) -> Any:
        """The value of a one-element node as a Python number."""
        value = as_array(self._value)
        if isinstance(value, tuple) or value.size != 1:
            raise NodeTypeError(
                f"{self._describe()}: item() needs a one-element value, "
                f"got shape {shape_of(self._value)}"
            )
        return value.item()

    @property
    def dtype(self) -> np.dtype:
        value = as_array(self._value)
        if isinstance(value, tuple):
            raise NodeTypeError(f"{self._describe()} holds a tuple value: it has no dtype")
        return value.dtype

    @property
    def requires_grad(self) -> bool:
        """Whether a gradient flows to this node: a ``requires_grad`` leaf, or computed from
        one."""
        return self._requires_grad

    # -- gradients ---------------------------------------------------------------------------
    @property
    def grad(self):
        """After ``backward()``: the gradient, an eager node (its ``value`` is the array;
        differentiate it again with its own ``backward()``). Accumulates over calls, as in
        PyTorch; set it to None to start again. None before any backward."""
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        self._grad = value

    def backward(self, seed: Any = None) -> None:
        """Extend the graph with adjoint nodes (exactly as :func:`vizad.gradients`) and add
        the gradient to ``.grad`` of every ``requires_grad`` leaf it depends on.

        ``seed`` is v̄ of this node (default ones: the gradient of the sum of its entries)."""
        from .graph import ranked_order  # noqa: PLC0415
        from .ops import VARIABLE  # noqa: PLC0415
        from .reverse import gradients  # noqa: PLC0415

        if not self._requires_grad:
            raise GraphError(
                f"backward() of {self._describe()}: it does not depend on any leaf that "
                "requires a gradient (vz.tensor(..., requires_grad=True))"
            )
        leaves = [
            n
            for n in ranked_order(self)
            if n.__class__ is not Node and n._operation is VARIABLE and n._requires_grad
        ]
        for leaf, g in zip(leaves, gradients(self, leaves, seed)):
            leaf._grad = g if leaf._grad is None else leaf._grad + g

    def detach(self) -> EagerNode:
        """A new leaf with the same value that requires no gradient."""
        return type(self)._leaf(self._value, None, False)

    # -- display -----------------------------------------------------------------------------
    def __repr__(self) -> str:
        value = as_array(self._value)
        if isinstance(value, tuple):
            shown = f"tuple of {len(value)}"
        else:
            shown = np.array2string(
                value, precision=4, threshold=6, edgeitems=2, separator=", "
            ).replace("\n", "")
        grad = ", requires_grad" if self._requires_grad else ""
        return f"<EagerNode {self} = {shown}{grad}>"


_CONSTANT = None  # ops.CONSTANT, read on first use (ops import this module's importers)


def prepared(inputs: tuple, op_name: str) -> tuple[tuple, type | None]:
    """``inputs`` as Nodes (numbers become constants), and the class of the node an op
    builds from them: the class of the first eager input when every other input is eager or
    a constant (EagerNode for constants only); None (a symbolic node) when any input is
    symbolic."""
    constant = _CONSTANT or _constant_op()
    found = None
    symbolic = False
    converted = None
    for k, x in enumerate(inputs):
        if x.__class__ is not Node and not isinstance(x, EagerNode):  # 2 in 2 * x: a constant
            if converted is None:
                converted = list(inputs)
            x = converted[k] = as_node(x, op_name, k)
        if x.__class__ is Node:
            if x._operation is not constant:
                symbolic = True
        elif found is None:
            found = x.__class__
    if converted is not None:
        inputs = tuple(converted)
    if symbolic:
        return inputs, None
    return inputs, found or EagerNode  # constants only: folded at once


def constants_only(inputs: tuple) -> bool:
    """Whether every input is a constant (the op's node is then computed at once, so that
    constant parts of a rule, such as 1/3 in the partial of x / 3, never make an eager
    computation symbolic)."""
    constant = _CONSTANT or _constant_op()
    for x in inputs:
        if x._operation is not constant:
            return False
    return bool(inputs)


def _constant_op():
    global _CONSTANT
    from .ops import CONSTANT  # noqa: PLC0415

    _CONSTANT = CONSTANT
    return CONSTANT


def tensor(
    value: Any, name: str | None = None, requires_grad: bool = True, dtype: Any = None
) -> EagerNode:
    """An eager leaf holding a copy of ``value`` (a number, a nested list or a numpy array)::

        x = vz.tensor(2.0, name="x")
        y = vz.log(x) + x * 3.0
        y.value            # array(6.693...)
        y.backward()
        x.grad.value       # 3.5

    ``requires_grad=True`` (the default) makes it an input that gradients flow to (it needs a
    floating-point value, as in PyTorch); ``False`` a constant. ``dtype`` converts the value
    (``dtype="float32"``).
    """
    if name is not None and not isinstance(name, str):
        raise NodeTypeError(f"vz.tensor: name must be a str, got {type(name).__name__}")
    if name is not None:
        name = printable(name)
    what = f"vz.tensor {name!r}" if name else "vz.tensor"
    if isinstance(value, Node):
        raise NodeTypeError(f"{what}: the value is a Node already ({value._describe()})")
    array = _numeric_array(value, what, FeedError)
    if isinstance(array, tuple):
        raise NodeTypeError(f"{what}: tuple values are built with vz.make_tuple of tensors")
    try:
        array = np.array(array, dtype=dtype)  # a copy, as torch.tensor makes
    except (TypeError, ValueError) as exc:
        raise NodeTypeError(f"{what}: cannot convert the value to dtype {dtype!r}: {exc}") from None
    if array.dtype.kind not in "biufc":
        raise NodeTypeError(f"{what}: dtype {array.dtype} is not numeric")
    if requires_grad and array.dtype.kind not in "fc":
        raise NodeTypeError(
            f"{what}: only floating-point values can require gradients, got dtype "
            f"{array.dtype} (write the numbers with a decimal point, pass dtype=float, "
            "or pass requires_grad=False)"
        )
    return EagerNode._leaf(array, name, bool(requires_grad))
