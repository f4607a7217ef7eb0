"""Which boxes a step highlights: the current node, the consumers whose partial adjoints it
sums (in forward mode: the inputs its tangent reads), the extension nodes of the step, and the
finished and pending nodes."""

from __future__ import annotations

from typing import NamedTuple

from ..errors import ArgumentError, StepNotFoundError
from .scene import Scene

__all__ = ["StepHighlight", "highlight"]


class StepHighlight(NamedTuple):
    #: item id → state ("current", "consumer", "involved", "done", "pending", "failed")
    states: dict[str, str]
    #: ids of the edges that carry this step's values
    edges: frozenset[str]


def highlight(scene: Scene, step: int, failed: frozenset[int] = frozenset()) -> StepHighlight:
    """The states of ``scene``'s boxes at ``step`` of its trace."""
    trace = scene.trace
    if trace is None:
        raise ArgumentError(
            "highlighting a step needs a trace: draw vz.trace_reverse(...) or "
            "vz.trace_forward(...), not nodes"
        )
    n = len(trace.steps)
    if not -n <= step < n:
        raise StepNotFoundError(f"step {step} is out of range: the trace has {n} steps")
    step %= n
    ids = scene.ids
    states: dict[str, str] = {}

    def mark(node, state):
        item = ids.get(node)
        if item is not None and item not in states:
            states[item] = state

    current = trace.steps[step]
    mark(current.node, "failed" if step in failed else "current")
    involved = trace.involved(current)
    neighbours = trace.neighbours(current)
    for node in neighbours:
        mark(node, "consumer")
    for node in involved:
        if node.origin is not None:  # a forward node can be a local partial (v₁ in v₁ × v₂)
            mark(node, "involved")
    for k, other in enumerate(trace.steps):
        if k == step:
            continue
        state = "failed" if k in failed else ("done" if k < step else "pending")
        mark(other.node, state)
        for node in trace.involved(other):
            if node.origin is not None:
                mark(node, "done" if k < step else "pending")
    hot = {ids[x] for x in [current.node, *neighbours, *involved] if x in ids}
    edges = frozenset(e.id for e in scene.edges if e.tail in hot and e.head in hot)
    return StepHighlight(states, edges)
