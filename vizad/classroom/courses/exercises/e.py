"""Exercise E's answers: the 599W assignment's own ops (by a constant, MatMul with its
transpose flags, OnesLike and ZerosLike), ``Executor`` as a class, and gradients of
gradients (the second derivative, a Hessian-vector product), with the notebook's
``gradients()`` (exercise B's, seeded with the notebook's ``oneslike_op``)."""

from __future__ import annotations

import numpy as np

import vizad.classroom.courses.autodiff as ad
from vizad.classroom.courses.autodiff import find_topo_sort, sum_node_list

__all__ = [
    "ad", "AddByConstOp", "MulByConstOp", "MatMulOp", "OnesLikeOp", "ZerosLikeOp", "Executor",
    "gradients", "second_derivative", "hessian_vector_product", "add_byconst_op",
    "mul_byconst_op", "matmul_op", "oneslike_op", "zeroslike_op",
]  # fmt: skip


class AddByConstOp(ad.Op):
    def __call__(self, node_A, const_val):
        new_node = ad.Op.__call__(self)
        new_node.const_attr = const_val
        new_node.inputs = [node_A]
        new_node.name = f"({node_A.name}+{const_val})"
        return new_node

    def compute(self, node, input_vals):
        return input_vals[0] + node.const_attr

    def gradient(self, node, output_grad):
        return [output_grad]


class MulByConstOp(ad.Op):
    def __call__(self, node_A, const_val):
        new_node = ad.Op.__call__(self)
        new_node.const_attr = const_val
        new_node.inputs = [node_A]
        new_node.name = f"({node_A.name}*{const_val})"
        return new_node

    def compute(self, node, input_vals):
        return input_vals[0] * node.const_attr

    def gradient(self, node, output_grad):
        return [mul_byconst_op(output_grad, node.const_attr)]


class MatMulOp(ad.Op):
    def __call__(self, node_A, node_B, trans_A=False, trans_B=False):
        new_node = ad.Op.__call__(self)
        new_node.matmul_attr_trans_A = trans_A
        new_node.matmul_attr_trans_B = trans_B
        new_node.inputs = [node_A, node_B]
        new_node.name = f"MatMul({node_A.name},{node_B.name},{trans_A},{trans_B})"
        return new_node

    def compute(self, node, input_vals):
        a, b = input_vals
        a = a.T if node.matmul_attr_trans_A else a
        b = b.T if node.matmul_attr_trans_B else b
        return a @ b

    def gradient(self, node, output_grad):
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


class OnesLikeOp(ad.Op):
    def __call__(self, node_A):
        new_node = ad.Op.__call__(self)
        new_node.inputs = [node_A]
        new_node.name = f"Oneslike({node_A.name})"
        return new_node

    def compute(self, node, input_vals):
        return np.ones(np.shape(input_vals[0]))

    def gradient(self, node, output_grad):
        return [zeroslike_op(node.inputs[0])]


class ZerosLikeOp(ad.Op):
    def __call__(self, node_A):
        new_node = ad.Op.__call__(self)
        new_node.inputs = [node_A]
        new_node.name = f"Zeroslike({node_A.name})"
        return new_node

    def compute(self, node, input_vals):
        return np.zeros(np.shape(input_vals[0]))

    def gradient(self, node, output_grad):
        return [zeroslike_op(node.inputs[0])]


class Executor:
    """Computes the values of eval_node_list, each time run is given a feed_dict."""

    def __init__(self, eval_node_list):
        self.eval_node_list = eval_node_list

    def run(self, feed_dict):
        """The values of the nodes of eval_node_list, in order."""
        node_to_val_map = dict(feed_dict)
        for node in find_topo_sort(self.eval_node_list):
            if node not in node_to_val_map:
                input_vals = [node_to_val_map[n] for n in node.inputs]
                node_to_val_map[node] = node.op.compute(node, input_vals)
        return [node_to_val_map[node] for node in self.eval_node_list]


add_byconst_op, mul_byconst_op, matmul_op = AddByConstOp(), MulByConstOp(), MatMulOp()
oneslike_op, zeroslike_op = OnesLikeOp(), ZerosLikeOp()


def gradients(output_node, node_list):
    """Exercise B's gradients(), seeded with your oneslike_op."""
    node_to_output_grads_list = {output_node: [oneslike_op(output_node)]}
    node_to_output_grad = {}
    for node in reversed(find_topo_sort([output_node])):
        grad = sum_node_list(node_to_output_grads_list[node])
        node_to_output_grad[node] = grad
        input_grads = node.op.gradient(node, grad) or []
        for i, g in zip(node.inputs, input_grads):
            node_to_output_grads_list.setdefault(i, []).append(g)
    return [node_to_output_grad[node] for node in node_list]


def second_derivative(y, x):
    """The node of ∂²y/∂x², entry by entry: gradients() of the node gradients() gave."""
    (dy,) = gradients(y, [x])
    (d2y,) = gradients(dy, [x])
    return d2y


def hessian_vector_product(y, x, v):
    """The node of H v (H the Hessian of y, summed, with respect to x): gradients() of
    ∇y · v, entry by entry, which gradients() sums."""
    (g,) = gradients(y, [x])
    (hv,) = gradients(g * v, [x])
    return hv
