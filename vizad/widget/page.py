"""The stepper component without a kernel: its JavaScript and CSS files inlined with the
walkthrough's data, as an HTML fragment (the HTML of a Stepper's output, for renderers without
the widget: a saved notebook, nbconvert) or a whole page (vz.export_html).

The fragment starts as a static picture (the current step's SVG and panel, no script needed)
that the component replaces wherever inline scripts run.
"""

from __future__ import annotations

import base64
import functools
import json
import re
from pathlib import Path

from ..text import escape

__all__ = [
    "STATIC",
    "COMPONENT_PARTS",
    "fragment",
    "snapshot_html",
    "data_script",
    "mount_script",
    "style",
    "graphviz_module",
    "needs_graphviz",
]

#: The component's JavaScript and CSS files.
STATIC = Path(__file__).parent / "static"

#: The files of ``static/stepper/`` in the order they are joined into the component's one ES
#: module (no bundler, no Node): each declares top-level names for the files after it, and only
#: the last one exports. The one list of the parts.
COMPONENT_PARTS = (
    "helpers.js",
    "layout.js",
    "picture.js",
    "viewport.js",
    "drawing.js",
    "player.js",
    "quiz.js",
    "panel.js",
    "mount.js",
)


@functools.cache
def graphviz_module() -> str:
    """The text of the Graphviz module (WebAssembly inlined, ~0.8 MB): the browser imports it
    to lay out graphs when Python has no ``dot`` program. Built by ``make frontend``."""
    return (STATIC / "graphviz.js").read_text(encoding="utf-8")


def needs_graphviz(data: dict) -> bool:
    """Whether a walkthrough's data leaves a view for the browser to lay out."""
    return any("dot" in frame for frame in data["frames"].values())


_SURROGATE = re.compile("[\ud800-\udfff]")


def data_script(data, element_id: str, hidden: bool = False) -> str:
    """The walkthrough's data as a JSON script element, with no "<" inside (so that no user
    text can close the element) and no lone surrogate (which a UTF-8 page cannot hold: JSON
    reads its escape back)."""
    text = json.dumps(data, ensure_ascii=False)
    if hidden:  # a quiz: no answer (panels, rows, pictures) readable in the page's source
        from .frames import conceal  # noqa: PLC0415

        text = json.dumps({"hidden": conceal(text, 0)})
    text = text.replace("<", "\\u003c")
    text = _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return f'<script type="application/json" id="{element_id}">{text}</script>'


def mount_script(
    root_id: str,
    data_id: str,
    *,
    focus: bool = False,
    replace: bool = False,
    graphviz_id: str | None = None,
) -> str:
    """A module script: the component (its module text, inlined) and one call of its ``mount``
    on element ``root_id`` with the data of element ``data_id`` (and the Graphviz module's
    text in element ``graphviz_id``, for views the browser lays out)."""
    js = component_module()
    options = json.dumps({"focus": focus, "replace": replace, "graphvizId": graphviz_id})
    return (
        f'<script type="module">\n{js}\n'
        f"mount({json.dumps(root_id)}, {json.dumps(data_id)}, {options});\n</script>"
    )


@functools.cache
def component_module() -> str:
    """The text of the browser component: the files of ``static/stepper/`` joined in the order
    of COMPONENT_PARTS, one ES module for anywidget and the pages."""
    return "\n".join(
        (STATIC / "stepper" / part).read_text(encoding="utf-8") for part in COMPONENT_PARTS
    )


@functools.cache
def style() -> str:
    """The component's CSS (``static/stepper.css``)."""
    return (STATIC / "stepper.css").read_text(encoding="utf-8")


def fragment(data: dict, uid: str, snapshot: str) -> str:
    """The component as an HTML fragment: ``snapshot`` (static HTML) until the script runs.
    The classes ``tex2jax_ignore mathjax_ignore`` keep MathJax away from user text. A
    walkthrough the browser lays out gives the snapshot alone (it would need the 0.8 MB Graphviz
    module in every saved output)."""
    if needs_graphviz(data):
        return (
            f'<div class="vizad-static tex2jax_ignore mathjax_ignore"><style>{style()}</style>'
            f"<div>{snapshot}</div></div>"
        )
    return (
        f'<div class="vizad-static tex2jax_ignore mathjax_ignore"><style>{style()}</style>'
        f'<div id="{uid}">{snapshot}</div>'
        f"{data_script(data, uid + '-data')}"
        f"{mount_script(uid, uid + '-data', replace=True)}</div>"
    )


def snapshot_html(title: str, svg: str | None, panel: str) -> str:
    """A static picture of one step: the title, the laid-out SVG restyled for the step (as an
    image: HTML sanitizers keep those; no picture when only the browser can lay it out), and
    the step's panel."""
    picture = (
        f'<div style="overflow:auto;max-height:560px"><img alt="{escape(title)}" '
        f'src="data:image/svg+xml;base64,{base64.b64encode(svg.encode()).decode()}"></div>'
        if svg is not None
        else '<div class="vz-muted">(the graph is laid out in the browser when the cell runs)</div>'
    )
    return (
        f'<div class="vizad-stepper"><div class="vz-title">{escape(title)}</div>'
        f"{picture}{panel}"
        '<div class="vz-muted">(a static picture of this step: run the cell, or open the '
        "notebook where scripts run, to step through it)</div></div>"
    )
