"""The trace classes: a walkthrough's steps with their lookups, tables, derivations and
checks, for reverse and forward mode."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

import numpy as np

from vizad.errors import ArgumentError, ArgumentTypeError, StepNotFoundError
from vizad.engine.node import Node
from vizad.engine.extension import AdjointRole
from vizad.trace.text import format_value, latex_to_text, latex_value, printable
from vizad.engine.tree import Unrecorded, leaves
from vizad.trace.derivation import Derivation, forward_line, reverse_line
from vizad.trace.lazy import Once, Steps
from vizad.trace.display import ValuesTable, html_table, text_table
from vizad.trace.names import Name, Names
from vizad.trace.element import (
    LINE_TERMS,
    PANEL_ROWS,
    ElementPart,
    Term,
    element_parts,
    index_text,
    same_bits,
    summed_in,
)
from vizad.trace.records import CheckFailure, ElementStep, ForwardStep, ReverseStep
from vizad.trace.values import value_data

if TYPE_CHECKING:  # pragma: no cover
    from vizad.trace.memory import Memory

__all__ = ["Trace", "ReverseTrace", "ForwardTrace", "ElementTrace"]


class Trace(ABC):
    """Steps of a walkthrough with lookups and displays; subclasses say what a step shows.

    Examples:
        >>> trace = vz.examples.lecture()
        >>> isinstance(trace, vz.trace.Trace), trace.views
        (True, ('forward', 'adjoint', 'backprop'))
        >>> trace.label(trace.output), len(trace.steps)
        ('v₇', 7)
    """

    kind = ""
    #: The steps (a :class:`Steps` whose records are made when first read, or a sequence).
    steps: Sequence[Any]

    def __init__(
        self,
        output: Node,
        feed: Mapping[Node, Any],
        steps: Sequence,
        record: Any,
        values: Mapping[Node, Any],
        names: Names | Once,
        graph: list[Node],
        extension: list[Node] | Once,
        decimals: int,
    ) -> None:
        #: The node the walkthrough is about, the feed it was evaluated at, and its steps.
        self.output = output
        self.feed = dict(feed)
        self.steps = steps
        #: The Adjoints or Tangents record of the graph extension the values come from.
        self.record = record
        #: Every evaluated node's value (forward nodes and the nodes the extension added).
        self.values = values
        self._names = names if isinstance(names, Once) else Once.ready(names)
        #: The forward graph in display order, and the extension nodes that compute the
        #: walkthrough's results (what the extended view draws).
        self.graph = graph
        self._extension = extension if isinstance(extension, Once) else Once.ready(extension)
        self.decimals = decimals
        nodes = steps.nodes if isinstance(steps, Steps) else [s.node for s in steps]
        self._by_node = {node: k for k, node in enumerate(nodes)}

    @property
    def extension(self) -> list[Node]:
        """The extension nodes that compute the walkthrough's results, in the order they were
        built: what the extended view draws (listed when first used)."""
        return self._extension.get()

    @property
    def names(self) -> Names:
        """The names of every node (v₄, v̄₃→₅, ∂v₅/∂v₂, v̇₃): one naming for every view (made
        when first used)."""
        return self._names.get()

    def __len__(self) -> int:
        return len(self.steps)

    def __iter__(self) -> Iterator:
        return iter(self.steps)

    def __getitem__(self, number: int) -> Any:
        """Step ``number``, as the stepper, drawings, tables and check() number them: 1 … n
        (``trace[1]`` is the first step; -1 the last). ``trace.steps`` is the plain sequence
        (``trace.steps[0]`` is the first step)."""
        return self.steps[self.index(number)]

    def index(self, number: int) -> int:
        """The 0-based index into ``steps`` of step ``number``: steps are numbered 1 … n as
        the stepper, drawings, tables and check() show them (-1 is the last)."""
        n = len(self.steps)
        if isinstance(number, bool) or not isinstance(number, int):
            raise ArgumentTypeError(
                f"a step number is an int from 1 to {n}, got {type(number).__name__} {number!r:.20}"
            )
        if 1 <= number <= n:
            return number - 1
        if -n <= number <= -1:
            return n + number
        raise StepNotFoundError(
            f"step {number} is out of range: steps are numbered 1 … {n}; give one of them"
            + (" (step 0 does not exist: the first step is 1)" if number == 0 else "")
        )

    def step_of(self, node: Node) -> Any:
        """The step of ``node`` (KeyError naming it when it has none)."""
        try:
            return self.steps[self._by_node[node]]
        except KeyError:
            raise StepNotFoundError(
                f"{node.describe()} has no step in this {self.kind} trace: it is not in the "
                "graph traced, or nothing is differentiated through it; give a node of "
                "trace.steps"
            ) from None

    def first_nonfinite(self) -> Any:
        """The step where a NaN or infinite number first appears, or None when every value
        is finite — what PyTorch's anomaly mode finds, on the graph: first the forward values
        in the order they are computed (the node that made the first NaN), then the step's
        results (adjoints or tangents) in the order the walkthrough computes them."""
        by_number = sorted(self.steps, key=lambda s: (self.numbers.get(s.node, 0), s.index))
        for step in by_number:
            value = self.values.get(step.node) if step.node in self.values else None
            if value is not None and not _finite(value):
                return step
        for step in self.steps:
            result = getattr(step, "adjoint", None)
            if result is None:
                result = getattr(step, "tangent", None)
            if result is not None and not _finite(result):
                return step
        return None

    @property
    def numbers(self) -> dict[Node, int]:
        """The display numbering: k of each forward node vₖ."""
        return self.names.numbers

    def label(self, node: Node) -> str:
        """The name of any node of the trace: ``v₄``, ``v̄₃→₅``, a constant's value."""
        return self.names.label(node)

    # -- what differs between the modes, as data and methods (views, marks, highlights) ---
    #: "reverse" or "forward".
    mode = ""
    #: The engine whose pass was recorded ("PyTorch"); None for vizad's own.
    engine: str | None = None

    @property
    def computed_by(self) -> str:
        """What computed the walkthrough, as titles say it: "reverse mode", "forward mode",
        "PyTorch's backward pass"."""
        return f"{self.engine}'s backward pass" if self.engine else f"{self.mode} mode"

    #: The views of this trace: the forward graph, the graph extended with the mode's nodes,
    #: and the mode's results laid on the forward graph; the last two's descriptions.
    views: tuple[str, ...] = ()
    view_titles: dict[str, str] = {}
    #: The other mode's names of the views, by this mode's name (only for the error that
    #: says what a view is called here: one name per view).
    views_elsewhere: dict[str, str] = {}

    @property
    def extended_view(self) -> str:
        return self.views[1]

    @property
    def laid_view(self) -> str:
        return self.views[2]

    def view(self, view: str | None) -> str:
        """``view`` as one of :attr:`views` (None: the extended view); ArgumentError listing
        the views otherwise."""
        if view is None:
            return self.extended_view
        if view not in self.views:
            here = self.views_elsewhere.get(view)
            hint = f" ({view!r} is the other mode's name: here it is {here!r})" if here else ""
            raise ArgumentError(
                f"a {self.mode} trace has the views {', '.join(map(repr, self.views))}; "
                f"got {view!r}{hint}: give one of them"
            )
        return view

    @abstractmethod
    def result(self, step: Any) -> Any:
        """The value a step computes: v̄ᵢ (reverse) or v̇ᵢ (forward)."""
        ...

    @abstractmethod
    def result_name(self, node: Node) -> Name:
        """The name of what a step computes for ``node``: v̄ᵢ or v̇ᵢ."""
        ...

    @abstractmethod
    def neighbours(self, step: Any) -> list[Node]:
        """The forward nodes a step reads: the consumers whose partial adjoints it sums
        (reverse), the inputs whose tangents it combines (forward)."""
        ...

    @abstractmethod
    def involved(self, step: Any) -> list[Node]:
        """The extension nodes that compute a step's values."""
        ...

    def describe(self) -> str:
        """A one-line title: what is traced, the mode, the number of steps."""
        return self._title()

    def line(self, step: Any, decimals: int | None = None) -> str:
        """The derivation line of ``step`` in LaTeX."""
        return self._line(step, self.decimals if decimals is None else decimals)

    def derivation(self, decimals: int | None = None) -> Derivation:
        """The walkthrough as LaTeX lines in the lecture's style (rendered in Jupyter)."""
        d = self.decimals if decimals is None else decimals
        return Derivation([self._line(step, d) for step in self.steps])

    def table(
        self, decimals: int | None = None, *, values_only: bool = False
    ) -> tuple[list[str], list[list[str]]]:
        """The evaluation-trace table: a header and one row of plain text per step.
        ``values_only=True``: the forward evaluation trace alone, as the lecture first writes
        it (vᵢ, its definition, its value; v₁ … vₙ in the forward order, whatever the mode),
        without the tangent or adjoint columns."""
        d = self.decimals if decimals is None else decimals
        if values_only:
            return list(_VALUES_HEADER), [_values_row(step, d) for step in self._forward_order()]
        return self._header(), [self._row(step, d) for step in self.steps]

    def to_latex(self, decimals: int | None = None, *, values_only: bool = False) -> str:
        """The walkthrough's table as LaTeX: a booktabs ``tabular`` with the columns of the
        lecture's v̇ᵢ or v̄ᵢ table (needs ``\\usepackage{booktabs}``, and ``amsmath`` when a value
        is a tensor: its ``bmatrix``). Names are ASCII TeX (Greek letters as ``\\alpha``), so
        pdflatex reads them. ``values_only=True``: the evaluation trace's columns alone
        (vᵢ, definition, value; forward order), as :meth:`table` gives them."""
        d = self.decimals if decimals is None else decimals
        if values_only:
            head = list(_VALUES_LATEX_HEADER)
            body = [_values_latex_row(step, d) for step in self._forward_order()]
        else:
            head = self._latex_header()
            body = [self._latex_row(step, d) for step in self.steps]
        rows = [" & ".join(row) + r" \\" for row in body]
        return "\n".join(
            [
                r"\begin{tabular}{" + ("l" if values_only else "r") + "l" * (len(head) - 1) + "}",
                r"\toprule",
                " & ".join(head) + r" \\",
                r"\midrule",
                *rows,
                r"\bottomrule",
                r"\end{tabular}",
                "",
            ]
        )

    def values_table(self, decimals: int | None = None) -> ValuesTable:
        """The evaluation trace with values only (vᵢ, definition, value; v₁ … vₙ in the
        forward order): a table that shows itself in Jupyter (HTML) and as text, and gives
        ``to_latex()`` for a slide. :meth:`table` and :meth:`to_latex` give the same with
        ``values_only=True``."""
        d = self.decimals if decimals is None else decimals
        header, rows = self.table(d, values_only=True)
        title = f"Evaluation trace of {self.label(self.output)}: {len(rows)} values"
        return ValuesTable(title, header, rows, self.to_latex(d, values_only=True))

    def _forward_order(self) -> list[Any]:
        """The steps in the forward order of their nodes (v₁ … vₙ)."""
        number = self.names.number
        return sorted(self.steps, key=lambda step: number(step.node) or 0)

    def check(
        self,
        eps: float = 1e-3,
        rtol: float | None = None,
        atol: float | None = None,
        rng: int = 0,
    ) -> list:
        """Check every step's op alone: its vjp (and jvp, when defined) against central
        differences at the recorded input values, as :func:`vizad.gradcheck` does (a random
        cotangent, tolerances from the values' float type, kinks reported rather than failed).
        Returns the failures, each naming the node, the op and the error; an empty list when
        all pass or were not checked: a step at NaN values cannot be checked (central
        differences there are not finite) and is in :meth:`not_checked`, not a failure.
        Infinite entries (a ``-inf`` attention mask) are held while the finite ones are
        moved, and the rule must give them 0; symmetric and triangular matrices given to
        linear algebra are moved within their structure (:mod:`vizad.trace.perturb`).
        ``rng`` is the random seed of the cotangents (``seed=`` is its old,
        deprecated name). A recorded trace checks what its recording can show instead."""
        return self._checked(eps, rtol, atol, rng)

    def not_checked(self) -> list:
        """The steps that :meth:`check` skips, each with the reason (a stop-gradient op's
        vjp is zero by definition: central differences of its value cannot check it; NaN
        values at the step, said as produced there or received from its inputs; complex
        values), and, once :meth:`check` has run, the rules it found it could not check (a
        framework op with no forward-mode rule)."""
        from vizad.trace.check import not_checked

        found = not_checked(self) + list(getattr(self, "_ran_not_checked", ()))
        return sorted(found, key=lambda s: s.step)

    def _checked(self, eps: float, rtol: float | None, atol: float | None, rng: int) -> list:
        """:meth:`check`, its arguments read."""
        from vizad.trace.check import check_trace

        return check_trace(self, eps=eps, rtol=rtol, atol=atol, seed=rng)

    def _repr_html_(self) -> str:
        shown = self.steps[:_SHOWN_HTML]
        rows = [self._row(step, self.decimals) for step in shown]
        more = len(self.steps) - len(shown)
        note = f"… {more} more steps (trace.table() gives them all)" if more else ""
        return html_table(self._title(), self._header(), rows, note)

    def __repr__(self) -> str:
        shown = self.steps[:_SHOWN_TEXT]
        rows = [self._row(step, self.decimals) for step in shown]
        table = text_table(self._header(), rows, limit=_SHOWN_TEXT)
        more = len(self.steps) - len(shown)
        return self._title() + "\n" + table + (f"\n… {more} more steps" if more else "")

    # subclasses
    @abstractmethod
    def _title(self) -> str: ...

    @abstractmethod
    def _header(self) -> list[str]: ...

    @abstractmethod
    def _row(self, step: Any, decimals: int) -> list[str]: ...

    @abstractmethod
    def _line(self, step: Any, decimals: int) -> str: ...

    @abstractmethod
    def _latex_header(self) -> list[str]: ...

    @abstractmethod
    def _latex_row(self, step: Any, decimals: int) -> list[str]: ...


#: Steps shown by a trace's HTML and text displays (a long trace's table is cut there).
_SHOWN_HTML, _SHOWN_TEXT = 200, 30

#: The columns of the evaluation trace with values only (Trace.table(values_only=True)).
_VALUES_HEADER = ("vᵢ", "definition", "value")
_VALUES_LATEX_HEADER = ("$v_i$", "definition", "value")


def _values_row(step: Any, d: int) -> list[str]:
    return [step.label, latex_to_text(step.definition), format_value(step.value, d)]


def _values_latex_row(step: Any, d: int) -> list[str]:
    return [f"${step.symbol}$", f"${step.definition}$", f"${latex_value(step.value, d)}$"]


class ReverseTrace(Trace):
    """The reverse-mode walkthrough (see :func:`vizad.trace_reverse`).

    Examples:
        >>> trace = vz.examples.lecture()
        >>> trace.gradients
        [array(5.5), array(1.71633781)]
        >>> trace.derivation()
        v̄₇ = ∂y/∂v₇ = 1
        v̄₆ = v̄₇ ∂v₇/∂v₆ = v̄₇ = 1
        v̄₅ = v̄₇ ∂v₇/∂v₅ = -v̄₇ = -1
        v̄₄ = v̄₆ ∂v₆/∂v₄ = v̄₆ = 1
        v̄₃ = v̄₆ ∂v₆/∂v₃ = v̄₆ = 1
        v̄₂ = v̄₅ ∂v₅/∂v₂ + v̄₄ ∂v₄/∂v₂ = v̄₅ cos v₂ + v̄₄ v₁ = -0.284 + 2 = 1.716
        v̄₁ = v̄₄ ∂v₄/∂v₁ + v̄₃ ∂v₃/∂v₁ = v̄₄ v₂ + v̄₃/v₁ = 5 + 0.5 = 5.5
    """

    kind = mode = "reverse"
    views = ("forward", "adjoint", "backprop")
    view_titles = {
        "forward": "the forward graph",
        "adjoint": "the graph extended with the adjoint nodes that reverse mode built",
        "backprop": "each node's adjoint laid on the forward graph",
    }
    views_elsewhere = {"tangent": "adjoint", "tangents": "backprop"}
    steps: Sequence[ReverseStep]

    def __init__(
        self,
        output: Node,
        wrt: Iterable[Node],
        feed: Mapping[Node, Any],
        steps: Sequence,
        record: Any,
        values: Mapping[Node, Any],
        names: Names | Once,
        graph: list[Node],
        extension: list[Node] | Once,
        decimals: int,
    ) -> None:
        super().__init__(output, feed, steps, record, values, names, graph, extension, decimals)
        #: The inputs the gradients are taken with respect to.
        self.wrt = tuple(wrt)

    def adjoint(self, node: Node) -> Any:
        """v̄ of forward node ``node`` (its value)."""
        return self.step_of(node).adjoint

    def element(self, node: Node, index: Any) -> Any:
        """The walkthrough of one element of v̄ of ``node``, ``trace.adjoint(node)[index]``
        (numpy's index: an int or a tuple of ints): the terms added to make it, each with
        its label, its value and the element walkthrough it opens, stepped one term at a
        time (``vz.step(trace.element(node, index))``). See :mod:`vizad.trace.element`.

        Examples:
            >>> x = vz.Variable("x", shape=(3, 2))
            >>> b = vz.Variable("b", shape=(2,))
            >>> trace = vz.trace_reverse(vz.sum(vz.tanh(x + b)), [x, b],
            ...                          {x: np.zeros((3, 2)), b: np.zeros(2)})
            >>> element = trace.element(b, 1)
            >>> [t.label for t in element.terms], element.value
            (['v̄₃[0, 1]', 'v̄₃[1, 1]', 'v̄₃[2, 1]'], np.float64(3.0))
        """
        parent = self.parent if isinstance(self, ElementTrace) else self
        index, parts, order = element_parts(parent, node, index)
        return ElementTrace(parent, node, index, parts, order)

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

    def result(self, step: ReverseStep) -> Any:
        return step.adjoint

    def result_name(self, node: Node) -> Name:
        return self.names.bar(node)

    def neighbours(self, step: ReverseStep) -> list[Node]:
        return [c.consumer for c in step.contributions]

    def involved(self, step: ReverseStep) -> list[Node]:
        nodes = [step.adjoint_node]
        for c in step.contributions:
            if c.partial_node is not None:  # (a trace's contributions all have theirs)
                nodes.append(c.partial_node)
            if c.unreduced_node is not None:
                nodes.append(c.unreduced_node)
            if c.local_node is not None:
                nodes.append(c.local_node)
        return nodes

    def memory(self, keep: Node | Iterable[Node] | None = None) -> Memory:
        """What reverse mode keeps: the values alive (nodes, bytes) at every step of the
        forward pass and of this walkthrough, each freed after its last reader; the peak and
        its step. ``keep``: the forward nodes kept as checkpoints; the other forward values
        are dropped after the forward pass and computed again from the nearest values held
        when the walkthrough needs them (those steps appear in place, and in
        ``.recomputed``). See :mod:`vizad.trace.memory` for what counts as alive.

        Examples:
            >>> trace = vz.examples.lecture()
            >>> memory = trace.memory()
            >>> memory.peak_values, memory.peak_step, [trace.label(n) for n in memory.saved]
            (6, 6, ['v₁', 'v₂'])
        """
        from vizad.trace.memory import memory

        return memory(self, keep)

    def roles(self) -> dict[Node, tuple[AdjointRole, ...]]:
        """The extended-graph view: what each adjoint node computes (seed, sum, partial,
        unreduced partial, local partial)."""
        return self.record.roles()

    def _title(self) -> str:
        shown = [w.name if w.name is not None else self.label(w) for w in self.wrt[:6]]
        more = len(self.wrt) - len(shown)
        wrt = ", ".join(shown) + (f" and {more} more" if more else "")
        return f"Reverse trace of {self.label(self.output)} w.r.t. {wrt}: {len(self.steps)} steps"

    def _header(self) -> list[str]:
        return ["step", "vᵢ", "definition", "value", "partial adjoints v̄ᵢ→ⱼ", "v̄ᵢ"]

    def _latex_header(self) -> list[str]:
        return ["step", "$v_i$", "definition", "value", r"partial adjoints $\bar v_{i\to j}$",
                r"$\bar v_i$"]  # fmt: skip

    def _latex_row(self, step: ReverseStep, d: int) -> list[str]:
        partial = self.names.partial
        parts = ", ".join(
            f"${partial(step.node, c.consumer, c.index).latex} = {latex_value(c.partial, d)}$"
            for c in step.contributions
        )
        return [
            str(step.index + 1),
            f"${step.symbol}$",
            f"${step.definition}$",
            f"${latex_value(step.value, d)}$",
            parts or "seed",
            f"${latex_value(step.adjoint, d)}$",
        ]

    def _row(self, step: ReverseStep, d: int) -> list[str]:
        partial = self.names.partial
        parts = (
            ", ".join(
                f"{partial(step.node, c.consumer, c.index).text} = {format_value(c.partial, d)}"
                for c in step.contributions
            )
            or "seed"
        )
        return [
            str(step.index + 1),
            step.label,
            latex_to_text(step.definition),
            format_value(step.value, d),
            parts,
            format_value(step.adjoint, d),
        ]

    def _line(self, step: ReverseStep, d: int) -> str:
        return reverse_line(step, self.names, d)


class ForwardTrace(Trace):
    """The forward-mode walkthrough (see :func:`vizad.trace_forward`).

    Examples:
        >>> trace = vz.examples.lecture_forward()
        >>> type(trace).__name__, trace.tangent(trace.output)
        ('ForwardTrace', array(5.5))
    """

    kind = mode = "forward"
    views = ("forward", "tangent", "tangents")
    view_titles = {
        "forward": "the forward graph",
        "tangent": "the graph extended with the tangent nodes that forward mode built",
        "tangents": "each node's tangent laid on the forward graph",
    }
    views_elsewhere = {"adjoint": "tangent", "backprop": "tangents"}
    steps: Sequence[ForwardStep]

    def __init__(
        self,
        output: Node,
        seeds: Mapping[Node, Any],
        feed: Mapping[Node, Any],
        steps: Sequence,
        record: Any,
        values: Mapping[Node, Any],
        names: Names | Once,
        graph: list[Node],
        extension: list[Node] | Once,
        decimals: int,
    ) -> None:
        super().__init__(output, feed, steps, record, values, names, graph, extension, decimals)
        #: The seeded inputs and their tangent nodes.
        self.seeds = dict(seeds)

    def tangent(self, node: Node) -> Any:
        """v̇ of ``node`` (its value; zeros when it does not depend on the seeds)."""
        return self.step_of(node).tangent

    def result(self, step: ForwardStep) -> Any:
        return step.tangent

    def result_name(self, node: Node) -> Name:
        return self.names.dot(node)

    def neighbours(self, step: ForwardStep) -> list[Node]:
        return [] if step.seeded else list(step.node.inputs)

    def involved(self, step: ForwardStep) -> list[Node]:
        return [step.tangent_node] if step.tangent_node is not None else []

    def _title(self) -> str:
        seeds = ", ".join(
            f"{self.names.dot(s).text} = {format_value(self.values[t], self.decimals)}"
            if t in self.values
            else self.names.dot(s).text
            for s, t in self.seeds.items()
        )
        return f"Forward trace of {self.label(self.output)} with {seeds}: {len(self.steps)} steps"

    def _header(self) -> list[str]:
        return ["step", "vᵢ", "definition", "value", "tangent rule", "v̇ᵢ"]

    def _latex_header(self) -> list[str]:
        return ["step", "$v_i$", "definition", "value", "tangent rule", r"$\dot v_i$"]

    def _latex_row(self, step: ForwardStep, d: int) -> list[str]:
        return [
            str(step.index + 1),
            f"${step.symbol}$",
            f"${step.definition}$",
            f"${latex_value(step.value, d)}$",
            f"${forward_line(step, self.names, d)}$",
            f"${latex_value(step.tangent, d)}$",
        ]

    def _row(self, step: ForwardStep, d: int) -> list[str]:
        rule = latex_to_text(forward_line(step, self.names, d))
        return [
            str(step.index + 1),
            step.label,
            latex_to_text(step.definition),
            format_value(step.value, d),
            rule,
            format_value(step.tangent, d),
        ]

    def _line(self, step: ForwardStep, d: int) -> str:
        return forward_line(step, self.names, d)


class ElementTrace(ReverseTrace):
    """The walkthrough of one element of an adjoint, ``trace.element(node, index)``: one step
    per term added (see :mod:`vizad.trace.element`). It is drawn on its trace's graphs and
    steps like any walkthrough (``vz.step(element)``, exports).

    Examples:
        >>> X, W = vz.Variable("X", shape=(2, 3)), vz.Variable("W", shape=(3, 2))
        >>> y = vz.sum(vz.matmul(X, W))
        >>> trace = vz.trace_reverse(y, [X, W], {X: np.ones((2, 3)), W: np.ones((3, 2))})
        >>> element = trace.element(X, (1, 2))
        >>> bool(element.value == trace.adjoint(X)[1, 2]), [t.label for t in element.terms]
        (True, ['v̄₃[1, 0] · v₂[2, 0]', 'v̄₃[1, 1] · v₂[2, 1]'])
    """

    kind = "element"

    def __init__(
        self,
        parent: ReverseTrace,
        node: Node,
        index: tuple[int, ...],
        parts: list[ElementPart],
        order: list[int],
    ) -> None:
        #: The walkthrough this element is of, the forward node and the index.
        self.parent, self.node, self.element_index = parent, node, index
        #: The partial adjoints' elements v̄ᵢ→ⱼ[index], one per consumer, as listed; the
        #: engine adds them in ``add_order``.
        self.parts = tuple(parts)
        self.add_order = tuple(order)
        self.terms: tuple[Term, ...] = tuple(t for p in self.parts for t in p.terms)
        #: The element's value: the engine's, bit for bit trace.adjoint(node)[index].
        self.value = np.asarray(parent.adjoint(node))[index]
        name = parent.names.bar(node)
        self.name = Name(name.text + index_text(index), name.latex + index_text(index))
        steps = self._make_steps()
        super().__init__(
            parent.output,
            parent.wrt,
            parent.feed,
            steps,
            parent.record,
            parent.values,
            parent.names,
            parent.graph,
            parent.extension,
            parent.decimals,
        )

    # -- the sums ----------------------------------------------------------------------
    @property
    def in_order(self) -> Any:
        """The terms added as listed, partial adjoint by partial adjoint, in the engine's
        order (each part's ``order`` says how; a matmul's one after the other), then the
        parts added in the engine's order of the partial adjoints."""
        return summed_in(self.parts, self.add_order, "in_order", self.value)

    @property
    def replayed(self) -> Any:
        """The engine's own ops run again on exactly the terms listed (see the module's
        docstring): the value bit for bit when the terms are the engine's numbers."""
        return summed_in(self.parts, self.add_order, "replayed", self.value)

    @property
    def exact_in_order(self) -> bool:
        """Whether the terms added in order give the value bit for bit (always, but where a
        matmul's BLAS adds its products with fused multiply-adds)."""
        return same_bits(self.in_order, self.value)

    @property
    def is_seed(self) -> bool:
        """Whether the element is the seed's (the output's: no terms)."""
        return not self.parts

    def open(self, term: int) -> ElementTrace:
        """The walkthrough of the adjoint element that term ``term`` (1 … n, as the steps
        number them) reads: one level deeper."""
        return self.terms[self.index(term)].open()

    # -- steps -------------------------------------------------------------------------
    def _make_steps(self) -> list[ElementStep]:
        parent, node = self.parent, self.node
        names = parent.names
        steps: list[ElementStep] = []
        running = None
        n = len(self.terms)
        by_part = [(p, t) for p in self.parts for t in p.terms]
        for k, (part, term) in enumerate(by_part):
            running = term.value if running is None else running + term.value
            shown = self.value if k == n - 1 else running
            steps.append(
                ElementStep(
                    index=k,
                    node=node,
                    label=f"{self.name.text}, term {k + 1} of {n}",
                    symbol=names.symbol(node),
                    definition=names.definition(node),
                    value=parent.values[node],
                    shape=np.shape(self.value),
                    term=term,
                    adjoint=np.asarray(shown),
                    adjoint_node=parent.record.adjoint(node),
                    partial_node=part.node,
                )
            )
        if not steps:  # the seed: one step, no term
            seed = parent.record.adjoint(node)
            steps.append(
                ElementStep(
                    0,
                    node,
                    f"{self.name.text}, the seed",
                    names.symbol(node),
                    names.definition(node),
                    parent.values[node],
                    (),
                    None,
                    np.asarray(self.value),
                    seed,
                    seed,
                )
            )
        return steps

    def involved(self, step: Any) -> list[Node]:
        nodes = [step.adjoint_node]
        if step.partial_node is not step.adjoint_node:
            nodes.append(step.partial_node)
        if step.term is not None:
            nodes += [n for n, _ in step.term.reads if n.origin is not None]
        return list(dict.fromkeys(nodes))

    def neighbours(self, step: Any) -> list[Node]:
        if step.term is None:
            return []
        forward = set(self.graph)
        reads = [n for n, _ in step.term.reads if n in forward and n.origin is None]
        return list(dict.fromkeys([step.term.consumer, *reads]))

    def result_name(self, node: Node) -> Name:
        return self.name

    # -- displays ----------------------------------------------------------------------
    contributions_head = ("term", "consumer vⱼ", "value", "sum so far")

    def describe(self) -> str:
        return self._title()

    def _title(self) -> str:
        n = len(self.terms)
        return (
            f"Element {self.name.text} of {self.parent.label(self.parent.output)}'s reverse "
            f"trace: {n} term{'s' if n != 1 else ''}" + ("" if n else " (the seed)")
        )

    def _header(self) -> list[str]:
        return ["step", "term", "consumer vⱼ", "value", "sum so far"]

    def _row(self, step: Any, d: int) -> list[str]:
        if step.term is None:
            return [
                str(step.index + 1),
                "seed",
                "",
                format_value(step.adjoint, d),
                format_value(step.adjoint, d),
            ]
        return [
            str(step.index + 1),
            step.term.label,
            self.parent.label(step.term.consumer),
            format_value(step.term.value, d),
            format_value(step.adjoint, d),
        ]

    def _latex_header(self) -> list[str]:
        return ["step", "term", "consumer $v_j$", "value", "sum so far"]

    def _latex_row(self, step: Any, d: int) -> list[str]:
        if step.term is None:
            return [str(step.index + 1), "seed", "", f"${latex_value(step.adjoint, d)}$", ""]
        return [
            str(step.index + 1),
            f"${step.term.latex}$",
            f"${self.parent.names.symbol(step.term.consumer)}$",
            f"${latex_value(step.term.value, d)}$",
            f"${latex_value(step.adjoint, d)}$",
        ]

    def _line(self, step: Any, d: int) -> str:
        """v̄ᵢ[index] = t₁ + t₂ + … (the terms up to the step) = the sum so far."""
        head = self.name.latex
        if step.term is None:
            return rf"{head} = \text{{seed}} = {latex_value(step.adjoint, d)}"
        upto = self.terms[: step.index + 1]
        shown = [t.latex for t in upto]
        if len(shown) > LINE_TERMS:
            shown = shown[: LINE_TERMS // 2] + [r"\ldots"] + shown[-(LINE_TERMS // 2) :]
        return rf"{head} = {' + '.join(shown)} = {latex_value(step.adjoint, d)}"

    def line_text(self, decimals: int | None = None) -> str:
        """The whole sum as text: "v̄₃[1] = v̄₅[0, 1] + … = 0.83" (every term's value)."""
        d = self.decimals if decimals is None else decimals
        values = [format_value(t.value, d) for t in self.terms] or ["seed"]
        if len(values) > LINE_TERMS:
            values = values[: LINE_TERMS // 2] + ["…"] + values[-(LINE_TERMS // 2) :]
        return f"{self.name.text} = {' + '.join(values)} = {format_value(self.value, d)}"

    def summary(self) -> str:
        """What made the element, consumer by consumer, and how its terms add up."""
        d = self.decimals
        lines = [self.line_text(d)]
        for part in self.parts:
            rule = f"{part.name.text}{index_text(self.element_index)}"
            n = len(part.terms)
            how = (
                "one term"
                if part.how == "one term"
                else f"a sum of {n} product{'s' * (n != 1)}"
                if part.how == "products"
                else f"a sum of {n} term{'s' * (n != 1)}"
            )
            lines.append(
                f"  {rule}, from consumer {self.parent.label(part.consumer)}: {how} = "
                f"{format_value(part.value, d)}"
            )
        lines.append(self.exactness())
        return "\n".join(lines)

    def exactness(self) -> str:
        """How the terms added in order compare with the engine's value, in words."""
        if self.is_seed:
            return "the seed: ∂y/∂y"
        if self.exact_in_order:
            orders = sorted({p.order for p in self.parts if p.order != "one term"})
            how = f", {'; '.join(orders)}," if orders else ""
            return f"the terms added in order{how} give the engine's value bit for bit"
        diff = float(
            np.asarray(self.value, dtype=np.float64) - np.asarray(self.in_order, dtype=np.float64)
        )
        return (
            f"the terms added in order give {float(self.in_order)!r}, the engine "
            f"{float(self.value)!r} ({diff:+.3g}: {self._why()})"
        )

    def _why(self) -> str:
        if any(t.kind == "product" for t in self.terms):
            return "a matmul runs in BLAS, which adds the products with fused multiply-adds"
        return "numpy added these in an order vizad does not reproduce"

    def panel(
        self,
        k: int,
        failures: Mapping[int, str] | None = None,
        *,
        decimals: int | None = None,
        colour: Any = None,
    ) -> dict:
        """Step ``k``'s panel (vizad.trace.panel's format): the term added, the terms so far
        with their consumers and the running sum."""
        d = self.decimals if decimals is None else decimals
        step: Any = self.steps[k]

        def shown(value: Any) -> Any:
            return value_data(value, d, colour)

        n = len(self.steps)
        panel: dict[str, Any] = {
            "head": printable(f"Step {k + 1} of {n}: {step.label}"),
            "about": [
                printable(
                    f"an element of v̄ of {self.parent.label(self.node)} "
                    f"(shape {tuple(np.shape(self.parent.adjoint(self.node)))}) · value "
                ),
                shown(self.value),
            ],
        }
        if step.term is None:
            panel["note"] = "the output: its adjoint is the seed ∂y/∂y"
        else:
            first = max(0, k + 1 - PANEL_ROWS)
            rows, running = [], None
            for j, t in enumerate(self.terms[: k + 1]):
                running = t.value if running is None else running + t.value
                if j >= first:
                    rows.append([[printable(t.label)], [printable(self.parent.label(t.consumer))],
                                 [shown(t.value)], [shown(running)]])  # fmt: skip
            panel["rows"] = rows
            if k == n - 1:
                panel["note"] = printable(self.exactness())
        last = k == n - 1
        panel["sum"] = printable(f"{self.name.text} {'=' if last else 'so far ='} ")
        panel["total"] = shown(step.adjoint)
        panel["line"] = printable(latex_to_text(self._line(step, d)))
        if failures and k in failures:
            panel["fail"] = printable(f"✗ {failures[k]}")
        return panel

    def row(
        self,
        k: int,
        failures: Mapping[int, str] | None = None,
        *,
        decimals: int | None = None,
        colour: Any = None,
    ) -> dict:
        """Step ``k``'s row of the running table: the term added and the sum so far."""
        d = self.decimals if decimals is None else decimals
        step: Any = self.steps[k]
        label = step.term.label if step.term is not None else "seed"
        bad = failures is not None and k in failures
        return {
            "cells": [
                [printable(label)],
                [value_data(step.adjoint, d, colour)],
                ["✗"] if bad else [],
            ],
            "bad": bad,
        }

    def _questions(self, step: ElementStep, add: Callable) -> None:
        """The quiz of a step: the term's value (for the last step, the element's)."""
        if step.term is None:
            return
        last = step.index == len(self.steps) - 1
        if len(step.term.reads) > 1:  # a product or a formula: worked out from what it reads
            add(step.term.label, float(step.term.value),
                f"the term {step.term.label} of {self.name.text}: work it out from the "
                "elements it reads")  # fmt: skip
        if last:
            add(self.name.text, float(self.value),
                f"{self.name.text} is the sum of its {len(self.terms)} terms")  # fmt: skip

    # -- checks ------------------------------------------------------------------------
    def _checked(self, eps: float, rtol: float | None, atol: float | None, rng: int) -> list:
        """The element's own check: its terms, put back where the rule says and summed by
        the engine's own ops, give the engine's value bit for bit (else a failure at the
        last step, naming the two numbers)."""
        if self.is_seed or same_bits(self.replayed, self.value):
            return []
        last = self.steps[-1]
        return [
            CheckFailure(
                step=len(self.steps),
                node=self.node,
                label=last.label,
                op="sum",
                rule="sum",
                error=float(abs(np.float64(self.replayed) - np.float64(self.value))),
                message=f"{self.name.text}: the terms listed, summed by the engine's own ops, "
                f"give {float(self.replayed)!r}, but the engine's value is {float(self.value)!r}",
            )
        ]

    def not_checked(self) -> list:
        return []


def _finite(value: Any) -> bool:
    """Whether every number of ``value`` (arrays, tuples of them) is finite; what was not
    recorded, and what is not a number, counts as finite."""
    for leaf in leaves(value):
        if isinstance(leaf, Unrecorded):
            continue
        array = np.asarray(leaf)
        if array.dtype.kind in "fc" and not np.all(np.isfinite(array)):
            return False
    return True
