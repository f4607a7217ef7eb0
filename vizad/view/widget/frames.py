"""A view's data for the browser component (:func:`frame_data`: its picture, step states,
tooltips, clicks and search entries), and the same view with boxes opened as a patch of it
(:class:`Openings`: made from what the opened boxes change, not from the whole view again).
"""

from __future__ import annotations

import itertools
import re
import operator
import weakref
from collections.abc import Mapping

import numpy as np

from vizad.view.render import Layout
from vizad.view.render.folding import expanded
from vizad.view.render.scene import preview, value_parts
from vizad.trace.memory import forward_values
from vizad.trace.nonfinite import result_mark, value_mark
from vizad.trace.panel import heat_keys
from vizad.trace.text import subscript
from vizad.trace.values import heat_grid

__all__ = [
    "frame_data",
    "frame_patch",
    "heat_boxes",
    "Openings",
    "steps_of_nodes",
    "box_tip",
    "box_click",
    "edge_tip",
    "fold_data",
    "find_entries",
    "find_entry",
    "steps_computing",
    "values_drawn",
]


def frame_data(layout: Layout, trace, decimals: int) -> dict:
    """One view: its SVG (or its DOT, laid out in the browser), who computes each box, each
    step's highlights, tooltips, and which step a click on a box goes to."""
    scene, states = layout.scene, layout.states
    names = layout.box_names
    step_of_node = steps_of_nodes(trace)
    tips = {}
    clicks = {}
    laid = scene.view == trace.laid_view
    for item in scene.items:
        tips[item.id] = box_tip(item, trace, names, step_of_node, decimals, laid=laid)
        k = box_click(item, states, step_of_node)
        if k is not None:
            clicks[item.id] = k
    edges = [e for e in scene.edges if e.kind != "anchor"]
    # the laid-out SVG, or the DOT source that the browser lays out (without the dot program)
    laid = {"dot": layout.dot_source} if layout.in_browser else {"svg": layout.template}
    return {
        **laid,
        "scope": layout.scope,
        "owner": states.owner,
        "steps": states.steps,
        "hides": layout.hides,
        "tips": tips,
        "edgeTips": {e.id: edge_tip(e, names) for e in edges},
        "clicks": clicks,
        "note": scene.note,
        "collapsed": layout.collapsed,
        # what tracing a box's cone follows: edge id → [tail, head]
        "links": {e.id: [e.tail, e.head] for e in edges},
        "find": find_entries(scene, trace, step_of_node, decimals),
        # the decimals values are shown with: a number searched for matches as it would show
        "decimals": decimals,
        **({"folds": fold_data(scene)} if scene.folds else {}),
        # where each tensor's heatmap is drawn: what an element's terms read is lit there
        **({"heats": heats} if (heats := heat_boxes(scene, trace)) else {}),
    }


def heat_boxes(scene, trace) -> dict[str, list]:
    """Key of a tensor (vizad.trace.panel.heat_keys: "v7" the value v₇, "g7" its adjoint v̄₇)
    → ``[box id, first cell, cells]``: the box whose label draws its heatmap, where its cells
    begin among the box's heatmap cells (drawn one heatmap after the other), and how many
    cells the box draws in all (the page checks its drawing has them). A forward box draws its
    value (in the laid view, its step's v̄ under it, captioned), an adjoint box its own (or
    that of a copy drawn as it)."""
    if trace.mode != "reverse":
        return {}
    keys = heat_keys(trace)
    node_of = {key: node for node, key in keys.items()}
    values = trace.values
    items = {i.id: i for i in scene.items}
    out: dict[str, list] = {}
    for node, box in scene.ids.items():
        key = keys.get(node)
        item = items.get(box)
        if key is None or item is None:
            continue
        if key.startswith("v") and item.node is node and item.kind in ("forward", "variable"):
            # its value, and the laid view's v̄ captioned under it
            wanted = [key if caption == "" else "g" + key[1:] for caption, _ in item.heatmaps]
        elif key.startswith("g") and item.kind == "adjoint":
            wanted = [key if caption == "" else None for caption, _ in item.heatmaps]
        else:
            continue
        sizes = [heat_grid(array).size for _, array in item.heatmaps]
        for k, ((_, array), want) in enumerate(zip(item.heatmaps, wanted)):
            of = node_of.get(want) if want is not None else None
            if of is not None and of in values and np.shape(array) == np.shape(values[of]):
                out.setdefault(want, [box, sum(sizes[:k]), sum(sizes)])
    return out


#: trace → {node: the 0-based index of the step computing it}, made once per trace
_STEP_OF_NODE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def steps_of_nodes(trace) -> dict:
    """Node → the 0-based index of the step of ``trace`` that computes it (made once)."""
    found = _STEP_OF_NODE.get(trace)
    if found is None:
        found = _STEP_OF_NODE[trace] = {step.node: k for k, step in enumerate(trace.steps)}
    return found


def box_tip(
    item, trace, names: Mapping[str, str], step_of_node: Mapping, decimals: int, *, laid=False
) -> dict:
    """The tooltip of a box: its name (and formula), value, line of code, and the result of
    the step computing it (``"at"``: that step). A value that is NaN or infinite is said with
    where it comes from (``"nf"``: "here" when produced at this node, else "received"; the
    component marks the box so); in the laid view (``laid``: the results written on the
    forward boxes) the result too (``"nfResult"``, marked once its step is reached)."""
    node = item.node
    tip = {"head": "\n".join(item.lines[:2]) if node is not None else names[item.id]}
    if node is not None and node in trace.names.titles:  # e, loss: their vₖ on hover
        tip["head"] += f"\n(v{subscript(str(trace.names.number(node)))})"
    value, result = _values_said(trace, node, step_of_node, decimals)
    if value is not None:
        tip["value"] = value
    if node is not None and node.source:  # the user's line it was imported from
        tip["source"] = node.source
    if result is not None:
        tip["result"] = result
        tip["at"] = step_of_node[node]
    if item.kind in ("summary", "fold"):
        tip["head"] = "\n".join(item.lines)
    elif node is not None:
        _nonfinite_tip(tip, trace, node, step_of_node, laid)
    return tip


def _nonfinite_tip(tip: dict, trace, node, step_of_node: Mapping, laid: bool) -> None:
    """``tip`` told where the box's NaN or infinite numbers come from (:func:`box_tip`)."""
    mark = value_mark(trace, node)
    if mark is not None:
        tip["nf"] = "here" if mark.produced else "received"
        tip["value"] = f"{tip.get('value', '')}\n⚠ {mark}".lstrip("\n")
    k = step_of_node.get(node)
    if laid and k is not None:
        mark = result_mark(trace, trace.steps[k])
        if mark is not None:
            tip["nfResult"] = "here" if mark.produced else "received"
            tip["result"] = f"{tip['result']}\n⚠ {mark}"


#: trace → {(node, decimals): (its value, the result of its step), as tooltips say them}
_SAID: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _values_said(trace, node, step_of_node: Mapping, decimals: int) -> tuple:
    """A box's value ("value 0.5") and the result of the step computing its node ("v̄₄ = 1"),
    or None: made once per node of a trace (its box shows in several views, and openings)."""
    if node is None:
        return None, None
    said = _SAID.get(trace)
    if said is None:
        said = _SAID[trace] = {}
    key = (node, decimals)
    found = said.get(key)
    if found is None:
        value = "value " + preview(trace.values[node], decimals) if node in trace.values else None
        k = step_of_node.get(node)
        result = None
        if k is not None:
            name = trace.result_name(node).text
            result = f"{name} = {preview(trace.result(trace.steps[k]), decimals)}"
        found = said[key] = (value, result)
    return found


def box_click(item, states, step_of_node: Mapping) -> int | None:
    """The step (0-based) a click on a box goes to: the step computing its node, else the
    first step computing something in it; None: none."""
    k = step_of_node.get(item.node) if item.node is not None else None
    return k if k is not None else states.owner.get(item.id)


def edge_tip(edge, names: Mapping[str, str]) -> str:
    """The tooltip of an edge: its ends, and the local partial it carries."""
    text = f"{names.get(edge.tail, edge.tail)} → {names.get(edge.head, edge.head)}"
    if edge.label and not edge.label.startswith("×"):
        text += f"\n∂ = {edge.label}"
    return text


def fold_data(scene) -> dict:
    """The folds of a view (runs of repeated blocks drawn as one box): per fold id (its box's
    DOM id), how many blocks, the ids of each block's boxes once opened, and the
    ``collapse=`` that draws the view with it opened (the other folds kept)."""
    return {
        fold.id: {
            "repeats": fold.repeats,
            "blocks": [list(block) for block in fold.blocks],
            "expand": expanded(scene, fold.id),
        }
        for fold in scene.folds.values()
    }


def find_entries(scene, trace, step_of_node: Mapping, decimals: int = 3) -> list[list]:
    """What the component's search looks through, one entry per node of the view, in order:
    [its text (name, formula, the user's name, its line of code), the box showing it (a
    collapsed box for a node inside one), the 0-based step computing it or -1, and the lines
    of its box that show values, as drawn (``decimals``; none for a node inside a collapsed
    box)]."""
    shown = {item.node: item for item in scene.items if item.node is not None}
    boxes = {item.id for item in scene.items}
    return [
        find_entry(node, box, shown.get(node), trace, step_of_node, decimals)
        for node, box in scene.ids.items()
        if box in boxes  # else hidden (a summary's constants)
    ]


def find_entry(node, box: str, item, trace, step_of_node: Mapping, decimals: int = 3) -> list:
    """The search entry of ``node``, drawn in ``box`` (``item``: the box showing the node
    itself, if any): see :func:`find_entries`. An extension node (v̄₇₃, v̄₇₃→₇₄, v̇₃) goes to
    the step computing it."""
    own = item is not None and item.id == box
    values = values_drawn(item, trace, step_of_node, decimals) if own else []
    # the name and formula (a value, as the second line of a box, is searched as a value)
    text = " ".join(x for x in item.lines[:2] if x not in values) if own else None
    text = text or trace.names.label(node)
    if node.name and node.name not in text:
        text += f" {node.name}"
    if node.source:  # found by its line of code too ("model.py:12", "self.bn1")
        text += f" {node.source}"
    step = step_of_node.get(node)
    if step is None:
        step = steps_computing(trace).get(node, -1)
    return [text, box, step, values]


#: trace → {extension node: the 0-based index of the first step computing it}, made once
_COMPUTING: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def steps_computing(trace) -> dict:
    """Extension node (an adjoint v̄ᵢ, a partial adjoint v̄ᵢ→ⱼ, a tangent v̇ᵢ) → the 0-based
    index of the first step of ``trace`` that computes it (``trace.involved``): made once."""
    found = _COMPUTING.get(trace)
    if found is None:
        found = {}
        for k, step in enumerate(trace.steps):
            for node in trace.involved(step):
                found.setdefault(node, k)
        _COMPUTING[trace] = found
    return found


def values_drawn(item, trace, step_of_node: Mapping, decimals: int) -> list[str]:
    """The lines of ``item`` (a box showing its node) that write out a value: its node's
    ("= 0.3") and the result laid on it ("v̄₇₃ = 4.72e-15", in a view like backprop), made as
    the drawing makes them (:func:`~vizad.view.render.scene.value_parts`) and kept only where
    the box draws them: what a search for a number looks through. A tensor drawn as a heatmap
    writes no value."""
    node = item.node
    made = []
    if node in trace.values:
        made.append(value_parts(trace.values[node], decimals)[0][0])
    k = step_of_node.get(node)
    if k is not None:
        name = trace.result_name(node).text
        result, heatmaps = value_parts(trace.result(trace.steps[k]), decimals, name)
        if not heatmaps:
            made.append(f"{name} {result[0]}")
    drawn = item.lines[1:]
    return [line for line in made if _WRITTEN.search(line) and line in drawn]


#: A line writing a value out ("= 0.3", "v̄₄ = [1, 2]"), not a heatmap's shape or a reason
_WRITTEN = re.compile(r"^(\S+ )?= ")


def memory_boxes(layout: Layout, trace) -> list[str | None]:
    """Per forward value of the memory plan (its order), the box of ``layout`` that shows
    it (a folded block's box for a value inside one), or None."""
    ids = layout.scene.ids
    return [ids.get(n) for n in forward_values(trace)]


def frame_patch(base: dict, frame: dict) -> dict:
    """``frame`` as what differs from ``base`` (two frames of one view, ``frame`` with boxes
    opened): its picture and note whole, and of the per-box tables and per-step states only
    the entries that changed (an opened box changes the states of the steps inside it): what
    the component merges back (``applyPatch`` in static/stepper/expand.js). Linear in what
    was opened, not in the walkthrough."""
    patch = {k: frame[k] for k in ("dot", "svg", "scope", "note", "collapsed") if k in frame}
    for key in ("owner", "hides", "tips", "edgeTips", "clicks", "links"):
        old = base[key]
        patch[key] = {i: x for i, x in frame[key].items() if old.get(i, None) != x}
    patch["steps"] = {
        str(k): s for k, (s, b) in enumerate(zip(frame["steps"], base["steps"])) if s != b
    }
    patch["find"] = {
        str(k): e for k, (e, b) in enumerate(zip(frame["find"], base["find"])) if e != b
    }
    if "memoryBoxes" in base and "memoryBoxes" in frame:
        patch["memoryBoxes"] = {
            str(k): x
            for k, (x, b) in enumerate(zip(frame["memoryBoxes"], base["memoryBoxes"]))
            if x != b
        }
    return patch


class Openings:
    """The patches of one view's data ``frame`` (:func:`frame_data` of ``layout``) for
    layouts opened from it (:meth:`~vizad.view.render.Layout.openings`): each equal to
    ``frame_patch(frame, frame_data(opened, trace, decimals))``, but made from what the
    opening changes (its new boxes and edges, the boxes renamed or computed by another step,
    the steps whose states changed, the search entries of the nodes drawn elsewhere): a page
    carrying 64 boxes opened does not make its view's data 64 times again."""

    def __init__(self, layout: Layout, frame: dict, trace, decimals: int):
        self.frame, self.trace, self.decimals = frame, trace, decimals
        scene = layout.scene
        self._ids = scene.ids
        self._items = {i.id: i for i in scene.items}
        self._edges = {e.id: e for e in scene.edges if e.kind != "anchor"}
        self._names = layout.box_names
        # a view drawn with the memory timeline (its data has memoryBoxes): forward value →
        # its place among them, the boxes that show them patched too
        self._values = forward_values(trace) if "memoryBoxes" in frame else None
        self._forward = None if self._values is None else {n: i for i, n in enumerate(self._values)}
        self._step_of_node = steps_of_nodes(trace)
        self._laid = scene.view == trace.laid_view
        # node → the place of its entry in frame["find"] (the nodes of boxes drawn, in order)
        self._place: dict = {}
        # node → its place in scene.ids; box → the nodes drawn in it
        self._order: dict = {}
        self._nodes_in: dict[str, list] = {}
        for node, box in scene.ids.items():
            self._order[node] = len(self._order)
            self._nodes_in.setdefault(box, []).append(node)
            if box in self._items:
                self._place[node] = len(self._place)

    def patch(self, opened: Layout) -> dict:
        """``opened`` (this view with boxes opened) as a patch of the view's data."""
        frame, trace, decimals = self.frame, self.trace, self.decimals
        scene, states, step_of_node = opened.scene, opened.states, self._step_of_node
        names = opened.box_names
        old_names = self._names
        renamed = {i for i, _ in names.items() ^ old_names.items()}  # named otherwise, or not
        new = {i.id for i in scene.items if self._items.get(i.id) is not i}
        laid = {"dot": opened.dot_source} if opened.in_browser else {"svg": opened.template}
        patch = {**laid, "scope": opened.scope, "note": scene.note, "collapsed": opened.collapsed}
        owner = frame["owner"]
        patch["owner"] = {i: k for i, k in states.owner.items() if owner.get(i) != k}
        hides = frame["hides"]
        patch["hides"] = {i: x for i, x in opened.hides.items() if hides.get(i) != x}
        tips, clicks = {}, {}
        for item in scene.items:
            i = item.id
            if i in new or (i in renamed and item.node is None):
                tip = box_tip(item, trace, names, step_of_node, decimals, laid=self._laid)
                if frame["tips"].get(i) != tip:
                    tips[i] = tip
            if i in new or i in patch["owner"]:
                k = box_click(item, states, step_of_node)
                if k is not None and frame["clicks"].get(i) != k:
                    clicks[i] = k
        edge_tips, links = {}, {}
        for e in scene.edges:
            if e.kind == "anchor":
                continue
            was = self._edges.get(e.id)
            if (was is e or was == e) and e.tail not in renamed and e.head not in renamed:
                continue
            tip, link = edge_tip(e, names), [e.tail, e.head]
            if frame["edgeTips"].get(e.id) != tip:
                edge_tips[e.id] = tip
            if frame["links"].get(e.id) != link:
                links[e.id] = link
        patch.update(tips=tips, edgeTips=edge_tips, clicks=clicks, links=links)
        # the steps whose states were made again (the others are the view's own objects),
        # found at C speed: an opening changes a few of a walkthrough's thousand steps
        steps, base = states.steps, frame["steps"]
        redone = itertools.compress(itertools.count(), map(operator.is_not, steps, base))
        patch["steps"] = {str(k): steps[k] for k in redone if steps[k] != base[k]}
        patch["find"] = self._find(scene, new)
        if self._forward is not None:
            patch["memoryBoxes"] = self._memory_boxes(scene)
        return patch

    def _memory_boxes(self, scene) -> dict[str, str | None]:
        """The forward values drawn in another box than in the view (a value inside the
        box opened: its own box now), by their place in ``memoryBoxes`` (a value no longer
        drawn: None); :func:`memory_boxes` of the opened layout, as a patch."""
        ids, old, forward = scene.ids, self._ids, self._forward
        moved = {n for n, _ in ids.items() - old.items()} | (old.keys() - ids.keys())
        places = sorted(forward[n] for n in moved if n in forward)
        return {str(i): ids.get(self._values[i]) for i in places}

    def _find(self, scene, new: set[str]) -> dict[str, list]:
        """The search entries that differ (by place) from the view's: those of the nodes drawn
        in another box, or shown by a box that changed. Every entry compared when a node's
        entry comes or goes (the places after it move)."""
        trace, step_of_node, old_ids, place = self.trace, self._step_of_node, self._ids, self._place
        boxes = {i.id for i in scene.items}
        gone = self._items.keys() - boxes
        touched = {i.node for i in scene.items if i.id in new and i.node is not None}
        touched.update(self._items[b].node for b in gone)
        # the nodes drawn in another box (or new), in a box gone or a box new, in the order
        # of scene.ids (an opening keeps the view's order): found by set operations, not by
        # a pass over the view's thousands of nodes for each opening
        ids = scene.ids
        found = {node for node, _ in ids.items() - old_ids.items()}
        for b in gone:
            found.update(n for n in self._nodes_in.get(b, ()) if ids.get(n) == b)
        found.update(n for n in touched if n in ids)
        order = self._order
        redo = [(n, ids[n]) for n in sorted(found, key=lambda n: order.get(n, -1))]
        base = self.frame["find"]
        if len(scene.ids) != len(old_ids) or any((n in place) != (b in boxes) for n, b in redo):
            entries = find_entries(scene, trace, step_of_node, self.decimals)  # places move
            return {str(k): e for k, (e, b) in enumerate(zip(entries, base)) if e != b}
        shown = {item.node: item for item in scene.items if item.node is not None}
        out = {}
        for node, box in redo:
            if node in place:
                entry = find_entry(node, box, shown.get(node), trace, step_of_node, self.decimals)
                if entry != base[place[node]]:
                    out[str(place[node])] = entry
        return out
