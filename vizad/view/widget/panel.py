"""The HTML of a step: what the stepper and the exported page show next to the graph.

For a reverse step: the node (vᵢ, op, value, shape), a table of its contributions (consumer,
local derivative as a formula and as a value, partial adjoint), their sum, and the derivation
line; for a forward step, the tangent rule. A running table lists the adjoints (or tangents)
computed so far. Every piece of text is escaped; maths is LaTeX between $$ for MathJax (the
widget) or plain text (the offline page).
"""

from __future__ import annotations

from collections.abc import Mapping

from typing import Any

import numpy as np

from vizad.view.render.palette import diverging, heat_grid, heat_scale
from vizad.view.render.scene import SMALL_VECTOR
from vizad.trace.derivation import MANY_TERMS
from vizad.engine.text import escape, format_number, format_value, latex_to_text
from vizad.engine.tree import TupleShape, Unrecorded

__all__ = ["step_panel", "running_row", "html_value", "shape_words", "CONTRIBUTIONS_HEAD"]

#: The head of a reverse step's table of contributions: the same in every step, so that a
#: walkthrough's data carries it once (``step_panel(..., table_head=False)``) and the browser
#: component puts it back.
CONTRIBUTIONS_HEAD = (
    "<thead><tr>"
    + "".join(f"<th>{h}</th>" for h in ("consumer vⱼ", "∂vⱼ/∂vᵢ", "value", "partial adjoint v̄ᵢ→ⱼ"))
    + "</tr></thead>"
)


def html_value(value: Any, decimals: int = 3) -> str:
    """A value as HTML: a scalar or small vector as numbers; a tensor as its shape and a
    heatmap whose cells give their numbers on hover (blue negative, red positive); a tuple
    element by element."""
    if isinstance(value, tuple):
        return "(" + ", ".join(html_value(v, decimals) for v in value) + ")"
    if isinstance(value, Unrecorded):
        return f'<span class="vz-muted">{escape(value.reason)}</span>'
    array = np.asarray(value)
    small = array.ndim == 0 or (array.ndim == 1 and array.size <= SMALL_VECTOR)
    if small or array.size == 0 or not np.issubdtype(array.dtype, np.number):
        return escape(format_value(array, decimals, SMALL_VECTOR))
    grid = heat_grid(array)
    top = heat_scale(grid)
    exact = grid.size == array.size
    rows = array.reshape(1, -1) if array.ndim == 1 else array.reshape(-1, array.shape[-1])
    cells = []
    for r, row in enumerate(grid):
        for c, x in enumerate(row):
            where = _index(array.shape, r, c, rows.shape[1]) if exact else "block mean"
            cells.append(
                f'<span style="background:{diverging(x / top if top else 0.0)}" '
                f'title="{escape(where)} = {escape(format_number(x, decimals))}"></span>'
            )
    shape = "×".join(map(str, array.shape))
    return (
        f'<span class="vz-heat" style="grid-template-columns:repeat({grid.shape[1]},auto)" '
        f'role="img" aria-label="heatmap of a {escape(shape)} tensor">{"".join(cells)}</span>'
        f'<span class="vz-scale">{escape(shape)} · ±{escape(format_number(top, decimals))}</span>'
    )


def shape_words(shape: Any) -> str:
    """A step's shape as the panel says it: "scalar", "shape (2, 3)", or for a tuple value
    "tuple of (scalar, shape (3,))"."""
    if isinstance(shape, TupleShape):
        return f"tuple of ({', '.join(shape_words(s) for s in shape)})"
    return "scalar" if shape == () else f"shape {shape}"


def _index(shape: tuple, row: int, col: int, width: int) -> str:
    flat = row * width + col
    return "[" + ", ".join(map(str, np.unravel_index(flat, shape))) + "]"


def _math(latex: str, math: bool) -> str:
    if math:
        return f'<div class="vz-math">$${escape(latex)}$$</div>'
    return f'<div class="vz-math">{escape(latex_to_text(latex))}</div>'


def step_panel(
    trace,
    k: int,
    failures: Mapping[int, str] | None = None,
    *,
    math: bool = True,
    decimals: int | None = None,
    table_head: bool = True,
) -> str:
    """The HTML panel of step ``k`` of ``trace`` (``table_head=False``: its table of
    contributions without :data:`CONTRIBUTIONS_HEAD`)."""
    d = trace.decimals if decimals is None else decimals
    step = trace.steps[k]
    definition = latex_to_text(step.definition)
    op = step.node.op.name
    shape = shape_words(step.shape)
    head = (
        f'<div class="vz-head">Step {k + 1} of {len(trace.steps)}: '
        f"{escape(step.label)} = {escape(definition)}</div>"
        f'<div class="vz-muted">op {escape(op)} · {escape(shape)} · value '
        f"{html_value(step.value, d)}</div>"
    )
    parts = [head]
    result = trace.result_name(step.node).text
    if trace.mode == "reverse":
        parts.append(_contributions(trace, step, d, table_head))
        how = "seed" if step.is_output else "Σ v̄ᵢ→ⱼ"
        if len(step.contributions) > MANY_TERMS:  # a weight shared by every time step
            how = f"{trace.names.partial_sum(step.node).text} ({len(step.contributions)} terms)"
    else:
        how = "seed" if step.seeded else "Σ v̇ₖ ∂vᵢ/∂vₖ"
    parts.append(
        f'<div class="vz-sum">{escape(result)} = {how} = '
        f"<b>{html_value(trace.result(step), d)}</b></div>"
    )
    parts.append(_math(trace.line(step, d), math))
    if step.node.source:  # the user's line of code it was imported or recorded from
        parts.append(f'<div class="vz-muted vz-source">{escape(step.node.source)}</div>')
    if failures and k in failures:
        parts.append(f'<div class="vz-fail">✗ {escape(failures[k])}</div>')
    return '<div class="vz-panel">' + "".join(parts) + "</div>"


def _contributions(trace, step, d: int, table_head: bool) -> str:
    if step.is_output:
        return '<div class="vz-muted">the output: its adjoint is the seed ∂y/∂y</div>'
    rows = []
    for c in step.contributions:
        formula = latex_to_text(c.local_latex) if c.local_latex else "—"
        local = html_value(c.local, d) if c.local is not None else "Jacobian (see vjp)"
        name = trace.names.partial(step.node, c.consumer, c.index).text
        partial = latex_to_text(c.partial_latex) if c.partial_latex else ""
        reduced = " (summed to shape)" if c.reduced else ""
        rows.append(
            "<tr>"
            f"<td>{escape(c.consumer_label)}</td><td>{escape(formula)}</td><td>{local}</td>"
            f"<td>{escape(name)} = {escape(partial + ' = ' if partial else '')}"
            f"{html_value(c.partial, d)}{escape(reduced)}</td>"
            "</tr>"
        )
    head = CONTRIBUTIONS_HEAD if table_head else ""
    return f'<table class="vz-contributions">{head}<tbody>{"".join(rows)}</tbody></table>'


def running_row(
    trace, k: int, failures: Mapping[int, str] | None = None, decimals: int | None = None
) -> str:
    """One row of the running table: what step ``k`` computed (v̄ᵢ or v̇ᵢ and its value)."""
    d = trace.decimals if decimals is None else decimals
    step = trace.steps[k]
    bad = bool(failures) and k in failures
    css = ' class="vz-bad"' if bad else ""
    return (
        f"<tr{css}><td>{escape(trace.result_name(step.node).text)}</td>"
        f"<td>{html_value(trace.result(step), d)}</td><td>{'✗' if bad else ''}</td></tr>"
    )
