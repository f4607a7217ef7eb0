"""Eager (define-by-run) nodes: values computed as the graph is built, as in PyTorch.

``vz.tensor(2.0)`` is a leaf that carries its value. Any op applied to eager nodes (and numbers
or constants) computes its value at once, with the op's own ``compute``, and returns an eager
node, so ``y.value`` is there; the graph that ran is recorded as an ordinary vizad graph, so
``vz.gradients``, ``vz.trace_reverse(y)``, ``vz.draw(y)`` and ``vz.step(y)`` work on it without
a feed dict (the executor reads the stored values instead of recomputing them).
``y.backward()`` computes the gradients on values, with the ops' own rules, and gives each leaf
a :class:`LazyGrad`: the value at once, and the adjoint node of the extended graph (exactly as
:func:`vizad.gradients` builds it, eager too) the moment it is used as a node, so gradients of
gradients need nothing more; ``backward(create_graph=True)`` builds the adjoint graph at once.
(``backward`` and ``detach`` are declared here and call the functions of :data:`ATTACHED`,
which :mod:`vizad.engine.backward` and :mod:`vizad.engine.op` fill, where the parts they use are
defined; eager leaves are made by :func:`vizad.engine.op.tensor`.)

Mixed use: an op that reads an eager node and a symbolic node (a Variable, or anything built
from one) builds an ordinary symbolic node; the eager node then takes part as a fixed input,
its stored value used by every run.

Python control flow records what ran: ``if y.item() > 0: ...`` reads a value and builds
whichever branch ran, as in PyTorch.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Mapping

import numpy as np

from vizad.errors import NodeTypeError, evaluation_error
from vizad.engine.extension import ACTIVE
from vizad.engine.node import _EMPTY, Node, _context, _ids
from vizad.engine.tree import as_array, read_only, shape_of

if TYPE_CHECKING:  # pragma: no cover
    from vizad.engine.op import Op

__all__ = ["EagerNode", "LazyGrad", "SWAPPED", "ATTACHED"]

#: The functions behind eager nodes' ``backward()`` and ``detach()``, by name: the modules
#: that define them fill it (:mod:`vizad.engine.backward`, :mod:`vizad.engine.op`), so that this
#: module imports neither (they import it) while tools see the methods.
ATTACHED: dict[str, Callable[..., Any]] = {}

#: The record of a product on the tape: its local partials are its inputs' values, swapped.
SWAPPED = ("swapped",)

#: Floating-point scalar classes: ``float(x)`` is the number ``x.item()`` gives.
_FLOATS = frozenset({np.float64, np.float32, np.float16, float})

#: Value classes of shape () (numpy's scalars of the float types, Python's numbers).
_SCALARS = frozenset({np.float64, np.float32, np.float16, float, int, np.int64, np.bool_})
#: numpy's scalars among them: immutable, as a node's value must be to its readers
_NUMPY_SCALARS = frozenset({np.float64, np.float32, np.float16, np.int64, np.bool_})


class EagerNode(Node):
    """A node that carries its value (see the module's docs). Build leaves with
    :func:`vizad.tensor`; ops on eager nodes return eager nodes.

    Examples:
        >>> from vizad import extend
        >>> x = vz.tensor(3.0, name="x")
        >>> y = x * x
        >>> isinstance(y, extend.EagerNode), y.value
        (True, np.float64(9.0))
    """

    #: ``_partials``: the node's record on the numeric tape, its local partials on values
    #: (one per input; None when ``backward()`` is to work them out).
    __slots__ = ("_value", "_grad", "_requires_grad", "_partials")
    _value: Any
    _grad: Any  # an eager node or None (a number in the course classes: micrograd's Value)
    _requires_grad: bool
    _partials: Any

    # -- construction ------------------------------------------------------------------------
    #: The ``.grad`` of a new node (micrograd's Value starts at 0).
    _initial_grad: Any = None

    @classmethod
    def _computed(
        cls, op: Op, inputs: tuple, attrs: dict, name: str | None, shape: Any
    ) -> EagerNode:
        """The node ``op(*inputs, **attrs)`` with its value computed now, and its record on
        the numeric tape (the local partials on values, when its op states them cheaply)."""
        node = object.__new__(cls)  # not cls(): the course classes have constructors of their own
        # Node.__init__, inlined (hot)
        node._operation = op
        node._inputs = inputs
        node._attrs = MappingProxyType(attrs) if attrs else _EMPTY
        node._name = name
        node._id = next(_ids)
        node._shape = shape
        if ACTIVE[0]:
            node._origin, node._scope, node._source = _context()
        else:
            node._origin = None
            node._scope = ()
            node._source = None
        n = len(inputs)
        if n == 2 and inputs[0].__class__ is cls and inputs[1].__class__ is cls:
            a, b = inputs  # hot: a binary op on two eager nodes
            values = [a._value, b._value]
            requires_grad = a._requires_grad or b._requires_grad
        elif n == 1 and inputs[0].__class__ is cls:  # hot: a unary op
            a = inputs[0]
            values = [a._value]
            requires_grad = a._requires_grad
        else:
            values = []
            requires_grad = False
            for x in inputs:
                if x.__class__ is Node:  # a constant (a weakly typed number gives the number)
                    attrs_x = x._attrs
                    value = attrs_x["value"]
                    values.append(value.item() if attrs_x.get("weak") else value)
                else:
                    values.append(x._value)
                    if x._requires_grad:
                        requires_grad = True
        try:
            if op._builtin:  # vizad's own ops compute with their attributes (Op.bind)
                value = op.compute(*values, **attrs) if attrs else op.compute(*values)
            else:
                value = op.bind(node)(*values)
        except Exception as exc:
            raise evaluation_error(node, values, exc) from exc
        node._value = value
        if shape.__class__ is not tuple or not op._same_shape:  # (else exact already)
            node._shape = _shape(value)
        node._grad = cls._initial_grad
        node._requires_grad = requires_grad
        if requires_grad and op._partials_now:
            # an ElementwiseOp, which has _partial_values (no isinstance on this hot path)
            recorded = op._recorded
            node._partials = (
                recorded if recorded is not None else op._partial_values(value, values, attrs)  # type: ignore[attr-defined]
            )
        else:
            node._partials = None
        return node

    @classmethod
    def _leaf(
        cls, op: Op, attrs: dict, value: Any, name: str | None, requires_grad: bool
    ) -> EagerNode:
        """A leaf of ``op`` (a Variable-like input or a constant) holding ``value``; made by
        :func:`vizad.engine.op.leaf`."""
        node = object.__new__(cls)  # not cls(): the course classes have constructors of their own
        Node.__init__(node, op, (), attrs, name, _shape(value))
        node._value = value
        node._grad = cls._initial_grad
        node._requires_grad = requires_grad
        node._partials = None
        return node

    # -- values ------------------------------------------------------------------------------
    @property
    def value(self) -> Any:
        """The value computed when the node was built (a numpy array, or a tuple of them;
        numpy's scalar, ``np.float64(5.0)``, for a scalar computed on scalars, as numpy's own
        reductions give), read-only: the graph, its gradients and its traces hold it
        (``.copy()`` it to change it; a write raises instead of changing them behind their
        back). ``numpy()`` always gives an array."""
        value = self._value
        kind = value.__class__
        if kind in _NUMPY_SCALARS:  # hot (a gradient's value): numpy's scalar, immutable
            return value
        if kind in _SCALARS:  # a Python number: a new 0-d array, made read-only
            value = np.asarray(value)
            value.setflags(write=False)
            return value
        if kind is np.ndarray:
            if value.flags.writeable:  # a read-only view: the array itself is not changed
                value = value.view()
                value.setflags(write=False)
            return value
        return read_only(as_array(value))

    def numpy(self) -> Any:
        """The value as a numpy array (as ``value``, read-only)."""
        return read_only(as_array(self._value))

    def item(self) -> Any:
        """The value of a one-element node as a Python number."""
        value = self._value
        kind = value.__class__
        if kind in _SCALARS:  # hot: a scalar's number, without making an array
            if kind in _FLOATS:  # float(): the number item() gives, a fifth of its cost
                return float(value)
            return value if kind is int else value.item()
        return self._one("item()")

    # -- Python's numbers, len() and comparisons read the value, as PyTorch's tensors do -----
    def __float__(self) -> float:
        value = self._value
        kind = value.__class__
        if kind in _SCALARS:  # hot: float(x.grad) without making an array
            return float(value)
        return float(self._one("float()"))

    def __int__(self) -> int:
        return int(self._one("int()"))

    def __len__(self) -> int:
        value = as_array(self._value)
        if not isinstance(value, tuple) and value.ndim == 0:
            raise NodeTypeError(
                f"{self.describe()}: len() of a scalar, which has no length; use .item()"
            )
        return len(value)

    def __lt__(self, other: Any) -> Any:
        return self.value < _compared(other)

    def __le__(self, other: Any) -> Any:
        return self.value <= _compared(other)

    def __gt__(self, other: Any) -> Any:
        return self.value > _compared(other)

    def __ge__(self, other: Any) -> Any:
        return self.value >= _compared(other)

    def _one(self, what: str) -> Any:
        value = as_array(self._value)
        if isinstance(value, tuple) or value.size != 1:
            raise NodeTypeError(
                f"{self.describe()}: {what} needs a one-element value, got shape "
                f"{shape_of(self._value)} (index it first, or use .value)"
            )
        return value.item()

    @property
    def dtype(self) -> np.dtype:
        value = as_array(self._value)
        if isinstance(value, tuple):
            raise NodeTypeError(f"{self.describe()} holds a tuple value: it has no dtype")
        return value.dtype

    @property
    def requires_grad(self) -> bool:
        """Whether a gradient flows to this node: a ``requires_grad`` leaf, or computed from
        one."""
        return self._requires_grad

    # -- gradients ---------------------------------------------------------------------------
    @property
    def grad(self) -> EagerNode | None:
        """After ``backward()``: the gradient, an eager node (its ``value`` is the array;
        differentiate it again with its own ``backward()``). Accumulates over calls, as in
        PyTorch; set it to None to start again. None before any backward."""
        return self._grad

    @grad.setter
    def grad(self, value: EagerNode | None) -> None:
        self._grad = value

    def backward(self, cotangent: Any = None, *, create_graph: bool = False) -> None:
        """Add d(self)/d(leaf) to ``.grad`` of every ``requires_grad`` leaf this node depends
        on, computed on values, or with ``create_graph`` as nodes of the extended graph
        (differentiable again). ``cotangent`` is v̄ of this node (default ones: the gradient
        of the sum of its entries). See
        :func:`vizad.engine.backward.backward`."""
        ATTACHED["backward"](self, cotangent, create_graph=create_graph)

    def detach(self) -> EagerNode:
        """A new leaf with the same value that requires no gradient."""
        return ATTACHED["detach"](self)

    # -- display -----------------------------------------------------------------------------
    def __repr__(self) -> str:
        grad = ", requires_grad" if self._requires_grad else ""
        return f"<EagerNode {self} = {self._shown()}{grad}>"

    def _shown(self) -> str:
        """The value, short, for a repr."""
        value = as_array(self._value)
        if isinstance(value, tuple):
            return f"tuple of {len(value)}"
        return np.array2string(
            value, precision=4, threshold=6, edgeitems=2, separator=", "
        ).replace("\n", "")


class LazyGrad(EagerNode):
    """A gradient computed on values (``y.backward()``) that stands for the adjoint node of
    the extended graph: its value is there at once, and the node is built from the forward
    graph when this one is used as a node — in an op, ``backward()``, a trace or a drawing,
    ``.op``, ``.inputs`` or ``.origin`` (:meth:`node`). When the output that was
    differentiated is gone, it is a constant, as a gradient is in PyTorch."""

    __slots__ = ("_resolve", "_real")
    _resolve: Callable[[], EagerNode] | None
    _real: EagerNode | None

    def node(self) -> EagerNode:
        """The adjoint node this gradient stands for (built on first use), or this gradient
        itself (a constant) when it can no longer be built."""
        if self._resolve is not None:
            self._real, self._resolve = self._resolve(), None
        return self if self._real is None else self._real

    @property
    def op(self) -> Op:
        return self.node()._operation

    @property
    def inputs(self) -> tuple[Node, ...]:
        return self.node()._inputs

    @property
    def attrs(self) -> Mapping[str, Any]:
        return self.node()._attrs

    @property
    def origin(self) -> Any:
        return self.node()._origin

    @property
    def requires_grad(self) -> bool:
        return self.node()._requires_grad

    def backward(self, cotangent: Any = None, *, create_graph: bool = False) -> None:
        """Differentiate the adjoint node this gradient stands for (second derivatives)."""
        EagerNode.backward(self.node(), cotangent, create_graph=create_graph)

    def __repr__(self) -> str:  # shown without building the adjoint node
        return f"<gradient = {self._shown()}>"

    def __str__(self) -> str:  # print(x.grad): its numbers, as PyTorch prints a gradient
        return self._shown()


def _shape(value: Any) -> Any:
    """The shape of an eager value (:func:`vizad.engine.tree.shape_of`, read quickly for arrays
    and scalars)."""
    kind = value.__class__
    if kind is np.ndarray:
        return value.shape
    if kind in _SCALARS:
        return ()
    return value.shape if hasattr(value, "shape") else shape_of(value)


def _compared(other: Any) -> Any:
    """What an eager node's value is compared with: another eager node's value, or a number
    or array (a comparison gives numpy booleans, as PyTorch gives a bool tensor; it is not
    differentiable, and makes no node)."""
    if isinstance(other, EagerNode):
        return other.value
    if isinstance(other, Node):
        other._no_value("x < …")
    return other
