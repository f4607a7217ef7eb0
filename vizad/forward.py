"""Forward mode by extending the graph with tangent nodes.

For every node vᵢ in topological order, its tangent v̇ᵢ = Σ v̇ₖ ∂vᵢ/∂vₖ (over its inputs k) is
built by the op of vᵢ from its inputs' tangents. A tangent that is zero is not built (None):
nodes that do not depend on the seeded inputs get no tangent node.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Mapping

from .errors import GraphError, NodeTypeError
from .graph import ranked_order
from .node import Node, as_node, extending, static_shape
from .op import ElementwiseOp, elementwise_jvp, local_partials, reduce_target
from .ops import broadcast_to, mul, ones_like, zeros_like
from .reverse import AdjointRole

__all__ = ["Tangents", "build_tangents", "jvp"]


class Tangents:
    """The record of one forward-mode extension of a graph (see :func:`build_tangents`)."""

    output: Node
    #: The seeds: input node → tangent node.
    seeds: dict[Node, Node]
    #: The forward nodes that received a tangent, in topological (display) order.
    order: tuple[Node, ...]
    #: The tangent node of the output (zeros_like(output) when no seed reaches it).
    tangent_of_output: Node

    def __init__(self, output: Node):
        self.output = output
        self._tangent: dict[Node, Node] = {}
        self._locals: dict[Node, list] = {}

    def tangent(self, node: Node) -> Node | None:
        """The tangent node v̇ of forward node ``node`` (None: it is zero)."""
        return self._tangent.get(node)

    def locals(self, node: Node) -> list | None:
        """The local partials ∂node/∂input (nodes or numbers) used for its tangent, when its
        op states them (elementwise ops); None otherwise."""
        return self._locals.get(node)

    def roles(self) -> dict[Node, tuple]:
        """What each tangent node computes: "seed", "tangent" or "local" (see AdjointRole)."""
        roles: dict[Node, list] = {}
        for node in self.order:
            kind = "seed" if node in self.seeds else "tangent"
            roles.setdefault(self._tangent[node], []).append(AdjointRole(kind, node))
        for node, locals_ in self._locals.items():
            for k, (x, p) in enumerate(zip(node.inputs, locals_)):
                if isinstance(p, Node):
                    roles.setdefault(p, []).append(AdjointRole("local", x, node, k))
        return {node: tuple(r) for node, r in roles.items()}

    def __repr__(self) -> str:
        return f"<Tangents of {self.output}: {len(self.order)} tangents>"


def build_tangents(
    y: Node,
    tangents: Mapping[Node, Any],
    *,
    shapes: Mapping[Node, Any] | None = None,
    all_locals: bool = False,
) -> Tangents:
    """Extend the graph of ``y`` with tangent nodes, seeded by ``tangents``
    ({input node: tangent value or node}); inputs not listed have a zero tangent.

    With ``all_locals``, the local partials are built for nodes with a zero tangent too (a
    walkthrough shows v̇₅ = v̇₂ cos v₂ = 0 × 0.284 = 0)."""
    y = as_node(y, "jvp")
    if not isinstance(tangents, Mapping):
        raise NodeTypeError(
            f"jvp: tangents must be a dict {{input node: value or node}}, "
            f"got {type(tangents).__name__}"
        )
    record = Tangents(y)
    with extending(record, shapes):
        _extend(record, y, tangents, all_locals)
    return record


def jvp(y: Node, tangents: Mapping[Node, Any], *, shapes: Mapping[Node, Any] | None = None) -> Node:
    """The tangent node of ``y`` (the directional derivative along ``tangents``), by
    forward mode. The full record is ``result.origin`` (a :class:`Tangents`)."""
    return build_tangents(y, tangents, shapes=shapes).tangent_of_output


def _extend(record: Tangents, y: Node, given: Mapping[Node, Any], all_locals: bool) -> None:
    seeds = {}
    for node, value in given.items():
        if not isinstance(node, Node):
            raise NodeTypeError(
                f"jvp: tangents keys must be nodes, got {type(node).__name__} {node!r:.40}"
            )
        seeds[node] = _seed_node(node, value)
    record.seeds = seeds
    tangent = record._tangent
    order = []
    for node in ranked_order(y):
        if node in seeds:
            t = seeds[node]
        elif not node.inputs:
            continue
        else:
            inputs = [tangent.get(i) for i in node.inputs]
            if all(t is None for t in inputs):
                if all_locals and isinstance(node.op, ElementwiseOp):
                    record._locals[node] = local_partials(node.op, node)
                continue
            t = _jvp(node, inputs, record)
            if t is None:
                continue
        tangent[node] = t
        order.append(node)
    record.order = tuple(order)
    record.tangent_of_output = tangent[y] if y in tangent else zeros_like(y)


def _jvp(node: Node, tangents: list, record: Tangents) -> Node | None:
    """The op's tangent of ``node`` from its inputs' tangents, checked; an elementwise op's
    local partials are kept on the record for the walkthrough."""
    op = node.op
    if isinstance(op, ElementwiseOp):  # the rule follows from the partials it states
        locals_ = record._locals[node] = local_partials(op, node)
        t = elementwise_jvp(op, node, tangents, locals_)
    else:
        t = op.jvp(node, tangents)
    if t is not None and not isinstance(t, Node):
        raise GraphError(
            f"jvp of op {op.name!r} at {node._describe()} returned a "
            f"{type(t).__name__}; expected a Node or None"
        )
    return t


def _seed_node(node: Node, value: Any) -> Node:
    """The tangent of a seeded input as a node; a value is broadcast to the input's shape
    unless it provably has it (a node given as tangent is used as it is)."""
    if isinstance(value, Node):
        return value
    if type(value) in (float, int):
        # a Python number is weakly typed: the tangent takes the input's shape and float type
        return ones_like(node) if value == 1 else mul(value, ones_like(node))
    t = as_node(value, f"jvp: tangent of {node._short()}")
    ts, ns = static_shape(t), static_shape(node)
    if ts is not None and ts == ns:
        return t
    return broadcast_to(t, reduce_target(node))
