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
from collections.abc import Mapping

import numpy as np

from .._gc import gc_paused
from ..render import Layout
from ..render.dot import dot_names
from ..render.palette import legend_words, state_css
from ..render.scene import preview
from ..text import check_decimals, subscript
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
    collapse=None,
    layouts: Mapping[str, Layout] | None = None,
    quiz: bool = False,
) -> dict:
    """The data of the component for ``trace``: every view laid out (``layouts`` reuses those
    already made), every step's panel and running-table row; with ``quiz``, each step's
    question (what its result is called) and answer, encoded (see :func:`quiz_data`)."""
    failures = dict(failures or {})
    d = trace.decimals if decimals is None else check_decimals(decimals, "stepper")
    layouts = dict(layouts or {})
    frames: dict[str, dict] = {}
    for v in trace.views:
        layout = layouts.get(v) or Layout(
            trace, v, decimals=d, failed=frozenset(failures), collapse=collapse
        )
        frames[v] = _shared_steps(frame_data(layout, trace, d), frames)
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
        # the head of every panel's table of contributions, sent once
        "contributionsHead": CONTRIBUTIONS_HEAD,
        "css": state_css(".vizad-stepper"),
        # the legend of the step states, shown by the component as text (never clipped)
        "legend": legend_words(trace.mode),
        **({"quiz": quiz_data(trace)} if quiz else {}),
    }


def _shared_steps(frame: dict, earlier: Mapping[str, dict]) -> dict:
    """``frame`` with its per-step states given as ``"stepsOf": view`` when an earlier view
    has the very same ones (a laid view and the forward view share their boxes): each step's
    states are sent once, not once per view."""
    for view, other in earlier.items():
        if "steps" in other and other["steps"] == frame["steps"]:
            frame = {k: x for k, x in frame.items() if k != "steps"}
            frame["stepsOf"] = view
            break
    return frame


def quiz_data(trace) -> list[dict | None]:
    """Per step, {"q": the name of the step's result (v̄₂, v̇₃), "a": its value, encoded}
    for a quiz (None for a step whose result is not one number: it is shown, not asked). The
    encoding keeps answers out of plain sight in a page's source; it is not a secret."""
    questions = []
    for k, step in enumerate(trace.steps):
        value = np.asarray(trace.result(step))
        if value.dtype.kind not in "fiu" or value.size != 1:
            questions.append(None)
            continue
        questions.append(
            {"q": trace.result_name(step.node).text, "a": conceal(repr(value.item()), k)}
        )
    return questions


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
        k = step_of_node.get(node) if node is not None else None
        if k is not None:
            step = trace.steps[k]
            result = trace.result_name(node).text
            tip["result"] = f"{result} = {preview(trace.result(step), decimals)}"
            tip["at"] = k
            clicks[item.id] = k
        elif item.id in states.owner:
            clicks[item.id] = states.owner[item.id]
        if item.kind == "summary":
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
    }
