"""A step's panel as data: what the stepper and the exported page show next to the graph.

For a reverse step: the node (vᵢ = its definition, op, shape, value), a table of its
contributions (consumer, local derivative as a formula and as a value, partial adjoint), their
sum, and the derivation line; for a forward step, the tangent rule. A running table lists the
adjoints (or tangents) computed so far, one row per step.

Plain JSON-ready data, no markup: text (names made printable, formulas as plain text made
from their LaTeX) and shown values (:mod:`vizad.trace.values`). The browser component
(``static/stepper/panel.js``) and a stepper's static picture (vizad.view.widget.snapshot)
build their elements from it, every piece of text set as text. A panel::

    {"head": "Step 6 of 7: v₂ = x₂",
     "about": ["op variable · scalar · value ", "5"],        # parts: text and shown values
     "rows": [[parts, parts, parts, parts], …],   # reverse: one per consumer (CONTRIBUTIONS_HEAD)
     "note": "the output: …",                     # reverse, the output's step (no rows)
     "sum": "v̄₂ = Σ v̄ᵢ→ⱼ = ", "total": "1.716",  # what the step computes (shown bold)
     "line": "v̄₂ = v̄₅ ∂v₅/∂v₂ + … = 1.716",      # the derivation line
     "source": "model.py:12: …",                  # when there is one
     "nonfinite": "⚠ v₃ = NaN: produced here (…)", # NaN or inf in the step's value or result
     "fail": "✗ …"}                               # its rule fails trace.check()

and a row of the running table ``{"cells": [parts, parts, parts], "bad": bool}``.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import Any

import numpy as np

from vizad.trace.text import format_value, latex_to_text, printable
from vizad.engine.tree import TupleShape
from vizad.trace.derivation import MANY_TERMS
from vizad.trace.nonfinite import marks_of, result_mark
from vizad.trace.values import (
    HEAT_COLS,
    HEAT_ROWS,
    PANEL_COLS,
    PANEL_ROWS,
    SMALL_VECTOR,
    Colour,
    heat_cell,
    value_data,
    value_text,
)

__all__ = [
    "CONTRIBUTIONS_HEAD",
    "step_panel",
    "element_entry",
    "one_cell_each",
    "fine_total",
    "running_row",
    "heat_keys",
    "shape_words",
    "panel_text",
]

#: The head of a reverse step's table of contributions: the same in every step, so that a
#: walkthrough's data carries it once.
CONTRIBUTIONS_HEAD = ("consumer vⱼ", "∂vⱼ/∂vᵢ", "value", "partial adjoint v̄ᵢ→ⱼ")

#: What a reverse walkthrough's first step says instead of its table of contributions.
OUTPUT_NOTE = "the output: its adjoint is the seed ∂y/∂y"


def shape_words(shape: Any) -> str:
    """A step's shape as the panel says it: "scalar", "shape (2, 3)", or for a tuple value
    "tuple of (scalar, shape (3,))"."""
    if isinstance(shape, TupleShape):
        return f"tuple of ({', '.join(shape_words(s) for s in shape)})"
    return "scalar" if shape == () else f"shape {shape}"


def step_panel(
    trace,
    k: int,
    failures: Mapping[int, str] | None = None,
    *,
    decimals: int | None = None,
    colour: Colour | None = None,
) -> dict:
    """The panel of step ``k`` (0-based) of ``trace`` (see the module's docstring); a step
    in ``failures`` (0-based index → message of the rule that fails trace.check()) says
    so. ``colour`` fills a heatmap's cells (vizad.view.render.palette.diverging)."""
    own = getattr(trace, "panel", None)  # a walkthrough with panels of its own (an element's)
    if own is not None:
        return own(k, failures, decimals=decimals, colour=colour)
    d = trace.decimals if decimals is None else decimals
    step = trace.steps[k]

    def shown(value: Any) -> Any:
        return value_data(value, d, colour)

    words = f"op {step.node.op.name} · {shape_words(step.shape)} · value "
    panel: dict[str, Any] = {
        "head": printable(
            f"Step {k + 1} of {len(trace.steps)}: {step.label} = {latex_to_text(step.definition)}"
        ),
        "about": [printable(words), shown(step.value)],
    }
    result = trace.result_name(step.node).text
    if trace.mode == "reverse":
        if step.is_output:
            panel["note"] = OUTPUT_NOTE
        else:
            panel["rows"] = [_contribution(trace, step, c, shown) for c in step.contributions]
        how = "seed" if step.is_output else "Σ v̄ᵢ→ⱼ"
        if len(step.contributions) > MANY_TERMS:  # a weight shared by every time step
            how = f"{trace.names.partial_sum(step.node).text} ({len(step.contributions)} terms)"
    else:
        how = "seed" if step.seeded else "Σ v̇ₖ ∂vᵢ/∂vₖ"
    panel["sum"] = printable(f"{result} = {how} = ")
    # the step's result cell by cell up to PANEL_ROWS × PANEL_COLS (its elements clickable),
    # within the walkthrough's budget of such cells (_fine_steps)
    fine = (PANEL_ROWS, PANEL_COLS) if step.index in _fine_steps(trace) else None
    panel["total"] = value_data(trace.result(step), d, colour, fine)
    if trace.mode == "reverse":
        elements = element_cells(trace, step, panel["total"], d)
        if elements:
            panel["elements"] = elements
        else:  # why its cells do not open in a page without a kernel, and whether one can
            kept = cells_kept(trace, step, panel["total"])
            if kept is not None:
                panel["cells"] = kept
    panel["line"] = printable(latex_to_text(trace.line(step, d)))
    if step.node.source:  # the user's line of code it was imported or recorded from
        panel["source"] = printable(step.node.source)
    marks = marks_of(trace, step)
    if marks:  # told apart from a failing rule: where the NaN comes from
        panel["nonfinite"] = printable("⚠ " + "; ".join(map(str, marks)))
    if failures and k in failures:
        panel["fail"] = printable(f"✗ {failures[k]}")
    return panel


#: A panel's heatmap of v̄ᵢ carries the element walkthroughs of at most this many cells (a
#: click on a cell shows its terms), a walkthrough at most ELEMENT_BUDGET in all (the first
#: steps'): the page stays small; the other cells are not clickable.
ELEMENT_CELLS, ELEMENT_BUDGET = 128, 1024
#: Terms listed per cell (the first ones; "… n more" after).
ELEMENT_TERMS = 8
#: A step's cells carry their walkthroughs when their terms number at most this many in all
#: (estimated from its first cell's: a sum over a batch of 5,000 rows, 16 cells, is 80,000
#: terms, seconds of work for a page nobody may click): the panel is made within a fraction
#: of a second.
ELEMENT_STEP_TERMS = 4096


def element_cells(trace, step, total: Any, decimals: int) -> list | None:
    """Per cell of the heatmap ``total`` shows of v̄ᵢ (one cell per element: a heatmap whose
    blocks are not averaged), what a click on it shows (:func:`element_entry`), or None for a
    cell whose element walkthrough is not available; None for the whole heatmap of a step
    past the budgets (:func:`cells_kept`)."""
    why, first = _cells_carried(trace, step, total)
    if why is not None:
        return None
    adjoint = np.asarray(trace.result(step))
    out = [
        element_entry(trace, step, k, decimals, first if k == 0 else None)
        for k in range(adjoint.size)
    ]
    return out if any(out) else None


def element_entry(trace, step, cell: int, decimals: int, element: Any = None) -> dict | None:
    """What a click on cell ``cell`` (row by row) of the heatmap of v̄ᵢ of ``step`` shows,
    one element per cell: {"line": "v̄₃[2] = -0.079 + … = -0.736", "terms": [[label, value],
    …] (the first ELEMENT_TERMS), "more": terms not listed, "note": how they add up, "lit":
    the cells its terms read (:func:`element_lit`), "read": those in words}; None when its
    element walkthrough is not available (no element rule for an op on the way). The one
    maker of a cell's entry: the panel's carried cells (:func:`element_cells`) and a live
    stepper's answer to a click on another (vizad.view.widget.messages) alike. ``element``:
    the cell's walkthrough when made already."""
    from vizad.errors import VizadError

    if element is None:
        shape = np.shape(trace.result(step))
        index = tuple(int(i) for i in np.unravel_index(cell, shape))
        try:
            element = trace.element(step.node, index)
        except VizadError:  # no element rule for an op on the way: not clickable
            return None
    terms = element.terms[:ELEMENT_TERMS]
    lit = element_lit(trace, element)
    return {
        "line": printable(element.line_text(decimals)),
        "terms": [[printable(t.label), printable(format_value(t.value, decimals))]
                  for t in terms],
        "more": len(element.terms) - len(terms),
        "note": printable(element.exactness()),
        "lit": lit,
        **({"read": lit_words(trace, lit)} if lit else {}),
    }  # fmt: skip


#: What a heatmap whose cells are not carried says (panel.js shows it where no kernel answers
#: a click: an exported page, a saved notebook; and the static picture, vizad.view.widget.
#: snapshot), by why: past the walkthrough's budget of cells, too many cells, too many terms.
LIVE_ONLY = "cells open in a live notebook: "
#: (marks, in _cells_carried, a heatmap averaged for FINE_BUDGET only: a kernel draws it
#: cell by cell, fine_total)
FINE_ONLY = "\0fine\0"


def cells_kept(trace, step, total: Any) -> dict | None:
    """Why the heatmap ``total`` of v̄ᵢ of ``step`` does not carry its cells' walkthroughs,
    as the panel says it: {"why": "cells open in a live notebook: this page carries …",
    "ask": True} when a kernel can make each cell's (one element per cell:
    :func:`element_entry`), {"why": "each cell is the mean …"} when no cell is one element,
    with "fine": True when a kernel can draw it cell by cell (:func:`fine_total`: averaged for
    the walkthrough's FINE_BUDGET only); None when its cells are carried or it is no heatmap
    of v̄ᵢ."""
    why, _ = _cells_carried(trace, step, total)
    if why is None or why == "":
        return None
    if why.startswith(LIVE_ONLY):
        return {"why": why, "ask": True}
    if why.startswith(FINE_ONLY):  # past FINE_BUDGET: a kernel draws it cell by cell
        return {"why": why[len(FINE_ONLY) :], "fine": True}
    return {"why": why}


def _cells_carried(trace, step, total: Any) -> tuple[str | None, Any]:
    """(None, the first cell's element walkthrough or None) when the heatmap ``total`` of
    v̄ᵢ of ``step`` carries its cells' walkthroughs, else (why not, None): "" when there is
    nothing to say (no heatmap, a walkthrough without elements)."""
    if trace.mode != "reverse" or not isinstance(total, dict) or "heat" not in total:
        return "", None
    if not hasattr(trace, "element"):
        return "", None
    adjoint = np.asarray(trace.result(step))
    cells = len(total["heat"]["cells"])
    if cells != adjoint.size:  # blocks averaged: no cell is one element
        if not _one_cell_each(adjoint.shape, PANEL_ROWS, PANEL_COLS):  # too big for a panel
            return (
                "each cell is the mean of a block of elements (one cell per element up to "
                f"{PANEL_ROWS} × {PANEL_COLS}): no cell opens"
            ), None
        return FINE_ONLY + (
            "each cell is the mean of a block of elements: no cell opens (this walkthrough "
            f"draws its first steps' results cell by cell, {FINE_BUDGET:,} cells in all)"
        ), None
    if step.index not in _element_steps(trace):
        if cells > ELEMENT_CELLS:
            return LIVE_ONLY + (
                f"this page carries the derivations of heatmaps of at most {ELEMENT_CELLS} "
                f"cells (this one has {cells:,})"
            ), None
        return LIVE_ONLY + (
            f"this page carries the first {ELEMENT_BUDGET:,} cells' derivations (the first steps')"
        ), None
    first = _first_element(trace, step.node, adjoint.shape)
    if first is not None and len(first.terms) * cells > ELEMENT_STEP_TERMS:
        return LIVE_ONLY + (
            f"their {len(first.terms) * cells:,} terms are too many for this page (it "
            f"carries at most {ELEMENT_STEP_TERMS:,} a heatmap)"
        ), None
    return None, first


def element_lit(trace, element) -> list[list]:
    """The heatmap cells the terms of ``element`` read, as ``[key, cell]`` pairs (in the order
    first read): ``key`` names the tensor (:func:`heat_keys`), ``cell`` the cell of its
    heatmap (:func:`~vizad.trace.values.heat_cell`: the block holding the element where blocks
    are averaged). Reads of a value shown as numbers, not a heatmap, are left out."""
    keys = heat_keys(trace)
    out: dict[tuple, None] = {}
    for term in element.terms:
        for node, index in term.reads:
            key = keys.get(node)
            if key is None:
                continue
            shape = np.shape(trace.values[node])
            if _heatmap(shape):
                out.setdefault((key, heat_cell(shape, index)), None)
    return [list(k) for k in out]


def lit_words(trace, lit: list[list]) -> str:
    """What ``lit`` (:func:`element_lit`) outlines, in words: "its terms read the outlined
    cells: 8 of v̄₇" (a block-averaged heatmap's blocks counted as cells)."""
    counts: dict[str, int] = {}
    for key, _ in lit:
        counts[key] = counts.get(key, 0) + 1
    names = _key_names(trace)
    said = [f"{n} of {names.get(key, key)}" for key, n in counts.items()]
    return printable("its terms read the outlined cells: " + ", ".join(said))


def _key_names(trace) -> dict[str, str]:
    """Key (:func:`heat_keys`) → the tensor's name: v₇, v̄₇."""
    names = trace.names
    out = {}
    for node in trace.graph:
        n = names.number(node)
        if n is not None:
            out[f"v{n}"] = names.label(node)
            if trace.mode == "reverse":
                out[f"g{n}"] = names.bar(node).text
    return out


def heat_keys(trace) -> dict:
    """Node → the key of the tensor it holds, as the stepper's heatmaps are named by it: a
    forward value vₙ "vN", the adjoint v̄ₙ of a forward node (its total) "gN". Made once per
    trace."""
    made = _HEAT_KEYS.get(trace)
    if made is None:
        made = {}
        number = trace.names.number
        record = trace.record
        for node in trace.graph:
            n = number(node)
            if n is None:
                continue
            made[node] = f"v{n}"
            total = record.adjoint(node) if trace.mode == "reverse" else None
            if total is not None:
                made.setdefault(total, f"g{n}")
        _HEAT_KEYS[trace] = made
    return made


def _heatmap(shape: tuple) -> bool:
    """Whether a value of ``shape`` is shown as a heatmap (vizad.trace.values.value_data)."""
    size = int(np.prod(shape)) if shape else 1
    return bool(shape) and size > 0 and not (len(shape) == 1 and size <= SMALL_VECTOR)


#: trace → its heat_keys.
_HEAT_KEYS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


#: The panels of a walkthrough draw their step's result with more cells than the drawings'
#: 12 × 24 (up to PANEL_ROWS × PANEL_COLS) for at most this many cells in all, the first
#: steps' (four results of 64 × 64): fifteen 64 × 64 layers' walkthrough (46 steps) made a
#: page of 3.7 MB instead of 1.8 MB without a budget; the other steps' results are averaged
#: in blocks as in the drawings.
FINE_BUDGET = 16384


def _fine_steps(trace) -> frozenset[int]:
    """The steps whose panel draws its result in up to PANEL_ROWS × PANEL_COLS cells: those
    it adds cells to (over the drawings' grid), in order while FINE_BUDGET lasts, and every
    step whose result the drawings' grid already shows whole. Made once per trace."""
    made = _FINE_STEPS.get(trace)
    if made is None:
        chosen, spent = [], 0
        for step in trace.steps:
            result = trace.result(step)
            if isinstance(result, tuple):
                continue
            shape = np.shape(result)
            fine = _grid_cells(shape, PANEL_ROWS, PANEL_COLS)
            if fine > _grid_cells(shape, HEAT_ROWS, HEAT_COLS):
                if spent + fine > FINE_BUDGET:
                    continue
                spent += fine
            chosen.append(step.index)
        made = _FINE_STEPS[trace] = frozenset(chosen)
    return made


def _grid_cells(shape: tuple, rows: int, cols: int) -> int:
    """How many cells a heatmap of at most ``rows`` × ``cols`` draws of a value of ``shape``
    (vizad.trace.values.heat_grid)."""
    size = int(np.prod(shape)) if shape else 1
    across = shape[-1] if len(shape) > 1 else size
    down = size // across if across else 0
    return min(down, rows) * min(across, cols)


#: trace → its _fine_steps.
_FINE_STEPS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _first_element(trace, node, shape: tuple) -> Any:
    """The element walkthrough of the first element of v̄ of ``node`` (None when there is
    none): how many terms each cell has, about."""
    from vizad.errors import VizadError

    try:
        return trace.element(node, (0,) * len(shape))
    except VizadError:
        return None


def _element_steps(trace) -> frozenset[int]:
    """The steps whose heatmap of v̄ᵢ carries its cells' element walkthroughs: those whose
    heatmap has one cell per element and at most ELEMENT_CELLS, in order while the
    walkthrough's ELEMENT_BUDGET lasts (made once per trace: the same steps however often a
    panel is made)."""
    made = _ELEMENT_STEPS.get(trace)
    if made is None:
        chosen, spent = [], 0
        fine = _fine_steps(trace)
        for step in trace.steps:
            result = trace.result(step)
            if isinstance(result, tuple):
                continue
            size = int(np.size(result))
            most = (PANEL_ROWS, PANEL_COLS) if step.index in fine else (HEAT_ROWS, HEAT_COLS)
            if _one_cell_each(np.shape(result), *most) and size <= ELEMENT_CELLS:
                if spent + size > ELEMENT_BUDGET:
                    break
                chosen.append(step.index)
                spent += size
        made = _ELEMENT_STEPS[trace] = frozenset(chosen)
    return made


def one_cell_each(trace, step) -> bool:
    """Whether a panel draws the result of ``step`` as a heatmap with one cell per element
    (:func:`fine_total` draws it so when the walkthrough's budget did not): its cells can
    open (:func:`element_entry`)."""
    result = trace.result(step)
    if isinstance(result, tuple):
        return False
    return _one_cell_each(np.shape(result), PANEL_ROWS, PANEL_COLS)


def fine_total(trace, step, decimals: int, colour: Colour | None = None) -> dict:
    """The result of ``step`` drawn cell by cell up to PANEL_ROWS × PANEL_COLS, as a step
    past the walkthrough's FINE_BUDGET is not in its panel (its blocks averaged): {"total":
    the shown value, "cells": why its cells are not carried (:func:`cells_kept`; a kernel
    makes each one)}. What a live stepper answers when its page asks for it
    (vizad.view.widget.messages)."""
    total = value_data(trace.result(step), decimals, colour, (PANEL_ROWS, PANEL_COLS))
    return {"total": total, "cells": cells_kept(trace, step, total)}


def _one_cell_each(shape: tuple, rows: int, cols: int) -> bool:
    """Whether a value of ``shape`` is shown as a heatmap of at most ``rows`` × ``cols``
    cells with one cell per element (vizad.trace.values: a tensor past SMALL_VECTOR, blocks
    not averaged)."""
    size = int(np.prod(shape)) if shape else 1
    if not shape or size == 0 or (len(shape) == 1 and size <= SMALL_VECTOR):
        return False
    return shape[-1] <= cols and size // shape[-1] <= rows


#: trace → the steps that carry element walkthroughs (see _element_steps).
_ELEMENT_STEPS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _contribution(trace, step, c, shown) -> list[list]:
    """A row of the table of contributions: consumer, ∂vⱼ/∂vᵢ, its value, v̄ᵢ→ⱼ."""
    formula = latex_to_text(c.local_latex) if c.local_latex else "—"
    local = shown(c.local) if c.local is not None else "Jacobian (see vjp)"
    name = trace.names.partial(step.node, c.consumer, c.index).text
    partial = latex_to_text(c.partial_latex) if c.partial_latex else ""
    says = [printable(f"{name} = {partial + ' = ' if partial else ''}"), shown(c.partial)]
    if c.reduced:
        says.append(" (summed to shape)")
    return [[printable(c.consumer_label)], [printable(formula)], [local], says]


def running_row(
    trace,
    k: int,
    failures: Mapping[int, str] | None = None,
    *,
    decimals: int | None = None,
    colour: Colour | None = None,
) -> dict:
    """One row of the running table: what step ``k`` computed (v̄ᵢ or v̇ᵢ, its value, and ✗
    when its rule fails trace.check(), else ⚠ when the result is NaN or infinite)."""
    own = getattr(trace, "row", None)  # a walkthrough with rows of its own (an element's)
    if own is not None:
        return own(k, failures, decimals=decimals, colour=colour)
    d = trace.decimals if decimals is None else decimals
    step = trace.steps[k]
    bad = bool(failures) and k in failures
    name = printable(trace.result_name(step.node).text)
    shown = value_data(trace.result(step), d, colour)
    mark = ["✗"] if bad else ["⚠"] if result_mark(trace, step) is not None else []
    row = {"cells": [[name], [shown], mark], "bad": bad}
    key = heat_keys(trace).get(trace.record.adjoint(step.node)) if trace.mode == "reverse" else None
    if key is not None and isinstance(shown, dict) and "heat" in shown:
        row["key"] = key  # its heatmap lights the cells an element reads (panel.js)
    return row


def panel_text(panel: Mapping) -> str:
    """A panel (:func:`step_panel`) as plain text, one line per line of the panel (a
    heatmap by its caption): what a person reads there, for tests and text outputs."""

    def parts(items: list) -> str:
        return "".join(value_text(p) for p in items)

    lines = [panel["head"], parts(panel["about"])]
    if "note" in panel:
        lines.append(panel["note"])
    for row in panel.get("rows", ()):
        lines.append(" | ".join(parts(cell) for cell in row))
    lines.append(panel["sum"] + value_text(panel["total"]))
    lines.append(panel["line"])
    lines += [panel[key] for key in ("source", "nonfinite", "fail") if key in panel]
    return "\n".join(lines)
