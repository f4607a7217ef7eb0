"""The CSE 599W assignment-1 ``autodiff`` API over vizad's engine.

A course's own tests run unchanged with ``import vizad.compat.autodiff as ad``::

    x1 = ad.Variable(name="x1")
    y = (x1 + 3) * (x1 + 5)
    grad_x1, = ad.gradients(y, [x1])
    y_val, grad_x1_val = ad.Executor([y, grad_x1]).run(feed_dict={x1: np.ones(3)})

Ops written in the assignment's style subclass :class:`Op` and define
``compute(self, node, input_vals)`` and ``gradient(self, node, output_grad)``; they build nodes
by calling the op on its inputs (nodes are immutable in vizad, so they are not edited after
creation).
"""

from __future__ import annotations

from functools import reduce
from operator import add as _add
from typing import Any
from collections.abc import Iterable

from .. import ops as _ops
from ..executor import Executor as _Executor
from ..graph import topo_sort as _topo_sort
from ..node import Node
from ..node import Variable as _Variable
from ..node import constant as _constant
from ..op import Op as _Op
from ..reverse import gradients as _gradients

__all__ = [
    "Node",
    "Op",
    "Variable",
    "Executor",
    "gradients",
    "find_topo_sort",
    "sum_node_list",
    "add_op",
    "mul_op",
    "add_byconst_op",
    "mul_byconst_op",
    "matmul_op",
    "placeholder_op",
    "oneslike_op",
    "zeroslike_op",
]


class Op(_Op):
    """An op in the assignment's style: ``compute(node, input_vals)`` returns the value and
    ``gradient(node, output_grad)`` returns one gradient node per input."""

    def compute(self, node: Node, input_vals: list[Any]) -> Any:  # type: ignore[override]
        raise NotImplementedError

    def gradient(self, node: Node, output_grad: Node) -> list[Node]:
        raise NotImplementedError

    def vjp(self, node, adjoint):
        return self.gradient(node, adjoint)

    def bind(self, node):
        compute = self.compute
        return lambda *values: compute(node, list(values))


def Variable(name: str) -> Node:
    """A placeholder node fed at run time."""
    return _Variable(name)


def placeholder_op() -> Node:
    """A new unnamed placeholder (give it a name with :func:`Variable` instead)."""
    return _Variable("placeholder")


def add_op(node_a: Node, node_b: Node) -> Node:
    return _ops.add(node_a, node_b)


def mul_op(node_a: Node, node_b: Node) -> Node:
    return _ops.mul(node_a, node_b)


def add_byconst_op(node: Node, const_val: Any) -> Node:
    return _ops.add(node, _constant(const_val))


def mul_byconst_op(node: Node, const_val: Any) -> Node:
    return _ops.mul(node, _constant(const_val))


def matmul_op(node_a: Node, node_b: Node, trans_A: bool = False, trans_B: bool = False) -> Node:
    """op(A) @ op(B), op = transpose when the flag is set."""
    return _ops.matmul(node_a, node_b, trans_a=trans_A, trans_b=trans_B)


def oneslike_op(node: Node) -> Node:
    return _ops.ones_like(node)


def zeroslike_op(node: Node) -> Node:
    return _ops.zeros_like(node)


class Executor(_Executor):
    """``Executor(eval_node_list).run(feed_dict)`` → list of numpy arrays."""

    def __init__(self, eval_node_list: Iterable[Node]):
        super().__init__(eval_node_list)
        self.eval_node_list = self.nodes


def gradients(output_node: Node, node_list: Iterable[Node]) -> list[Node]:
    """Gradient nodes of ``output_node`` w.r.t. each node of ``node_list``."""
    return _gradients(output_node, list(node_list))


def find_topo_sort(node_list: Iterable[Node]) -> list[Node]:
    """Every node the given nodes depend on, each after its inputs."""
    return _topo_sort(list(node_list))


def sum_node_list(node_list: Iterable[Node]) -> Node:
    """The sum of the nodes, as add nodes."""
    return reduce(_add, node_list)
