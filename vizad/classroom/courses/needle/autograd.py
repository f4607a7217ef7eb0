"""needle's ``autograd``: Op, TensorOp, Tensor, find_topo_sort, compute_gradient_of_variables
and sum_node_list, over vizad's engine (see the package's docs)."""

from __future__ import annotations

from functools import reduce
from operator import add
from typing import Any

import numpy

from vizad.engine.eager import EagerNode
from vizad.errors import GraphError, NodeTypeError
from vizad.engine.graph import post_order
from vizad.engine.node import Node, static_shape
from vizad.engine.op import Op as _VizadOp
from vizad.engine.op import leaf
from vizad.engine.reverse import build_adjoints
from vizad.engine.text import latex_name, latex_operator
from vizad.engine.tree import read_only
from vizad.classroom.courses.copies import copy_node, deepcopy_graph

__all__ = [
    "Op",
    "TensorOp",
    "Value",
    "Tensor",
    "cpu",
    "all_devices",
    "find_topo_sort",
    "compute_gradient_of_variables",
    "sum_node_list",
]

NDArray = numpy.ndarray


class Device:
    """needle's device: here always the CPU, with numpy arrays."""

    def __repr__(self) -> str:
        return "cpu()"

    def __eq__(self, other) -> bool:
        return isinstance(other, Device)

    def __hash__(self) -> int:
        return 0

    def enabled(self) -> bool:
        return True


_CPU = Device()


def cpu() -> Device:
    return _CPU


def all_devices() -> list[Device]:
    return [_CPU]


class Op(_VizadOp):
    """needle's operator: ``compute(*arrays)`` on numpy arrays and ``gradient(out_grad,
    node)`` giving the partial adjoint(s) of the inputs as Tensors. vizad's reverse mode calls
    ``gradient`` as the op's vjp. Parameters (a scalar, axes, a shape) are attributes of the op
    instance, as in needle."""

    def __init_subclass__(cls, **kwargs):
        named = "name" in cls.__dict__
        super().__init_subclass__(**kwargs)
        if not named:
            cls.name = cls.__name__  # needle's names in drawings: EWiseAdd, MulScalar

    def __call__(self, *args):
        raise NotImplementedError()

    def compute(self, *args):
        raise NotImplementedError()

    def gradient(self, out_grad, node):
        raise NotImplementedError()

    def gradient_as_tuple(self, out_grad, node) -> tuple:
        """The gradient as a tuple, one partial adjoint per input."""
        output = self.gradient(out_grad, node)
        if isinstance(output, tuple):
            return output
        if isinstance(output, list):
            return tuple(output)
        return (output,)

    # -- vizad's side ----------------------------------------------------------------------
    def vjp(self, node, adjoint):
        return list(self.gradient_as_tuple(adjoint, node))

    def parameters(self) -> list[str]:
        """The op's parameters as text, for drawings: ``["3"]`` for AddScalar(3)."""
        return [f"{k}={v}" for k, v in vars(self).items() if not k.startswith("_")]

    def latex(self, args, attrs) -> str:
        shown = [*args, *(latex_name(p) for p in self.parameters())]
        return latex_operator(self.name) + rf"\left({', '.join(shown)}\right)"


class TensorOp(Op):
    """An op whose output is a Tensor."""

    def __call__(self, *args):
        return Tensor.make_from_op(self, args)


class Tensor(EagerNode):
    """needle's Tensor: an eager vizad node holding a numpy array."""

    __slots__ = ()

    def __new__(cls, array=None, *, device=None, dtype=None, requires_grad=True, **kwargs):
        if isinstance(array, Tensor):
            dtype = array.dtype if dtype is None else dtype
            if numpy.dtype(dtype) == array.dtype:
                data = array.realize_cached_data()
            else:
                data = numpy.array(array.numpy(), dtype=dtype)
        else:
            try:
                data = numpy.array(array, dtype=dtype)
            except (TypeError, ValueError) as exc:
                raise NodeTypeError(
                    f"needle Tensor: cannot make an array of {array!r:.60}: {exc}"
                ) from None
        if data.dtype.kind not in "biufc":
            raise NodeTypeError(f"needle Tensor: dtype {data.dtype} is not numeric; give numbers")
        return leaf(data, None, bool(requires_grad), cls)

    def __init__(self, array=None, *, device=None, dtype=None, requires_grad=True, **kwargs):
        pass  # made in __new__

    @classmethod
    def _computed(cls, op, inputs, attrs, name, shape):
        node = super()._computed(op, inputs, attrs, name, shape)
        # needle's make_from_op: a result that needs no gradient is a detached constant
        return node if node._requires_grad else node.detach()

    @staticmethod
    def make_from_op(op: Op, inputs) -> Tensor:
        """The op's node: a Tensor computed now from Tensors (vizad's symbolic nodes, which
        vizad's own checks build the op on, give a symbolic node)."""
        for k, x in enumerate(inputs):
            if not isinstance(x, Node):
                raise NodeTypeError(
                    f"{op.name}: input {k} is a {type(x).__name__}, not a needle Tensor"
                )
        node = _VizadOp.__call__(op, *inputs)
        if not isinstance(node, EagerNode):  # symbolic: find its shape as needle code reads it
            shapes = [static_shape(x) for x in inputs]
            if node._shape is None and all(isinstance(s, tuple) for s in shapes):
                node._shape = numpy.shape(op.compute(*(numpy.zeros(s) for s in shapes)))
        return node

    @staticmethod
    def make_const(data, requires_grad=False) -> Tensor:
        if isinstance(data, Tensor):
            data = data.realize_cached_data()
        return leaf(data, None, requires_grad, Tensor)

    # -- needle's fields -------------------------------------------------------------------
    @property
    def cached_data(self):
        return self._value

    @cached_data.setter
    def cached_data(self, value) -> None:
        if not isinstance(value, numpy.ndarray) or value.dtype.kind not in "biufc":
            raise NodeTypeError(
                f"needle Tensor.cached_data must be a numeric numpy array, got "
                f"{type(value).__name__} {value!r:.60}; set Tensor.data to a Tensor instead"
            )
        self._value = value

    def realize_cached_data(self):
        return self._value

    def is_leaf(self) -> bool:
        return not self._inputs

    @property
    def data(self) -> Tensor:
        return self.detach()

    @data.setter
    def data(self, value) -> None:
        if not isinstance(value, Tensor):
            raise NodeTypeError(
                f"needle Tensor.data: expected a Tensor, got {type(value).__name__}; "
                "give a needle Tensor"
            )
        if value.dtype != self.dtype:
            raise NodeTypeError(
                f"needle Tensor.data: dtype {value.dtype} != {self.dtype}; give a Tensor of "
                f"dtype {self.dtype}"
            )
        self._value = value.realize_cached_data()

    @property
    def shape(self):
        return self._value.shape

    @property
    def device(self) -> Device:
        return _CPU

    def numpy(self):
        """The value, read-only (as ``vz.tensor``'s ``numpy()``)."""
        return read_only(self._value)

    def detach(self) -> Tensor:
        return Tensor.make_const(self._value)

    def backward(self, out_grad=None) -> None:
        if not out_grad:  # init.ones(*self.shape, dtype=self.dtype), as needle writes it
            out_grad = Tensor.make_const(numpy.ones(self.shape, dtype=self.dtype))
        compute_gradient_of_variables(self, out_grad)

    # -- copies: a Tensor changes (data, grad), so a copy is a new Tensor -------------------
    def __copy__(self):
        return copy_node(self)

    def __deepcopy__(self, memo):
        return deepcopy_graph(self, memo)

    def __repr__(self) -> str:
        return "needle.Tensor(" + str(self._value) + ")"

    def __str__(self) -> str:
        return self._value.__str__()

    # -- operators, as needle defines them -------------------------------------------------
    def __add__(self, other):
        if isinstance(other, Tensor):
            return ops.EWiseAdd()(self, other)
        return ops.AddScalar(other)(self)

    def __mul__(self, other):
        if isinstance(other, Tensor):
            return ops.EWiseMul()(self, other)
        return ops.MulScalar(other)(self)

    def __pow__(self, other):
        if isinstance(other, Tensor):
            return ops.EWisePow()(self, other)
        return ops.PowerScalar(other)(self)

    def __sub__(self, other):
        if isinstance(other, Tensor):
            return ops.EWiseAdd()(self, ops.Negate()(other))
        return ops.AddScalar(-other)(self)

    def __truediv__(self, other):
        if isinstance(other, Tensor):
            return ops.EWiseDiv()(self, other)
        return ops.DivScalar(other)(self)

    def __matmul__(self, other):
        return ops.MatMul()(self, other)

    def matmul(self, other):
        return ops.MatMul()(self, other)

    def sum(self, axes=None):
        return ops.Summation(axes)(self)

    def broadcast_to(self, shape):
        return ops.BroadcastTo(shape)(self)

    def reshape(self, shape):
        return ops.Reshape(shape)(self)

    def __neg__(self):
        return ops.Negate()(self)

    def transpose(self, axes=None):
        return ops.Transpose(axes)(self)

    # needle's own definitions: the reflected forms are the plain ones (so 2 - t is t - 2)
    __radd__ = __add__
    __rmul__ = __mul__
    __rsub__ = __sub__
    __rmatmul__ = __matmul__

    def __rtruediv__(self, other):
        return NotImplemented

    def __rpow__(self, other):
        return NotImplemented


#: needle's Value is Tensor's base; here they are one class.
Value = Tensor


def find_topo_sort(node_list) -> list:
    """A topological order of everything ``node_list`` depends on, by needle's post-order
    depth-first search over ``inputs`` (iterative: no recursion limit)."""
    return post_order(node_list)


def compute_gradient_of_variables(output_tensor: Tensor, out_grad: Tensor) -> None:
    """Set ``grad`` of every node that ``output_tensor`` depends on: vizad's reverse mode
    extends the graph with adjoint nodes, the ops' ``gradient`` giving each partial adjoint."""
    if not isinstance(output_tensor, Tensor):
        raise GraphError(f"compute_gradient_of_variables: {output_tensor!r:.60} is not a Tensor")
    graph = find_topo_sort([output_tensor])
    record = build_adjoints(output_tensor, graph, out_grad)
    for node, grad in zip(graph, record.gradients):
        node.grad = grad
    record.release()  # the grads hold what they need


def sum_node_list(node_list: list[Any]):
    """The sum of a list of nodes, by ``+``."""
    return reduce(add, node_list)


from vizad.classroom.courses.needle import ops  # noqa: E402  (ops build Tensors)
