"""Evaluation-trace tables (Griewank–Walther style) as HTML and as plain text.

All text is escaped with :func:`vizad.trace.text.escape`; formulas are shown as plain text made
from their LaTeX, so the tables read the same with or without a maths renderer.
"""

from __future__ import annotations

from collections.abc import Sequence

from vizad.trace.text import escape

__all__ = ["html_table", "text_table", "ValuesTable"]

_STYLE = (
    "border-collapse:collapse;font-variant-numeric:tabular-nums;"
    "font-family:var(--jp-code-font-family, monospace);font-size:13px"
)
_CELL = "padding:2px 10px;text-align:left;border-bottom:1px solid rgba(128,128,128,0.3)"


def html_table(
    title: str, header: Sequence[str], rows: Sequence[Sequence[str]], note: str = ""
) -> str:
    """A table of plain-text cells, every cell escaped."""
    head = "".join(f'<th style="{_CELL}">{escape(h)}</th>' for h in header)
    body = "".join(
        "<tr>" + "".join(f'<td style="{_CELL}">{escape(c)}</td>' for c in row) + "</tr>"
        for row in rows
    )
    foot = f'<div style="opacity:0.7;font-size:12px">{escape(note)}</div>' if note else ""
    return (
        # notebooks typeset $…$ in HTML outputs (MathJax 2 and 3 classes): names are user text
        '<div class="vizad-trace tex2jax_ignore mathjax_ignore">'
        '<div style="font-weight:600;margin:4px 0">'
        f"{escape(title)}</div>"
        f'<table style="{_STYLE}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody>'
        f"</table>{foot}</div>"
    )


def text_table(header: Sequence[str], rows: Sequence[Sequence[str]], limit: int = 30) -> str:
    """Left-aligned columns; at most ``limit`` rows, then a count of the rest."""
    shown = list(rows[:limit])
    widths = [max([len(h)] + [len(r[k]) for r in shown]) for k, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in shown]
    if len(rows) > limit:
        lines.append(f"… {len(rows) - limit} more steps")
    return "\n".join(lines)


class ValuesTable:
    """The evaluation trace with values only (``trace.values_table()``): ``header`` and
    ``rows`` of plain text, shown in Jupyter as an HTML table and as text elsewhere;
    ``to_latex()`` gives its booktabs ``tabular`` for a slide."""

    def __init__(
        self, title: str, header: Sequence[str], rows: Sequence[Sequence[str]], latex: str
    ) -> None:
        self.title = title
        self.header = list(header)
        self.rows = [list(row) for row in rows]
        self._latex = latex

    def to_latex(self) -> str:
        """The table as LaTeX (needs ``\\usepackage{booktabs}``)."""
        return self._latex

    def _repr_html_(self) -> str:
        return html_table(self.title, self.header, self.rows)

    def __repr__(self) -> str:
        return self.title + "\n" + text_table(self.header, self.rows, limit=len(self.rows))
