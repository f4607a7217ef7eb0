"""needle's homework-1 ops: each a class with ``compute`` on numpy arrays and ``gradient``
built from needle ops, and a function form. The gradients are vizad's reverse-mode rules for
these ops (vizad extends the graph with them)."""

from __future__ import annotations

import numpy

from vizad.classroom.courses.needle.autograd import TensorOp

__all__ = [
    "EWiseAdd",
    "AddScalar",
    "EWiseMul",
    "MulScalar",
    "PowerScalar",
    "EWisePow",
    "EWiseDiv",
    "DivScalar",
    "Transpose",
    "Reshape",
    "BroadcastTo",
    "Summation",
    "MatMul",
    "Negate",
    "Log",
    "Exp",
    "ReLU",
    "add",
    "add_scalar",
    "multiply",
    "mul_scalar",
    "power_scalar",
    "power",
    "divide",
    "divide_scalar",
    "transpose",
    "reshape",
    "broadcast_to",
    "summation",
    "matmul",
    "negate",
    "log",
    "exp",
    "relu",
]


class EWiseAdd(TensorOp):
    def compute(self, a, b):
        return a + b

    def gradient(self, out_grad, node):
        return out_grad, out_grad


def add(a, b):
    return EWiseAdd()(a, b)


class AddScalar(TensorOp):
    def __init__(self, scalar):
        self.scalar = scalar

    def compute(self, a):
        return a + self.scalar

    def gradient(self, out_grad, node):
        return out_grad


def add_scalar(a, scalar):
    return AddScalar(scalar)(a)


class EWiseMul(TensorOp):
    def compute(self, a, b):
        return a * b

    def gradient(self, out_grad, node):
        lhs, rhs = node.inputs
        return out_grad * rhs, out_grad * lhs


def multiply(a, b):
    return EWiseMul()(a, b)


class MulScalar(TensorOp):
    def __init__(self, scalar):
        self.scalar = scalar

    def compute(self, a):
        return a * self.scalar

    def gradient(self, out_grad, node):
        return (out_grad * self.scalar,)


def mul_scalar(a, scalar):
    return MulScalar(scalar)(a)


class EWisePow(TensorOp):
    """a ** b, elementwise."""

    def compute(self, a, b):
        return a**b

    def gradient(self, out_grad, node):
        a, b = node.inputs
        return out_grad * b * a ** (b - 1), out_grad * node * log(a)


def power(a, b):
    return EWisePow()(a, b)


class PowerScalar(TensorOp):
    """a ** scalar for an integer scalar."""

    def __init__(self, scalar: int):
        self.scalar = scalar

    def compute(self, a):
        return a**self.scalar

    def gradient(self, out_grad, node):
        (a,) = node.inputs
        return out_grad * self.scalar * a ** (self.scalar - 1)


def power_scalar(a, scalar):
    return PowerScalar(scalar)(a)


class EWiseDiv(TensorOp):
    """a / b, elementwise."""

    def compute(self, a, b):
        return a / b

    def gradient(self, out_grad, node):
        a, b = node.inputs
        return out_grad / b, -out_grad * a / (b * b)


def divide(a, b):
    return EWiseDiv()(a, b)


class DivScalar(TensorOp):
    def __init__(self, scalar):
        self.scalar = scalar

    def compute(self, a):
        return a / self.scalar

    def gradient(self, out_grad, node):
        return out_grad / self.scalar


def divide_scalar(a, scalar):
    return DivScalar(scalar)(a)


class Transpose(TensorOp):
    """Swap two axes (the last two by default), as needle's Transpose does."""

    def __init__(self, axes: tuple | None = None):
        self.axes = axes

    def _pair(self, ndim: int) -> tuple:
        return (ndim - 2, ndim - 1) if self.axes is None else tuple(self.axes)

    def compute(self, a):
        return numpy.swapaxes(a, *self._pair(a.ndim))

    def gradient(self, out_grad, node):
        return transpose(out_grad, self.axes)


def transpose(a, axes=None):
    return Transpose(axes)(a)


class Reshape(TensorOp):
    def __init__(self, shape):
        self.shape = shape

    def compute(self, a):
        return numpy.reshape(a, self.shape)

    def gradient(self, out_grad, node):
        return reshape(out_grad, node.inputs[0].shape)


def reshape(a, shape):
    return Reshape(shape)(a)


class BroadcastTo(TensorOp):
    def __init__(self, shape):
        self.shape = shape

    def compute(self, a):
        return numpy.broadcast_to(a, self.shape)

    def gradient(self, out_grad, node):
        return _sum_to(out_grad, node.inputs[0].shape)


def broadcast_to(a, shape):
    return BroadcastTo(shape)(a)


class Summation(TensorOp):
    """The sum over ``axes`` (an int, a tuple, or None for all)."""

    def __init__(self, axes: tuple | int | None = None):
        self.axes = axes

    def compute(self, a):
        return numpy.sum(a, axis=self.axes)

    def gradient(self, out_grad, node):
        shape = node.inputs[0].shape
        axes = range(len(shape)) if self.axes is None else self.axes
        axes = {axes} if isinstance(axes, int) else set(axes)
        axes = {k % len(shape) for k in axes} if shape else set()
        kept = tuple(1 if k in axes else d for k, d in enumerate(shape))
        return broadcast_to(reshape(out_grad, kept), shape)


def summation(a, axes=None):
    return Summation(axes)(a)


class MatMul(TensorOp):
    """a @ b, with batched (and broadcast) leading dimensions."""

    def compute(self, a, b):
        return a @ b

    def gradient(self, out_grad, node):
        a, b = node.inputs
        da = matmul(out_grad, transpose(b))
        db = matmul(transpose(a), out_grad)
        return _sum_to(da, a.shape), _sum_to(db, b.shape)


def matmul(a, b):
    return MatMul()(a, b)


class Negate(TensorOp):
    def compute(self, a):
        return -a

    def gradient(self, out_grad, node):
        return negate(out_grad)


def negate(a):
    return Negate()(a)


class Log(TensorOp):
    def compute(self, a):
        return numpy.log(a)

    def gradient(self, out_grad, node):
        return out_grad / node.inputs[0]


def log(a):
    return Log()(a)


class Exp(TensorOp):
    def compute(self, a):
        return numpy.exp(a)

    def gradient(self, out_grad, node):
        return out_grad * node


def exp(a):
    return Exp()(a)


class ReLU(TensorOp):
    def compute(self, a):
        return numpy.maximum(a, 0)

    def gradient(self, out_grad, node):
        return out_grad * Positive()(node.inputs[0])


def relu(a):
    return ReLU()(a)


class Positive(TensorOp):
    """1 where a > 0, else 0 (in a's dtype): ReLU's derivative, a step function whose own
    derivative is 0."""

    def compute(self, a):
        return (a > 0).astype(a.dtype)

    def gradient(self, out_grad, node):
        return out_grad * 0


def _sum_to(grad, shape: tuple):
    """``grad`` summed over the axes that broadcasting added or stretched, to ``shape``."""
    if grad.shape == tuple(shape):
        return grad
    lead = len(grad.shape) - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + k for k, d in enumerate(shape) if d == 1 and grad.shape[lead + k] != 1
    )
    return reshape(summation(grad, axes), shape)
