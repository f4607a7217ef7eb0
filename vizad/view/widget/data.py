"""Everything the browser component shows of a walkthrough, as JSON-ready data made once.

The component (``static/stepper/``) restyles the laid-out SVG of each view by id and fills in
the panels from this data: stepping never asks Python for anything. The data is linear in the
size of the walkthrough: per view, the SVG, the step that computes each box (done before it,
pending after), each step's current box, consumers, involved boxes and edges (sent once for
views that share them), and the text of each box's tooltip; per step, its label, its panel and
its row of the running table (vizad.trace.panel's data, its heatmaps coloured by the palette;
the browser builds their elements, and the running table from the rows of the steps so far);
once, the head of the panels' tables of contributions and the CSS of the step states, made
from the one palette that also colours the DOT drawings.

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

from vizad.engine._gc import gc_paused
from vizad.view.render import Layout
from vizad.view.render.options import DrawOptions
from vizad.view.render.legibility import DEFAULT_FRAME
from vizad.view.render.palette import diverging, legend_words, state_css
from vizad.errors import ArgumentError
from vizad.trace.memory import memory_plan
from vizad.trace.text import check_decimals
from vizad.trace.panel import CONTRIBUTIONS_HEAD, running_row, step_panel
from vizad.trace.quiz import RULE as QUIZ_RULE
from vizad.trace.quiz import questions as quiz_questions
from vizad.view.widget.frames import Openings, frame_data, frame_patch, memory_boxes

__all__ = ["walkthrough_data", "frame_data", "frame_patch", "check_failures"]

#: The legend's words for the marks of boxes holding NaN or infinite numbers (the classes
#: ``vz-s-nf-here``, ``vz-s-nf-received`` of static/stepper.css): never a failing rule.
NONFINITE_WORDS = (("nf-here", "NaN/inf produced here"), ("nf-received", "NaN/inf received"))

#: Graphs with at most this many steps are checked with trace.check() when a stepper opens
#: or a page is exported (larger ones only when asked).
CHECK_LIMIT = 400


def check_failures(trace) -> dict[int, str]:
    """0-based step index → the message of the first rule of that step that fails
    ``trace.check()``."""
    failures: dict[int, str] = {}
    for failure in trace.check():
        failures.setdefault(failure.step - 1, failure.message)
    return failures


@gc_paused()  # many small objects, all alive (see vizad.engine._gc)
def walkthrough_data(
    trace,
    *,
    view: str | None = None,
    failures: Mapping[int, str] | None = None,
    options: DrawOptions | None = None,
    layouts: Mapping[str, Layout] | None = None,
    quiz: bool = False,
    questions: list | None = None,
    views=None,
    openings: bool = False,
    memory: bool = False,
) -> dict:
    """The data of the component for ``trace``, its views drawn with ``options`` (a
    :class:`~vizad.view.render.DrawOptions`; default its defaults): every view laid out
    (``layouts`` reuses those already made; ``views``: only these, the others laid out when
    first opened, see :class:`~vizad.view.widget.Stepper`), every step's panel and
    running-table row; with ``quiz``
    (or the ``questions`` of :func:`vizad.trace.quiz.questions`), each step's questions, their
    answers encoded (see :func:`quiz_data`). With ``openings`` (a page without a kernel), the
    collapsed boxes of PAGE_OPENINGS nodes in all also come opened (``"opens"``, every view's
    in one packed text: :func:`page_openings`, :func:`pack_opens`), as DOT that the page lays
    out when the box is clicked, and when the page carries Graphviz for that, the views but
    the one shown first come as DOT too (:func:`_carries_graphviz`). With ``memory`` (a
    reverse walkthrough), the memory timeline's plan and the boxes of the forward values
    (:func:`memory_data`): the page draws the timeline and edits checkpoints without Python."""
    if quiz and questions is None:
        questions = quiz_questions(trace)
    failures = dict(failures or {})
    options = DrawOptions() if options is None else options
    d = check_decimals(options.decimals_for(trace), "stepper")
    layouts = dict(layouts or {})
    listed = list(trace.views if views is None else views)
    shown = trace.view(view)
    for v in sorted(listed, key=lambda v: v != shown):  # the view shown first, first
        if v in layouts:
            continue
        layouts[v] = Layout(
            trace,
            v,
            **options.layout_args(d),
            failed=frozenset(failures),
            frame=DEFAULT_FRAME,  # the picture readable there (vizad.view.render.legibility)
            in_browser=True if openings and _carries_graphviz(layouts.get(shown)) else None,
            twin=_twin(trace, v, layouts),
        )
    made = {v: frame_data(layouts[v], trace, d) for v in listed}
    if memory:  # (before the openings: their patches carry the boxes opened)
        for v in listed:
            made[v]["memoryBoxes"] = memory_boxes(layouts[v], trace)
    opens = page_openings(trace, layouts, made, shown, d) if openings else {}
    frames: dict[str, dict] = {}
    for v in listed:
        frames[v] = shared_steps(made[v], frames)
    return {
        "mode": trace.mode,
        # the drawing options' heading: a title of the reader's own, or none (False)
        "title": (
            trace.describe()
            if options.heading is None
            else options.heading
            if isinstance(options.heading, str)
            else ""
        ),
        "n": len(trace.steps),
        "view": trace.view(view),
        "views": [{"name": v, "title": trace.view_titles[v]} for v in trace.views],
        "frames": frames,
        "steps": [
            {
                "label": step.label,
                "panel": step_panel(trace, k, failures, decimals=d, colour=diverging),
                "row": running_row(trace, k, failures, decimals=d, colour=diverging),
            }
            for k, step in enumerate(trace.steps)
        ],
        "failed": sorted(failures),
        # the step (1-based) where a NaN or infinite value first appears, or None
        "nonfinite": _first_nonfinite(trace),
        # the scalar inputs; a live stepper makes them editable (what-if)
        "inputs": inputs_data(trace, editable=False),
        # the head of every panel's table of contributions, sent once
        "contributionsHead": list(getattr(trace, "contributions_head", CONTRIBUTIONS_HEAD)),
        "css": state_css(".vizad-stepper"),
        # the legend of the step states, shown by the component as text (never clipped), and
        # of the marks of NaN or infinite values when the walkthrough has any
        "legend": legend_words(trace.mode)
        + (list(map(list, NONFINITE_WORDS)) if trace.first_nonfinite() is not None else []),
        **({"quiz": quiz_data(questions), "rule": QUIZ_RULE} if questions is not None else {}),
        **({"opens": pack_opens(opens)} if opens else {}),
        **({"memory": memory_data(trace)} if memory else {}),
    }


def memory_data(trace) -> dict:
    """What the stepper's memory timeline and checkpoint editor need
    (``static/stepper/timeline.js``): the plan that the page makes any timeline from
    (vizad.trace.memory.memory_plan); each view's data carries its boxes
    (:func:`memory_boxes`)."""
    if trace.mode != "reverse":
        raise ArgumentError(
            f"memory=True shows what reverse mode keeps; this is a {trace.mode} walkthrough: "
            "trace it with vz.trace_reverse (or leave memory out)"
        )
    return {"plan": memory_plan(trace)}


#: A page carries collapsed boxes opened for at most this many nodes in all, over its views
#: (the view shown first's first, then the others', each view's the first boxes the
#: walkthrough reaches): about 1 kB each before compression, so that a page of a large
#: walkthrough stays within about 2 MiB (the other boxes say that opening them needs Python).
PAGE_OPENINGS = 2000


def _carries_graphviz(shown: Layout | None) -> bool:
    """Whether a page (``openings``) whose view shown first is ``shown`` carries the browser's
    Graphviz anyway (that view is laid out there, or has boxes the page opens itself): then
    its other views are left to it too, laid out when first shown, and the export runs
    ``dot`` only on what the page opens at."""
    return shown is not None and (shown.in_browser or bool(shown.collapsed))


def _first_nonfinite(trace) -> int | None:
    step = trace.first_nonfinite()
    return None if step is None else step.index + 1


def _twin(trace, view: str, layouts: Mapping[str, Layout]) -> Layout | None:
    """The layout whose step states the laid view's may take (``Layout(twin=)``): the forward
    view's, when it is made already (the laid view writes its results in the same boxes)."""
    return layouts.get("forward") if view == trace.laid_view and view != "forward" else None


def carried(layout: Layout, budget: int = PAGE_OPENINGS) -> tuple[list[tuple[str]], int]:
    """The collapsed boxes of ``layout`` that a page carries opened (each as a 1-tuple, as
    :meth:`~vizad.view.render.Layout.openings` takes them): the first that the walkthrough reaches
    (:func:`carried_order`), those of ``budget`` nodes in all; and the budget left."""
    size = Counter(layout.scene.ids.values())
    out = []
    for box in carried_order(layout):  # up to the page's budget
        if size[box] > budget:
            break
        budget -= size[box]
        out.append((box,))
    return out, budget


def page_openings(
    trace, layouts: Mapping[str, Layout], frames: Mapping[str, dict], shown: str, decimals: int
) -> dict[str, dict[str, dict]]:
    """View → box id → the patch of that view's data (``frames``) with the box opened, for
    the boxes a page without a kernel opens itself (:func:`opening_data`): PAGE_OPENINGS
    nodes in all, the view ``shown`` first, then the others in the trace's order."""
    left, out = PAGE_OPENINGS, {}
    opened: dict[str, dict] = {}  # view → its boxes opened (the laid view's take their states)
    for v in sorted(frames, key=lambda v: (v != shown, trace.views.index(v))):
        layout = layouts[v]
        if not layout.collapsed:
            continue
        boxes, left = carried(layout, left)
        if not boxes:
            continue
        twins = opened.get("forward") if v == trace.laid_view else None
        opened[v] = layout.openings(boxes, in_browser=True, twins=twins)
        out[v] = opening_data(layout, trace, decimals, frames[v], opened[v])
    return out


def opening_data(
    layout: Layout, trace, decimals: int, frame: dict, opened: Mapping[tuple, Layout] | None = None
) -> dict[str, dict]:
    """Box id → the view with that collapsed box opened, as a patch of ``frame`` (the view's
    data; :class:`~vizad.view.widget.frames.Openings`) whose picture is DOT for the browser to lay
    out: a page without a kernel opens any one box itself (:func:`carried`). ``opened``: those
    layouts, when they are made already."""
    if opened is None:
        opened = layout.openings(carried(layout)[0], in_browser=True)
    patches = Openings(layout, frame, trace, decimals)
    return {box[0]: patches.patch(lay) for box, lay in opened.items()}


def carried_order(layout: Layout) -> list[str]:
    """The collapsed boxes of ``layout`` in the order a page carries them opened: by the first
    step that computes something in them (the walkthrough reaches them in that order, from
    step 1), then the others as drawn."""
    owner = layout.states.owner if layout.states is not None else {}
    last = len(layout.scene.trace.steps) if layout.scene.trace is not None else 0
    return sorted(layout.collapsed, key=lambda box: owner.get(box, last))


def pack_opens(opens: Mapping[str, Mapping[str, dict]]) -> dict:
    """The boxes a page opens itself (view → box id → patch, :func:`page_openings`), as the
    page carries them: the ids per view, and the patches of every view as one gzip-compressed
    JSON text (base64), which the page inflates the first time a box is opened
    (``unpackOpens`` in static/stepper/expand.js). The patches' pictures repeat most of their
    view's DOT each: each line of DOT is kept once, a picture being the numbers of its lines;
    a box opened in two views (the forward view and the laid one) has most of its patch alike
    in both: a field equal to an earlier view's is given as that view's name (``"same"``).
    One text, so that gzip sees what the views share; a page that nobody opens a box in never
    parses it. Deterministic (no gzip time)."""
    lines: dict[str, int] = {}  # each line of DOT once: the patches' pictures share most
    patches: dict[str, dict] = {}
    for view, boxes in opens.items():
        packed = patches[view] = {}
        for box, patch in boxes.items():
            patch = dict(patch)
            if "dot" in patch:
                dot = patch.pop("dot").split("\n")
                patch["dotLines"] = [lines.setdefault(line, len(lines)) for line in dot]
            same = {}
            for field, value in patch.items():
                for other, earlier in patches.items():
                    if other != view and box in earlier and earlier[box].get(field, _NONE) == value:
                        same[field] = other
                        break
            packed[box] = {k: x for k, x in patch.items() if k not in same}
            if same:
                packed[box]["same"] = same
    ids = {view: list(boxes) for view, boxes in opens.items()}
    return {"ids": ids, "gz": packed_json({"lines": list(lines), "patches": patches})}


_NONE = object()  # no such field


#: gzip's level for packed data: 6 is about 8 % fewer bytes than 4 on a 5,160-step page's data
#: (0.95 MiB instead of 1.02 in base64), for about 0.05 s more on a 1,018-step one.
PACK_LEVEL = 6


def packed_json(data) -> str:
    """``data`` as compact JSON in UTF-8, gzip-compressed (no time in the header:
    deterministic) and base64-encoded: what ``inflateJson`` (static/stepper/helpers.js) reads
    back. JSON of panels and DOT compresses about tenfold. A text holding a lone surrogate
    (which UTF-8 cannot encode) is written with ASCII escapes."""
    try:
        text = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()
    except UnicodeEncodeError:  # a lone surrogate: JSON's escapes read it back
        text = json.dumps(data, separators=(",", ":")).encode()
    return base64.b64encode(gzip.compress(text, compresslevel=PACK_LEVEL, mtime=0)).decode("ascii")


def unpack_opens(packed: Mapping) -> dict[str, dict[str, dict]]:
    """What :func:`pack_opens` packed: view → box id → its patch."""
    whole = json.loads(gzip.decompress(base64.b64decode(packed["gz"])))
    lines, patches = whole["lines"], whole["patches"]
    for boxes in patches.values():
        for box, patch in boxes.items():
            for field, other in patch.pop("same", {}).items():
                patch[field] = patches[other][box][field]
    for boxes in patches.values():
        for patch in boxes.values():
            if "dotLines" in patch:
                patch["dot"] = "\n".join(lines[i] for i in patch.pop("dotLines"))
    return patches


#: The fields of a view's data sent once for views that have them alike (the laid view and
#: the forward view share their boxes: their step states, and their search entries when no
#: value is drawn differently), as ``"<field>Of": view``.
SHARED = ("steps", "find")


def shared_steps(frame: dict, earlier: Mapping[str, dict]) -> dict:
    """``frame`` with its per-step states (and its search entries) given as ``"stepsOf":
    view`` (``"findOf"``) when an earlier view has the very same ones (:data:`SHARED`): sent
    once, not once per view. :func:`resolved` gives them back."""
    for field in SHARED:
        for view, other in earlier.items():
            if field in other and other[field] == frame[field]:
                frame = {k: x for k, x in frame.items() if k != field}
                frame[field + "Of"] = view
                break
    return frame


def resolved(frames: Mapping[str, dict]) -> dict[str, dict]:
    """The views' data with the fields sent once (:func:`shared_steps`) in each view again,
    as the component has them (``static/stepper/mount.js``)."""
    out = {}
    for view, frame in frames.items():
        frame = dict(frame)
        for field in SHARED:
            if field + "Of" in frame:
                frame[field] = frames[frame.pop(field + "Of")][field]
        out[view] = frame
    return out


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
