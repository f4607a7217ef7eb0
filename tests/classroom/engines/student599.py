"""A student's CSE 599W-style engine (correct), the base of the seeded bugs."""

from functools import reduce
from operator import add

import numpy as np


class Node:
    def __init__(self):
        self.inputs = []
        self.op = None
        self.const_attr = None
        self.name = ""

    def __add__(self, other):
        return add_op(self, other) if isinstance(other, Node) else add_byconst_op(self, other)

    def __mul__(self, other):
        return mul_op(self, other) if isinstance(other, Node) else mul_byconst_op(self, other)

    __radd__ = __add__
    __rmul__ = __mul__

    def __str__(self):
        return self.name

    __repr__ = __str__


class Op:
    def __call__(self):
        new_node = Node()
        new_node.op = self
        return new_node


class PlaceholderOp(Op):
    def compute(self, node, input_vals):
        raise AssertionError("fed")

    def gradient(self, node, output_grad):
        return None


class AddOp(Op):
    def __call__(self, a, b):
        n = Op.__call__(self)
        n.inputs, n.name = [a, b], f"({a.name}+{b.name})"
        return n

    def compute(self, node, input_vals):
        return input_vals[0] + input_vals[1]

    def gradient(self, node, output_grad):
        return [output_grad, output_grad]


class AddByConstOp(Op):
    def __call__(self, a, c):
        n = Op.__call__(self)
        n.inputs, n.const_attr, n.name = [a], c, f"({a.name}+{c})"
        return n

    def compute(self, node, input_vals):
        return input_vals[0] + node.const_attr

    def gradient(self, node, output_grad):
        return [output_grad]  # ADDCONST-RULE


class MulOp(Op):
    def __call__(self, a, b):
        n = Op.__call__(self)
        n.inputs, n.name = [a, b], f"({a.name}*{b.name})"
        return n

    def compute(self, node, input_vals):
        return input_vals[0] * input_vals[1]

    def gradient(self, node, output_grad):
        return [output_grad * node.inputs[1], output_grad * node.inputs[0]]  # MUL-RULE


class MulByConstOp(Op):
    def __call__(self, a, c):
        n = Op.__call__(self)
        n.inputs, n.const_attr, n.name = [a], c, f"({a.name}*{c})"
        return n

    def compute(self, node, input_vals):
        return input_vals[0] * node.const_attr

    def gradient(self, node, output_grad):
        return [output_grad * node.const_attr]  # MULCONST-RULE


class MatMulOp(Op):
    def __call__(self, a, b, trans_A=False, trans_B=False):
        n = Op.__call__(self)
        n.inputs = [a, b]
        n.matmul_attr_trans_A, n.matmul_attr_trans_B = trans_A, trans_B
        n.name = f"MatMul({a.name},{b.name},{trans_A},{trans_B})"
        return n

    def compute(self, node, input_vals):
        a, b = input_vals
        a = a.T if node.matmul_attr_trans_A else a
        b = b.T if node.matmul_attr_trans_B else b
        return a @ b

    def gradient(self, node, output_grad):
        A, B = node.inputs
        if node.matmul_attr_trans_A:  # TRANS-A
            grad_A = matmul_op(B, output_grad, node.matmul_attr_trans_B, True)
        else:
            grad_A = matmul_op(output_grad, B, False, not node.matmul_attr_trans_B)  # GRAD-A
        if node.matmul_attr_trans_B:
            grad_B = matmul_op(output_grad, A, True, node.matmul_attr_trans_A)
        else:
            grad_B = matmul_op(A, output_grad, not node.matmul_attr_trans_A, False)  # GRAD-B
        return [grad_A, grad_B]


class BroadcastRowsOp(Op):
    """x of shape (n,) repeated as the rows of a (const_attr, n) matrix."""

    def __call__(self, a, rows):
        n = Op.__call__(self)
        n.inputs, n.const_attr, n.name = [a], rows, f"Rows({a.name},{rows})"
        return n

    def compute(self, node, input_vals):
        return np.broadcast_to(input_vals[0], (node.const_attr, len(input_vals[0]))).copy()

    def gradient(self, node, output_grad):
        return [sum_axis_op(output_grad, 0)]  # ROWS-RULE


class SumAxisOp(Op):
    def __call__(self, a, axis):
        n = Op.__call__(self)
        n.inputs, n.const_attr, n.name = [a], axis, f"Sum({a.name},{axis})"
        return n

    def compute(self, node, input_vals):
        return np.sum(input_vals[0], axis=node.const_attr)

    def gradient(self, node, output_grad):
        return [expand_like_op(output_grad, node.inputs[0], node.const_attr)]


class ExpandLikeOp(Op):
    """g broadcast back along ``axis`` to the shape of x (the gradient of a sum)."""

    def __call__(self, g, x, axis):
        n = Op.__call__(self)
        n.inputs, n.const_attr, n.name = [g, x], axis, f"ExpandLike({g.name},{x.name},{axis})"
        return n

    def compute(self, node, input_vals):
        g, x = input_vals
        return np.broadcast_to(np.expand_dims(g, node.const_attr), np.shape(x)).copy()

    def gradient(self, node, output_grad):
        return [sum_axis_op(output_grad, node.const_attr), zeroslike_op(node.inputs[1])]


class OnesLikeOp(Op):
    def __call__(self, a):
        n = Op.__call__(self)
        n.inputs, n.name = [a], f"Oneslike({a.name})"
        return n

    def compute(self, node, input_vals):
        return np.ones(np.shape(input_vals[0]))

    def gradient(self, node, output_grad):
        return [zeroslike_op(node.inputs[0])]


class ZerosLikeOp(Op):
    def __call__(self, a):
        n = Op.__call__(self)
        n.inputs, n.name = [a], f"Zeroslike({a.name})"
        return n

    def compute(self, node, input_vals):
        return np.zeros(np.shape(input_vals[0]))

    def gradient(self, node, output_grad):
        return [zeroslike_op(node.inputs[0])]


class LogOp(Op):
    def __call__(self, a):
        n = Op.__call__(self)
        n.inputs, n.name = [a], f"Log({a.name})"
        return n

    def compute(self, node, input_vals):
        return np.log(input_vals[0])  # LOG-COMPUTE

    def gradient(self, node, output_grad):
        return [output_grad * reciprocal_op(node.inputs[0])]  # LOG-RULE


class ReluOp(Op):
    def __call__(self, a):
        n = Op.__call__(self)
        n.inputs, n.name = [a], f"Relu({a.name})"
        return n

    def compute(self, node, input_vals):
        return np.maximum(input_vals[0], 0.0)

    def gradient(self, node, output_grad):
        return [output_grad * step_op(node.inputs[0])]


class StepOp(Op):
    def __call__(self, a):
        n = Op.__call__(self)
        n.inputs, n.name = [a], f"Step({a.name})"
        return n

    def compute(self, node, input_vals):
        return (input_vals[0] > 0).astype(float)

    def gradient(self, node, output_grad):
        return [zeroslike_op(node.inputs[0])]


class ReciprocalOp(Op):
    def __call__(self, a):
        n = Op.__call__(self)
        n.inputs, n.name = [a], f"Recip({a.name})"
        return n

    def compute(self, node, input_vals):
        return 1.0 / input_vals[0]

    def gradient(self, node, output_grad):
        raise NotImplementedError("not needed here")


add_op, mul_op, mul_byconst_op, matmul_op = AddOp(), MulOp(), MulByConstOp(), MatMulOp()
add_byconst_op, relu_op, step_op = AddByConstOp(), ReluOp(), StepOp()
placeholder_op, oneslike_op, zeroslike_op = PlaceholderOp(), OnesLikeOp(), ZerosLikeOp()
rows_op, sum_axis_op, log_op, reciprocal_op = (
    BroadcastRowsOp(),
    SumAxisOp(),
    LogOp(),
    ReciprocalOp(),
)
expand_like_op = ExpandLikeOp()


def Variable(name):
    node = placeholder_op()
    node.name = name
    return node


class Executor:
    def __init__(self, eval_node_list):
        self.eval_node_list = eval_node_list

    def run(self, feed_dict):
        values = dict(feed_dict)
        for node in find_topo_sort(self.eval_node_list):
            if node not in values:
                values[node] = node.op.compute(node, [values[n] for n in node.inputs])
        return [values[n] for n in self.eval_node_list]


def gradients(output_node, node_list):
    grads_list = {output_node: [oneslike_op(output_node)]}
    grad_of = {}
    for node in reversed(find_topo_sort([output_node])):  # REVERSE-ORDER
        grad = sum_node_list(grads_list[node])  # SUM-PARTIALS
        grad_of[node] = grad
        input_grads = node.op.gradient(node, grad)
        for i, inp in enumerate(node.inputs):
            grads_list.setdefault(inp, []).append(input_grads[i])
    return [grad_of[n] for n in node_list]


def find_topo_sort(node_list):
    visited, order = set(), []
    for node in node_list:
        topo_sort_dfs(node, visited, order)
    return order


def topo_sort_dfs(node, visited, order):
    if node in visited:
        return
    visited.add(node)
    for n in node.inputs:  # TOPO-VISIT
        topo_sort_dfs(n, visited, order)
    order.append(node)  # TOPO-APPEND


def sum_node_list(node_list):
    return reduce(add, node_list)
