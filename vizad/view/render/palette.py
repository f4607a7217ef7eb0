"""Colours and shapes of every drawing, in one table.

The Okabe–Ito palette (safe for colour-blind viewers). Boxes are filled with light tints and
hold dark text, so they read the same on light and dark JupyterLab themes; edges and cluster
frames are mid-grey, visible on both. Every step state's text has a contrast of at least 4.5:1
(WCAG AA) with its box, on a light page and on a dark one, so that it reads on a projector: the
boxes of later steps ("not yet") are greyed, not faded, and on a dark page the component greys
them dark (DARK_STATE_STYLE). The same table gives DOT attributes (drawings for slides) and CSS
rules (the stepper restyling a laid-out SVG, and the swatches of its legend).
"""

from __future__ import annotations

from vizad.trace.values import heat_grid, heat_scale  # the grid a heatmap shows, shared

__all__ = [
    "FONT",
    "KIND_STYLE",
    "STATE_STYLE",
    "DARK_STATE_STYLE",
    "EDGE_STYLE",
    "EDGE_HIGHLIGHT",
    "LIGHT_PAGE_INK",
    "STATE_WORDS",
    "legend_words",
    "diverging",
    "heat_grid",
    "heat_scale",
    "dot_attrs",
    "edge_attrs",
    "css_rules",
    "state_css",
    "DASHES",
    "NOTEBOOK_WIDTH",
    "MIN_SCALE",
]

FONT = "DejaVu Sans,Helvetica,Arial,sans-serif"

#: In a notebook, a drawing wider than this (CSS px) is shown smaller, down to MIN_SCALE of its
#: natural size (text stays legible; wider still, it scrolls).
NOTEBOOK_WIDTH = 1000
MIN_SCALE = 0.7

ORANGE, SKY, GREEN, YELLOW = "#E69F00", "#56B4E9", "#009E73", "#F0E442"
BLUE, VERMILLION, PURPLE, GREY = "#0072B2", "#D55E00", "#CC79A7", "#888888"
INK = "#1a1a1a"
#: The frame's ink, which no step restyles: edges, captions, scope borders (a nested scope's
#: lighter), the legend's words and the background of a box no state fills.
FRAME_INK, SCOPE_BORDER, BACKGROUND = GREY, "#aaaaaa", "#ffffff"

#: The look of each kind of box: fill, border, text colour, shape (and for a stack of boxes,
#: how many outlines).
KIND_STYLE: dict[str, dict[str, str]] = {
    "variable": {"fill": "#bfe0f5", "stroke": BLUE, "text": INK, "shape": "box"},
    "forward": {"fill": "#e3f1fb", "stroke": BLUE, "text": INK, "shape": "box"},
    "constant": {"fill": "none", "stroke": "none", "text": "#777777", "shape": "plaintext"},
    "adjoint": {"fill": "#fde8c4", "stroke": "#a86d00", "text": INK, "shape": "box"},
    "tangent": {"fill": "#d3efe4", "stroke": "#00795a", "text": INK, "shape": "box"},
    "summary": {"fill": "#eeeeee", "stroke": "#666666", "text": INK, "shape": "box3d"},
    # a run of k equal blocks: a stack of boxes (three outlines)
    "fold": {"fill": "#f1e6f5", "stroke": "#8a4f7d", "text": INK, "shape": "box", "stack": "3"},
    "zero": {"fill": "#f6f6f6", "stroke": "#9a9a9a", "text": "#555555", "shape": "box"},
}

#: What a step does to a box: the current node, the consumers whose partial adjoints it sums
#: (in forward mode: the inputs its tangent reads), the extension nodes of this step, the
#: finished and the pending nodes.
STATE_STYLE: dict[str, dict[str, str]] = {
    "current": {"fill": YELLOW, "stroke": VERMILLION, "width": "4", "text": INK},
    "consumer": {"stroke": PURPLE, "width": "3.5", "dash": "dashed"},
    "involved": {
        "fill": "#ffc966",
        "stroke": VERMILLION,
        "width": "2.5",
        "text": INK,
        "dash": "dotted",
    },
    "done": {"fill": "#bfe8d9", "stroke": GREEN, "width": "2", "text": INK},
    "pending": {"fill": "#f2f2f2", "stroke": "#a0a0a0", "text": "#5e5e5e"},
    "failed": {"fill": "#ffd6cc", "stroke": "#c0392b", "width": "4", "text": INK, "dash": "dashed"},
}
#: What changes in a state on a dark page (the component's CSS; drawings keep STATE_STYLE): the
#: boxes of later steps recede into the page, dark grey with light grey text, instead of being
#: the brightest boxes of the drawing.
DARK_STATE_STYLE: dict[str, dict[str, str]] = {
    "pending": {"fill": "#2b2b2b", "stroke": "#707070", "text": "#c2c2c2"},
}
#: The selectors of a dark page: JupyterLab's and Notebook 7's dark themes, VS Code's, and a
#: page of its own (the exported page) in a browser set to dark.
DARK_PAGES = ('body[data-jp-theme-light="false"]', "body.vscode-dark")
DARK_MEDIA = "@media (prefers-color-scheme: dark)"
DARK_MEDIA_PAGE = "body:not([data-jp-theme-light]):not(.vscode-light)"
#: Border patterns, so that states differ without colour too (and under colour-vision
#: deficiencies): the same names as Graphviz's styles.
DASHES = {"dashed": "8 4", "dotted": "2 3"}

EDGE_STYLE: dict[str, dict[str, str]] = {
    "forward": {"stroke": GREY, "style": "solid"},
    "extension": {"stroke": "#c08a2a", "style": "solid"},
    "reads": {"stroke": GREY, "style": "dashed"},
    "summary": {"stroke": GREY, "style": "bold"},
    "zero": {"stroke": "#9a9a9a", "style": "dashed"},
    # reads edges that are not drawn still shape the layout
    "anchor": {"stroke": GREY, "style": "invis"},
}

#: The frame's colours darkened on a light page (the component's CSS): FRAME_INK and the
#: extension edges must read on dark pages too, where they are 4.7:1 and 5.5:1 or more; on
#: white they would be 3.5:1 and 3.0:1, so the stepper shows these instead (5.7:1, 5.2:1).
#: A drawing's ``<img>`` cannot see the page's theme and keeps the colours of the DOT.
LIGHT_PAGE_INK: dict[str, str] = {
    FRAME_INK: "#666666",
    EDGE_STYLE["extension"]["stroke"]: "#946200",
}

#: What each step state means, for the legend (reverse mode, forward mode).
STATE_WORDS: dict[str, tuple[str, str]] = {
    "current": ("this step's node vᵢ", "this step's node vᵢ"),
    "consumer": ("its consumers vⱼ", "its inputs vₖ"),
    "involved": ("nodes computing v̄ᵢ", "nodes computing v̇ᵢ"),
    "done": ("done", "done"),
    "pending": ("not yet", "not yet"),
    "failed": ("rule fails check()", "rule fails check()"),
}


def legend_words(mode: str) -> list[list[str]]:
    """[state, what it means] for each step state, in ``mode`` ("reverse" or "forward"): the
    legend of the stepper (the drawings' legend is laid out in DOT from the same words)."""
    k = 0 if mode == "reverse" else 1
    return [[state, words[k]] for state, words in STATE_WORDS.items()]


#: The diverging heatmap palette (blue for negative, white for 0, red for positive: the
#: ColorBrewer RdBu ends, readable with the common colour-vision deficiencies).
NEGATIVE, ZERO_COLOUR, POSITIVE = (33, 102, 172), (247, 247, 247), (178, 24, 43)


def diverging(x: float) -> str:
    """The colour of ``x`` in [-1, 1] (clipped) as #rrggbb, white at 0."""
    x = max(-1.0, min(1.0, float(x))) if x == x else 0.0
    end = POSITIVE if x > 0 else NEGATIVE
    t = abs(x)
    rgb = (round(z + (e - z) * t) for z, e in zip(ZERO_COLOUR, end))
    return "#" + "".join(f"{c:02x}" for c in rgb)


EDGE_HIGHLIGHT = {"stroke": VERMILLION, "width": "2.5"}


def dot_attrs(kind: str, state: str | None = None) -> dict[str, str]:
    """Graphviz node attributes for a box of ``kind`` in ``state``."""
    base = KIND_STYLE[kind]
    look = {**base, **(STATE_STYLE.get(state, {}) if state else {})}
    if base["shape"] == "plaintext":
        return {"shape": "plaintext", "fontcolor": look["text"], "fontsize": "12"}
    stacked = "stack" in base
    style = "rounded,filled" if base["shape"] == "box" and not stacked else "filled"
    dash = "dashed" if kind == "zero" else look.get("dash")
    attrs = {
        "shape": base["shape"],
        "style": style + (f",{dash}" if dash else ""),
        "fillcolor": look["fill"],
        "color": look["stroke"],
        "fontcolor": look["text"],
    }
    if stacked:
        attrs["peripheries"] = base["stack"]
    if "width" in look:
        attrs["penwidth"] = look["width"]
    return attrs


def edge_attrs(kind: str, highlighted: bool = False) -> dict[str, str]:
    look = EDGE_STYLE[kind]
    attrs = {"color": look["stroke"], "style": look["style"]}
    if highlighted:
        attrs.update(color=EDGE_HIGHLIGHT["stroke"], penwidth=EDGE_HIGHLIGHT["width"])
    return attrs


#: A box's outline, not its heatmap cells (polygons without a stroke: "transparent" from the
#: dot program of Graphviz 2, "none" from later versions, such as the browser's Graphviz).
_OUTLINES = ("path", 'polygon:not([stroke="transparent"]):not([stroke="none"])', "ellipse")


def _state_rules(look: dict[str, str], boxes: str, outlines: str, texts: str) -> list[str]:
    """The CSS of one step state: ``outlines`` (selectors of the boxes' outlines), ``texts``
    (of their text), ``boxes`` (of the boxes themselves)."""
    decl = [f"fill:{look['fill']}"] if "fill" in look else []
    if "stroke" in look:
        decl.append(f"stroke:{look['stroke']}")
    if "width" in look:
        decl.append(f"stroke-width:{look['width']}")
    if "dash" in look:
        decl.append(f"stroke-dasharray:{DASHES[look['dash']]}")
    rules = [outlines + "{" + ";".join(decl) + "}"]
    if "text" in look:
        rules.append(f"{texts}{{fill:{look['text']}}}")
    if "opacity" in look:
        rules.append(f"{boxes}{{opacity:{look['opacity']}}}")
    return rules


def _edge_rules(paths: str, heads: str) -> list[str]:
    hot = EDGE_HIGHLIGHT
    return [
        f"{paths}{{stroke:{hot['stroke']};stroke-width:{hot['width']}}}",
        f"{heads}{{stroke:{hot['stroke']};fill:{hot['stroke']}}}",
    ]


def state_css(prefix: str) -> str:
    """CSS of the step states as classes (``g.vz-s-current``, ``g.vz-hot`` for an edge) under
    ``prefix``: what the browser component sets by id as it steps; the swatches of its legend
    (``.vz-swatch.vz-s-current``); DARK_STATE_STYLE's changes on a dark page; and the
    frame's ink darkened (LIGHT_PAGE_INK) on any page but a dark one, in rules of the lowest
    specificity so that a state or a highlighted edge always wins."""
    rules = []
    for state, look in STATE_STYLE.items():
        rules += _state_class_rules(prefix, state, look)
    rules += _edge_rules(f"{prefix} g.vz-hot>path", f"{prefix} g.vz-hot>polygon")
    dark = []
    for state, change in DARK_STATE_STYLE.items():
        dark += _state_class_rules(prefix, state, change)
    rules += [_under(page, rule) for page in DARK_PAGES for rule in dark]
    in_media = [_under(DARK_MEDIA_PAGE, rule) for rule in dark]
    rules.append(DARK_MEDIA + "{" + "\n".join(in_media) + "}")
    rules += _ink_rules(prefix, LIGHT_PAGE_INK)
    back = _ink_rules(prefix, {ink: ink for ink in LIGHT_PAGE_INK})  # a dark page: as drawn
    rules += [_under(page, rule) for page in DARK_PAGES for rule in back]
    rules.append(DARK_MEDIA + "{" + "\n".join(_under(DARK_MEDIA_PAGE, r) for r in back) + "}")
    return "\n".join(rules)


def _ink_rules(prefix: str, inks: dict[str, str]) -> list[str]:
    """CSS giving each colour of the drawing (a key of ``inks``: text fill, line stroke, arrow
    head fill) its value in ``inks``; ``:where`` keeps the rules' specificity to ``prefix``'s."""
    rules = []
    for drawn, shown in inks.items():
        fill, stroke = f'svg [fill="{drawn}"]', f'svg [stroke="{drawn}"]'
        rules.append(f"{prefix} :where({fill}){{fill:{shown}}}")
        rules.append(f"{prefix} :where({stroke}){{stroke:{shown}}}")
    return rules


def _under(page: str, rule: str) -> str:
    """``rule`` (``a, b{…}``) for elements under ``page`` only: every selector of its list
    prefixed (a prefix before the list would scope its first selector alone, and the dark
    colours of the others would apply on every page)."""
    selectors, body = rule.split("{", 1)
    parts, depth, start = [], 0, 0
    for k, char in enumerate(selectors):
        depth += (char in "([") - (char in ")]")
        if char == "," and depth == 0:
            parts.append(selectors[start:k])
            start = k + 1
    parts.append(selectors[start:])
    return ",".join(f"{page} {part.strip()}" for part in parts) + "{" + body


def _state_class_rules(prefix: str, state: str, look: dict[str, str]) -> list[str]:
    """The CSS of one step state as a class: the boxes in it and its legend swatch."""
    box = f"{prefix} g.vz-s-{state}"
    outlines = ",".join(f"{box}>{s}" for s in _OUTLINES)
    rules = _state_rules(look, box, outlines, f"{box} text")
    swatch = [f"background:{look['fill']}"] if "fill" in look else []
    swatch.append(f"border-color:{look['stroke']}")
    if "dash" in look:
        swatch.append(f"border-style:{look['dash']}")
    rules.append(f"{prefix} .vz-swatch.vz-s-{state}{{{';'.join(swatch)}}}")
    return rules


def css_rules(
    scope: str,
    node_states: dict[str, list[str]],
    edges: list[str],
    hide_last_line: list[str] = (),
    hide_cells: dict[str, int] | None = None,
) -> str:
    """CSS restyling a laid-out SVG: for each state, the ids of the boxes in it, the ids of
    the highlighted edges, the boxes whose last line (a value not computed yet at this step)
    is hidden, and how many heatmap cells to hide at the end of a box. Ids are vizad's own
    (letters, digits, '_'), never user text."""
    rules = []
    if hide_last_line:
        rules.append(
            ",".join(f"#{scope} #{i} text:last-of-type" for i in hide_last_line)
            + "{visibility:hidden}"
        )
    if hide_cells:
        rules.append(
            ",".join(
                f"#{scope} #{i}>polygon:nth-last-of-type(-n+{k})" for i, k in hide_cells.items()
            )
            + "{visibility:hidden}"
        )
    for state, ids in node_states.items():
        if not ids:
            continue
        # the box's outline, not its heatmap cells
        outlines = ",".join(f"#{scope} #{i}>{s}" for i in ids for s in _OUTLINES)
        boxes = ",".join(f"#{scope} #{i}" for i in ids)
        texts = ",".join(f"#{scope} #{i} text" for i in ids)
        rules += _state_rules(STATE_STYLE[state], boxes, outlines, texts)
    if edges:
        rules += _edge_rules(
            ",".join(f"#{scope} #{e}>path" for e in edges),
            ",".join(f"#{scope} #{e}>polygon" for e in edges),
        )
    return "\n".join(rules)
