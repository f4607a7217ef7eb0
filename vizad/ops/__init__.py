"""Every built-in op, as a function that builds a node."""

from .leaves import CONSTANT, VARIABLE
from .arithmetic import add, add_n, div, identity, mul, neg, power, sub
from .elementary import cos, exp, heaviside, log, relu, sigmoid, sin, sqrt, tanh
from .tensor import (
    broadcast_to,
    expand_dims,
    matmul,
    mean,
    reshape,
    size,
    sum,
    sum_to_shape,
    transpose,
)
from .nn import log_softmax
from .structure import make_tuple, ones_like, tuple_get, zeros_like

__all__ = [
    "add",
    "sub",
    "mul",
    "div",
    "neg",
    "power",
    "identity",
    "add_n",
    "exp",
    "log",
    "sin",
    "cos",
    "tanh",
    "sigmoid",
    "relu",
    "sqrt",
    "heaviside",
    "matmul",
    "transpose",
    "reshape",
    "sum",
    "mean",
    "broadcast_to",
    "sum_to_shape",
    "expand_dims",
    "size",
    "log_softmax",
    "ones_like",
    "zeros_like",
    "make_tuple",
    "tuple_get",
    "VARIABLE",
    "CONSTANT",
]
