"""The dlsys course's ``needle`` (homework 1) over vizad's engine: ``Tensor``, ``ops`` with the
homework's op classes and functions, ``autograd.find_topo_sort`` and
``autograd.compute_gradient_of_variables``, and ``init``. A Tensor is an eager vizad node and a
needle op is a vizad op whose reverse rule is its ``gradient``, so the homework's reverse mode
is vizad's (the graph extended with adjoint nodes) and ``vz.draw`` / ``vz.step`` show needle
graphs with needle's op names::

    import vizad.classroom.courses.needle as ndl
    x = ndl.Tensor([[1.0, 2.0]]); w = ndl.Tensor([[3.0], [4.0]])
    y = ndl.summation(ndl.relu(x @ w))
    y.backward()
    x.grad.numpy()      # [[3., 4.]]

Deliberate differences from needle: a leaf's ``op`` is vizad's variable (``requires_grad``) or
constant op rather than None (``is_leaf()`` is as needle's), ``inputs`` is a tuple, and the
adjoints of a node read by several consumers are summed by one ``add_n`` node instead of a
chain of EWiseAdd nodes.
"""

from vizad.classroom.courses.needle import autograd, init, ops
from vizad.classroom.courses.needle import elements as _elements  # noqa: F401  (trace.element's rules)
from vizad.classroom.courses.needle.autograd import Tensor, all_devices, cpu
from vizad.classroom.courses.needle.init import ones, ones_like, zeros, zeros_like
from vizad.classroom.courses.needle.ops import *  # noqa: F403  (needle exports its op functions at the top level)
from vizad.classroom.courses.needle.ops import __all__ as _ops_all

__all__ = [
    "autograd",
    "init",
    "ops",
    "Tensor",
    "cpu",
    "all_devices",
    "ones",
    "zeros",
    "ones_like",
    "zeros_like",
    *_ops_all,
]
