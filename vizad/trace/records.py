"""The step records of a walkthrough: frozen, with documented fields (public API).

A reverse step is one node vᵢ in reverse topological order with its contributions
v̄ᵢ→ⱼ = v̄ⱼ ∂vⱼ/∂vᵢ (one per consumer edge) and its adjoint v̄ᵢ, their sum. A forward step is one
node in topological order with its tangent v̇ᵢ = Σ v̇ₖ ∂vᵢ/∂vₖ. Values are the engine's own,
read from evaluating the graph that reverse or forward mode built; each record also names the
node that computes each value, so that drawings can highlight it.

Records are named tuples: immutable, with named fields, and cheap to make by the ten thousand.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..node import Node

__all__ = ["Contribution", "ReverseStep", "TangentTerm", "ForwardStep", "CheckFailure"]


class Contribution:
    """What consumer vⱼ passes back to vᵢ: the partial adjoint v̄ᵢ→ⱼ = v̄ⱼ ∂vⱼ/∂vᵢ.

    Values and nodes are set when the walkthrough is built; the labels and LaTeX are made
    the first time they are read (a stepper shows one step at a time) and then kept.
    """

    __slots__ = (
        "consumer",
        "index",
        "local",
        "partial",
        "partial_node",
        "local_node",
        "unreduced",
        "unreduced_node",
        "_names",
        "_text",
    )

    #: vⱼ, the forward node that consumes vᵢ.
    consumer: Node
    #: The position of vᵢ among vⱼ's inputs (``v1 * v1`` gives two contributions).
    index: int
    #: ∂vⱼ/∂vᵢ: its value (None when the op gives only a vjp, as matmul does).
    local: Any
    #: v̄ᵢ→ⱼ: its value and the adjoint node that computes it.
    partial: Any
    partial_node: Node
    #: The node computing ∂vⱼ/∂vᵢ when it is a node of the adjoint graph, else None.
    local_node: Node | None
    #: Where broadcasting happened: v̄ⱼ ∂vⱼ/∂vᵢ before the sum-to-shape step reduced it to vᵢ's
    #: shape, and its node (``partial_node`` is then the sum_to_shape node); else None.
    unreduced: Any
    unreduced_node: Node | None

    #: The public fields, as a named tuple lists them.
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

    def __init__(
        self,
        consumer: Node,
        index: int,
        local: Any,
        partial: Any,
        partial_node: Node,
        local_node: Node | None = None,
        unreduced: Any = None,
        unreduced_node: Node | None = None,
        *,
        names: Any,
    ):
        init = object.__setattr__  # the record is immutable (see __setattr__)
        init(self, "consumer", consumer)
        init(self, "index", index)
        init(self, "local", local)
        init(self, "partial", partial)
        init(self, "partial_node", partial_node)
        init(self, "local_node", local_node)
        init(self, "unreduced", unreduced)
        init(self, "unreduced_node", unreduced_node)
        init(self, "_names", names)  # the walkthrough's names, for the labels and LaTeX
        init(self, "_text", None)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a Contribution is immutable: cannot set {name!r}")

    def __reduce__(self):  # copy and deepcopy rebuild it through __init__
        fields = (
            self.consumer,
            self.index,
            self.local,
            self.partial,
            self.partial_node,
            self.local_node,
            self.unreduced,
            self.unreduced_node,
        )
        return _rebuilt_contribution, (fields, self._names)

    def _texts(self) -> tuple:
        if self._text is None:
            names, consumer = self._names, self.consumer
            args, op, attrs = names.args(consumer), consumer.op, consumer.attrs
            text = (
                names.label(consumer),
                names.symbol(consumer),
                op.partial_latex(args, attrs, self.index),
                op.vjp_latex(args, names.bar(consumer).latex, attrs, self.index),
            )
            object.__setattr__(self, "_text", text)
        return self._text

    @property
    def consumer_label(self) -> str:
        """vⱼ's label ("v5")."""
        return self._texts()[0]

    @property
    def consumer_symbol(self) -> str:
        """vⱼ's LaTeX ("v_{5}")."""
        return self._texts()[1]

    @property
    def local_latex(self) -> str | None:
        """∂vⱼ/∂vᵢ in LaTeX (``\\cos v_{2}``); None when the op gives none."""
        return self._texts()[2]

    @property
    def partial_latex(self) -> str | None:
        """v̄ᵢ→ⱼ in LaTeX in terms of v̄ⱼ (``\\bar{v}_{5} \\cos v_{2}``); None when the op
        gives none."""
        return self._texts()[3]

    @property
    def reduced(self) -> bool:
        """Whether a sum-to-shape step brought this partial adjoint back to vᵢ's shape."""
        return self.unreduced_node is not None

    def __repr__(self) -> str:
        return (
            f"Contribution(consumer={self.consumer!r}, index={self.index}, "
            f"local={self.local!r}, partial={self.partial!r})"
        )


def _rebuilt_contribution(fields: tuple, names: Any) -> Contribution:
    return Contribution(*fields, names=names)


class ReverseStep(NamedTuple):
    """One step of the reverse walkthrough: the adjoint v̄ᵢ of node vᵢ."""

    #: Position in ``trace.steps`` (0-based; the step's number, as shown, is ``index + 1``).
    index: int
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


class TangentTerm(NamedTuple):
    """One term v̇ₖ ∂vᵢ/∂vₖ of a tangent rule, for input k of the node."""

    input: Node
    input_symbol: str
    #: v̇ₖ (zeros when vₖ does not depend on the seeded inputs).
    tangent: Any
    #: ∂vᵢ/∂vₖ as a value and as LaTeX, when the op states it (elementwise ops).
    local: Any
    local_latex: str | None


class ForwardStep(NamedTuple):
    """One step of the forward walkthrough: the value vᵢ and tangent v̇ᵢ of a node."""

    index: int
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
    """A step whose op's rule disagrees with central differences of that op alone."""

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
