"""Jacobians and Hessian-vector products, built as graph extensions like everything else.

``jacobian(y, x, mode="reverse")`` runs one reverse pass per entry of y (a gradient seeded with
a one-hot cotangent: a row of J); ``mode="forward"`` one forward pass per entry of x (a tangent
seeded with a one-hot direction: a column). Both assemble J, of shape ``y.shape + x.shape``,
from those passes with graph ops, so the result is one node whose graph shows the cost: m
reverse passes against n forward ones. ``hvp(y, x, v, mode=...)`` composes two passes in any
of the four orders.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from vizad.errors import ArgumentError, ShapeError
from vizad.engine.forward import jvp
from vizad.engine.node import Node, static_shape
from vizad.engine.op import as_node, constant
from vizad.engine.ops import add_n, reshape
from vizad.engine.reverse import gradients
from vizad.engine.tree import TupleShape

__all__ = ["jacobian", "hvp", "HVP_MODES"]

#: The orders of composing two passes for a Hessian-vector product (outer over inner).
HVP_MODES = (
    "forward-over-reverse",
    "reverse-over-reverse",
    "reverse-over-forward",
    "forward-over-forward",
)


def _shape(node: Node, what: str) -> tuple:
    shape = static_shape(node)
    if shape is None or isinstance(shape, TupleShape):
        raise ShapeError(
            f"{what}: the shape of {node.short()} must be known when the graph is built "
            "(declare Variable(name, shape=...)); it gives the number of passes"
        )
    return tuple(shape)


def _one_hot(shape: tuple, k: int, dtype: Any = np.float64) -> np.ndarray:
    e = np.zeros(shape, dtype=dtype)
    e.flat[k] = 1
    return e


def jacobian(y: Node, x: Node, mode: str = "reverse") -> Node:
    """The Jacobian ∂y/∂x as a node of shape ``y.shape + x.shape``: one reverse pass per
    entry of y (``mode="reverse"``) or one forward pass per entry of x (``"forward"``).

    Examples:
        >>> x = vz.Variable("x", shape=(2,))
        >>> vz.evaluate(vz.jacobian(x * x, x), {x: np.array([1.0, 2.0])})
        array([[2., 0.],
               [0., 4.]])
    """
    y, x = as_node(y, "jacobian"), as_node(x, "jacobian")
    if mode not in ("reverse", "forward"):
        raise ArgumentError(
            f"jacobian: mode must be 'reverse' or 'forward', got {mode!r}; give one"
        )
    ys, xs = _shape(y, "jacobian"), _shape(x, "jacobian")
    blocks = []
    if mode == "reverse":
        for k in range(int(np.prod(ys, dtype=int))):
            e = _one_hot(ys, k)
            (row,) = gradients(y, [x], cotangent=constant(e))  # ∂y_k/∂x: shape xs
            blocks.append(
                constant(e.reshape(ys + (1,) * len(xs))) * reshape(row, (1,) * len(ys) + xs)
            )
    else:
        for k in range(int(np.prod(xs, dtype=int))):
            e = _one_hot(xs, k)
            column = jvp(y, {x: constant(e)})  # ∂y/∂x_k: shape ys
            blocks.append(
                reshape(column, ys + (1,) * len(xs)) * constant(e.reshape((1,) * len(ys) + xs))
            )
    if not blocks:
        raise ShapeError("jacobian: y or x has no entries")
    return blocks[0] if len(blocks) == 1 else add_n(*blocks)


def hvp(y: Node, x: Node, v: Any, mode: str = "forward-over-reverse") -> Node:
    """The Hessian-vector product H v of scalar ``y`` with respect to ``x``, where H = ∂²y/∂x²,
    by one of HVP_MODES: "forward-over-reverse" (the default: a jvp of the gradient, one
    pass of each kind), "reverse-over-reverse" (the gradient of ⟨∇y, v⟩: two reverse
    passes), "reverse-over-forward" (the gradient of the jvp ∇y·v), "forward-over-forward"
    (n forward passes over a forward pass: one per entry of x).

    Examples:
        >>> x = vz.Variable("x", shape=(2,))
        >>> y = vz.engine.ops.sum(x * x * x)
        >>> vz.evaluate(vz.hvp(y, x, np.array([1.0, 0.0])), {x: np.array([1.0, 2.0])})
        array([6., 0.])
    """
    y, x = as_node(y, "hvp"), as_node(x, "hvp")
    if mode not in HVP_MODES:
        raise ArgumentError(
            f"hvp: mode must be one of {', '.join(HVP_MODES)}; got {mode!r}: give one of them"
        )
    ys = static_shape(y)
    if ys is not None and ys != ():
        raise ShapeError(f"hvp: y must be a scalar, got shape {ys}")
    v = as_node(v, "hvp: v")
    if mode == "forward-over-reverse":
        (g,) = gradients(y, [x])
        return jvp(g, {x: v})
    if mode == "reverse-over-reverse":
        (g,) = gradients(y, [x])
        (hv,) = gradients(g, [x], cotangent=v)  # (∂g/∂x)ᵀ v = H v: H is symmetric
        return hv
    if mode == "reverse-over-forward":
        (hv,) = gradients(jvp(y, {x: v}), [x])
        return hv
    xs = _shape(x, "hvp (forward-over-forward)")
    directional = jvp(y, {x: v})  # ∇y · v
    entries = []
    for k in range(int(np.prod(xs, dtype=int))):
        e = _one_hot(xs, k)
        entries.append(jvp(directional, {x: constant(e)}) * constant(e))  # (H v)_k e_k
    return entries[0] if len(entries) == 1 else add_n(*entries)
