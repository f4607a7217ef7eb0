"""The CSE 599W assignment-1 ``autodiff`` API, as the assignment's skeleton defines it.

The classes, node names and printouts, the mutable ``Node`` (``inputs``, ``op``,
``const_attr``, ``name``), the post-order depth-first ``find_topo_sort``, ``gradients`` with
``node_to_output_grads_list`` and the dtypes are the skeleton's, with its solutions filled in,
so a course's tests and a student's printouts read the same::

    import vizad.classroom.courses.autodiff as ad
    x1, x2, x3 = ad.Variable("x1"), ad.Variable("x2"), ad.Variable("x3")
    y = x1 + x2 * x3 * x1
    str(y)                            # '(x1+((x2*x3)*x1))'
    grad_x1, = ad.gradients(y, [x1])
    ad.Executor([y, grad_x1]).run(feed_dict={x1: ..., x2: ..., x3: ...})

A graph of these nodes is not a vizad graph, but vizad reads it (:mod:`vizad.foreign`):
``vz.draw(y)``, ``vz.trace_reverse(y, [x1], feed)`` and ``vz.step(...)`` take these nodes, run
each op's own ``compute`` and build the adjoint graph with each op's own ``gradient``.

Deliberate differences from the skeleton: ``Op.__call__(*inputs)`` gives a node whose inputs
are ``inputs`` (the skeleton's takes none, and each op sets ``inputs`` itself, as these do), so
a new op only needs ``compute`` and ``gradient``; a gradient with respect to a node the output
does not depend on raises a KeyError that names the node (the skeleton's is a bare KeyError).
"""

from __future__ import annotations

from functools import reduce
from operator import add
from typing import Any

import numpy as np

from vizad.engine.graph import post_order

__all__ = [
    "Node",
    "Op",
    "AddOp",
    "AddByConstOp",
    "MulOp",
    "MulByConstOp",
    "MatMulOp",
    "PlaceholderOp",
    "OnesLikeOp",
    "ZerosLikeOp",
    "Variable",
    "Executor",
    "gradients",
    "find_topo_sort",
    "topo_sort_dfs",
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


class Node:
    """A node of the computational graph: its inputs, its op, a constant attribute, a name."""

    def __init__(self):
        self.inputs: list[Node] = []
        self.op: Op | None = None
        self.const_attr: Any = None
        self.name = ""

    def __add__(self, other):
        if isinstance(other, Node):
            return add_op(self, other)
        return add_byconst_op(self, other)

    def __mul__(self, other):
        if isinstance(other, Node):
            return mul_op(self, other)
        return mul_byconst_op(self, other)

    __radd__ = __add__
    __rmul__ = __mul__

    def __str__(self) -> str:
        return self.name

    __repr__ = __str__


def Variable(name: str) -> Node:
    """A placeholder node, fed at run time."""
    placeholder_node = placeholder_op()
    placeholder_node.name = name
    return placeholder_node


class Op:
    """An op: ``compute(node, input_vals)`` gives the node's value and ``gradient(node,
    output_grad)`` one gradient node per input."""

    def __call__(self, *inputs: Node) -> Node:
        new_node = Node()
        new_node.op = self
        if inputs:
            new_node.inputs = list(inputs)
            new_node.name = f"{type(self).__name__}({','.join(i.name for i in inputs)})"
        return new_node

    def compute(self, node: Node, input_vals: list[Any]) -> Any:
        raise NotImplementedError

    def gradient(self, node: Node, output_grad: Node) -> list[Node]:
        raise NotImplementedError


class AddOp(Op):
    def __call__(self, node_A, node_B):
        new_node = Op.__call__(self)
        new_node.inputs = [node_A, node_B]
        new_node.name = f"({node_A.name}+{node_B.name})"
        return new_node

    def compute(self, node, input_vals):
        assert len(input_vals) == 2
        return input_vals[0] + input_vals[1]

    def gradient(self, node, output_grad):
        return [output_grad, output_grad]


class AddByConstOp(Op):
    def __call__(self, node_A, const_val):
        new_node = Op.__call__(self)
        new_node.const_attr = const_val
        new_node.inputs = [node_A]
        new_node.name = f"({node_A.name}+{const_val})"
        return new_node

    def compute(self, node, input_vals):
        assert len(input_vals) == 1
        return input_vals[0] + node.const_attr

    def gradient(self, node, output_grad):
        return [output_grad]


class MulOp(Op):
    def __call__(self, node_A, node_B):
        new_node = Op.__call__(self)
        new_node.inputs = [node_A, node_B]
        new_node.name = f"({node_A.name}*{node_B.name})"
        return new_node

    def compute(self, node, input_vals):
        assert len(input_vals) == 2
        return input_vals[0] * input_vals[1]

    def gradient(self, node, output_grad):
        return [output_grad * node.inputs[1], output_grad * node.inputs[0]]


class MulByConstOp(Op):
    def __call__(self, node_A, const_val):
        new_node = Op.__call__(self)
        new_node.const_attr = const_val
        new_node.inputs = [node_A]
        new_node.name = f"({node_A.name}*{const_val})"
        return new_node

    def compute(self, node, input_vals):
        assert len(input_vals) == 1
        return input_vals[0] * node.const_attr

    def gradient(self, node, output_grad):
        return [output_grad * node.const_attr]


class MatMulOp(Op):
    def __call__(self, node_A, node_B, trans_A=False, trans_B=False):
        new_node = Op.__call__(self)
        new_node.matmul_attr_trans_A = trans_A
        new_node.matmul_attr_trans_B = trans_B
        new_node.inputs = [node_A, node_B]
        new_node.name = f"MatMul({node_A.name},{node_B.name},{trans_A},{trans_B})"
        return new_node

    def compute(self, node, input_vals):
        a, b = input_vals
        if node.matmul_attr_trans_A:
            a = a.T
        if node.matmul_attr_trans_B:
            b = b.T
        return np.matmul(a, b)

    def gradient(self, node, output_grad):
        """For Y = op(A) op(B): Ā = Ȳ op(B)ᵀ (transposed back when A was), B̄ likewise."""
        A, B = node.inputs
        trans_A, trans_B = node.matmul_attr_trans_A, node.matmul_attr_trans_B
        if trans_A:  # Y = Aᵀ op(B): Ā = op(B) Ȳᵀ
            grad_A = matmul_op(B, output_grad, trans_B, True)
        else:  # Ā = Ȳ op(B)ᵀ
            grad_A = matmul_op(output_grad, B, False, not trans_B)
        if trans_B:  # Y = op(A) Bᵀ: B̄ = Ȳᵀ op(A)
            grad_B = matmul_op(output_grad, A, True, trans_A)
        else:  # B̄ = op(A)ᵀ Ȳ
            grad_B = matmul_op(A, output_grad, not trans_A, False)
        return [grad_A, grad_B]


class PlaceholderOp(Op):
    def __call__(self):
        return Op.__call__(self)

    def compute(self, node, input_vals):
        raise AssertionError(f"placeholder {node.name!r}: its value is given by feed_dict")

    def gradient(self, node, output_grad):
        return None


class _FilledLikeOp(Op):
    """A node of the shape of its input, every entry ``fill`` (the skeleton's two ops)."""

    label, fill = "", 0.0

    def __call__(self, node_A):
        new_node = Op.__call__(self)
        new_node.inputs = [node_A]
        new_node.name = f"{self.label}({node_A.name})"
        return new_node

    def compute(self, node, input_vals):
        assert isinstance(input_vals[0], np.ndarray)
        return np.full(input_vals[0].shape, self.fill)

    def gradient(self, node, output_grad):
        return [zeroslike_op(node.inputs[0])]


class ZerosLikeOp(_FilledLikeOp):
    label, fill = "Zeroslike", 0.0


class OnesLikeOp(_FilledLikeOp):
    label, fill = "Oneslike", 1.0


add_op = AddOp()
mul_op = MulOp()
add_byconst_op = AddByConstOp()
mul_byconst_op = MulByConstOp()
matmul_op = MatMulOp()
placeholder_op = PlaceholderOp()
oneslike_op = OnesLikeOp()
zeroslike_op = ZerosLikeOp()


class Executor:
    """Computes the values of ``eval_node_list`` from a feed dict."""

    def __init__(self, eval_node_list):
        self.eval_node_list = eval_node_list

    def run(self, feed_dict):
        """The values of the nodes of ``eval_node_list`` (numpy arrays), in order."""
        node_to_val_map = dict(feed_dict)
        for node in find_topo_sort(self.eval_node_list):
            if node not in node_to_val_map:
                input_vals = [node_to_val_map[n] for n in node.inputs]
                node_to_val_map[node] = node.op.compute(node, input_vals)
        return [node_to_val_map[node] for node in self.eval_node_list]


class NotUsedError(KeyError):
    """A gradient was asked for with respect to a node the output does not depend on."""


def gradients(output_node, node_list):
    """The gradient nodes of ``output_node`` with respect to each node of ``node_list``:
    reverse topological order, each node's gradient the sum of what its consumers give it."""
    node_to_output_grads_list = {output_node: [oneslike_op(output_node)]}
    node_to_output_grad = {}
    for node in reversed(find_topo_sort([output_node])):
        output_grad = sum_node_list(node_to_output_grads_list[node])
        node_to_output_grad[node] = output_grad
        input_grads = node.op.gradient(node, output_grad)
        for i, input_node in enumerate(node.inputs):
            node_to_output_grads_list.setdefault(input_node, []).append(input_grads[i])
    for node in node_list:
        if node not in node_to_output_grad:
            raise NotUsedError(f"{node.name or node!r}: {output_node.name} does not depend on it")
    return [node_to_output_grad[node] for node in node_list]


def find_topo_sort(node_list):
    """Every node ``node_list`` depends on, by a post-order depth-first search over
    ``inputs`` (iterative here, so deep graphs do not hit the recursion limit)."""
    visited: set = set()
    topo_order: list = []
    for node in node_list:
        topo_sort_dfs(node, visited, topo_order)
    return topo_order


def topo_sort_dfs(node, visited, topo_order):
    """The skeleton's helper: append to ``topo_order`` every node ``node`` depends on that is
    not in ``visited`` yet (adding them to it), each after its inputs, in post-order. The
    skeleton recurses; this walks with a stack of its own, in the same order."""
    found = post_order([node], known={id(n) for n in visited})
    visited.update(found)
    topo_order.extend(found)


def sum_node_list(node_list):
    """The sum of the nodes, as add nodes."""
    return reduce(add, node_list)
