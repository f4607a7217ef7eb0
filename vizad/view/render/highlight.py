"""Which boxes a step highlights: the current node, the consumers whose partial adjoints it
sums (in forward mode: the inputs its tangent reads), the extension nodes of the step, and the
finished and pending nodes."""

from __future__ import annotations

import dataclasses
import weakref

import numpy as np
from typing import NamedTuple

from vizad.errors import ArgumentTypeError, StepNotFoundError
from vizad.view.render.scene import Scene, fixed

__all__ = [
    "StepHighlight",
    "highlight",
    "StepStates",
    "step_states",
    "computed_values",
    "without_pending",
    "PENDING",
]

#: What a box shows instead of a value that a later step computes.
PENDING = "?"


class StepHighlight(NamedTuple):
    """How one step marks a scene: a state per box and the edges that carry its values
    (what :func:`highlight` gives; the drawing and the browser style boxes by it).

    Examples:
        >>> from vizad.view import render
        >>> scene = render.build_scene(vz.examples.lecture(), "adjoint")
        >>> marks = render.highlight(scene, 0)
        >>> isinstance(marks, render.StepHighlight), len(marks.states)
        (True, 20)
    """

    #: item id → state ("current", "consumer", "involved", "done", "pending", "failed")
    states: dict[str, str]
    #: ids of the edges that carry this step's values
    edges: frozenset[str]


def highlight(
    scene: Scene,
    step: int,
    failed: frozenset[int] = frozenset(),
    states: StepStates | None = None,
) -> StepHighlight:
    """The states of ``scene``'s boxes at ``trace.steps[step]`` (a 0-based index, like
    ``failed``; the step's number as shown is ``step + 1``), read off :func:`step_states`
    (pass ``states`` to reuse them across steps): the rule the browser component applies.

    Examples:
        >>> from vizad.view import render
        >>> scene = render.build_scene(vz.examples.lecture(), "adjoint")
        >>> marks = render.highlight(scene, 5)
        >>> type(marks).__name__, sorted(set(marks.states.values()))
        ('StepHighlight', ['consumer', 'current', 'done', 'involved', 'pending'])
    """
    trace = scene.trace
    if trace is None:
        raise ArgumentTypeError(
            "highlighting a step needs a trace: draw vz.trace_reverse(...) or "
            "vz.trace_forward(...), not nodes"
        )
    n = len(trace.steps)
    if not -n <= step < n:
        raise StepNotFoundError(f"step {step} is out of range: the trace has {n} steps")
    step %= n
    states = states or step_states(scene)
    own = states.steps[step]
    result: dict[str, str] = {}
    if own["current"] is not None:
        result[own["current"]] = "failed" if step in failed else "current"
    for item in own["consumer"]:
        result.setdefault(item, "consumer")
    for item in own["involved"]:
        result.setdefault(item, "involved")
    for item, k in states.owner.items():
        if item not in result:
            bad = k in failed and states.steps[k]["current"] == item
            result[item] = "failed" if bad else ("done" if k < step else "pending")
    return StepHighlight(result, frozenset(own["edges"]))


class StepStates(NamedTuple):
    """The step states of a whole walkthrough in linear size, for a browser to restyle a
    layout without asking Python: the step that computes each box (``owner``; a box is "done"
    after it and "pending" before it), and each step's own current box, consumers, involved
    boxes and highlighted edges."""

    #: item id → the 0-based index of the first step that computes it.
    owner: dict[str, int]
    #: Per step: {"current": id, "consumer": [ids], "involved": [ids], "edges": [ids],
    #: "result": the id of the box showing the step's result (v̄ᵢ or v̇ᵢ; its node's box where
    #: the view does not draw it)}, and
    #: for a step inside folded boxes, "at": {fold id: its names and block ("v₇₃, block 21
    #: of 45")}.
    steps: list[dict]


#: trace → per step: its node, the nodes computing it and the nodes it reads (see _step_nodes)
_STEP_NODES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _step_nodes(trace) -> tuple[list[tuple], dict]:
    """Per step of ``trace``: its node, the extension nodes that compute it, the forward nodes
    it reads (``trace.involved``, ``trace.neighbours``); and node → the steps that mention
    it. The same for every scene of the trace (its views, their openings): made once."""
    found = _STEP_NODES.get(trace)
    if found is None:
        nodes = [(s.node, trace.involved(s), trace.neighbours(s)) for s in trace.steps]
        steps_of: dict = {}
        for k, (node, extension, reads) in enumerate(nodes):
            for n in (node, *extension, *reads):
                steps_of.setdefault(n, set()).add(k)
        found = _STEP_NODES[trace] = (nodes, steps_of)
    return found


def step_states(scene: Scene, like: tuple[Scene, StepStates] | None = None) -> StepStates:
    """:class:`StepStates` of ``scene``'s trace (the same states as :func:`highlight`).
    ``like``: another scene of the same trace and view and its states (a box opened in it:
    :meth:`~vizad.view.render.Layout.openings`), whose states are kept for every step that reads
    no box the two scenes show differently: a box opened costs the steps inside it, not the
    whole walkthrough again."""
    trace = scene.trace
    if trace is None:
        raise ArgumentTypeError("step states need a trace: draw a trace, not nodes")
    ids = scene.ids
    out: dict[str, list] = {}
    for e in scene.edges:
        out.setdefault(e.tail, []).append((e.head, e.id))
    nodes, steps_of = _step_nodes(trace)
    places = _fold_places(scene)
    if like is None:
        redo = range(len(nodes))
        steps: list = [None] * len(nodes)
    else:  # only the steps that mention a box drawn differently; the others as they were
        redo = sorted({k for n in _changed_nodes(scene, like[0]) for k in steps_of.get(n, ())})
        steps = list(like[1].steps)
    for k in redo:
        node, extension, reads = nodes[k]
        current = ids.get(node)
        computing = [n for n in extension if n in ids]
        # a forward node can be a local partial (v₁ in v₁ × v₂): it keeps its own state
        involved = [ids[n] for n in computing if n.origin is not None]
        neighbours = [ids[n] for n in reads if n in ids]
        hot = {i for i in [current, *neighbours, *(ids[n] for n in computing)] if i is not None}
        edges = sorted(e for tail in hot for head, e in out.get(tail, ()) if head in hot)
        # the box of the step's result (trace.involved lists the result's node first)
        result = ids.get(extension[0]) if extension and extension[0] in ids else current
        steps[k] = {
            "current": current,
            "result": result,
            "consumer": [i for i in dict.fromkeys(neighbours) if i != current],
            "involved": [i for i in dict.fromkeys(involved) if i != current],
            "edges": edges,
        }
        if places:  # where in its folds the step is: which block, which boxes
            at = _at(places, scene, [node, *computing])
            if at:
                steps[k]["at"] = at
    owner: dict[str, int] = {}
    for k, step in enumerate(steps):  # the first step that computes each box
        current = step["current"]
        if current is not None and current not in owner:
            owner[current] = k
        for item in step["involved"]:  # never None
            if item not in owner:
                owner[item] = k
    return StepStates(owner, steps)


def _fold_places(scene: Scene) -> dict:
    """Node → (fold id, its block, 1 … k, k, whether in forward order) of every node a fold
    of ``scene`` stands for (:mod:`~vizad.view.render.folding`: the fold's box lists them block by
    block, and :meth:`~vizad.view.render.folding.Fold.places` numbers their blocks as the forward
    computation does, in every view)."""
    places = {}
    boxes = {item.id: item for item in scene.items if item.id in scene.folds}
    for fold_id, fold in scene.folds.items():
        members = boxes[fold_id].members if fold_id in boxes else ()
        k = fold.count
        for node, b in zip(members, fold.places()):
            places[node] = (fold_id, b, k, fold.ordered)
    return places


def _at(places: dict, scene: Scene, nodes: list) -> dict[str, str]:
    """Per fold that ``nodes`` (a step's node and the nodes computing it) are folded into:
    their names and which of its k blocks they are in ("v₇₃, block 21 of 45", the same in the
    forward fold and the adjoint's; a weight shared by every block: "in 45 of 45 blocks"),
    for the folded box to say where the step is (a lit "× 45" alone reads the same at every
    step inside it). A fold with no forward order counts its blocks as made, and says so."""
    named: dict[str, dict] = {}
    blocks: dict[str, set] = {}
    counts: dict[str, tuple] = {}
    for node in nodes:
        place = places.get(node)
        if place is None:
            continue
        fold_id, b, *counts[fold_id] = place
        blocks.setdefault(fold_id, set()).add(b)
        if scene.names is not None:
            named.setdefault(fold_id, {})[scene.names.label(node)] = None
    at = {}
    for fold_id, found in blocks.items():
        names = list(named.get(fold_id, ()))
        names = names[:2] + (["…"] if len(names) > 2 else [])
        k, ordered = counts[fold_id]
        where = (
            f"block {min(found)} of {k}" if len(found) == 1 else f"in {len(found)} of {k} blocks"
        )
        at[fold_id] = ", ".join([*names, where if ordered else f"{where} (in the order made)"])
    return at


def _changed_nodes(scene: Scene, other: Scene) -> set | frozenset:
    """The nodes that ``scene`` and ``other`` draw in different boxes (or one of them not at
    all); every node when the edges between the boxes they share differ (then no step's
    states can be kept)."""
    ids, old = scene.ids, other.ids
    changed = {n for n, _ in ids.items() ^ old.items()}  # either way (C-level set ops)
    moved = {ids[n] for n in changed if n in ids} | {old[n] for n in changed if n in old}

    def kept(edges):
        return {
            (e.tail, e.head, e.id) for e in edges if e.tail not in moved and e.head not in moved
        }

    if kept(scene.edges) != kept(other.edges):
        return set(ids) | set(old)
    return changed


def computed_values(scene: Scene) -> list:
    """The boxes (items) whose value a step computes, hidden while that step is pending:
    every box of the laid view (the results are laid on the forward boxes), the extension's
    boxes (adjoint, tangent) of the others."""
    trace = scene.trace
    laid = trace is not None and scene.view == trace.laid_view
    return [i for i in scene.items if laid or i.kind in ("adjoint", "tangent")]


def without_pending(scene: Scene, states: dict[str, str]) -> Scene:
    """``scene`` with the values of its pending boxes (``states``, from :func:`highlight`)
    written as "= ?": a slide of step k does not give away what later steps compute. The
    browser hides the same text (the last line, the last heatmap) by CSS."""
    hidden = {item.id for item in computed_values(scene)}
    pending = {i for i, state in states.items() if state == "pending" and i in hidden}
    laid = scene.view == scene.trace.laid_view
    items = []
    for item in scene.items:
        if item.id in pending:
            item = dataclasses.replace(item, text=fixed(*_pending_text(item, laid, scene.trace)))
        items.append(item)
    return dataclasses.replace(scene, items=items)


def _pending_text(item, laid: bool, trace) -> tuple[tuple[str, ...], tuple]:
    lines, heatmaps = list(item.lines), list(item.heatmaps)
    if heatmaps:  # a tensor: its heatmap blank (the same cells, so the box keeps its size)
        caption, array = heatmaps[-1]
        heatmaps[-1] = (caption, np.zeros(np.shape(array)))
        lines.append(f"{caption} = {PENDING}" if caption else f"= {PENDING}")
    elif laid:  # the result laid on the box, its last line: "v̄₄ = 1"
        lines[-1] = _placeholder(lines[-1], lines[-1].rindex("= ") + 2)
    elif item.node in trace.values and len(lines) > 1:  # an extension box's value line
        lines[-1] = _placeholder(lines[-1], 2)
    return tuple(lines), tuple(heatmaps)


def _placeholder(line: str, start: int) -> str:
    """``line`` with its value (from ``start``) written "?" (export_frames keeps each box at
    the size it has with its value, so that every frame has the same layout)."""
    return line[:start] + PENDING
