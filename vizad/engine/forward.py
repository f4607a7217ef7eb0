"""Forward mode by extending the graph with tangent nodes.

For every node vᵢ in topological order, its tangent v̇ᵢ = Σ v̇ₖ ∂vᵢ/∂vₖ (over its inputs k) is
built by the op of vᵢ from its inputs' tangents. A tangent that is zero is not built (None):
nodes that do not depend on the seeded inputs get no tangent node.
"""

from __future__ import annotations

import weakref
from typing import Any
from collections.abc import Mapping

from vizad.errors import GraphError, NodeTypeError, ShapeError
from vizad.engine.extension import AdjointRole, alive, extending
from vizad.engine.graph import ranked_order
from vizad.engine.node import Node, static_shape
from vizad.engine.op import as_node
from vizad.engine.ops import broadcast_to, mul, ones_like, zeros_like
from vizad.engine.ops.derivation import elementwise_jvp
from vizad.engine.ops.elementwise import ElementwiseOp, local_partials, reduce_target

__all__ = ["Tangents", "build_tangents", "jvp"]


class Tangents:
    """The record of one forward-mode extension of a graph (see :func:`build_tangents`).

    Like :class:`vizad.Adjoints`, it refers to the nodes it made weakly (no reference cycle
    with them) and keeps them alive until :meth:`release`.

    Examples:
        >>> from vizad import extend
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> record = vz.jvp(y, {x1: 1.0}).origin
        >>> type(record).__name__, record.output is y
        ('Tangents', True)
    """

    output: Node
    #: The forward nodes that received a tangent, in topological (display) order.
    order: tuple[Node, ...]

    def __init__(self, output: Node) -> None:
        self.output = output
        self.order = ()
        self._tangent: dict[Node, weakref.ref] = {}
        self._locals: dict[Node, list] = {}
        self._seeds: dict[Node, weakref.ref] = {}
        self._of_output: weakref.ref | None = None
        self._kept: list | None = None

    @property
    def seeds(self) -> dict[Node, Node]:
        """The seeds: input node → tangent node."""
        return {n: t for n, ref in self._seeds.items() if (t := ref()) is not None}

    @property
    def tangent_of_output(self) -> Node | None:
        """The tangent node of the output (zeros_like(output) when no seed reaches it)."""
        return alive(self._of_output)

    def tangent(self, node: Node) -> Node | None:
        """The tangent node v̇ of forward node ``node`` (None: it is zero)."""
        return alive(self._tangent.get(node))

    def locals(self, node: Node) -> list | None:
        """The local partials ∂node/∂input (nodes or numbers) used for its tangent, when its
        op states them (elementwise ops); None otherwise."""
        locals_ = self._locals.get(node)
        if locals_ is None:
            return None
        return [alive(p) for p in locals_]

    def roles(self) -> dict[Node, tuple]:
        """What each tangent node computes: "seed", "tangent" or "local" (see AdjointRole)."""
        roles: dict[Node, list] = {}
        seeds = self._seeds
        for node in self.order:
            kind = "seed" if node in seeds else "tangent"
            t = self.tangent(node)
            if t is not None:
                roles.setdefault(t, []).append(AdjointRole(kind, node))
        for node, partials in self._locals.items():
            for k, (x, p) in enumerate(zip(node.inputs, partials)):
                p = alive(p)
                if isinstance(p, Node):
                    roles.setdefault(p, []).append(AdjointRole("local", x, node, k))
        return {node: tuple(r) for node, r in roles.items()}

    def release(self) -> None:
        """Stop keeping the nodes of this extension alive (see :meth:`Adjoints.release`)."""
        self._kept = None

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
    walkthrough shows v̇₅ = v̇₂ cos v₂ = 0 × 0.284 = 0).

    Examples:
        >>> from vizad import extend
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> record = extend.build_tangents(y, {x1: 1.0})
        >>> vz.evaluate(record.tangent(y), {x1: 2.0, x2: 5.0})
        array(5.5)
    """
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
    forward mode. The full record is ``result.origin`` (a :class:`Tangents`).

    Examples:
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> dy = vz.jvp(y, {x1: 1.0, x2: 0.0})
        >>> vz.evaluate(dy, {x1: 2.0, x2: 5.0})
        array(5.5)
    """
    record = build_tangents(y, tangents, shapes=shapes)
    result = record.tangent_of_output
    assert result is not None  # made by the extension, and alive: the record keeps it
    record.release()
    return result


def _extend(record: Tangents, y: Node, given: Mapping[Node, Any], all_locals: bool) -> None:
    seeds = {}
    for node, value in given.items():
        if not isinstance(node, Node):
            raise NodeTypeError(
                f"jvp: tangents keys must be nodes, got {type(node).__name__} {node!r:.40}; "
                "use the nodes themselves as keys"
            )
        seeds[node] = _seed_node(node, value)
    tangent: dict[Node, Node] = {}
    all_partials: dict[Node, list] = {}
    order = []
    t: Node | None
    for node in ranked_order(y):
        if node in seeds:
            t = seeds[node]
        elif not node.inputs:
            continue
        else:
            inputs = [tangent.get(i) for i in node.inputs]
            if all(t is None for t in inputs):
                if all_locals and isinstance(node.op, ElementwiseOp):
                    all_partials[node] = local_partials(node.op, node)
                continue
            t = _jvp(node, inputs, all_partials)
            if t is None:
                continue
        tangent[node] = t
        order.append(node)
    of_output = tangent[y] if y in tangent else zeros_like(y)
    # weak references from the record, kept alive by a list (see Tangents)
    ref = weakref.ref
    kept = [of_output, *tangent.values(), *seeds.values()]
    record.order = tuple(order)
    record._of_output = ref(of_output)
    record._seeds = {node: ref(t) for node, t in seeds.items()}
    record._tangent = {node: ref(t) for node, t in tangent.items()}
    for node, partials in all_partials.items():
        kept.extend(p for p in partials if isinstance(p, Node))
        record._locals[node] = [ref(p) if isinstance(p, Node) else p for p in partials]
    record._kept = kept


def _jvp(node: Node, tangents: list, all_partials: dict) -> Node | None:
    """The op's tangent of ``node`` from its inputs' tangents, checked; an elementwise op's
    local partials are kept on the record for the walkthrough."""
    op = node.op
    if isinstance(op, ElementwiseOp):  # the rule follows from the partials it states
        locals_ = all_partials[node] = local_partials(op, node)
        t = elementwise_jvp(op, node, tangents, locals_)
    else:
        t = op.jvp(node, tangents)
    if t is not None and not isinstance(t, Node):
        raise GraphError(
            f"jvp of op {op.name!r} at {node.describe()} returned a "
            f"{type(t).__name__}; expected a Node or None"
        )
    return t


def _seed_node(node: Node, value: Any) -> Node:
    """The tangent of a seeded input as a node: a number (or a 0-d array) is broadcast to the
    input's shape; an array must have the input's shape, checked here when both shapes are
    known and by the plan's first run otherwise (a node given as tangent is used as it is,
    and checked by the plan)."""
    if isinstance(value, Node):
        return value
    if type(value) in (float, int):
        # a Python number is weakly typed: the tangent takes the input's shape and float type
        return ones_like(node) if value == 1 else mul(value, ones_like(node))
    t = as_node(value, f"jvp: tangent of {node.short()}")
    ts, ns = static_shape(t), static_shape(node)
    if ts == ns:
        return t
    if ts == ():
        return broadcast_to(t, reduce_target(node))
    if ns is not None:
        raise ShapeError(
            f"jvp: the tangent given for {node.short()} has shape {ts} but "
            f"{node.short()} has shape {ns}; give a tangent of shape {ns}, or a number"
        )
    return t
