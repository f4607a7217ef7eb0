"""Writes this MyST project's page, ``lecture.md``: the lecture's reverse-mode walkthrough in
mystmd's ``{anywidget}`` directive, opening at step 6 (v̄₂, the step with two paths), and the
component's module and CSS beside it (vizad.view.export.myst_directive). Run it with this
checkout's vizad, then build the site with mystmd (see myst.yml)."""

from __future__ import annotations

import sys
from pathlib import Path

import vizad as vz
from vizad.view.export import myst_directive

HERE = Path(__file__).resolve().parent

PAGE = """\
---
title: The lecture's walkthrough
---

The reverse pass of $y = \\ln x_1 + x_1 x_2 - \\sin x_2$ at $x_1 = 2$, $x_2 = 5$, opened at
step 6: $\\bar v_2$ sums its two partial adjoints. Step with the buttons, ← and →, or click a
box; the page needs no Python.

{directive}"""


def write(folder: Path = HERE, step: int = 6) -> Path:
    """Write ``lecture.md`` and the component's files into ``folder``; returns the page."""
    x1, x2 = vz.Variable("x1"), vz.Variable("x2")
    y = vz.log(x1) + x1 * x2 - vz.sin(x2)
    trace = vz.trace_reverse(y, [x1, x2], {x1: 2.0, x2: 5.0})
    page = folder / "lecture.md"
    page.write_text(PAGE.format(directive=myst_directive(trace, folder, step=step)))
    return page


if __name__ == "__main__":
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
