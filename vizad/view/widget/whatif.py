"""The what-if: a stepper's walkthrough traced again at the inputs the reader typed, at the
same step."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from vizad.errors import VizadError
from vizad.trace import Trace, trace_forward, trace_reverse
from vizad.trace.traces import ForwardTrace, ReverseTrace

if TYPE_CHECKING:
    from vizad.view.widget.stepper import Stepper

__all__ = ["retraceable", "fed", "retrace", "traced_again"]


def retraceable(trace: Trace) -> bool:
    """Whether a walkthrough can be traced again at other inputs (vizad's own traces; a
    recorded one is what another engine did)."""
    return type(trace) in (ReverseTrace, ForwardTrace)


def fed(trace: Trace, inputs: Mapping[str, float]) -> dict | None:
    """``trace``'s feed with its scalar inputs set to ``inputs`` (by name, finite floats), or
    None when that changes nothing."""
    feed = dict(trace.feed)
    changed = False
    for node in list(feed):
        name = node.name
        if name in inputs and np.ndim(feed[node]) == 0:
            value = float(inputs[name])
            if value != float(np.asarray(feed[node])):
                feed[node] = value
                changed = True
    return feed if changed else None


def retrace(trace: Trace, feed: dict) -> Trace:
    """``trace`` traced again at ``feed`` (a :func:`retraceable` trace): the same mode,
    outputs, inputs and seeds."""
    if isinstance(trace, ReverseTrace):
        return trace_reverse(trace.output, list(trace.wrt), feed, decimals=trace.decimals)
    assert isinstance(trace, ForwardTrace)  # retraceable: vizad's own traces only
    tangents = {s: trace.values[t] for s, t in trace.seeds.items()}
    return trace_forward(trace.output, feed=feed, tangents=tangents, decimals=trace.decimals)


def traced_again(stepper: Stepper, old: dict, new: dict) -> None:
    """The what-if: ``stepper``'s walkthrough traced again at the inputs ``new`` (by name,
    finite floats; ``old``: those before), every view redrawn, at the same step, and its quiz
    started afresh; or, when the walkthrough cannot be traced there (log(-1), a shape that
    no longer fits), said in ``stepper.input_error`` and the inputs put back."""
    feed = fed(stepper.trace, new)
    if feed is None:
        return
    try:
        trace = retrace(stepper.trace, feed)
    except VizadError as exc:
        stepper.input_error = f"not traced: {exc}"
        stepper.set_trait("inputs", old)
        return
    stepper.input_error = ""
    stepper.trace = trace
    stepper._redraw(restart=True)
