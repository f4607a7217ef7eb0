"""Colours and shapes of every drawing, in one table.

The Okabe–Ito palette (safe for colour-blind viewers). Boxes are filled with light tints and
hold dark text, so they read the same on light and dark JupyterLab themes; edges and cluster
frames are mid-grey, visible on both. The same table gives DOT attributes (drawings for slides)
and CSS rules (the stepper restyling a laid-out SVG).
"""

from __future__ import annotations

__all__ = [
    "FONT",
    "KIND_STYLE",
    "STATE_STYLE",
    "EDGE_STYLE",
    "EDGE_HIGHLIGHT",
    "dot_attrs",
    "edge_attrs",
    "css_rules",
]

FONT = "DejaVu Sans,Helvetica,Arial,sans-serif"

ORANGE, SKY, GREEN, YELLOW = "#E69F00", "#56B4E9", "#009E73", "#F0E442"
BLUE, VERMILLION, PURPLE, GREY = "#0072B2", "#D55E00", "#CC79A7", "#888888"
INK = "#1a1a1a"

#: The look of each kind of box: fill, border, text colour, shape.
KIND_STYLE: dict[str, dict[str, str]] = {
    "variable": {"fill": "#bfe0f5", "stroke": BLUE, "text": INK, "shape": "box"},
    "forward": {"fill": "#e3f1fb", "stroke": BLUE, "text": INK, "shape": "box"},
    "constant": {"fill": "none", "stroke": "none", "text": "#777777", "shape": "plaintext"},
    "adjoint": {"fill": "#fde8c4", "stroke": "#a86d00", "text": INK, "shape": "box"},
    "tangent": {"fill": "#d3efe4", "stroke": "#00795a", "text": INK, "shape": "box"},
    "summary": {"fill": "#eeeeee", "stroke": "#666666", "text": INK, "shape": "box3d"},
}

#: What a step does to a box: the current node, the consumers whose partial adjoints it sums
#: (in forward mode: the inputs its tangent reads), the extension nodes of this step, the
#: finished and the pending nodes.
STATE_STYLE: dict[str, dict[str, str]] = {
    "current": {"fill": YELLOW, "stroke": VERMILLION, "width": "3.5", "text": INK},
    "consumer": {"stroke": PURPLE, "width": "3.5"},
    "involved": {"fill": "#ffc966", "stroke": VERMILLION, "width": "2.5", "text": INK},
    "done": {"fill": "#bfe8d9", "stroke": GREEN, "text": INK},
    "pending": {"fill": "#f2f2f2", "stroke": "#b0b0b0", "text": "#8a8a8a"},
    "failed": {"fill": "#ffd6cc", "stroke": "#c0392b", "width": "3.5", "text": INK},
}

EDGE_STYLE: dict[str, dict[str, str]] = {
    "forward": {"stroke": GREY, "style": "solid"},
    "extension": {"stroke": "#c08a2a", "style": "solid"},
    "reads": {"stroke": GREY, "style": "dashed"},
    "summary": {"stroke": GREY, "style": "bold"},
}
EDGE_HIGHLIGHT = {"stroke": VERMILLION, "width": "2.5"}


def dot_attrs(kind: str, state: str | None = None) -> dict[str, str]:
    """Graphviz node attributes for a box of ``kind`` in ``state``."""
    base = KIND_STYLE[kind]
    look = {**base, **(STATE_STYLE.get(state, {}) if state else {})}
    if base["shape"] == "plaintext":
        return {"shape": "plaintext", "fontcolor": look["text"], "fontsize": "11"}
    attrs = {
        "shape": base["shape"],
        "style": "rounded,filled" if base["shape"] == "box" else "filled",
        "fillcolor": look["fill"],
        "color": look["stroke"],
        "fontcolor": look["text"],
    }
    if "width" in look:
        attrs["penwidth"] = look["width"]
    return attrs


def edge_attrs(kind: str, highlighted: bool = False) -> dict[str, str]:
    look = EDGE_STYLE[kind]
    attrs = {"color": look["stroke"], "style": look["style"]}
    if highlighted:
        attrs.update(color=EDGE_HIGHLIGHT["stroke"], penwidth=EDGE_HIGHLIGHT["width"])
    return attrs


def css_rules(
    scope: str, node_states: dict[str, list[str]], edges: list[str], hide_last_line: list[str] = ()
) -> str:
    """CSS restyling a laid-out SVG: for each state, the ids of the boxes in it, the ids of
    the highlighted edges, and the boxes whose last line (a value not computed yet at this
    step) is hidden. Ids are vizad's own (letters, digits, '_'), never user text."""
    rules = []
    if hide_last_line:
        rules.append(
            ",".join(f"#{scope} #{i} text:last-of-type" for i in hide_last_line)
            + "{visibility:hidden}"
        )
    for state, ids in node_states.items():
        if not ids:
            continue
        look = STATE_STYLE[state]
        shapes = ",".join(f"#{scope} #{i}>{s}" for i in ids for s in ("path", "polygon", "ellipse"))
        decl = []
        if "fill" in look:
            decl.append(f"fill:{look['fill']}")
        if "stroke" in look:
            decl.append(f"stroke:{look['stroke']}")
        if "width" in look:
            decl.append(f"stroke-width:{look['width']}")
        rules.append(shapes + "{" + ";".join(decl) + "}")
        if "text" in look:
            rules.append(
                ",".join(f"#{scope} #{i} text" for i in ids) + "{fill:" + look["text"] + "}"
            )
    if edges:
        sel = ",".join(f"#{scope} #{e}>path" for e in edges)
        heads = ",".join(f"#{scope} #{e}>polygon" for e in edges)
        rules.append(
            sel
            + "{stroke:"
            + EDGE_HIGHLIGHT["stroke"]
            + ";stroke-width:"
            + EDGE_HIGHLIGHT["width"]
            + "}"
        )
        rules.append(
            heads
            + "{stroke:"
            + EDGE_HIGHLIGHT["stroke"]
            + ";fill:"
            + EDGE_HIGHLIGHT["stroke"]
            + "}"
        )
    return "\n".join(rules)
