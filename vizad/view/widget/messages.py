"""The browser's requests to a live stepper, and their answers (custom widget messages).

{"kind": "view", "view": v}: a view's data, laid out when first asked for; {"kind": "open",
"view": v, "boxes": [ids], "key": k}: the view with those collapsed boxes opened. Each is
answered by a message with the same kind and view (and key), carrying ``frame`` or ``patch``,
or ``error`` saying what failed. {"kind": "shown"}: a view of this stepper runs in a front end
(not answered); {"kind": "component"}: the component's module and CSS, for a widget model that
does not carry them (``static/shim.js``), answered with ``module`` and ``css``; {"kind":
"frame", …}: the size of the graph's frame in the browser (answered only when refused);
{"kind": "element", "step": i, "cell": k}: what a click on cell k of step i's (0-based) heatmap
of v̄ᵢ shows when the page does not carry it (past the page's budgets), answered with the same
kind, step and cell and ``entry`` (vizad.trace.panel.element_entry; None: no element rule on
the way) or ``error``; {"kind": "fine", "step": i}: step i's result cell by cell, past the
walkthrough's budget of such cells (its blocks averaged in the page), answered with ``total``
and ``cells`` (vizad.trace.panel.fine_total) or ``error``. A malformed request is answered too,
never dropped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from collections.abc import Callable

import numpy as np
import traitlets

from vizad.errors import ArgumentError, VizadError
from vizad.trace.panel import element_entry, fine_total, one_cell_each
from vizad.view.render.palette import diverging
from vizad.view.assets import component_module, style
from vizad.view.widget.checks import CLOSED, StepperValueError, plain, reported_frame, short

if TYPE_CHECKING:
    from vizad.view.widget.stepper import Stepper

__all__ = [
    "REFUSED",
    "FROM_PAGE",
    "answer",
    "update",
    "refuse",
    "framed",
    "differences",
    "element",
]

#: The kernel message that the page's request was refused carries this kind (and ``error``).
REFUSED = "refused"
#: The synced values the page may change; the others (its data, the Graphviz module, the
#: answers to its requests) are Python's: a page's update of them is refused.
FROM_PAGE = frozenset(
    {"step", "view", "scale", "progress", "score", "inputs", "difference_request", "memory_keep"}
)


def answer(stepper: Stepper, content: Any) -> None:
    """Answer the browser's request ``content`` (see the module's docstring)."""
    if not isinstance(content, dict):
        refuse(stepper, f"a request must be a mapping, got {type(content).__name__}", {})
        return
    if content.get("kind") == "shown":  # a front end's view runs: it shows each step
        if stepper.trace is not None:
            stepper._seen = True
        return
    if content.get("kind") == "component":  # a model without it (static/shim.js) asks
        if stepper.comm is not None:
            stepper.send({"kind": "component", "module": component_module(), "css": style()})
        return
    if content.get("kind") == "frame":  # the size of the graph's frame in the browser
        try:
            stepper._live()
            framed(stepper, content)
        except VizadError as err:
            refuse(stepper, str(err), {})
        return
    if content.get("kind") in ("element", "fine"):  # a cell, or cells, the page does not carry
        if stepper.comm is not None:
            stepper.send(element(stepper, content))
        return
    kind, view, key = content.get("kind"), content.get("view"), content.get("key")
    reply = {"kind": plain(kind), "view": plain(view), "key": plain(key)}
    try:
        stepper._live()
        if kind not in ("view", "open"):
            raise ArgumentError(f"unknown request {short(kind)}: ask for 'view' or 'open'")
        if not isinstance(view, str):
            raise ArgumentError(f"a request names a view (a str), got {short(view)}")
        if kind == "view":
            reply["frame"] = stepper._views.frame(stepper.trace.view(view))
        else:
            boxes = content.get("boxes", ())
            if not isinstance(boxes, list) or not all(isinstance(b, str) for b in boxes):
                raise ArgumentError(f"open: boxes must be a list of box ids, got {short(boxes)}")
            reply["patch"] = stepper.opened(view, boxes)
    except VizadError as err:
        reply["error"] = str(err)
    if stepper.comm is not None:
        stepper.send(reply)


def update(stepper: Stepper, sync_data: Any, apply: Callable[[dict], None]) -> None:
    """The page's update of synced values, applied (``apply``: ipywidgets' ``set_state``)
    only when every value is valid, else rolled back (traitlets' TraitError), Python's
    values sent back and the page told why (a message of kind REFUSED)."""
    if not isinstance(sync_data, dict):
        return refuse(stepper, "a state update must be a mapping of names to values", {})
    try:
        if stepper.trace is None:
            raise StepperValueError(CLOSED)
        python = sorted(k for k in sync_data if k in stepper.keys and k not in FROM_PAGE)
        if python:
            raise StepperValueError(
                f"the page cannot set {', '.join(python)}: Python makes "
                + ("it" if len(python) == 1 else "them")
            )
        apply(sync_data)
    except traitlets.TraitError as exc:  # rolled back by traitlets
        refuse(stepper, str(exc), sync_data)


def refuse(stepper: Stepper, why: str, sync_data: dict) -> None:
    """Tell the page that its update was refused, and give it back Python's values."""
    if stepper.comm is None:  # closed: no page to tell
        return
    keys = [k for k in sync_data if k in stepper.keys and k in FROM_PAGE]
    if keys:
        stepper.send_state(keys)
    stepper.send({"kind": REFUSED, "error": why})


def framed(stepper: Stepper, content: dict) -> None:
    """The browser's frame (vizad.view.widget.checks.reported_frame), sent once shown and
    when resized. The picture is chosen again for that frame and the views drawn anew only
    if that changes the choice: it depends on the graph and the frame, never on the
    machine."""
    frame, stepper.page_zoom = reported_frame(content)
    if frame == stepper.reader_frame:
        return
    old, stepper.reader_frame = stepper.reader_frame, frame
    if stepper.options.collapse is not None:  # the reader chose what to collapse: kept
        return
    views = stepper._views
    if all(views.choice(v, frame) == views.choice(v, old) for v in views.layouts):
        return
    stepper._redraw()


def differences(stepper: Stepper) -> dict:
    """The answer to the page's request for a check of the current step by finite
    differences (``stepper.check_by_differences()``), or what stops it (the step's questions
    not answered yet: the check would give them away; a step it cannot check)."""
    if stepper.quiz and stepper.question is not None:
        return {"step": stepper.step, "text": "answer this step's questions first"}
    try:
        return stepper.check_by_differences()
    except (VizadError, ArithmeticError, ValueError) as exc:  # every request answered
        return {"step": stepper.step, "text": f"no check here: {exc}"}


def element(stepper: Stepper, content: dict) -> dict:
    """The answer to the page's request for the walkthrough of cell ``content["cell"]`` (row
    by row) of step ``content["step"]``'s (0-based) heatmap of v̄ᵢ (kind "element"): {"kind",
    "step", "cell", "entry"} with the entry the panel would carry for it
    (vizad.trace.panel.element_entry: the same maker); or for kind "fine", that heatmap cell
    by cell: {"kind", "step", "total", "cells"} (vizad.trace.panel.fine_total); or ``error``
    saying why not."""
    kind, step, cell = content.get("kind"), content.get("step"), content.get("cell")
    reply: dict[str, Any] = {"kind": kind, "step": plain(step)}
    if kind == "element":
        reply["cell"] = plain(cell)
    try:
        stepper._live()
        trace = stepper.trace
        if trace.mode != "reverse" or not hasattr(trace, "element"):
            raise ArgumentError("this walkthrough has no element walkthroughs")
        n = len(trace.steps)
        if type(step) is not int or not 0 <= step < n:
            raise ArgumentError(f"{kind}: step must be an int from 0 to {n - 1}, got {short(step)}")
        record = trace.steps[step]
        if not one_cell_each(trace, record):
            raise ArgumentError(f"{kind}: step {step + 1}'s heatmap has no cell per element")
        if kind == "fine":
            reply.update(fine_total(trace, record, stepper.decimals, diverging))
            return reply
        size = int(np.size(trace.result(record)))
        if type(cell) is not int or not 0 <= cell < size:
            raise ArgumentError(
                f"element: cell must be an int from 0 to {size - 1}, got {short(cell)}"
            )
        reply["entry"] = element_entry(trace, record, cell, stepper.decimals)
    except VizadError as err:
        reply["error"] = str(err)
    return reply
