"""Reading graphs built by another engine in the CSE 599W style, so that vizad's views can
draw and step them.

A 599W-style node has ``inputs`` (a list of nodes), ``op`` (an object with ``compute(node,
input_vals)`` and ``gradient(node, output_grad)``), ``name`` and ``const_attr``: the
assignment's skeleton (:mod:`vizad.classroom.courses.autodiff`) and a student's own engine written
from it. This module registers :func:`adopt` as an adapter (:mod:`vizad.engine.adapters`), so such
nodes work wherever vizad's own do. :func:`adopt` gives the vizad node that stands for
such a node: input-less nodes become Variables of the same name; every other node becomes
a node of a :class:`ForeignOp` that runs the foreign op's own ``compute``, and whose reverse
rule calls the foreign op's own ``gradient`` and adopts the nodes it returns (so the adjoint
graph vizad draws is the one the foreign rules build). Nothing of the foreign graph is
modified; the same foreign node always gives the same vizad node.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from vizad.engine import adapters
from vizad.engine.elements import Apply, Dot, Rule, broadcast_index, matmul_pairs, register_rule
from vizad.errors import GraphError, NodeTypeError
from vizad.engine.node import Node
from vizad.engine.op import Op, Variable
from vizad.engine.text import latex_name, latex_operator

__all__ = ["is_foreign", "adopt", "ForeignOp", "op_for"]

_ADOPTED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_OPS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def is_foreign(obj: Any) -> bool:
    """Whether ``obj`` looks like a node of a 599W-style engine."""
    return (
        not isinstance(obj, Node)
        and hasattr(obj, "inputs")
        and hasattr(obj, "op")
        and hasattr(obj, "const_attr")
        and hasattr(obj, "name")
    )


class ForeignOp(Op):
    """A vizad op that runs a foreign (599W-style) op: one per foreign op object."""

    def __init__(self, foreign_op: Any):
        self.foreign = foreign_op
        self.name = type(foreign_op).__name__.removesuffix("Op") or "op"

    def bind(self, node: Node):
        foreign_node, compute = node.attrs["foreign"], self.foreign.compute
        return lambda *values: compute(foreign_node, list(values))

    def compute(self, *values, foreign=None):
        return self.foreign.compute(foreign, list(values))

    def vjp(self, node: Node, adjoint: Node):
        foreign_node = node.attrs["foreign"]
        grad = _placeholder_like(foreign_node)
        grads = self.foreign.gradient(foreign_node, grad)
        if grads is None:
            return [None] * len(node.inputs)
        # the foreign rule reads the foreign node and its inputs: they stand for ``node`` and
        # its inputs here (which differ from their adoptions when vizad rebuilds the op alone,
        # as trace.check() does)
        given = {id(grad): adjoint, id(foreign_node): node}
        given.update((id(f), x) for f, x in zip(foreign_node.inputs, node.inputs))
        return [None if g is None else _adopt(g, given) for g in grads]

    def latex(self, args, attrs) -> str:
        foreign = attrs["foreign"]
        extra = [] if foreign.const_attr is None else [latex_name(str(foreign.const_attr))]
        for flag in ("matmul_attr_trans_A", "matmul_attr_trans_B"):
            if getattr(foreign, flag, False):
                extra.append(r"\mathrm{" + flag[-7:].replace("_", r"\_") + "}")
        return latex_operator(self.name) + rf"\left({', '.join([*args, *extra])}\right)"


def _placeholder_like(foreign_node: Any) -> Any:
    """A bare node of the foreign node's class standing for the output gradient."""
    grad = object.__new__(type(foreign_node))
    grad.inputs, grad.op, grad.const_attr, grad.name = [], None, None, "output_grad"
    return grad


def op_for(cache: weakref.WeakKeyDictionary, foreign_op: Any, make: Callable[[Any], Op]) -> Op:
    """The vizad op standing for ``foreign_op``: ``make(foreign_op)``, kept in ``cache`` so
    that one foreign op is one vizad op (made anew each time for an object that cannot be
    weakly referenced)."""
    try:
        op = cache.get(foreign_op)
    except TypeError:  # not weakly referenceable: no caching
        return make(foreign_op)
    if op is None:
        op = cache[foreign_op] = make(foreign_op)
    return op


def adopt(obj: Any) -> Node:
    """The vizad node that stands for the 599W-style node ``obj`` (``obj`` itself if it is a
    vizad node)."""
    if isinstance(obj, Node):
        return obj
    if not is_foreign(obj):
        raise NodeTypeError(
            f"{type(obj).__name__} ({obj!r:.60}) is neither a vizad Node nor a node with "
            "inputs, op, name and const_attr"
        )
    return _adopt(obj, {})


def _adopt(root: Any, given: dict[int, Node]) -> Node:
    """Adopt ``root`` and everything it depends on (iteratively); ``given`` maps ids of
    foreign nodes to vizad nodes that stand for them in this call only."""
    done = given.get(id(root)) or _ADOPTED.get(root)
    if done is not None:
        return done
    stack = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if id(node) in given or node in _ADOPTED:
            continue
        inputs = list(getattr(node, "inputs", None) or [])
        if not expanded:
            stack.append((node, True))
            # inputs pushed last first, so adopted first first: vizad numbers a graph by
            # creation order, and a post-order of the inputs in order is the order in which
            # Python built ``sub(add(log(x1), mul(x1, x2)), sin(x2))`` (the lecture's v1 … v7)
            stack.extend(
                (i, False) for i in reversed(inputs) if id(i) not in given and i not in _ADOPTED
            )
            continue
        if not inputs:
            name = str(getattr(node, "name", "") or "placeholder")
            vizad = Variable(name)
        else:
            if getattr(node, "op", None) is None:
                raise GraphError(f"node {node.name!r} has inputs but no op")
            args = [given.get(id(i)) or _ADOPTED[i] for i in inputs]
            vizad = op_for(_OPS, node.op, ForeignOp)(*args, foreign=node)
        _ADOPTED[node] = vizad
    return given.get(id(root)) or _ADOPTED[root]


adapters.register_adapter(is_foreign, adopt)


@register_rule(ForeignOp)
def _element_rule(node: Node, index: tuple[int, ...], inputs: Sequence[Any]) -> Rule | None:
    """Which elements of its inputs make one element of a 599W op's output (trace.element):
    MatMulOp's with its trans_A and trans_B flags, AddOp's, MulOp's and the by-constant ops';
    None for the others (zeros_like, ones_like: read as they are)."""
    kind = type(node.op.foreign).__name__
    at = tuple(broadcast_index(index, tuple(np.shape(v))) for v in inputs)
    if kind == "MatMulOp":
        foreign = node.attrs["foreign"]
        ta = bool(getattr(foreign, "matmul_attr_trans_A", False))
        tb = bool(getattr(foreign, "matmul_attr_trans_B", False))
        a, b = (tuple(np.shape(v)) for v in inputs)
        return Dot(matmul_pairs(index, a, b, ta, tb))
    if kind == "AddOp":
        return Apply(at, (1, 1))
    if kind in ("MulOp", "AddByConstOp", "MulByConstOp"):
        return Apply(at)
    return None
