"""The step records of a walkthrough: frozen, with documented fields (public API).

A reverse step is one node vᵢ in reverse topological order with its contributions
v̄ᵢ→ⱼ = v̄ⱼ ∂vⱼ/∂vᵢ (one per consumer edge) and its adjoint v̄ᵢ, their sum. A forward step is one
node in topological order with its tangent v̇ᵢ = Σ v̇ₖ ∂vᵢ/∂vₖ. Values are the engine's own,
read from evaluating the graph that reverse or forward mode built; each record also names the
node that computes each value, so that drawings can highlight it.

Records are named tuples: immutable, with named fields, and cheap to make by the ten thousand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple
from collections.abc import Iterator

import numpy as np

from vizad.errors import ArgumentTypeError, ReadOnlyError
from vizad.engine.node import Node
from vizad.trace.text import latex_shape

if TYPE_CHECKING:  # pragma: no cover
    from vizad.trace.names import Names

__all__ = [
    "Contribution",
    "ReverseStep",
    "ElementStep",
    "TangentTerm",
    "ForwardStep",
    "CheckFailure",
]


_LATER = object()  # a label or LaTeX field made from the walkthrough's names when first read


class Contribution:
    """What consumer vⱼ passes back to vᵢ: the partial adjoint v̄ᵢ→ⱼ = v̄ⱼ ∂vⱼ/∂vᵢ.

    Immutable, with the fields (and the order, ``_fields``, ``_asdict()``, iteration and
    equality) of a named tuple. A walkthrough sets the values and nodes when it is built and
    leaves the labels and LaTeX to be made from its names the first time they are read (a
    stepper shows one step at a time); made by hand, a contribution takes them all.

    Examples:
        >>> trace = vz.examples.lecture()
        >>> contribution = trace.steps[5].contributions[1]
        >>> contribution.consumer_label, contribution.local, contribution.partial
        ('v₄', array(2.), array(2.))
    """

    #: The fields, in order.
    _fields = (
        "consumer",
        "consumer_label",
        "consumer_symbol",
        "index",
        "local",
        "local_latex",
        "partial",
        "partial_latex",
        "partial_node",
        "local_node",
        "unreduced",
        "unreduced_node",
    )
    __slots__ = tuple(f"_{name}" for name in _fields) + ("_names",)
    # the slots' types (the names above, made from _fields, are not read by type checkers);
    # a label or LaTeX slot holds _LATER until it is first read
    _consumer: Node
    _consumer_label: Any
    _consumer_symbol: Any
    _index: int
    _local: Any
    _local_latex: Any
    _partial: Any
    _partial_latex: Any
    _partial_node: Node | None
    _local_node: Node | None
    _unreduced: Any
    _unreduced_node: Node | None
    _names: Names | None

    def __init__(
        self,
        consumer: Node,
        consumer_label: Any = _LATER,
        consumer_symbol: Any = _LATER,
        index: int = 0,
        local: Any = None,
        local_latex: Any = _LATER,
        partial: Any = None,
        partial_latex: Any = _LATER,
        partial_node: Node | None = None,
        local_node: Node | None = None,
        unreduced: Any = None,
        unreduced_node: Node | None = None,
        *,
        names: Names | None = None,
    ) -> None:
        given = (
            consumer,
            consumer_label,
            consumer_symbol,
            index,
            local,
            local_latex,
            partial,
            partial_latex,
            partial_node,
            local_node,
            unreduced,
            unreduced_node,
        )  # in the order of _fields
        if names is None:
            for name, value in zip(self._fields, given):
                if value is _LATER:
                    raise ArgumentTypeError(f"Contribution: {name} is missing (or give the names=)")
        for set_slot, value in zip(_SLOT_SETTERS, given):  # hot: a walkthrough makes many
            set_slot(self, value)
        _set_names(self, names)  # the walkthrough's names, for the texts

    def _made(self, field: str) -> Any:
        value = getattr(self, f"_{field}")
        if value is _LATER:  # all four texts at once: they share the consumer's arguments
            names, consumer, index = self._names, self._consumer, self._index
            assert names is not None  # (the constructor refuses _LATER without names)
            args, op, attrs = names.args(consumer), consumer.op, consumer.attrs
            texts = {
                "consumer_label": names.label(consumer),
                "consumer_symbol": names.symbol(consumer),
                "local_latex": op.partial_latex(args, attrs, index),
                "partial_latex": self._summed(
                    op.vjp_latex(args, names.bar(consumer).latex, attrs, index)
                ),
            }
            for name, text in texts.items():
                object.__setattr__(self, f"_{name}", text)
            value = texts[field]
        return value

    def _summed(self, latex: str | None) -> str | None:
        """The formula of v̄ᵢ→ⱼ: where broadcasting happened, the op's v̄ⱼ ∂vⱼ/∂vᵢ wrapped in
        the sum-to-shape step that made it (the value ``partial`` is the reduced one)."""
        if latex is None or self._unreduced_node is None:
            return latex
        target = latex_shape(np.shape(self._partial))
        return rf"\textstyle\sum_{{\to {target}}}\left({latex}\right)"

    #: vⱼ, the forward node that consumes vᵢ, its label ("v5") and its LaTeX ("v_{5}").
    @property
    def consumer(self) -> Node:
        return self._consumer

    @property
    def consumer_label(self) -> str:
        return self._made("consumer_label")

    @property
    def consumer_symbol(self) -> str:
        return self._made("consumer_symbol")

    #: The position of vᵢ among vⱼ's inputs (``v1 * v1`` gives two contributions).
    @property
    def index(self) -> int:
        return self._index

    #: ∂vⱼ/∂vᵢ: its value (None when the op gives only a vjp, as matmul does) and its LaTeX
    #: (``\cos v_{2}``; None when the op gives none).
    @property
    def local(self) -> Any:
        return self._local

    @property
    def local_latex(self) -> str | None:
        return self._made("local_latex")

    #: v̄ᵢ→ⱼ: its value, its LaTeX in terms of v̄ⱼ (``\bar{v}_{5} \cos v_{2}``; where
    #: broadcasting happened, wrapped in the sum-to-shape step, as the value is reduced), and
    #: the adjoint node that computes it.
    @property
    def partial(self) -> Any:
        return self._partial

    @property
    def partial_latex(self) -> str | None:
        return self._made("partial_latex")

    @property
    def partial_node(self) -> Node | None:
        return self._partial_node

    #: The node computing ∂vⱼ/∂vᵢ when it is a node of the adjoint graph, else None.
    @property
    def local_node(self) -> Node | None:
        return self._local_node

    #: Where broadcasting happened: v̄ⱼ ∂vⱼ/∂vᵢ before the sum-to-shape step reduced it to vᵢ's
    #: shape, and its node (``partial_node`` is then the sum_to_shape node); else None.
    @property
    def unreduced(self) -> Any:
        return self._unreduced

    @property
    def unreduced_node(self) -> Node | None:
        return self._unreduced_node

    @property
    def reduced(self) -> bool:
        """Whether a sum-to-shape step brought this partial adjoint back to vᵢ's shape."""
        return self._unreduced_node is not None

    def __setattr__(self, name: str, value: Any) -> None:
        raise ReadOnlyError(f"a Contribution is immutable: cannot set {name!r}")

    def __iter__(self) -> Iterator[Any]:
        return (getattr(self, name) for name in self._fields)

    def __len__(self) -> int:
        return len(self._fields)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (Contribution, tuple)):
            return tuple(self) == tuple(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def _asdict(self) -> dict[str, Any]:
        return dict(zip(self._fields, self))

    def _replace(self, **changes: Any) -> Contribution:
        return Contribution(**{**self._asdict(), **changes})

    def __reduce__(self) -> tuple[Any, tuple]:  # copy and deepcopy: the fields, texts made
        return _rebuilt_contribution, (tuple(self),)

    def __repr__(self) -> str:
        return (
            f"Contribution(consumer={self._consumer!r}, index={self._index}, "
            f"local={self._local!r}, partial={self._partial!r})"
        )


# the slots' own setters (the class refuses attribute assignment: it is immutable)
_SLOT_SETTERS = tuple(getattr(Contribution, f"_{name}").__set__ for name in Contribution._fields)
_set_names = vars(Contribution)["_names"].__set__  # (the slot's descriptor, not its type)


def _rebuilt_contribution(fields: tuple) -> Contribution:
    return Contribution(*fields)


class ReverseStep(NamedTuple):
    """One step of the reverse walkthrough: the adjoint v̄ᵢ of node vᵢ.

    Examples:
        >>> trace = vz.examples.lecture()
        >>> step = trace.steps[5]
        >>> step.label, step.value, step.adjoint
        ('v₂', array(5.), array(1.71633781))
    """

    #: Position in ``trace.steps`` (0-based; the step's number, as shown, is ``index + 1``).
    index: int  # type: ignore[assignment]  # (hides tuple.index: a public field's name)
    node: Node
    #: "v4", and its LaTeX "v_{4}".
    label: str
    symbol: str
    #: The definition's right-hand side in LaTeX (``v_{1} \times v_{2}``; a Variable's name).
    definition: str
    value: Any
    shape: Any
    #: The partial adjoints from each consumer, in walkthrough order; empty for the output.
    contributions: tuple[Contribution, ...]
    #: v̄ᵢ, the sum of the contributions (the seed for the output), and its node.
    adjoint: Any
    adjoint_node: Node

    @property
    def is_output(self) -> bool:
        return not self.contributions


class ElementStep(NamedTuple):
    """One step of an element walkthrough: one term added.

    Examples:
        >>> x, b = vz.Variable("x", shape=(3, 2)), vz.Variable("b", shape=(2,))
        >>> trace = vz.trace_reverse(vz.sum(x + b), [x, b], {x: np.ones((3, 2)), b: np.ones(2)})
        >>> step = trace.element(b, 0).steps[1]
        >>> step.label, step.term.label, step.adjoint
        ('v̄₂[0], term 2 of 3', 'v̄₃[1, 0]', array(2.))
    """

    #: Position in ``trace.steps`` (0-based; its number, as shown, is ``index + 1``).
    index: int  # type: ignore[assignment]  # (hides tuple.index: a public field's name)
    node: Node
    #: "v̄₃[1], term 2 of 4"
    label: str
    symbol: str
    definition: str
    #: The forward value of the node, and its shape.
    value: Any
    shape: Any
    #: The term this step adds, and the sum of the terms so far (the element's value at the
    #: last step: the engine's).
    term: Any
    adjoint: Any
    adjoint_node: Node
    #: The partial adjoint node the term is part of.
    partial_node: Node
    #: (reverse steps' table of contributions: an element walkthrough's are its terms)
    contributions: tuple = ()

    @property
    def is_output(self) -> bool:
        return False


class TangentTerm(NamedTuple):
    """One term v̇ₖ ∂vᵢ/∂vₖ of a tangent rule, for input k of the node.

    Examples:
        >>> step = vz.examples.lecture_forward().steps[3]
        >>> [(term.input_symbol, term.tangent, term.local) for term in step.terms]
        [('v_{1}', array(1.), array(5.)), ('v_{2}', array(0.), array(2.))]
    """

    input: Node
    input_symbol: str
    #: v̇ₖ (zeros when vₖ does not depend on the seeded inputs).
    tangent: Any
    #: ∂vᵢ/∂vₖ as a value and as LaTeX, when the op states it (elementwise ops).
    local: Any
    local_latex: str | None


class ForwardStep(NamedTuple):
    """One step of the forward walkthrough: the value vᵢ and tangent v̇ᵢ of a node.

    Examples:
        >>> step = vz.examples.lecture_forward().steps[3]
        >>> step.label, step.value, step.tangent
        ('v₄', array(10.), array(5.))
    """

    index: int  # type: ignore[assignment]  # (hides tuple.index: a public field's name)
    node: Node
    label: str
    symbol: str
    definition: str
    value: Any
    shape: Any
    #: v̇ᵢ (zeros when the node does not depend on the seeded inputs) and the node computing
    #: it (None when it is zero).
    tangent: Any
    tangent_node: Node | None
    #: The terms of v̇ᵢ = Σ v̇ₖ ∂vᵢ/∂vₖ, one per input; empty for inputs.
    terms: tuple[TangentTerm, ...]
    #: Whether the tangent was given (a seed) rather than computed.
    seeded: bool


class CheckFailure(NamedTuple):
    """A step whose op's rule disagrees with central differences of that op alone.

    Examples:
        >>> class Square(vz.Op):
        ...     def compute(self, x):
        ...         return x * x
        ...     def vjp(self, node, adjoint):
        ...         (x,) = node.inputs
        ...         return [adjoint * x]  # wrong: d(x²)/dx is 2x
        ...
        >>> x = vz.Variable("x")
        >>> trace = vz.trace_reverse(Square()(x), x, {x: 3.0})
        >>> (failure,) = trace.check()
        >>> type(failure).__name__, failure.label, failure.op
        ('CheckFailure', 'v₁', 'square')
    """

    #: The step number, 1 … n, as the stepper and the tables show it (``trace.steps[step - 1]``).
    step: int
    node: Node
    label: str
    op: str
    #: "vjp" or "jvp".
    rule: str
    #: The largest absolute difference from central differences.
    error: float
    message: str

    def __str__(self) -> str:
        return self.message
