"""The report of :func:`vizad.diagnose`: each :class:`Problem` found in a student's engine, and
the :class:`Diagnosis` that lists them, as text and as HTML for a notebook."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from vizad.trace.text import escape as escape_html

__all__ = ["Diagnosis", "Problem", "grouped"]


@dataclass
class Problem:
    """One thing wrong in the student's engine (at one node, or at every node of one op where
    the same thing is wrong: ``nodes``)."""

    #: "compute" (an op's compute raised, or computes another op than its name says), "rule"
    #: (an op's gradient rule disagrees with central differences, or raised), "accumulate"
    #: (a rule assigns its inputs' gradients instead of adding to them), "topo_sort",
    #: "gradient" (a final gradient is wrong although every rule is right: how the partial
    #: adjoints are summed, or the order they are walked in), "unchecked" (a check that could
    #: not run: what is missing, and how to make it run).
    kind: str
    #: The node's name (its label, or its place in the graph).
    node: str
    #: The op's class (or micrograd's _op text).
    op: str
    #: The input whose gradient is wrong (None when not about one input).
    input: int | None
    expected: Any
    got: Any
    hint: str
    message: str
    #: ``file:line`` of the student's code at fault ("" when unknown).
    where: str = ""
    #: Every node where this problem was found, ``node`` first (problems of one op, kind,
    #: input and hint are reported once).
    nodes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.nodes:
            self.nodes = [self.node]

    def __str__(self) -> str:
        return self.message


def grouped(problems: list[Problem]) -> list[Problem]:
    """``problems`` with those of one kind, op, input and hint made one, listing its nodes
    (a rule wrong at every neuron of an MLP is one problem, not 256)."""
    first: dict[tuple, Problem] = {}
    for k, p in enumerate(problems):
        if p.kind in ("rule", "accumulate", "compute", "unchecked"):
            key: tuple = (p.kind, p.op, p.input, p.hint)
        elif p.kind == "gradient" and p.input is not None:  # one cause, several inputs
            key = (p.kind, p.op, p.hint)
        else:
            key = (k,)
        if key in first:
            first[key].nodes.append(p.node)
        else:
            first[key] = p
    out = []
    for p in first.values():
        if len(p.nodes) > 1:
            shown = ", ".join(p.nodes[1:4]) + (", …" if len(p.nodes) > 4 else "")
            if p.kind == "gradient":
                p.message += f" (the same for {shown})"
            else:
                p.message += f" (the same at {len(p.nodes) - 1} more {p.op} node(s): {shown})"
        out.append(p)
    return out


@dataclass
class Diagnosis:
    """The report of :func:`diagnose`: ``ok`` when nothing is wrong, else ``problems`` (the
    first is the first wrong thing in reverse topological order).

    Examples:
        >>> from vizad.classroom.courses.micrograd.engine import Value
        >>> a, b = Value(2.0, label="a"), Value(-3.0, label="b")
        >>> L = (a * b + a).tanh()
        >>> report = vz.diagnose(L, [a, b])
        >>> type(report).__name__, report.ok, report.problems
        ('Diagnosis', True, [])
    """

    style: str
    problems: list[Problem]
    rules_checked: int
    notes: list[str] = field(default_factory=list)
    _graph: Any = field(default=None, repr=False)
    #: What the vₖ named in the problems stand for (``v₅ = SinOp(v₂)``): the lecture's
    #: numbering of the graph, inputs first, then by depth, as the stepper numbers it.
    legend: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def first(self) -> Problem | None:
        return self.problems[0] if self.problems else None

    def __repr__(self) -> str:
        head = f"diagnosis of a {self.style}-style engine: {self.rules_checked} op rules checked"
        if self.ok:
            lines = [head + "; nothing wrong"]
        else:
            lines = [head + f"; {len(self.problems)} problem(s):"]
            lines += [f"  {k}. {p.message}" for k, p in enumerate(self.problems, 1)]
        lines += [f"  note: {n}" for n in self.notes]
        if self.legend:
            lines.append(f"  where {', '.join(self.legend)}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        colour = "#009E73" if self.ok else "#c0392b"
        title = "nothing wrong" if self.ok else f"{len(self.problems)} problem(s)"
        rows = "".join(
            f"<li><b>{escape_html(p.kind)}</b> at <code>{escape_html(p.node)}</code> "
            f"({escape_html(p.op)}): {escape_html(p.message)}</li>"
            for p in self.problems
        )
        notes = "".join(f"<li>{escape_html(n)}</li>" for n in self.notes)
        if self.legend:
            notes = f"<li>where {escape_html(', '.join(self.legend))}</li>" + notes
        return (
            f'<div class="vizad-diagnosis mathjax_ignore tex2jax_ignore" '
            f'style="border-left:4px solid {colour};padding-left:8px">'
            f"<b>vz.diagnose</b> ({escape_html(self.style)} style, {self.rules_checked} op "
            f"rules checked): <span style='color:{colour}'>{title}</span>"
            f"<ol>{rows}</ol><ul>{notes}</ul></div>"
        )

    def step(self):
        """The stepper on the student's graph, run by the student's own compute and gradient
        rules (every style: vizad.classroom.courses's adapters read it): a wrong rule's step is red.
        A rule that raises, or gives a gradient of the wrong shape, does not stop it: its step
        is red with the error and the shapes, and zeros stand in for what it owed. It is
        ``vz.step`` on the graph's tolerant trace (the widget stack loads when a stepper is
        asked for, not with the report). It opens at the first red step, the one to look at;
        with nothing red, at step 1."""
        from vizad.trace.build import trace_reverse_tolerant
        from vizad.view.widget import step

        y, wrt, feed = self._graph
        stepper = step(trace_reverse_tolerant(y, wrt, feed))
        if stepper.failures:
            stepper.step = min(stepper.failures) + 1
        return stepper
