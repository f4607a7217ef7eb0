"""NaN and infinite numbers in a walkthrough, told apart by where they come from: produced at
a node (its op turned finite numbers into NaN or inf: ln of −1, 1/0) or received from its
inputs (NaN spreads through every later sum and product). A step holding such numbers cannot
have its rule checked by central differences (:func:`vizad.trace.check.not_checked`); the
stepper marks its boxes and panel with these words instead of a failing rule.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from vizad.errors import StepNotFoundError
from vizad.engine.node import Node
from vizad.engine.op import CONSTANT
from vizad.engine.tree import Unrecorded, leaves
from vizad.trace.text import format_value, latex_to_text

__all__ = [
    "NonFinite",
    "finite",
    "nonfinite_words",
    "value_mark",
    "result_mark",
    "step_marks",
    "marks_of",
]


class NonFinite(NamedTuple):
    """A value (vᵢ, or any node's) or a step's result (v̄ᵢ, v̇ᵢ) holding NaN or infinite
    numbers: ``produced`` here when what it was computed from is finite, else received from
    ``sources`` (the names of the non-finite values it was computed from)."""

    name: str
    words: str  # "NaN", "inf", "NaN and -inf", with "(2 of 6 entries)" for an array
    sources: tuple[str, ...]
    how: str  # produced here: what it was computed from ("ln v₁ with v₁ = -1")

    @property
    def produced(self) -> bool:
        return not self.sources

    def __str__(self) -> str:
        if self.produced:
            return f"{self.name} = {self.words}: produced here" + (
                f" ({self.how})" if self.how else ""
            )
        return f"{self.name} = {self.words}: received from {', '.join(self.sources)}"


def finite(value: Any) -> bool:
    """Whether every number of ``value`` (arrays, tuples of them) is finite; what was not
    recorded, and what is not a number, counts as finite."""
    return nonfinite_words(value) is None


def nonfinite_words(value: Any) -> str | None:
    """None when every number of ``value`` is finite; else which non-finite numbers it holds
    ("NaN", "inf and -inf"), and how many of its entries when it has more than one."""
    found: dict[str, None] = {}
    bad = total = 0
    for leaf in leaves(value):
        if isinstance(leaf, Unrecorded):
            continue
        array = np.asarray(leaf)
        if array.dtype.kind not in "fc":
            continue
        total += array.size
        if np.all(np.isfinite(array)):
            continue
        bad += int(np.count_nonzero(~np.isfinite(array)))
        parts = [array.real, array.imag] if array.dtype.kind == "c" else [array]
        for part in parts:
            if np.any(np.isnan(part)):
                found["NaN"] = None
            if np.any(np.isposinf(part)):
                found["inf"] = None
            if np.any(np.isneginf(part)):
                found["-inf"] = None
    if not found:
        return None
    words = " and ".join(found)
    return words if total == 1 else f"{words} ({bad} of {total} entries)"


def value_mark(trace, node: Node) -> NonFinite | None:
    """Where the NaN or infinite numbers of ``node``'s value come from, or None when it is
    finite (or not in the trace): received from its inputs that are not finite, else
    produced by its op from finite inputs."""
    if node not in trace.values:
        return None
    words = nonfinite_words(trace.values[node])
    if words is None:
        return None
    sources = tuple(
        trace.label(x) for x in dict.fromkeys(node.inputs) if not finite(trace.values.get(x))
    )
    how = ""
    if not sources and node.inputs:
        args = ", ".join(
            f"{trace.label(x)} = {format_value(trace.values[x], trace.decimals)}"
            for x in dict.fromkeys(node.inputs)
            if x in trace.values and x.op is not CONSTANT
        )
        try:
            definition = latex_to_text(trace.step_of(node).definition)
        except StepNotFoundError:  # not a step's node (an extension node): its op's name
            definition = f"{node.op.name}({', '.join(trace.label(x) for x in node.inputs)})"
        how = definition + (f" with {args}" if args else "")
    return NonFinite(trace.label(node), words, sources, how)


def result_mark(trace, step) -> NonFinite | None:
    """Where the NaN or infinite numbers of ``step``'s result (v̄ᵢ or v̇ᵢ) come from, or None
    when it is finite: received from the results it sums (the consumers' adjoints v̄ⱼ; the
    inputs' tangents v̇ₖ) that are not finite, else produced at this step (a local partial
    that is not finite, or a sum that overflows)."""
    words = nonfinite_words(trace.result(step))
    if words is None:
        return None
    sources = []
    for x in dict.fromkeys(trace.neighbours(step)):
        try:
            other = trace.step_of(x)
        except StepNotFoundError:  # a node with no step (not differentiated)
            continue
        if not finite(trace.result(other)):
            sources.append(trace.result_name(x).text)
    how = (
        "" if sources else "from finite " + ("adjoints" if trace.mode == "reverse" else "tangents")
    )
    return NonFinite(trace.result_name(step.node).text, words, tuple(sources), how)


def step_marks(trace) -> dict[int, list[NonFinite]]:
    """0-based step index → the non-finite numbers of that step (its value vᵢ, then its
    result), for the steps that have any."""
    out: dict[int, list[NonFinite]] = {}
    for k, step in enumerate(trace.steps):
        marks = marks_of(trace, step)
        if marks:
            out[k] = marks
    return out


def marks_of(trace, step) -> list[NonFinite]:
    """The NaN or infinite numbers of ``step``: its value vᵢ, then its result (v̄ᵢ, v̇ᵢ)."""
    return [m for m in (value_mark(trace, step.node), result_mark(trace, step)) if m]
