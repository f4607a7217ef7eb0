"""Exercise B's answers: the rules of five ops of the 599W API and ``gradients()``, with the
notebook's helper ops (``neg``, ``cos``, ``reciprocal``)."""

from __future__ import annotations

import numpy as np

import vizad.classroom.courses.autodiff as ad
from vizad.classroom.courses.autodiff import find_topo_sort, oneslike_op, sum_node_list

__all__ = ["ad", "AddOp", "SubOp", "MulOp", "LogOp", "SinOp", "gradients"]


class CosOp(ad.Op):
    def compute(self, node, input_vals):
        return np.cos(input_vals[0])

    def gradient(self, node, output_grad):
        return [output_grad * neg(sin(node.inputs[0]))]


class ReciprocalOp(ad.Op):
    def compute(self, node, input_vals):
        return 1.0 / input_vals[0]

    def gradient(self, node, output_grad):
        return [neg(output_grad * node * node)]


class NegOp(ad.Op):
    def compute(self, node, input_vals):
        return -input_vals[0]

    def gradient(self, node, output_grad):
        return [neg(output_grad)]


class AddOp(ad.Op):
    def compute(self, node, input_vals):
        return input_vals[0] + input_vals[1]

    def gradient(self, node, output_grad):
        return [output_grad, output_grad]


class SubOp(ad.Op):
    def compute(self, node, input_vals):
        return input_vals[0] - input_vals[1]

    def gradient(self, node, output_grad):
        return [output_grad, neg(output_grad)]


class MulOp(ad.Op):
    def compute(self, node, input_vals):
        return input_vals[0] * input_vals[1]

    def gradient(self, node, output_grad):
        a, b = node.inputs
        return [mul(output_grad, b), mul(output_grad, a)]


class LogOp(ad.Op):
    def compute(self, node, input_vals):
        return np.log(input_vals[0])

    def gradient(self, node, output_grad):
        return [mul(output_grad, reciprocal(node.inputs[0]))]


class SinOp(ad.Op):
    def compute(self, node, input_vals):
        return np.sin(input_vals[0])

    def gradient(self, node, output_grad):
        return [mul(output_grad, cos(node.inputs[0]))]


cos, reciprocal, neg = CosOp(), ReciprocalOp(), NegOp()
add, sub, mul, log, sin = AddOp(), SubOp(), MulOp(), LogOp(), SinOp()


def gradients(output_node, node_list):
    """The gradient nodes of output_node with respect to each node of node_list."""
    node_to_output_grads_list = {output_node: [oneslike_op(output_node)]}
    node_to_output_grad = {}
    for node in reversed(find_topo_sort([output_node])):
        grad = sum_node_list(node_to_output_grads_list[node])
        node_to_output_grad[node] = grad
        input_grads = node.op.gradient(node, grad) or []
        for i, g in zip(node.inputs, input_grads):
            node_to_output_grads_list.setdefault(i, []).append(g)
    return [node_to_output_grad[node] for node in node_list]
