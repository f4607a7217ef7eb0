"""Forward mode by extending the graph with tangent nodes.

For every node vᵢ in topological order, its tangent v̇ᵢ = Σ v̇ₖ ∂vᵢ/∂vₖ (over its inputs k) is
built by the op of vᵢ from its inputs' tangents. A tangent that is zero is not built (None):
nodes that do not depend on the seeded inputs get no tangent node.
"""

from __future__ import annotations

from typing import Any, Mapping

from ._gc import gc_paused
from .errors import GraphError, NodeTypeError
from .graph import ranked_order
from .node import _ORIGIN, _SHAPE_HINTS, Node, as_node, static_shape
from .op import reduce_target
from .ops import broadcast_to, zeros_like
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
            for x, p in zip(node.inputs, locals_):
                if isinstance(p, Node):
                    roles.setdefault(p, []).append(AdjointRole("local", x, node))
        return {node: tuple(r) for node, r in roles.items()}

    @property
    def tangents(self) -> Mapping[Node, Node]:
        return dict(self._tangent)

    def __repr__(self) -> str:
        return f"<Tangents of {self.output}: {len(self.order)} tangents>"


def build_tangents(y: Node, tangents: Mapping[Node, Any], *,
                   shapes: Mapping[Node, Any] | None = None,
                   all_locals: bool = False) -> Tangents:
    """Extend the graph of ``y`` with tangent nodes, seeded by ``tangents``
    ({input node: tangent value or node}); inputs not listed have a zero tangent.

    With ``all_locals``, the local partials are built for nodes with a zero tangent too (a
    walkthrough shows v̇₅ = v̇₂ cos v₂ = 0 × 0.284 = 0)."""
    y = as_node(y, "jvp")
    if not isinstance(tangents, Mapping):
        raise NodeTypeError(f"jvp: tangents must be a dict {{input node: value or node}}, "
                            f"got {type(tangents).__name__}")
    record = Tangents(y)
    origin_token = _ORIGIN.set(record)
    hints_token = _SHAPE_HINTS.set(shapes)
    try:
        with gc_paused():
            _extend(record, y, tangents, all_locals)
    finally:
        _SHAPE_HINTS.reset(hints_token)
        _ORIGIN.reset(origin_token)
    return record


def jvp(y: Node, tangents: Mapping[Node, Any], *,
        shapes: Mapping[Node, Any] | None = None) -> Node:
    """The tangent node of ``y`` (the directional derivative along ``tangents``), by
    forward mode. The full record is ``result.origin`` (a :class:`Tangents`)."""
    return build_tangents(y, tangents, shapes=shapes).tangent_of_output


def _extend(record: Tangents, y: Node, given: Mapping[Node, Any], all_locals: bool) -> None:
    seeds = {}
    for node, value in given.items():
        if not isinstance(node, Node):
            raise NodeTypeError(f"jvp: tangents keys must be nodes, got {type(node).__name__} "
                                f"{node!r:.40}")
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
                if all_locals:
                    _, locals_ = node.op._jvp_parts(node, inputs)
                    if locals_ is not None:
                        record._locals[node] = locals_
                continue
            t, locals_ = node.op._jvp_parts(node, inputs)
            if locals_ is not None:
                record._locals[node] = locals_
            if t is None:
                continue
            if not isinstance(t, Node):
                raise GraphError(f"jvp of op {node.op.name!r} at {node._describe()} returned "
                                 f"a {type(t).__name__}; expected a Node or None")
        tangent[node] = t
        order.append(node)
    record.order = tuple(order)
    record.tangent_of_output = tangent[y] if y in tangent else zeros_like(y)


def _seed_node(node: Node, value: Any) -> Node:
    """The tangent of a seeded input as a node; a value is broadcast to the input's shape
    unless it provably has it (a node given as tangent is used as it is)."""
    if isinstance(value, Node):
        return value
    t = as_node(value, f"jvp: tangent of {node._short()}")
    ts, ns = static_shape(t), static_shape(node)
    if ts is not None and ts == ns:
        return t
    return broadcast_to(t, reduce_target(node))
