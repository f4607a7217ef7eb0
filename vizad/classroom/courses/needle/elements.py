"""The element rules of needle's ops (:mod:`vizad.engine.elements`): which elements of its
inputs make one element of the output of BroadcastTo, Summation, MatMul, Reshape, Transpose
and the elementwise ops, so that ``trace.element`` follows their adjoints element by element.
(A student's own needle, adopted from its Tensors, runs each ``gradient`` as one opaque step:
its elements cannot be followed, and trace.element says so.)"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from vizad.classroom.courses.needle import ops as needle
from vizad.engine.elements import (
    Apply,
    Dot,
    Pick,
    Reduce,
    Rule,
    broadcast_index,
    matmul_pairs,
    picked_by_compute,
    reduced_indices,
    register_rule,
)
from vizad.engine.node import Node

__all__: list[str] = []

Index = tuple[int, ...]


def _shape(value: Any) -> tuple[int, ...]:
    return tuple(np.shape(value))


def _apply(signs: tuple[int, ...] | None = None):
    def rule(node: Node, index: Index, inputs: Sequence[Any]) -> Rule:
        return Apply(tuple(broadcast_index(index, _shape(v)) for v in inputs), signs)

    return rule


# -- needle (homework 1) -------------------------------------------------------------------
register_rule(needle.EWiseAdd)(_apply((1, 1)))
register_rule(
    needle.AddScalar,
    needle.EWiseMul,
    needle.MulScalar,
    needle.EWisePow,
    needle.PowerScalar,
    needle.EWiseDiv,
    needle.DivScalar,
    needle.Negate,
    needle.Log,
    needle.Exp,
    needle.ReLU,
    needle.Positive,
)(_apply())


@register_rule(needle.Transpose, needle.Reshape, needle.BroadcastTo)
def _needle_moved(node: Node, index: Index, inputs: Sequence[Any]) -> Rule:
    return Pick(0, picked_by_compute(node.op.compute, _shape(inputs[0]), index))


@register_rule(needle.Summation)
def _summation(node: Node, index: Index, inputs: Sequence[Any]) -> Rule:
    shape = _shape(inputs[0])
    axes = node.op.axes
    axes = range(len(shape)) if axes is None else (axes,) if isinstance(axes, int) else axes
    summed = sorted({k % len(shape) for k in axes}) if shape else []
    kept = [k for k in range(len(shape)) if k not in summed]
    return Reduce(0, reduced_indices(shape, dict(zip(kept, index))), tuple(summed))


@register_rule(needle.MatMul)
def _needle_matmul(node: Node, index: Index, inputs: Sequence[Any]) -> Rule:
    a, b = inputs
    return Dot(matmul_pairs(index, _shape(a), _shape(b)))
