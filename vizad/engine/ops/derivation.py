"""The rules an elementwise op derives from its local partial derivatives.

Reverse mode: the partial adjoint v̄ᵢ→ⱼ = v̄ⱼ × ∂vⱼ/∂vᵢ, summed back to the input's shape with
the one shared ``sum_to_shape`` op where broadcasting happened. Forward mode: the tangent
v̇ⱼ = Σᵢ v̇ᵢ ∂vⱼ/∂vᵢ, broadcast to the output's shape. These rules build nodes of mul, add_n,
sum_to_shape and friends, so they live above the modules that define those ops, and this
module sets them as :class:`~vizad.engine.ops.elementwise.ElementwiseOp`'s ``vjp`` and ``jvp``.
"""

from __future__ import annotations

from typing import cast
from collections.abc import Sequence

from vizad.engine.node import Node, static_shape
from vizad.engine.ops.arithmetic import add, add_n, identity, mul, neg, sub
from vizad.engine.ops.elementwise import ElementwiseOp, Symbolic, local_partials, reduce_target
from vizad.engine.ops.tensor import broadcast_to, sum_to_shape
from vizad.engine.op import constants_only

__all__ = ["times", "elementwise_vjp", "elementwise_jvp", "broadcast_tangent"]


def times(value: Node, partial: Node | Symbolic) -> Node | None:
    """value × partial: ONE gives an identity node (so that each partial adjoint is a node of
    its own), MINUS_ONE a negation, ZERO None (no contribution).

    Examples:
        >>> from vizad import extend
        >>> from vizad.engine.ops.elementwise import MINUS_ONE, ZERO
        >>> v = vz.Variable("v")
        >>> extend.times(v, MINUS_ONE).op.name, extend.times(v, ZERO)
        ('neg', None)
    """
    if isinstance(partial, Node):
        return _apply_builtin(mul, (value, partial))
    if partial == 0:
        return None
    return _apply_builtin(identity if partial == 1 else neg, (value,))


def _apply_builtin(op: ElementwiseOp, inputs: tuple[Node, ...]) -> Node:
    """``op(*inputs)`` for an elementwise op of vizad's own (mul, identity, neg) that the
    engine applies to nodes it made (a product by a local partial): straight to the node
    when every input is a symbolic node of one array shape (or all of unknown shape), the
    output's shape; through the op's full call (checks, eager evaluation, constant folding)
    otherwise."""
    shape = inputs[0]._shape
    kind = shape.__class__
    if shape is not None and kind is not tuple:  # a tuple value's shape
        return op(*inputs)
    for x in inputs:
        s = x._shape
        if x.__class__ is not Node or s.__class__ is not kind or s != shape:
            return op(*inputs)
    if constants_only(inputs):  # folded into an eager node by the full call
        return op(*inputs)
    return Node(op, inputs, None, None, shape)


def elementwise_vjp(
    op: ElementwiseOp,
    node: Node,
    adjoint: Node,
    partials: Sequence[Node | Symbolic],
    needed: Sequence[bool] | None = None,
) -> tuple[list[Node | None], list[Node | None]]:
    """``(partial adjoints reduced to each input's shape, the unreduced ones where a
    sum_to_shape step was needed, else None)`` of an elementwise node; None for the inputs
    that ``needed`` (one flag per input) leaves out (their local partials are then never
    multiplied, so nothing checks their shapes).

    Examples:
        >>> from vizad import extend
        >>> a, b = vz.Variable("a"), vz.Variable("b")
        >>> y = a * b
        >>> partials = extend.local_partials(y.op, y)
        >>> reduced, unreduced = extend.elementwise_vjp(y.op, y, vz.constant(1.0), partials)
        >>> vz.evaluate(reduced, {a: 2.0, b: 5.0})
        [array(5.), array(2.)]
    """
    # every product first, then the reductions: the creation order (ids, drawings) stays
    if needed is None:
        raw = [times(adjoint, p) for p in partials]
    else:
        raw = [times(adjoint, p) if n else None for p, n in zip(partials, needed)]
    unreduced: list[Node | None] = [None] * len(raw)
    if not op.broadcasting:
        return raw, unreduced
    reduced = list(raw)
    for k, x in enumerate(node._inputs):  # a hot path of every reverse pass: one loop
        r = raw[k]
        if r is not None and not _has_output_shape(x, node):
            reduced[k] = sum_to_shape(r, reduce_target(x))
            unreduced[k] = r
    return reduced, unreduced


def elementwise_jvp(
    op: ElementwiseOp,
    node: Node,
    tangents: Sequence[Node | None],
    partials: Sequence[Node | Symbolic],
) -> Node | None:
    """v̇ = Σ v̇ᵢ ∂v/∂xᵢ over the inputs with a tangent, broadcast to the output's shape: v̇ᵢ
    alone (as an identity node) for a partial of 1, v̇ₐ ± v̇ᵦ for two partials of ±1.

    Examples:
        >>> from vizad import extend
        >>> a, b = vz.Variable("a"), vz.Variable("b")
        >>> y = a * b
        >>> partials = extend.local_partials(y.op, y)
        >>> tangent = extend.elementwise_jvp(y.op, y, [vz.constant(1.0), None], partials)
        >>> vz.evaluate(tangent, {a: 2.0, b: 5.0})
        array(5.)
    """
    terms = [(t, p) for t, p in zip(tangents, partials) if t is not None and p != 0]
    if not terms:
        return None
    if not op.broadcasting:  # add_n: values (tuple values too) of one shape
        if len(terms) == 1:
            return times(*terms[0])
        return add_n(*_products(terms))
    total: Node | None
    if len(terms) == 1:
        total = times(*terms[0])
    elif len(terms) == 2 and all(p.__class__ is Symbolic for _, p in terms):
        (ta, pa), (tb, pb) = terms
        if pa == 1:
            total = add(ta, tb) if pb == 1 else sub(ta, tb)
        else:
            total = sub(tb, ta) if pb == 1 else neg(add(ta, tb))
    else:
        total = add_n(*_products(terms))
    assert total is not None  # (a nonzero partial's product is a node)
    return broadcast_tangent(total, node, tangents)


def _products(terms: list[tuple[Node, Node | Symbolic]]) -> list[Node]:
    """v̇ᵢ ∂v/∂xᵢ of each term (v̇ᵢ itself for a partial of 1): nodes, as no partial is 0."""
    return cast("list[Node]", [t if p == 1 else times(t, p) for t, p in terms])


def broadcast_tangent(total: Node, node: Node, tangents: Sequence[Node | None]) -> Node:
    """Broadcast a tangent to the shape of ``node`` unless it provably has it already: when
    every input has a tangent, or one input with a tangent provably has the output's shape.

    Examples:
        >>> from vizad import extend
        >>> x, b = vz.Variable("x", shape=(3,)), vz.Variable("b")
        >>> y = x + b
        >>> tangent = extend.broadcast_tangent(vz.constant(1.0), y, [None, vz.constant(1.0)])
        >>> vz.evaluate(tangent, {x: np.zeros(3), b: 0.0})
        array([1., 1., 1.])
    """
    if all(t is not None for t in tangents) or any(
        t is not None and _has_output_shape(x, node) for x, t in zip(node.inputs, tangents)
    ):
        return total
    return broadcast_to(total, reduce_target(node))


def _has_output_shape(x: Node, node: Node) -> bool:
    """Whether input ``x`` of an elementwise ``node`` provably has the output's shape."""
    if len(node._inputs) == 1:  # one input: nothing to broadcast against
        return True
    x_shape, out_shape = x._shape, node._shape
    if x_shape is None or out_shape is None:  # known from an evaluation, if at all
        x_shape, out_shape = static_shape(x), static_shape(node)
    if x_shape is not None:
        return x_shape == out_shape
    # broadcasting against scalars never changes x's shape
    return all(static_shape(o) == () for o in node.inputs if o is not x)


def _vjp(self: ElementwiseOp, node: Node, adjoint: Node) -> list[Node | None]:
    return elementwise_vjp(self, node, adjoint, local_partials(self, node))[0]


def _jvp(self: ElementwiseOp, node: Node, tangents: Sequence[Node | None]) -> Node | None:
    return elementwise_jvp(self, node, tangents, local_partials(self, node))


# An elementwise op's vjp and jvp, derived from its partials by the rules above.
# (set here, above the ops the rules build: mypy sees Op's vjp and jvp, which these are)
ElementwiseOp.vjp = _vjp  # type: ignore[method-assign, assignment]
ElementwiseOp.jvp = _jvp  # type: ignore[method-assign, assignment]
