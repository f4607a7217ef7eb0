"""The steps of a replayed reverse pass (:mod:`.replay`, :mod:`.micrograd_replay`): each
step of the student's walk, the lecture's order beside it with the right adjoints, the causes
in words, and how the replay shows as text and HTML."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vizad.trace.text import escape
from vizad.classroom.diagnosis.checker import Checker, bar
from vizad.classroom.diagnosis.hints import close, exc_text, shown

__all__ = ["Step", "Replay", "causes", "differs", "right_adjoints", "right_order", "value_text"]


@dataclass
class Step:
    """One step of the student's reverse pass: the node visited and what it did."""

    #: 1-based place in the student's order.
    k: int
    #: The node's label (vₖ) and what it is (``SinOp(v₂)``).
    label: str
    defined: str
    #: The adjoint the step used (the student's ``output_grad`` / ``grad`` at the call).
    used: Any
    #: The right adjoint (seed v̄ = 1; None when it could not be had).
    right: Any
    #: The partial adjoints the node's list held at the call: (name, value) (None: unknown).
    listed: list[tuple[str, Any]] | None
    #: What the step gave its inputs: (name v̄ᵢ→ⱼ, value).
    gave: list[tuple[str, Any]] = field(default_factory=list)
    #: What is wrong at this step, in words (empty when nothing is).
    marks: list[str] = field(default_factory=list)
    #: The node's op (its class; micrograd's _op text).
    op: str = ""

    @property
    def wrong(self) -> bool:
        return bool(self.marks)


@dataclass
class Replay:
    """The student's reverse pass step by step beside the lecture's order."""

    style: str
    steps: list[Step]
    #: The lecture's order: (label, right adjoint), v̄ₙ first.
    right: list[tuple[str, Any]]
    #: The causes found, in words (empty when the walk is right).
    causes: list[str]
    #: The first step that used an adjoint before all its partial adjoints arrived (or that
    #: lost one): its k, else None.
    first_wrong: int | None
    #: What the student's code returned or set: (label, value) per node asked for.
    final: list[tuple[str, Any]] = field(default_factory=list)
    #: Said when the recording is partial (the student's code raised …).
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.causes

    def rows(self) -> list[tuple[str, str, str, str]]:
        """One row a step: (yours, its adjoint, the lecture's step, its adjoint), as text."""
        out = []
        for k in range(max(len(self.steps), len(self.right))):
            mine = self.steps[k] if k < len(self.steps) else None
            right = self.right[k] if k < len(self.right) else None
            out.append(
                (
                    f"{mine.k}. {mine.label}" + (" ⚠" if mine.wrong else "") if mine else "",
                    f"{bar(mine.label)} = {value_text(mine.used)}"
                    + (" ✗" if differs(mine.used, mine.right) else "")
                    if mine
                    else "",
                    f"{k + 1}. {right[0]}" if right else "",
                    f"{bar(right[0])} = {value_text(right[1])}" if right else "",
                )
            )
        return out

    def __repr__(self) -> str:
        head = f"replay of a {self.style}-style reverse pass: {len(self.steps)} step(s)"
        lines = [head + ("; the walk is right" if self.ok else "")]
        lines += [f"  cause: {c}" for c in self.causes]
        width = max([len(r[0]) + len(r[1]) for r in self.rows()] + [10]) + 3
        lines.append(f"  {'yours':<{width}}the lecture's order")
        for (a, b, c, d), step in zip(self.rows(), [*self.steps, *[None] * len(self.right)]):
            lines.append(f"  {(a + '  ' + b):<{width}}{c}  {d}".rstrip())
            if step is not None:
                lines += [f"      ⚠ {m}" for m in step.marks]
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        colour = "#009E73" if self.ok else "#c0392b"
        rows = []
        for (a, b, c, d), k in zip(self.rows(), range(len(self.rows()))):
            step = self.steps[k] if k < len(self.steps) else None
            marks = "".join(f"<div>⚠ {escape(m)}</div>" for m in (step.marks if step else []))
            style = " style='background:#fdecea'" if step is not None and step.wrong else ""
            rows.append(
                f"<tr{style}><td>{escape(a)}</td><td>{escape(b)}{marks}</td>"
                f"<td>{escape(c)}</td><td>{escape(d)}</td></tr>"
            )
        causes = "".join(f"<li>{escape(c)}</li>" for c in self.causes)
        notes = "".join(f"<li>{escape(n)}</li>" for n in self.notes)
        return (
            f"<div class='vizad-replay mathjax_ignore tex2jax_ignore' "
            f"style='border-left:4px solid {colour};padding-left:8px'>"
            f"<b>your reverse pass</b> ({escape(self.style)} style), step by step beside the "
            f"lecture's order<ul>{causes}</ul><table><tr><th>yours</th><th>adjoint used</th>"
            f"<th>the lecture's order</th><th>right adjoint</th></tr>{''.join(rows)}</table>"
            f"<ul>{notes}</ul></div>"
        )


def value_text(value) -> str:
    if value is None:
        return "?"
    if isinstance(value, BaseException):
        return f"raised {exc_text(value)}"
    return shown(np.asarray(value, dtype=float))


#: Graphs of more nodes than this are replayed without the right adjoints (each is central
#: differences of the graph downstream of its node).
RIGHT_UP_TO = 200


def right_adjoints(checker: Checker) -> dict[int, Any]:
    """The right adjoint of each node (seed v̄ = 1), by id; none for a large graph."""
    if len(checker.graph) > RIGHT_UP_TO:
        return {}
    return {id(n): checker.adjoint(n) for n in checker.graph}


def right_order(checker: Checker, adjoints: dict[int, Any]) -> list[tuple[str, Any]]:
    """The lecture's reverse order (v̄ₙ … v̄₁) with each right adjoint: by the numbering,
    highest first (a micrograd label is ordered by its place)."""
    position = {id(n): k for k, n in enumerate(checker.graph)}
    numbers = checker.numbers
    ranked = sorted(checker.graph, key=lambda n: -numbers.get(id(n), position[id(n)]))
    return [(checker.label(n), adjoints.get(id(n))) for n in ranked]


def causes(steps: list[Step]) -> list[str]:
    """The causes, in words, from the steps' marks (each kind once, its first step)."""
    out = []
    kinds = (
        ("before all its partial adjoints", "the walk is not in reverse topological order: "
         "a node's adjoint is used before every node that reads it has given its partial "
         "adjoint (visit a node only once every node that reads it has been visited: "
         "reversed(find_topo_sort(...)), reversed(topo) in micrograd's backward())"),
        ("replaced, not appended", "a partial adjoint replaces the ones before it (= where "
         "they must be added: append to the list, or +=)"),
        ("visited again", "a node is visited more than once (a recursion per path, or a node "
         "listed twice): each node's rule must run once, after its adjoint is complete"),
        ("lost what it held", "a rule sets its inputs' grads (=) where it must add to them "
         "(+=): a node read twice keeps only one of its partial adjoints"),
    )  # fmt: skip
    for words, cause in kinds:
        first = next((s for s in steps for m in s.marks if words in m), None)
        if first is not None:
            out.append(f"{cause} — first at step {first.k} ({first.label})")
    return out


def differs(a, b) -> bool:
    """Whether two adjoints differ beyond round-off (unknown ones never do)."""
    if a is None or b is None or isinstance(a, BaseException) or isinstance(b, BaseException):
        return False
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    scale = max(1.0, float(np.max(np.abs(b), initial=0.0)))
    return a.shape != b.shape or not close(a, b, scale)
