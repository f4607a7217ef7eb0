"""Everything the browser component shows of a walkthrough, as JSON-ready data made once.

The component (``static/stepper/``) restyles the laid-out SVG of each view by id and fills in
the panels from this data: stepping never asks Python for anything. The data is linear in the
size of the walkthrough: per view, the SVG, the step that computes each box (done before it,
pending after), each step's current box, consumers, involved boxes and edges (sent once for
views that share them), and the text of each box's tooltip; per step, its label, its panel and
its row of the running table (which the browser builds from the rows of the steps so far); once,
the head of the panels' tables of contributions and the CSS of the step states, made from the
one palette that also colours the DOT drawings.

Step numbers shown to people are 1-based ("Step 3 of 7", ``stepper.step == 3``); indices into
lists here are 0-based.
"""

from __future__ import annotations

import base64
import gzip
import json
from collections import Counter
from collections.abc import Mapping

import numpy as np

from .._gc import gc_paused
from ..render import LAYOUT_BUDGET, MAX_BOXES, Layout
from ..render.options import Collapse
from ..render.legibility import DEFAULT_FRAME
from ..render.dot import dot_names
from ..render.folding import expanded
from ..render.palette import legend_words, state_css
from ..render.scene import preview
from ..text import check_decimals, subscript
from ..trace.quiz import RULE as QUIZ_RULE
from ..trace.quiz import questions as quiz_questions
from .panel import CONTRIBUTIONS_HEAD, running_row, step_panel

__all__ = ["walkthrough_data", "frame_data", "check_failures"]


def check_failures(trace) -> dict[int, str]:
    """0-based step index → the message of the first rule of that step that fails
    ``trace.check()``."""
    failures: dict[int, str] = {}
    for failure in trace.check():
        failures.setdefault(failure.step - 1, failure.message)
    return failures


@gc_paused()  # many small objects, all alive (see vizad._gc)
def walkthrough_data(
    trace,
    *,
    view: str | None = None,
    failures: Mapping[int, str] | None = None,
    decimals: int | None = None,
    collapse: Collapse = None,
    max_boxes: int = MAX_BOXES,
    detail: bool = False,
    budget: float | None = LAYOUT_BUDGET,
    layouts: Mapping[str, Layout] | None = None,
    quiz: bool = False,
    questions: list | None = None,
    views=None,
    openings: bool = False,
) -> dict:
    """The data of the component for ``trace``: every view laid out (``layouts`` reuses those
    already made; ``views``: only these, the others laid out when first opened, see
    :class:`~vizad.widget.Stepper`), every step's panel and running-table row; with ``quiz``
    (or the ``questions`` of :func:`vizad.trace.quiz.questions`), each step's questions, their
    answers encoded (see :func:`quiz_data`). With ``openings`` (a page without a kernel), each
    collapsed box also comes opened, as DOT that the page lays out when the box is clicked
    (see :func:`opening_data`)."""
    if quiz and questions is None:
        questions = quiz_questions(trace)
    failures = dict(failures or {})
    d = trace.decimals if decimals is None else check_decimals(decimals, "stepper")
    layouts = dict(layouts or {})
    frames: dict[str, dict] = {}
    for v in trace.views if views is None else views:
        layout = layouts.get(v) or Layout(
            trace,
            v,
            decimals=d,
            failed=frozenset(failures),
            collapse=collapse,
            max_boxes=max_boxes,
            detail=detail,
            budget=budget,
            frame=DEFAULT_FRAME,  # the picture readable there (vizad.render.legibility)
        )
        frame = frame_data(layout, trace, d)
        if openings and layout.collapsed:
            frame["opens"] = pack_opens(opening_data(layout, trace, d, frame))
        frames[v] = shared_steps(frame, frames)
    return {
        "mode": trace.mode,
        "title": trace.describe(),
        "n": len(trace.steps),
        "view": trace.view(view),
        "views": [{"name": v, "title": trace.view_titles[v]} for v in trace.views],
        "frames": frames,
        "steps": [
            {
                "label": step.label,
                "panel": step_panel(trace, k, failures, math=False, decimals=d, table_head=False),
                "row": running_row(trace, k, failures, decimals=d),
            }
            for k, step in enumerate(trace.steps)
        ],
        "failed": sorted(failures),
        # the step (1-based) where a NaN or infinite value first appears, or None
        "nonfinite": _first_nonfinite(trace),
        # the scalar inputs; a live stepper makes them editable (what-if)
        "inputs": inputs_data(trace, editable=False),
        # the head of every panel's table of contributions, sent once
        "contributionsHead": CONTRIBUTIONS_HEAD,
        "css": state_css(".vizad-stepper"),
        # the legend of the step states, shown by the component as text (never clipped)
        "legend": legend_words(trace.mode),
        **({"quiz": quiz_data(questions), "rule": QUIZ_RULE} if questions is not None else {}),
    }


#: A page carries its view's collapsed boxes opened for at most this many nodes in all (the
#: first boxes drawn): about 1 kB each, so that a page of a large walkthrough stays within a
#: couple of MB of its size without them.
PAGE_OPENINGS = 2000


def _first_nonfinite(trace) -> int | None:
    step = trace.first_nonfinite()
    return None if step is None else step.index + 1


def opening_data(layout: Layout, trace, decimals: int, frame: dict) -> dict[str, dict]:
    """Box id → the view with that collapsed box opened, as a patch of ``frame`` (the view's
    data, :func:`frame_patch`) whose picture is DOT for the browser to lay out: a page
    without a kernel opens any one box itself (the first that the walkthrough reaches, those
    of PAGE_OPENINGS nodes in all: :func:`carried_order`)."""
    size = Counter(layout.scene.ids.values())
    carried, total = [], 0
    for box in carried_order(layout):  # up to the page's budget
        total += size[box]
        if total > PAGE_OPENINGS:
            break
        carried.append((box,))
    opened = layout.openings(carried, in_browser=True)
    return {
        box[0]: frame_patch(frame, frame_data(lay, trace, decimals)) for box, lay in opened.items()
    }


def carried_order(layout: Layout) -> list[str]:
    """The collapsed boxes of ``layout`` in the order a page carries them opened: by the first
    step that computes something in them (the walkthrough reaches them in that order, from
    step 1), then the others as drawn."""
    owner = layout.states.owner if layout.states is not None else {}
    last = len(layout.scene.trace.steps) if layout.scene.trace is not None else 0
    return sorted(layout.collapsed, key=lambda box: owner.get(box, last))


def pack_opens(opens: Mapping[str, dict]) -> dict:
    """The boxes a page opens itself (:func:`opening_data`), as the page carries them: their
    ids, and their patches as one gzip-compressed JSON text (base64), which the page inflates
    the first time a box is opened (``unpackOpens`` in static/stepper/expand.js). The patches'
    pictures repeat most of the view's DOT each: each line of DOT is kept once, a picture
    being the numbers of its lines, and a page that nobody opens a box in never parses them.
    Deterministic (no gzip time)."""
    lines: dict[str, int] = {}  # each line of DOT once: the patches' pictures share most
    patches = {}
    for box, patch in opens.items():
        patch = dict(patch)
        if "dot" in patch:
            dot = patch.pop("dot").split("\n")
            patch["dotLines"] = [lines.setdefault(line, len(lines)) for line in dot]
        patches[box] = patch
    return {"ids": list(opens), "gz": packed_json({"lines": list(lines), "patches": patches})}


def packed_json(data) -> str:
    """``data`` as compact JSON, gzip-compressed (no time in the header: deterministic) and
    base64-encoded: what ``inflateJson`` (static/stepper/helpers.js) reads back. JSON of
    panels and DOT compresses about tenfold."""
    text = json.dumps(data, separators=(",", ":")).encode()  # ASCII: lone surrogates escaped
    return base64.b64encode(gzip.compress(text, compresslevel=6, mtime=0)).decode("ascii")


def unpack_opens(packed: Mapping) -> dict[str, dict]:
    """What :func:`pack_opens` packed: box id → its patch."""
    whole = json.loads(gzip.decompress(base64.b64decode(packed["gz"])))
    lines = whole["lines"]
    out = {}
    for box, patch in whole["patches"].items():
        if "dotLines" in patch:
            patch["dot"] = "\n".join(lines[i] for i in patch.pop("dotLines"))
        out[box] = patch
    return out


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
    return patch


def shared_steps(frame: dict, earlier: Mapping[str, dict]) -> dict:
    """``frame`` with its per-step states given as ``"stepsOf": view`` when an earlier view
    has the very same ones (a laid view and the forward view share their boxes): each step's
    states are sent once, not once per view."""
    for view, other in earlier.items():
        if "steps" in other and other["steps"] == frame["steps"]:
            frame = {k: x for k, x in frame.items() if k != "steps"}
            frame["stepsOf"] = view
            break
    return frame


def quiz_data(questions) -> list[list[dict]]:
    """Per step, its questions for the browser ({"key", "q": what is asked, "kind", "hint",
    "code": the answer and how it is shown, encoded}). The encoding keeps answers out of plain
    sight in a page's source; it is not a secret."""
    out = []
    serial = 0
    for asked in questions:
        step = []
        for q in asked:
            serial += 1
            d = q.data()
            secret = json.dumps({"a": d.pop("a"), "shown": d.pop("shown")})
            step.append({**d, "code": conceal(secret, serial), "salt": serial})
        out.append(step)
    return out


def inputs_data(trace, editable: bool) -> list[dict]:
    """The walkthrough's scalar inputs, for the what-if fields: {"name", "label" (v₁ = x1),
    "value", "editable"} (editable only where a kernel can trace the walkthrough again)."""
    out = []
    for node, value in trace.feed.items():
        array = np.asarray(value)
        if node.name is None or array.ndim != 0 or array.dtype.kind not in "fiu":
            continue
        out.append({"name": node.name, "label": trace.names.label(node), "value": float(array),
                    "editable": editable})  # fmt: skip
    return out


def conceal(text: str, salt: int) -> str:
    """``text`` XOR-ed with a key that depends on ``salt``, base64: what the component's
    ``reveal(code, salt)`` (``static/stepper/helpers.js``) reads back."""
    data = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    key = ((31 + 7 * salt + 13 * np.arange(data.size, dtype=np.int64)) % 251).astype(np.uint8)
    return base64.b64encode((data ^ key).tobytes()).decode("ascii")


def frame_data(layout: Layout, trace, decimals: int) -> dict:
    """One view: its SVG (or its DOT, laid out in the browser), who computes each box, each
    step's highlights, tooltips, and which step a click on a box goes to."""
    scene, states = layout.scene, layout.states
    names = dot_names(scene)
    step_of_node = {step.node: k for k, step in enumerate(trace.steps)}
    tips = {}
    clicks = {}
    for item in scene.items:
        tip = {"head": "\n".join(item.lines[:2]) if item.node is not None else names[item.id]}
        node = item.node
        if node is not None and node in trace.names.titles:  # e, loss: their vₖ on hover
            tip["head"] += f"\n(v{subscript(str(trace.names.number(node)))})"
        if node is not None and node in trace.values:
            tip["value"] = "value " + preview(trace.values[node], decimals)
        if node is not None and node.source:  # the user's line it was imported from
            tip["source"] = node.source
        k = step_of_node.get(node) if node is not None else None
        if k is not None:
            step = trace.steps[k]
            result = trace.result_name(node).text
            tip["result"] = f"{result} = {preview(trace.result(step), decimals)}"
            tip["at"] = k
            clicks[item.id] = k
        elif item.id in states.owner:
            clicks[item.id] = states.owner[item.id]
        if item.kind in ("summary", "fold"):
            tip["head"] = "\n".join(item.lines)
        tips[item.id] = tip
    edge_tips = {}
    for edge in scene.edges:
        if edge.kind == "anchor":
            continue
        text = f"{names.get(edge.tail, edge.tail)} → {names.get(edge.head, edge.head)}"
        if edge.label and not edge.label.startswith("×"):
            text += f"\n∂ = {edge.label}"
        edge_tips[edge.id] = text
    # the laid-out SVG, or the DOT source that the browser lays out (without the dot program)
    laid = {"dot": layout.dot_source} if layout.in_browser else {"svg": layout.template}
    return {
        **laid,
        "scope": layout.scope,
        "owner": states.owner,
        "steps": states.steps,
        "hides": layout.hides,
        "tips": tips,
        "edgeTips": edge_tips,
        "clicks": clicks,
        "note": scene.note,
        "collapsed": layout.collapsed,
        # what tracing a box's cone follows: edge id → [tail, head]
        "links": {e.id: [e.tail, e.head] for e in scene.edges if e.kind != "anchor"},
        "find": find_entries(scene, trace, step_of_node),
        **({"folds": fold_data(scene)} if scene.folds else {}),
    }


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


def find_entries(scene, trace, step_of_node: Mapping) -> list[list]:
    """What the component's search looks through, one entry per node of the view, in order:
    [its text (name, formula, the user's name, its line of code), the box showing it (a
    collapsed box for a node inside one), the 0-based step computing it or -1]."""
    shown = {item.node: item for item in scene.items if item.node is not None}
    boxes = {item.id for item in scene.items}
    entries = []
    for node, box in scene.ids.items():
        if box not in boxes:
            continue  # hidden (a summary's constants)
        item = shown.get(node)
        if item is not None and item.id == box:
            text = " ".join(item.lines[:2])
        else:
            text = trace.names.label(node)
        if node.name and node.name not in text:
            text += f" {node.name}"
        if node.source:  # found by its line of code too ("model.py:12", "self.bn1")
            text += f" {node.source}"
        entries.append([text, box, step_of_node.get(node, -1)])
    return entries
