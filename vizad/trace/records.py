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


class Contribution(NamedTuple):
    """What consumer vⱼ passes back to vᵢ: the partial adjoint v̄ᵢ→ⱼ = v̄ⱼ ∂vⱼ/∂vᵢ."""

    #: vⱼ, the forward node that consumes vᵢ, its label ("v5") and its LaTeX ("v_{5}").
    consumer: Node
    consumer_label: str
    consumer_symbol: str
    #: The position of vᵢ among vⱼ's inputs (``v1 * v1`` gives two contributions).
    index: int
    #: ∂vⱼ/∂vᵢ: its value (None when the op gives only a vjp, as matmul does) and its LaTeX
    #: (``\cos v_{2}``; None when the op gives none).
    local: Any
    local_latex: str | None
    #: v̄ᵢ→ⱼ: its value, its LaTeX in terms of v̄ⱼ (``\bar{v}_{5} \cos v_{2}``), and the adjoint
    #: node that computes it.
    partial: Any
    partial_latex: str | None
    partial_node: Node
    #: The node computing ∂vⱼ/∂vᵢ when it is a node of the adjoint graph, else None.
    local_node: Node | None = None
    #: Where broadcasting happened: v̄ⱼ ∂vⱼ/∂vᵢ before the sum-to-shape step reduced it to vᵢ's
    #: shape, and its node (``partial_node`` is then the sum_to_shape node); else None.
    unreduced: Any = None
    unreduced_node: Node | None = None

    @property
    def reduced(self) -> bool:
        """Whether a sum-to-shape step brought this partial adjoint back to vᵢ's shape."""
        return self.unreduced_node is not None


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
