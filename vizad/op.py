"""The op protocol: one object holds the whole definition of an operation.

An op says how to compute its value on numpy arrays (``compute``), how to build the adjoint
nodes of its inputs from graph ops (``vjp``, reverse mode), how to build its tangent node
(``jvp``, forward mode), its static shape (``infer_shape``) and the LaTeX that the derivation
text uses (``latex``, ``partial_latex``, ``vjp_latex``).

Elementwise ops only state their *local partial derivatives* ∂v/∂xᵢ as graph nodes
(``partials``); :class:`ElementwiseOp` derives ``vjp`` (v̄ᵢ→ⱼ = v̄ⱼ ∂vⱼ/∂vᵢ) and ``jvp``
(v̇ⱼ = Σ v̇ᵢ ∂vⱼ/∂vᵢ) from them, and reduces broadcast adjoints back to each input's shape
with the one shared ``sum_to_shape`` op.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any
from collections.abc import Callable, Mapping, Sequence

from .errors import GraphError, NodeTypeError, RuleNotDefinedError, ShapeError
from .eager import EagerNode, constants_only, prepared
from .node import Node, TupleShape, static_shape
from .text import printable

__all__ = [
    "Op",
    "ElementwiseOp",
    "Symbolic",
    "ZERO",
    "ONE",
    "MINUS_ONE",
    "registry",
    "register",
    "broadcast_shapes",
    "reduce_target",
    "broadcast_tangent",
    "local_partials",
    "elementwise_vjp",
    "elementwise_jvp",
]

_REGISTRY: dict[str, Op] = {}


def register(op: Op) -> Op:
    """Add ``op`` to the registry that the test-suite loops over; returns ``op``."""
    if op.name in _REGISTRY and _REGISTRY[op.name] is not op:
        raise GraphError(f"an op named {op.name!r} is registered already")
    _REGISTRY[op.name] = op
    return op


def registry() -> dict[str, Op]:
    """The registered ops by name (a copy)."""
    return dict(_REGISTRY)


class Op:
    """Base class of every op. Subclass it, define ``compute`` and ``vjp``, and call an
    instance on nodes (or numbers) to build a node::

        class Square(vz.Op):
            name = "square"
            def compute(self, x): return x * x
            def vjp(self, node, adjoint):
                (x,) = node.inputs
                return [adjoint * 2 * x]
        square = Square()
    """

    #: Name shown in drawings, traces and error messages (default: the class name, lowered).
    name: str = ""
    #: Number of inputs, or None for any number.
    arity: int | None = None
    #: Short label for drawings (``"×"``); default: the name.
    symbol: str | None = None

    #: vizad's own ops (defined in vizad.ops): their rules need no checking.
    _builtin: bool = False
    #: True for the constant op alone: an op on constants only is computed at once.
    _folds: bool = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if not cls.__dict__.get("name"):
            cls.name = cls.__name__.lower()
        cls._builtin = cls.__module__.startswith("vizad.ops.")

    # -- building nodes ------------------------------------------------------------------
    def __call__(self, *inputs: Any, name: str | None = None, **attrs: Any) -> Node:
        eager = None
        for x in inputs:
            if x.__class__ is not Node:  # numbers to constants; eager nodes compute at once
                inputs, eager = prepared(inputs, self.name)
                break
        else:
            if inputs and inputs[0]._operation._folds and constants_only(inputs):
                eager = EagerNode
        if name is not None:
            if name.__class__ is not str:
                raise NodeTypeError(
                    f"{self.name}: name must be a str, got {type(name).__name__} {name!r:.40}"
                )
            name = printable(name)
        if self.arity is not None and len(inputs) != self.arity:
            raise GraphError(f"op {self.name!r} takes {self.arity} input(s), got {len(inputs)}")
        try:
            shape = self.infer_shape([n._shape for n in inputs], attrs)  # hot: slot read
        except ShapeError as exc:
            args = ", ".join(n._short() for n in inputs)
            raise ShapeError(f"{self.name}({args}): {exc}") from None
        if eager is None:
            return Node(self, inputs, attrs, name, shape)
        return eager._computed(self, inputs, attrs, name, shape)

    # -- the definition ------------------------------------------------------------------
    def compute(self, *values: Any, **attrs: Any) -> Any:
        """The value of the node from its input values: numpy arrays, or numpy scalars where
        the ops before it gave scalars (``np.asarray`` one where an array is needed)."""
        raise RuleNotDefinedError(f"op {self.name!r} defines no compute")

    def vjp(self, node: Node, adjoint: Node) -> Sequence[Node | None]:
        """Reverse mode: one adjoint node per input (None for a zero or unneeded adjoint)."""
        raise RuleNotDefinedError(
            f"op {self.name!r} defines no vjp, so reverse mode cannot differentiate through it"
        )

    def jvp(self, node: Node, tangents: Sequence[Node | None]) -> Node | None:
        """Forward mode: the tangent node of ``node`` from its inputs' tangents (None = zero)."""
        raise RuleNotDefinedError(
            f"op {self.name!r} defines no jvp, so forward mode cannot differentiate through it"
        )

    def infer_shape(self, shapes: Sequence[Any], attrs: Mapping[str, Any]) -> Any:
        """The static shape of the output from the inputs' static shapes (None if unknown).
        Raise ShapeError for shapes that cannot fit."""
        return None

    # -- LaTeX for the derivation text ---------------------------------------------------
    def latex(self, args: Sequence[str], attrs: Mapping[str, Any]) -> str:
        """The op applied to LaTeX arguments, e.g. ``\\ln v_1``."""
        return rf"\operatorname{{{self.name}}}\left({', '.join(args)}\right)"

    def partial_latex(
        self, args: Sequence[str], attrs: Mapping[str, Any], index: int
    ) -> str | None:
        """The local partial derivative ∂v/∂(input ``index``) in LaTeX, when it is a formula."""
        return None

    def vjp_latex(
        self, args: Sequence[str], adjoint: str, attrs: Mapping[str, Any], index: int
    ) -> str | None:
        """The partial adjoint v̄ᵢ→ⱼ as LaTeX, e.g. ``\\bar v_5 \\cos v_2``."""
        local = self.partial_latex(args, attrs, index)
        return None if local is None else latex_product(adjoint, local)

    # -- for the executor ----------------------------------------------------------------
    def bind(self, node: Node) -> Callable[..., Any]:
        """The function of the input values that computes ``node``, made once when a plan is
        made. The default binds the node's attributes to ``compute``; an adapter for another
        calling convention (the CSE 599W ``compute(node, input_vals)``) overrides it."""
        attrs = node.attrs
        if attrs:
            return partial(self.compute, **attrs)
        return self.compute

    def __repr__(self) -> str:
        return f"<op {self.name}>"


def latex_product(left: str, right: str) -> str:
    """``left`` times the local derivative ``right`` in LaTeX, as a person writes it:
    ``v̄`` for 1, ``-v̄`` for −1, ``\\frac{v̄}{x}`` for ``\\frac{1}{x}``."""
    reciprocal = re.fullmatch(r"\\frac\{1\}\{(.*)\}", right)
    if reciprocal:
        return rf"\frac{{{left}}}{{{reciprocal.group(1)}}}"
    if right == "1":
        return left
    if right == "-1":
        return "-" + left
    return f"{left} {right}"


# -- elementwise ops ---------------------------------------------------------------------
class Symbolic(float):
    """A local partial derivative that is a known constant: :data:`ZERO`, :data:`ONE` or
    :data:`MINUS_ONE`. No node is built for it: a partial adjoint v̄ⱼ × 1 is an identity node,
    v̄ⱼ × (−1) a negation, and v̄ⱼ × 0 no contribution at all."""

    def __repr__(self) -> str:
        return {0.0: "vz.ZERO", 1.0: "vz.ONE", -1.0: "vz.MINUS_ONE"}[float(self)]


#: ∂v/∂x = 0 (no contribution), 1 (the adjoint passes through) and −1 (it is negated).
ZERO, ONE, MINUS_ONE = Symbolic(0), Symbolic(1), Symbolic(-1)
_SYMBOLIC = {0: ZERO, 1: ONE, -1: MINUS_ONE}


def broadcast_shapes(*shapes: Any) -> Any:
    """numpy's broadcasting rule on static shapes; None if any is unknown."""
    result: tuple = ()
    for shape in shapes:
        if shape is None:
            return None
        if shape == result or not shape:
            continue
        if not result:
            result = shape
            continue
        longer, shorter = (result, shape) if len(result) >= len(shape) else (shape, result)
        pad = (1,) * (len(longer) - len(shorter)) + tuple(shorter)
        dims = []
        for a, b in zip(longer, pad):
            if a != b and a != 1 and b != 1:
                raise ShapeError(f"shapes {tuple(result)} and {tuple(shape)} do not broadcast")
            dims.append(b if a == 1 else a)
        result = tuple(dims)
    return result


def reduce_target(node: Node) -> Any:
    """What ``sum_to_shape``/``broadcast_to``/``reshape`` should aim for to match ``node``:
    its static shape when known, else the node itself (its value's shape, read at run time)."""
    shape = static_shape(node)
    return node if shape is None or isinstance(shape, TupleShape) else shape


class ElementwiseOp(Op):
    """An op applied element by element, broadcasting its inputs like numpy.

    Subclasses define ``compute`` and ``partials`` (∂v/∂xᵢ as graph nodes, or the symbolic
    :data:`ZERO`, :data:`ONE`, :data:`MINUS_ONE`); ``vjp`` (v̄ᵢ→ⱼ = v̄ⱼ ∂vⱼ/∂vᵢ, summed back to
    each input's shape) and ``jvp`` (v̇ⱼ = Σᵢ v̇ᵢ ∂vⱼ/∂vᵢ) follow from them, so a subclass that
    defines ``vjp`` or ``jvp`` is refused: subclass :class:`Op` to write the rules yourself.
    """

    #: False for ops whose inputs all have the output's shape (add_n): nothing to reduce.
    broadcasting: bool = True

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for rule in ("vjp", "jvp"):
            if rule in cls.__dict__:
                raise GraphError(
                    f"{cls.__name__} defines {rule}, but an ElementwiseOp derives vjp and jvp "
                    "from its partials (which the walkthroughs show as ∂vⱼ/∂vᵢ): define "
                    f"partials(node) instead, or subclass vz.Op to write {rule} yourself"
                )

    def partials(self, node: Node) -> Sequence[Node | Symbolic]:
        """The local partial derivatives ∂node/∂input as graph nodes (or ZERO, ONE,
        MINUS_ONE), one per input."""
        raise RuleNotDefinedError(f"op {self.name!r} defines no partials")

    def infer_shape(self, shapes, attrs):
        first = shapes[0] if shapes else ()
        kind = first.__class__
        if kind is tuple or first is None:  # hot: inputs of one array shape, or all unknown
            for s in shapes:
                if s.__class__ is not kind or s != first:
                    break
            else:
                return first
        if any(isinstance(s, TupleShape) for s in shapes):
            raise ShapeError(
                f"{self.name} takes arrays, not tuple values (add tuple values "
                "with vz.add_n; read an element with vz.tuple_get)"
            )
        return broadcast_shapes(*shapes)

    def vjp(self, node: Node, adjoint: Node) -> list[Node | None]:
        return elementwise_vjp(self, node, adjoint, local_partials(self, node))[0]

    def jvp(self, node: Node, tangents: Sequence[Node | None]) -> Node | None:
        return elementwise_jvp(self, node, tangents, local_partials(self, node))


def local_partials(op: ElementwiseOp, node: Node) -> list[Node | Symbolic]:
    """The partials of elementwise ``op`` at ``node``, checked: one per input, each a Node or
    a Symbolic (plain 0, 1 and −1 are read as ZERO, ONE and MINUS_ONE)."""
    if op._builtin:  # vizad's own ops state their partials right
        return op.partials(node)
    result = list(op.partials(node))
    if len(result) != len(node.inputs):
        raise GraphError(
            f"partials of op {op.name!r} at {node._describe()} gave {len(result)} "
            f"partial(s) for {len(node.inputs)} input(s)"
        )
    for k, p in enumerate(result):
        if p.__class__ is Symbolic or isinstance(p, Node):
            continue
        if isinstance(p, (int, float)) and p in _SYMBOLIC:
            result[k] = _SYMBOLIC[p]
        else:
            raise GraphError(
                f"partials of op {op.name!r} at {node._describe()} gave a "
                f"{type(p).__name__} for input {k}; expected a Node or "
                "vz.ZERO / vz.ONE / vz.MINUS_ONE"
            )
    return result


def times(value: Node, partial: Node | Symbolic) -> Node | None:
    """value × partial: ONE gives an identity node (so that each partial adjoint is a node of
    its own), MINUS_ONE a negation, ZERO None (no contribution)."""
    if partial.__class__ is not Symbolic:  # a Node
        return _apply_builtin(_ops.mul, (value, partial))
    if partial == 0:
        return None
    return _apply_builtin(_ops.identity if partial == 1 else _ops.neg, (value,))


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
):
    """``(partial adjoints reduced to each input's shape, the unreduced ones where a
    sum_to_shape step was needed, else None)`` of an elementwise node; None for the inputs
    that ``needed`` (one flag per input) leaves out (their local partials are then never
    multiplied, so nothing checks their shapes)."""
    # every product first, then the reductions: the creation order (ids, drawings) stays
    if needed is None:
        raw = [times(adjoint, p) for p in partials]
    else:
        raw = [times(adjoint, p) if n else None for p, n in zip(partials, needed)]
    unreduced = [None] * len(raw)
    if not op.broadcasting:
        return raw, unreduced
    reduced = list(raw)
    for k, x in enumerate(node._inputs):  # a hot path of every reverse pass: one loop
        r = raw[k]
        if r is not None and not _has_output_shape(x, node):
            reduced[k] = _ops.sum_to_shape(r, reduce_target(x))
            unreduced[k] = r
    return reduced, unreduced


def elementwise_jvp(
    op: ElementwiseOp,
    node: Node,
    tangents: Sequence[Node | None],
    partials: Sequence[Node | Symbolic],
) -> Node | None:
    """v̇ = Σ v̇ᵢ ∂v/∂xᵢ over the inputs with a tangent, broadcast to the output's shape: v̇ᵢ
    alone (as an identity node) for a partial of 1, v̇ₐ ± v̇ᵦ for two partials of ±1."""
    terms = [(t, p) for t, p in zip(tangents, partials) if t is not None and p != 0]
    if not terms:
        return None
    if not op.broadcasting:  # add_n: values (tuple values too) of one shape
        if len(terms) == 1:
            return times(*terms[0])
        return _ops.add_n(*(t if p == 1 else times(t, p) for t, p in terms))
    if len(terms) == 1:
        total = times(*terms[0])
    elif len(terms) == 2 and all(p.__class__ is Symbolic for _, p in terms):
        (ta, pa), (tb, pb) = terms
        if pa == 1:
            total = _ops.add(ta, tb) if pb == 1 else _ops.sub(ta, tb)
        else:
            total = _ops.sub(tb, ta) if pb == 1 else _ops.neg(_ops.add(ta, tb))
    else:
        total = _ops.add_n(*(t if p == 1 else times(t, p) for t, p in terms))
    return broadcast_tangent(total, node, tangents)


def broadcast_tangent(total: Node, node: Node, tangents: Sequence[Node | None]) -> Node:
    """Broadcast a tangent to the shape of ``node`` unless it provably has it already: when
    every input has a tangent, or one input with a tangent provably has the output's shape."""
    if all(t is not None for t in tangents) or any(
        t is not None and _has_output_shape(x, node) for x, t in zip(node.inputs, tangents)
    ):
        return total
    return _ops.broadcast_to(total, reduce_target(node))


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


from . import ops as _ops  # noqa: E402
