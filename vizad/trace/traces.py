"""The trace objects: steps plus lookups, tables, derivations and checks."""

from __future__ import annotations

from typing import Any
from collections.abc import Iterator, Mapping

from ..errors import StepNotFoundError
from ..node import Node
from ..text import BAR, DOT, format_value, latex_to_text, marked, pretty_label
from .derivation import Derivation, forward_line, reverse_line
from .display import html_table, text_table
from ..reverse import AdjointRole
from .records import ForwardStep, ReverseStep

__all__ = ["ReverseTrace", "ForwardTrace"]


class _Trace:
    """Steps of a walkthrough with lookups and displays; subclasses say what a step shows."""

    kind = ""
    steps: tuple

    def __init__(
        self,
        output: Node,
        feed: Mapping[Node, Any],
        steps: tuple,
        record,
        values: Mapping[Node, Any],
        numbers: Mapping[Node, int],
        decimals: int,
    ):
        #: The node the walkthrough is about, the feed it was evaluated at, and its steps.
        self.output = output
        self.feed = dict(feed)
        self.steps = steps
        #: The Adjoints or Tangents record of the graph extension the values come from.
        self.record = record
        #: Every evaluated node's value (forward nodes and the nodes the extension added).
        self.values = values
        #: The display numbering v1 … vN.
        self.numbers = dict(numbers)
        self.decimals = decimals
        self._by_node = {step.node: step for step in steps}

    def __len__(self) -> int:
        return len(self.steps)

    def __iter__(self) -> Iterator:
        return iter(self.steps)

    def __getitem__(self, index: int):
        return self.steps[index]

    def step_of(self, node: Node):
        """The step of ``node`` (KeyError naming it when it has none)."""
        try:
            return self._by_node[node]
        except KeyError:
            raise StepNotFoundError(
                f"{node._describe()} has no step in this {self.kind} trace"
            ) from None

    def label(self, node: Node) -> str:
        """``v4`` for a numbered node."""
        return f"v{self.numbers[node]}"

    def derivation(self, decimals: int | None = None) -> Derivation:
        """The walkthrough as LaTeX lines in the lecture's style (rendered in Jupyter)."""
        d = self.decimals if decimals is None else decimals
        return Derivation([self._line(step, d) for step in self.steps])

    def table(self, decimals: int | None = None) -> tuple[list[str], list[list[str]]]:
        """The evaluation-trace table: a header and one row of plain text per step."""
        d = self.decimals if decimals is None else decimals
        return self._header(), [self._row(step, d) for step in self.steps]

    def check(
        self, eps: float = 1e-3, rtol: float | None = None, atol: float | None = None, seed: int = 0
    ) -> list:
        """Check every step's op alone: its vjp (and jvp, when defined) against central
        differences at the recorded input values, as :func:`vizad.gradcheck` does (a random
        cotangent, tolerances from the values' float type, kinks reported rather than failed).
        Returns the failures, each naming the node, the op and the error; an empty list when
        all pass."""
        from .check import check_trace

        return check_trace(self, eps=eps, rtol=rtol, atol=atol, seed=seed)

    def _repr_html_(self) -> str:
        header, rows = self.table()
        return html_table(self._title(), header, rows)

    def __repr__(self) -> str:
        header, rows = self.table()
        return self._title() + "\n" + text_table(header, rows)

    # subclasses
    def _title(self) -> str:
        raise NotImplementedError

    def _header(self) -> list[str]:
        raise NotImplementedError

    def _row(self, step, decimals: int) -> list[str]:
        raise NotImplementedError

    def _line(self, step, decimals: int) -> str:
        raise NotImplementedError


class ReverseTrace(_Trace):
    """The reverse-mode walkthrough (see :func:`vizad.trace_reverse`)."""

    kind = "reverse"
    steps: tuple[ReverseStep, ...]

    def __init__(self, output, wrt, feed, steps, record, values, numbers, decimals):
        super().__init__(output, feed, steps, record, values, numbers, decimals)
        #: The inputs the gradients are taken with respect to.
        self.wrt = tuple(wrt)

    def adjoint(self, node: Node) -> Any:
        """v̄ of forward node ``node`` (its value)."""
        return self.step_of(node).adjoint

    @property
    def gradients(self) -> list[Any]:
        """The gradient values, one per node of ``wrt``."""
        return [self.values[g] for g in self.record.gradients]

    def backprop(self) -> dict[Node, Any]:
        """The backprop view: each forward node with its adjoint value laid on it (how
        first-generation frameworks ran backward ops over the forward graph), in
        display order."""
        return {
            step.node: step.adjoint
            for step in sorted(self.steps, key=lambda s: self.numbers.get(s.node, 0))
        }

    def roles(self) -> dict[Node, tuple[AdjointRole, ...]]:
        """The extended-graph view: what each adjoint node computes (seed, sum, partial,
        unreduced partial, local partial)."""
        return self.record.roles()

    def _title(self) -> str:
        wrt = ", ".join(str(w) for w in self.wrt)
        return (
            f"Reverse trace of {self._label_or_name(self.output)} w.r.t. {wrt}: "
            f"{len(self.steps)} steps"
        )

    def _label_or_name(self, node):
        return pretty_label(self.label(node)) if node in self.numbers else str(node)

    def _header(self):
        return ["step", "vᵢ", "definition", "value", "partial adjoints v̄ᵢ→ⱼ", "v̄ᵢ"]

    def _row(self, step: ReverseStep, d: int) -> list[str]:
        bar = marked(step.label, BAR)
        parts = (
            ", ".join(
                pretty_label(f"{bar}→{c.consumer_label[1:]}") + f" = {format_value(c.partial, d)}"
                for c in step.contributions
            )
            or "seed"
        )
        return [
            str(step.index),
            pretty_label(step.label),
            latex_to_text(step.definition),
            format_value(step.value, d),
            parts,
            format_value(step.adjoint, d),
        ]

    def _line(self, step, d):
        return reverse_line(step, d)


class ForwardTrace(_Trace):
    """The forward-mode walkthrough (see :func:`vizad.trace_forward`)."""

    kind = "forward"
    steps: tuple[ForwardStep, ...]

    def __init__(self, output, seeds, feed, steps, record, values, numbers, decimals):
        super().__init__(output, feed, steps, record, values, numbers, decimals)
        #: The seeded inputs and their tangent nodes.
        self.seeds = dict(seeds)

    def tangent(self, node: Node) -> Any:
        """v̇ of ``node`` (its value; zeros when it does not depend on the seeds)."""
        return self.step_of(node).tangent

    def _title(self) -> str:
        seeds = ", ".join(
            f"{marked(str(s), DOT)} = {format_value(self.values[t], self.decimals)}"
            if t in self.values
            else str(s)
            for s, t in self.seeds.items()
        )
        what = (
            pretty_label(self.label(self.output))
            if self.output in self.numbers
            else str(self.output)
        )
        return f"Forward trace of {what} with {seeds}: {len(self.steps)} steps"

    def _header(self):
        return ["step", "vᵢ", "definition", "value", "tangent rule", "v̇ᵢ"]

    def _row(self, step: ForwardStep, d: int) -> list[str]:
        rule = latex_to_text(forward_line(step, d))
        return [
            str(step.index),
            pretty_label(step.label),
            latex_to_text(step.definition),
            format_value(step.value, d),
            rule,
            format_value(step.tangent, d),
        ]

    def _line(self, step, d):
        return forward_line(step, d)
