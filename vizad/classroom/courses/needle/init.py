"""needle's ``init``: tensors of random numbers, constants and one-hot rows, with numpy's
global random state (as needle's numpy backend)."""

from __future__ import annotations

import numpy

from vizad.classroom.courses.needle.autograd import Tensor, cpu

__all__ = [
    "rand",
    "randn",
    "constant",
    "ones",
    "zeros",
    "randb",
    "one_hot",
    "zeros_like",
    "ones_like",
]


def rand(*shape, low=0.0, high=1.0, device=None, dtype="float32", requires_grad=False):
    """Uniform in [low, high)."""
    array = numpy.random.rand(*shape) * (high - low) + low
    return Tensor(array, device=device or cpu(), dtype=dtype, requires_grad=requires_grad)


def randn(*shape, mean=0.0, std=1.0, device=None, dtype="float32", requires_grad=False):
    """Normal with the given mean and standard deviation."""
    array = numpy.random.randn(*shape) * std + mean
    return Tensor(array, device=device or cpu(), dtype=dtype, requires_grad=requires_grad)


def constant(*shape, c=1.0, device=None, dtype="float32", requires_grad=False):
    """Every entry ``c``."""
    array = numpy.full(shape, c, dtype=dtype)
    return Tensor(array, device=device or cpu(), dtype=dtype, requires_grad=requires_grad)


def ones(*shape, device=None, dtype="float32", requires_grad=False):
    return constant(*shape, c=1.0, device=device, dtype=dtype, requires_grad=requires_grad)


def zeros(*shape, device=None, dtype="float32", requires_grad=False):
    return constant(*shape, c=0.0, device=device, dtype=dtype, requires_grad=requires_grad)


def randb(*shape, p=0.5, device=None, dtype="bool", requires_grad=False):
    """True with probability ``p``."""
    array = numpy.random.rand(*shape) <= p
    return Tensor(array, device=device or cpu(), dtype=dtype, requires_grad=requires_grad)


def one_hot(n, i, device=None, dtype="float32", requires_grad=False):
    """Rows of the n×n identity picked by the indices ``i``."""
    indices = numpy.asarray(i.numpy() if isinstance(i, Tensor) else i, dtype=int)
    array = numpy.eye(n, dtype=dtype)[indices]
    return Tensor(array, device=device or cpu(), dtype=dtype, requires_grad=requires_grad)


def zeros_like(array, *, device=None, requires_grad=False):
    return zeros(*array.shape, dtype=array.dtype, device=device, requires_grad=requires_grad)


def ones_like(array, *, device=None, requires_grad=False):
    return ones(*array.shape, dtype=array.dtype, device=device, requires_grad=requires_grad)
