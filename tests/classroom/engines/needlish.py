"""A student's needle (the dlsys homework 1) in one file, correct: the base of the seeded bugs
(tests/classroom/test_diagnose_styles.py replaces one marked line). Written for these tests
after the homework's API: Tensors hold numpy arrays and compute as they are made, leaves have op
None, ``find_topo_sort`` is a post-order depth-first search, ``compute_gradient_of_variables``
sums the partial adjoints of each node in reverse topological order."""

from functools import reduce
from operator import add as _add

import numpy

LAZY_MODE = False


class Op:
    def __call__(self, *args):
        raise NotImplementedError()

    def compute(self, *args):
        raise NotImplementedError()

    def gradient(self, out_grad, node):
        raise NotImplementedError()

    def gradient_as_tuple(self, out_grad, node):
        output = self.gradient(out_grad, node)
        if isinstance(output, tuple):
            return output
        if isinstance(output, list):
            return tuple(output)
        return (output,)


class TensorOp(Op):
    def __call__(self, *args):
        return Tensor.make_from_op(self, args)


class Tensor:
    def __init__(self, array, *, dtype="float64", requires_grad=True):
        if isinstance(array, Tensor):
            array = array.numpy()
        data = numpy.array(array, dtype=dtype)
        self._init(None, [], cached_data=data, requires_grad=requires_grad)

    def _init(self, op, inputs, *, cached_data=None, requires_grad=None):
        if requires_grad is None:
            requires_grad = any(x.requires_grad for x in inputs)
        self.op = op
        self.inputs = list(inputs)
        self.cached_data = cached_data
        self.requires_grad = requires_grad
        self.grad = None

    def realize_cached_data(self):
        if self.cached_data is None:
            self.cached_data = self.op.compute(*[x.realize_cached_data() for x in self.inputs])
        return self.cached_data

    def is_leaf(self):
        return self.op is None

    @staticmethod
    def make_from_op(op, inputs):
        tensor = Tensor.__new__(Tensor)
        tensor._init(op, inputs)
        if not LAZY_MODE:
            tensor.realize_cached_data()
        return tensor

    @staticmethod
    def make_const(data, requires_grad=False):
        tensor = Tensor.__new__(Tensor)
        if isinstance(data, Tensor):
            data = data.realize_cached_data()
        tensor._init(None, [], cached_data=numpy.asarray(data), requires_grad=requires_grad)
        return tensor

    @property
    def shape(self):
        return self.realize_cached_data().shape

    @property
    def dtype(self):
        return self.realize_cached_data().dtype

    def numpy(self):
        return self.realize_cached_data()

    def detach(self):
        return Tensor.make_const(self.realize_cached_data())

    def backward(self, out_grad=None):
        if out_grad is None:
            out_grad = Tensor(numpy.ones(self.shape), requires_grad=False)
        compute_gradient_of_variables(self, out_grad)

    def __repr__(self):
        return f"Tensor({self.realize_cached_data()!r})"

    def __add__(self, other):
        return EWiseAdd()(self, other) if isinstance(other, Tensor) else AddScalar(other)(self)

    def __mul__(self, other):
        return EWiseMul()(self, other) if isinstance(other, Tensor) else MulScalar(other)(self)

    def __pow__(self, other):
        return PowerScalar(other)(self)

    def __sub__(self, other):
        if isinstance(other, Tensor):
            return EWiseAdd()(self, Negate()(other))
        return AddScalar(-other)(self)

    def __truediv__(self, other):
        return EWiseDiv()(self, other) if isinstance(other, Tensor) else DivScalar(other)(self)

    def __matmul__(self, other):
        return MatMul()(self, other)

    def __neg__(self):
        return Negate()(self)

    def sum(self, axes=None):
        return Summation(axes)(self)

    def reshape(self, shape):
        return Reshape(shape)(self)

    def broadcast_to(self, shape):
        return BroadcastTo(shape)(self)

    def transpose(self, axes=None):
        return Transpose(axes)(self)

    __radd__ = __add__
    __rmul__ = __mul__


class EWiseAdd(TensorOp):
    def compute(self, a, b):
        return a + b

    def gradient(self, out_grad, node):
        return out_grad, out_grad


class AddScalar(TensorOp):
    def __init__(self, scalar):
        self.scalar = scalar

    def compute(self, a):
        return a + self.scalar

    def gradient(self, out_grad, node):
        return out_grad  # ADDSCALAR-RULE


class EWiseMul(TensorOp):
    def compute(self, a, b):
        return a * b

    def gradient(self, out_grad, node):
        lhs, rhs = node.inputs
        return out_grad * rhs, out_grad * lhs  # EWISEMUL-RULE


class MulScalar(TensorOp):
    def __init__(self, scalar):
        self.scalar = scalar

    def compute(self, a):
        return a * self.scalar

    def gradient(self, out_grad, node):
        return (out_grad * self.scalar,)  # MULSCALAR-RULE


class PowerScalar(TensorOp):
    def __init__(self, scalar):
        self.scalar = scalar

    def compute(self, a):
        return numpy.power(a, self.scalar)

    def gradient(self, out_grad, node):
        a = node.inputs[0]
        return out_grad * self.scalar * a ** (self.scalar - 1)  # POWER-RULE


class EWiseDiv(TensorOp):
    def compute(self, a, b):
        return a / b

    def gradient(self, out_grad, node):
        a, b = node.inputs
        return out_grad / b, -out_grad * a / (b * b)  # EWISEDIV-RULE


class DivScalar(TensorOp):
    def __init__(self, scalar):
        self.scalar = scalar

    def compute(self, a):
        return a / self.scalar

    def gradient(self, out_grad, node):
        return out_grad / self.scalar  # DIVSCALAR-RULE


class Transpose(TensorOp):
    def __init__(self, axes=None):
        self.axes = axes

    def compute(self, a):
        x, y = self.axes if self.axes else (a.ndim - 2, a.ndim - 1)
        return numpy.swapaxes(a, x, y)

    def gradient(self, out_grad, node):
        return transpose(out_grad, self.axes)  # TRANSPOSE-RULE


class Reshape(TensorOp):
    def __init__(self, shape):
        self.shape = shape

    def compute(self, a):
        return numpy.reshape(a, self.shape)

    def gradient(self, out_grad, node):
        return reshape(out_grad, node.inputs[0].shape)  # RESHAPE-RULE


class BroadcastTo(TensorOp):
    def __init__(self, shape):
        self.shape = shape

    def compute(self, a):
        return numpy.broadcast_to(a, self.shape)

    def gradient(self, out_grad, node):
        in_shape = node.inputs[0].shape
        lead = len(self.shape) - len(in_shape)
        stretched = [k for k, d in enumerate(in_shape) if d == 1 and self.shape[lead + k] != 1]
        axes = tuple(range(lead)) + tuple(lead + k for k in stretched)
        return reshape(summation(out_grad, axes), in_shape)  # BROADCAST-RULE


class Summation(TensorOp):
    def __init__(self, axes=None):
        self.axes = axes

    def compute(self, a):
        return numpy.sum(a, axis=self.axes)

    def gradient(self, out_grad, node):
        shape = list(node.inputs[0].shape)
        axes = range(len(shape)) if self.axes is None else self.axes
        for k in [axes] if isinstance(axes, int) else axes:
            shape[k] = 1
        return broadcast_to(reshape(out_grad, shape), node.inputs[0].shape)  # SUMMATION-RULE


class MatMul(TensorOp):
    def compute(self, a, b):
        return a @ b

    def gradient(self, out_grad, node):
        a, b = node.inputs
        grad_a = matmul(out_grad, transpose(b))  # MATMUL-A
        grad_b = matmul(transpose(a), out_grad)  # MATMUL-B
        if len(grad_a.shape) > len(a.shape):
            grad_a = summation(grad_a, tuple(range(len(grad_a.shape) - len(a.shape))))
        if len(grad_b.shape) > len(b.shape):
            grad_b = summation(grad_b, tuple(range(len(grad_b.shape) - len(b.shape))))
        return grad_a, grad_b


class Negate(TensorOp):
    def compute(self, a):
        return -a

    def gradient(self, out_grad, node):
        return -out_grad  # NEGATE-RULE


class Log(TensorOp):
    def compute(self, a):
        return numpy.log(a)

    def gradient(self, out_grad, node):
        return out_grad / node.inputs[0]  # LOG-RULE


class Exp(TensorOp):
    def compute(self, a):
        return numpy.exp(a)

    def gradient(self, out_grad, node):
        return out_grad * node  # EXP-RULE


class ReLU(TensorOp):
    def compute(self, a):
        return numpy.maximum(a, 0)

    def gradient(self, out_grad, node):
        positive = Tensor.make_const(node.inputs[0].realize_cached_data() > 0)
        return out_grad * positive  # RELU-RULE


def add(a, b):
    return EWiseAdd()(a, b)


def add_scalar(a, scalar):
    return AddScalar(scalar)(a)


def multiply(a, b):
    return EWiseMul()(a, b)


def mul_scalar(a, scalar):
    return MulScalar(scalar)(a)


def power_scalar(a, scalar):
    return PowerScalar(scalar)(a)


def divide(a, b):
    return EWiseDiv()(a, b)


def divide_scalar(a, scalar):
    return DivScalar(scalar)(a)


def transpose(a, axes=None):
    return Transpose(axes)(a)


def reshape(a, shape):
    return Reshape(shape)(a)


def broadcast_to(a, shape):
    return BroadcastTo(shape)(a)


def summation(a, axes=None):
    return Summation(axes)(a)


def matmul(a, b):
    return MatMul()(a, b)


def negate(a):
    return Negate()(a)


def log(a):
    return Log()(a)


def exp(a):
    return Exp()(a)


def relu(a):
    return ReLU()(a)


def find_topo_sort(node_list):
    visited, topo_order = set(), []
    for node in node_list:
        topo_sort_dfs(node, visited, topo_order)
    return topo_order


def topo_sort_dfs(node, visited, topo_order):
    if node in visited:
        return
    visited.add(node)
    for x in node.inputs:  # TOPO-VISIT
        topo_sort_dfs(x, visited, topo_order)
    topo_order.append(node)


def compute_gradient_of_variables(output_tensor, out_grad):
    node_to_output_grads_list = {output_tensor: [out_grad]}
    reverse_topo_order = list(reversed(find_topo_sort([output_tensor])))  # REVERSE-ORDER
    for node in reverse_topo_order:
        node.grad = sum_node_list(node_to_output_grads_list[node])  # SUM-PARTIALS
        if node.op is None:
            continue
        for x, g in zip(node.inputs, node.op.gradient_as_tuple(node.grad, node)):
            node_to_output_grads_list.setdefault(x, []).append(g)


def sum_node_list(node_list):
    return reduce(_add, node_list)
