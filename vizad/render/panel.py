"""The HTML of a step: what the stepper and the exported page show next to the graph.

For a reverse step: the node (vᵢ, op, value, shape), a table of its contributions (consumer,
local derivative as a formula and as a value, partial adjoint), their sum, and the derivation
line; for a forward step, the tangent rule. A running table lists the adjoints (or tangents)
computed so far. Every piece of text is escaped; maths is LaTeX between $$ for MathJax (the
widget) or plain text (the offline page).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..text import BAR, DOT, escape, format_value, latex_to_text, marked, pretty_label
from ..trace import ReverseTrace
from ..trace.derivation import forward_line, reverse_line

__all__ = ["step_panel", "running_table", "PANEL_CSS"]

PANEL_CSS = """
.vz-panel{font-family:var(--jp-ui-font-family,system-ui,sans-serif);font-size:14px;line-height:1.45}
.vz-panel .vz-head{font-size:16px;font-weight:600;margin:2px 0 6px}
.vz-panel table{border-collapse:collapse;margin:4px 0;font-variant-numeric:tabular-nums}
.vz-panel th,.vz-panel td{padding:3px 10px;text-align:left;border-bottom:1px solid rgba(128,128,128,.35)}
.vz-panel th{font-weight:600;opacity:.8}
.vz-panel .vz-sum{font-size:15px;margin:6px 0}
.vz-panel .vz-math{margin:6px 0;overflow-x:auto}
.vz-panel .vz-fail{color:#fff;background:#c0392b;padding:6px 10px;border-radius:4px;margin:6px 0}
.vz-panel .vz-muted{opacity:.7}
.vz-panel tr.vz-now td{font-weight:600}
.vz-panel tr.vz-bad td{color:#c0392b}
"""


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
) -> str:
    """The HTML panel of step ``k`` of ``trace``."""
    d = trace.decimals if decimals is None else decimals
    step = trace.steps[k]
    reverse = isinstance(trace, ReverseTrace)
    definition = latex_to_text(step.definition)
    op = step.node.op.name
    shape = "scalar" if step.shape == () else f"shape {step.shape}"
    head = (
        f'<div class="vz-head">Step {k + 1} of {len(trace.steps)}: '
        f"{escape(pretty_label(step.label))} = "
        f"{escape(definition)}</div>"
        f'<div class="vz-muted">op {escape(op)} · value {escape(format_value(step.value, d))}'
        f" · {escape(shape)}</div>"
    )
    parts = [head]
    if reverse:
        parts.append(_contributions(step, d))
        bar = pretty_label(marked(step.label, BAR))
        parts.append(
            f'<div class="vz-sum">{escape(bar)} = '
            f"{'seed' if step.is_output else 'Σ v̄ᵢ→ⱼ'} = "
            f"<b>{escape(format_value(step.adjoint, d))}</b></div>"
        )
        parts.append(_math(reverse_line(step, d), math))
    else:
        dot = pretty_label(marked(step.label, DOT))
        parts.append(
            f'<div class="vz-sum">{escape(dot)} = '
            f"<b>{escape(format_value(step.tangent, d))}</b>"
            f"{' (seed)' if step.seeded else ''}</div>"
        )
        parts.append(_math(forward_line(step, d), math))
    if failures and k in failures:
        parts.append(f'<div class="vz-fail">✗ {escape(failures[k])}</div>')
    return '<div class="vz-panel">' + "".join(parts) + "</div>"


def _contributions(step, d: int) -> str:
    if step.is_output:
        return '<div class="vz-muted">the output: its adjoint is the seed ∂y/∂y</div>'
    rows = []
    for c in step.contributions:
        formula = latex_to_text(c.local_latex) if c.local_latex else "—"
        local = format_value(c.local, d) if c.local is not None else "Jacobian (see vjp)"
        partial = latex_to_text(c.partial_latex) if c.partial_latex else ""
        reduced = " (summed to shape)" if c.reduced else ""
        rows.append(
            "<tr>"
            + "".join(
                f"<td>{escape(x)}</td>"
                for x in (
                    pretty_label(c.consumer_label),
                    formula,
                    local,
                    f"{partial} = {format_value(c.partial, d)}{reduced}"
                    if partial
                    else format_value(c.partial, d) + reduced,
                )
            )
            + "</tr>"
        )
    head = "".join(
        f"<th>{h}</th>" for h in ("consumer vⱼ", "∂vⱼ/∂vᵢ", "value", "partial adjoint v̄ᵢ→ⱼ")
    )
    return (
        f'<table class="vz-contributions"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def running_table(
    trace, k: int, failures: Mapping[int, str] | None = None, decimals: int | None = None
) -> str:
    """The adjoints (or tangents) of steps 0 … k."""
    d = trace.decimals if decimals is None else decimals
    reverse = isinstance(trace, ReverseTrace)
    mark = BAR if reverse else DOT
    rows = []
    for j, step in enumerate(trace.steps[: k + 1]):
        value = step.adjoint if reverse else step.tangent
        css = (
            ' class="vz-bad"'
            if failures and j in failures
            else (' class="vz-now"' if j == k else "")
        )
        status = "✗" if failures and j in failures else ""
        rows.append(
            f"<tr{css}><td>{escape(pretty_label(marked(step.label, mark)))}</td>"
            f"<td>{escape(format_value(value, d))}</td><td>{status}</td></tr>"
        )
    title = "adjoints so far" if reverse else "tangents so far"
    return (
        f'<div class="vz-panel"><div class="vz-muted">{title}</div><table><tbody>'
        f"{''.join(reversed(rows))}</tbody></table></div>"
    )
