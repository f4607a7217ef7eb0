"""A stepper's static picture: one step as HTML that needs no script (what GitHub, an
untrusted notebook and any renderer that strips scripts show of a stepper's output, until the
component replaces it where scripts run).

The picture is the title, the laid-out SVG restyled for the step (as an ``<img>``: HTML
sanitizers keep those) and the step's panel, built from the same data as the browser
component's panel (vizad.trace.panel; ``static/stepper/panel.js`` builds the same elements
with the same classes, so stepper.css applies to both). Elements are made with ElementTree
and serialised by it: every piece of text is set as text and escaped there, none is written
into markup by hand.
"""

from __future__ import annotations

import base64
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from typing import Any

from vizad.engine.text import printable

__all__ = ["snapshot_html", "panel_element", "picture_style", "QUIZ_NOTE", "STATIC_NOTE"]

#: What a quiz's picture says instead of the step's panel (its values are the answers).
QUIZ_NOTE = "(a quiz: its values are asked, not shown)"
#: What the picture says of itself: how to step through it (the live stepper when the cell
#: runs; the saved walkthrough once the notebook is trusted, as a notebook from elsewhere is
#: not, and its outputs' scripts do not run). frontend/labextension/src/index.js says the same
#: when it writes the picture of the step a reader moved to.
STATIC_NOTE = (
    "A static picture of this step. To step through it, run the cell (the live stepper shows), "
    "or trust the notebook and reopen it: Trust Notebook in Notebook 7's File menu or in "
    "JupyterLab's command palette (Ctrl+Shift+C), or `jupyter trust notebook.ipynb` (its file "
    "name) in a terminal."
)
#: Readable text, in CSS px: the picture is never shown smaller than this for its smallest text.
READABLE_PX = 9
#: The frame of the picture: a picture wider or taller than the output scrolls in it.
FRAME_STYLE = "overflow:auto;max-height:560px"
_SVG_WIDTH = re.compile(r'<svg\b[^>]*?\swidth="([\d.]+)(pt|px)?"')
_SVG_HEIGHT = re.compile(r'<svg\b[^>]*?\sheight="([\d.]+)(pt|px)?"')
_VIEWBOX = re.compile(r'<svg\b[^>]*?\sviewBox="[-\d.]+ [-\d.]+ ([\d.]+) ([\d.]+)"')
_FONT_SIZE = re.compile(r'font-size="([\d.]+)"')
_GRAPH_SCALE = re.compile(r'<g\b[^>]*?\stransform="scale\(([\d.]+)')


def _element(tag: str, css: str | None = None, text: str | None = None, **attrs: str) -> ET.Element:
    element = ET.Element(tag, {"class": css} if css else {})
    element.attrib.update(attrs)
    if text is not None:
        element.text = text
    return element


def _append(parent: ET.Element, *items: ET.Element | str) -> ET.Element:
    """Append elements and text to ``parent`` (text after a child is that child's tail)."""
    for item in items:
        if isinstance(item, str):
            if len(parent):
                last = parent[-1]
                last.tail = (last.tail or "") + item
            else:
                parent.text = (parent.text or "") + item
        else:
            parent.append(item)
    return parent


#: A heatmap of more columns, or more cells, than the drawings' (24, 12 × 24: the step's
#: result in its panel, up to 64 × 64) draws smaller cells (stepper.css's vz-heat-fine), as
#: panel.js's ``shown`` does.
FINE_ROWS, FINE_COLUMNS, FINE_CELLS = 12, 24, 12 * 24


def _shown(value: Any) -> list[ET.Element | str]:
    """A shown value (vizad.trace.values.value_data) as elements and text."""
    if isinstance(value, str):
        return [value]
    if "muted" in value:
        return [_element("span", "vz-muted", value["muted"])]
    if "tuple" in value:
        out: list[ET.Element | str] = ["("]
        for j, item in enumerate(value["tuple"]):
            out += ([", "] if j else []) + _shown(item)
        return [*out, ")"]
    heat = value["heat"]
    columns, cells = int(heat["columns"]), len(heat["cells"])
    fine = columns > FINE_COLUMNS or cells > FINE_CELLS or cells > FINE_ROWS * columns
    grid = _element("span", "vz-heat vz-heat-fine" if fine else "vz-heat", role="img")
    grid.set("aria-label", heat["label"])
    grid.set("style", f"grid-template-columns:repeat({int(heat['columns'])},auto)")
    for fill, tip in heat["cells"]:
        grid.append(_element("span", style=f"background:{fill}", title=tip))
    return [grid, _element("span", "vz-scale", heat["caption"])]


def _parts(parent: ET.Element, parts: Sequence) -> ET.Element:
    for part in parts:
        _append(parent, *_shown(part))
    return parent


def _words(parent: ET.Element, text: str) -> ET.Element:
    """A table head's words, each kept whole (a span that does not wrap: "consumer", "value"),
    the spaces between them where it may wrap; a fraction may wrap after its slash ("∂vⱼ/",
    "∂vᵢ"). As panel.js's ``words``: the same elements, so stepper.css keeps them alike."""
    for k, word in enumerate(text.split(" ")):
        if k:
            _append(parent, " ")
        for part in re.split(r"(?<=/)(?=.)", word):
            parent.append(_element("span", "vz-word", part))
    return parent


def panel_element(panel: Mapping, head: Sequence[str]) -> ET.Element:
    """A step's panel (vizad.trace.panel.step_panel) as elements; ``head``: the head of its
    table of contributions (vizad.trace.panel.CONTRIBUTIONS_HEAD)."""
    box = _element("div", "vz-panel")
    box.append(_element("div", "vz-head", panel["head"]))
    box.append(_parts(_element("div", "vz-muted"), panel["about"]))
    if "note" in panel:
        box.append(_element("div", "vz-muted", panel["note"]))
    if "rows" in panel:
        table = ET.SubElement(box, "table", {"class": "vz-contributions"})
        names = ET.SubElement(ET.SubElement(table, "thead"), "tr")
        for name in head:
            _words(ET.SubElement(names, "th"), name)
        body = ET.SubElement(table, "tbody")
        for row in panel["rows"]:
            line = ET.SubElement(body, "tr")
            for cell in row:
                _parts(ET.SubElement(line, "td"), cell)
    total = _append(_element("b"), *_shown(panel["total"]))
    box.append(_append(_element("div", "vz-sum", panel["sum"]), total))
    if "cells" in panel:  # why its cells do not open (here no cell opens: as a page without Python)
        box.append(_element("div", "vz-muted vz-cells-note", panel["cells"]["why"]))
    box.append(_element("div", "vz-math", panel["line"]))
    if "source" in panel:
        box.append(_element("div", "vz-muted vz-source", panel["source"]))
    if "nonfinite" in panel:
        box.append(_element("div", "vz-nan-note", panel["nonfinite"]))
    if "fail" in panel:
        box.append(_element("div", "vz-fail", panel["fail"]))
    return box


def picture_style(svg: str) -> str:
    """The style of the picture's ``<img>`` of ``svg`` (Graphviz's, sized in pt): as wide as
    the output, but never so narrow that its smallest text is under READABLE_PX (then the
    frame scrolls), nor wider than its natural size unless its text needs it. An inline style
    (JupyterLab's sanitizer keeps these properties; an untrusted output has no style sheet).
    The same rule as ``pictureStyle`` in frontend/labextension/src/index.js."""
    width, height = _SVG_WIDTH.search(svg), _SVG_HEIGHT.search(svg)
    box = _VIEWBOX.search(svg)
    sizes = [float(size) for size in _FONT_SIZE.findall(svg)]
    if None in (width, height, box) or not sizes or 0 in (float(box[1]), float(box[2])):
        return "max-width:100%;height:auto"
    natural, tall = (float(m[1]) * (4 / 3 if m[2] == "pt" else 1) for m in (width, height))
    # CSS px per unit of the drawing (the image keeps its aspect ratio: the smaller of the
    # two, as Graphviz rounds its size), times the scale of Graphviz's graph group
    scale = _GRAPH_SCALE.search(svg)
    unit = min(natural / float(box[1]), tall / float(box[2]))
    unit *= float(scale[1]) if scale else 1.0
    smallest = min(sizes) * unit  # CSS px at the natural size
    least = math.ceil(natural * READABLE_PX / smallest - 1e-9)  # not 541 for 540.0000001
    most = max(least, math.ceil(natural))
    return f"width:100%;min-width:{least}px;max-width:{most}px;height:auto"


def snapshot_html(
    title: str, svg: str | None, panel: Mapping | None, head: Sequence[str] = ()
) -> str:
    """A static picture of one step: the title, the laid-out SVG restyled for the step (as an
    image; no picture when only the browser can lay it out), and the step's ``panel``
    (its data, vizad.trace.panel; None: a quiz, whose values are not shown)."""
    title = printable(title)
    root = _element("div", "vizad-stepper")
    root.append(_element("div", "vz-title", title))
    if svg is not None:
        frame = ET.SubElement(root, "div", {"class": "vz-picture", "style": FRAME_STYLE})
        picture = base64.b64encode(svg.encode()).decode()
        source = f"data:image/svg+xml;base64,{picture}"
        ET.SubElement(frame, "img", {"alt": title, "style": picture_style(svg), "src": source})
    else:
        note = "(the graph is laid out in the browser where scripts run)"
        root.append(_element("div", "vz-muted", note))
    if panel is None:
        root.append(_element("div", "vz-muted", QUIZ_NOTE))
    else:
        root.append(panel_element(panel, head))
    root.append(_element("div", "vz-muted vz-trust", STATIC_NOTE))
    return ET.tostring(root, encoding="unicode", method="html")
