"""The lecture-style derivation lines of a walkthrough, in LaTeX.

Reverse:  v̄2 = v̄5 ∂v5/∂v2 + v̄4 ∂v4/∂v2 = v̄5 cos v2 + v̄4 v1 = −0.284 + 2 = 1.716
Forward:  v̇4 = v̇1 v2 + v̇2 v1 = 1 × 5 + 0 × 2 = 5
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from collections.abc import Sequence


from vizad.engine.op import latex_product
from vizad.trace.text import latex_to_text, latex_value
from vizad.trace.records import ForwardStep, ReverseStep

if TYPE_CHECKING:  # pragma: no cover
    from vizad.trace.names import Names

__all__ = ["Derivation", "reverse_line", "forward_line", "tangent_rule", "fewer", "MANY_TERMS"]

#: A sum of more terms than this (the partial adjoints of a weight shared by every time step
#: of a recurrence) is written Σₜ v̄ᵢ→ₜ, with its first terms, "… (n more terms)" and its last.
MANY_TERMS = 6
#: How many of its first terms a long sum shows (and its last one).
FIRST_TERMS = 3


def fewer(terms: Sequence[str], text: bool = False) -> list[str]:
    """``terms`` of a sum, or for more than MANY_TERMS of them, the first FIRST_TERMS,
    "… (n more terms)" and the last (LaTeX, or plain text with ``text=True``)."""
    if len(terms) <= MANY_TERMS:
        return list(terms)
    n = len(terms) - FIRST_TERMS - 1
    more = f"… ({n} more terms)" if text else rf"\ldots\text{{ ({n} more terms) }}"
    return [*terms[:FIRST_TERMS], more, terms[-1]]


class Derivation:
    """LaTeX lines shown as rendered maths in Jupyter; ``str()`` gives plain text.

    Examples:
        >>> trace = vz.examples.lecture()
        >>> derivation = trace.derivation()
        >>> type(derivation).__name__
        'Derivation'
        >>> print(str(derivation).splitlines()[0])
        v̄₇ = ∂y/∂v₇ = 1
    """

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = list(lines)

    def latex(self) -> str:
        body = r" \\ ".join(_align(line) for line in self.lines)
        return r"\begin{aligned}" + body + r"\end{aligned}"

    def _repr_latex_(self) -> str:
        return "$$" + self.latex() + "$$"

    def to_latex(self) -> str:
        """The lines as a LaTeX ``align*`` environment (amsmath), aligned at their first
        "=", for slides and handouts."""
        body = " \\\\\n".join("  " + _align(line) for line in self.lines)
        return "\\begin{align*}\n" + body + "\n\\end{align*}\n"

    def __str__(self) -> str:
        return "\n".join(latex_to_text(line) for line in self.lines)

    def __repr__(self) -> str:
        return str(self)

    def __len__(self) -> int:
        return len(self.lines)

    def __getitem__(self, k: int) -> str:
        return self.lines[k]


def _align(line: str) -> str:
    """Align the lines on their first '='."""
    return line.replace(" = ", " &= ", 1)


def _join(terms: Sequence[str]) -> str:
    """``a + b - c`` from terms that may start with a minus sign."""
    out = ""
    for k, term in enumerate(terms):
        term = term.strip()
        if k == 0:
            out = term
        elif term.startswith("-"):
            out += " - " + term[1:].lstrip()
        else:
            out += " + " + term
    return out


def reverse_line(step: ReverseStep, names: Names, decimals: int = 3) -> str:
    """The derivation of one reverse step's adjoint (``names``: the trace's Names)."""
    lhs = names.bar(step.node).latex
    total = latex_value(step.adjoint, decimals)
    if step.is_output:
        return rf"{lhs} = \frac{{\partial y}}{{\partial {step.symbol}}} = {total}"
    i = step.symbol
    parts = [lhs]
    if len(step.contributions) > MANY_TERMS:  # v̄ᵢ = Σₜ v̄ᵢ→ₜ, one term per use
        parts.append(names.partial_sum(step.node).latex)
    parts.append(
        _join(
            fewer(
                [
                    rf"{names.bar(c.consumer).latex} \frac{{\partial {c.consumer_symbol}}}"
                    rf"{{\partial {i}}}"
                    for c in step.contributions
                ]
            )
        )
    )
    formulas = [c.partial_latex for c in step.contributions]
    known = [f for f in formulas if f is not None]
    if len(known) == len(formulas):  # every op states its partial adjoint's formula
        parts.append(_join(fewer(known)))
    if len(step.contributions) > 1:
        parts.append(_join(fewer([latex_value(c.partial, decimals) for c in step.contributions])))
    parts.append(total)
    return " = ".join(_dedupe(parts))


def _dedupe(parts: list[str]) -> list[str]:
    out: list[str] = []
    for part in parts:
        if not out or part != out[-1]:
            out.append(part)
    return out


def forward_line(step: ForwardStep, names: Names, decimals: int = 3) -> str:
    """The tangent rule of one forward step, with symbols and then numbers."""
    lhs = names.dot(step.node).latex
    total = latex_value(step.tangent, decimals)
    if step.seeded or not step.terms:
        return f"{lhs} = {total}"
    parts = [lhs]
    rule = tangent_rule(step, names)
    if rule is not None:
        parts.append(rule)
        if all(t.local is not None for t in step.terms):
            parts.append(
                _join(
                    [
                        _number_product(t.tangent, t.local, decimals)
                        for t in step.terms
                        if t.local_latex != "0"
                    ]
                )
                or "0"
            )
    parts.append(total)
    return " = ".join(_dedupe(parts))


def tangent_rule(step: ForwardStep, names: Names) -> str | None:
    """Σₖ v̇ₖ ∂vᵢ/∂vₖ in LaTeX (zero tangents included, as the walkthrough shows them); None
    when the op states no local partials."""
    if step.seeded or not step.terms:
        return None
    known = [(t.input, t.local_latex) for t in step.terms if t.local_latex is not None]
    if len(known) < len(step.terms):  # the op states no local partials
        return None
    terms = [latex_product(names.dot(x).latex, local) for x, local in known if local != "0"]
    return _join(terms) or "0"


def _number_product(tangent: Any, local: Any, decimals: int) -> str:
    t = latex_value(tangent, decimals)
    if isinstance(local, (int, float)) and not isinstance(local, bool):
        if local == 1:
            return t
        if local == -1:
            return "-" + t if not t.startswith("-") else t[1:]
    return rf"{t} \times {latex_value(local, decimals)}"
