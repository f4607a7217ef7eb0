"""Scenes as Graphviz DOT, built with the graphviz package's API (never by gluing strings).

Every label is an HTML-like label whose text went through :func:`vizad.trace.text.escape`, so no
name or value can inject markup. The returned :class:`Drawing` is a ``graphviz.Digraph`` whose
rendering explains how to install Graphviz when the ``dot`` program is missing, and whose
text repr is short and deterministic.
"""

from __future__ import annotations

import base64
import functools
import html
import math
import os
import re
import shutil
import signal
import subprocess
from collections.abc import Sequence, Mapping

import graphviz

from vizad.view.assets import drawing_style
from vizad.errors import (
    INSTALL_HINT,
    ArgumentError,
    GraphvizNotFoundError,
    LayoutTimeoutError,
    RenderError,
    VizadError,
)
from vizad.view.files import check_output, output_error, write_output
from vizad.trace.text import escape, format_number, printable
from vizad.view.render.budget import lay_out, wall_after
from vizad.view.render.palette import (
    BACKGROUND,
    FRAME_INK,
    SCOPE_BORDER,
    FONT,
    MIN_SCALE,
    NOTEBOOK_WIDTH,
    STATE_STYLE,
    STATE_WORDS,
    diverging,
    dot_attrs,
    edge_attrs,
    heat_grid,
    heat_scale,
)
from vizad.view.render.scene import MAX_LINE, Scene

__all__ = [
    "Drawing",
    "GraphvizNotFoundError",
    "to_drawing",
    "unescaped_titles",
    "dot_names",
    "titled",
    "visible",
    "run_dot",
    "layout_in_browser",
    "notebook_size",
    "INSTALL_HINT",
]

#: The side of a heatmap cell, in points.
CELL = 7


#: Seconds the dot program may take to lay out a drawing shown in a notebook, piped or
#: rendered to a file.
DISPLAY_TIMEOUT = 30.0

_SIZE = re.compile(r'(<svg\b[^>]*?)\bwidth="([\d.]+)pt" height="([\d.]+)pt"')
#: What comes before an SVG's root: the XML declaration, the DOCTYPE, Graphviz's comments.
_PROLOG = re.compile(r"<\?xml.*?\?>\s*|<!DOCTYPE.*?>\s*|<!--.*?-->\s*", re.S)


class Drawing(graphviz.Digraph):
    """A ``graphviz.Digraph`` of a vizad scene: display it in Jupyter, or ``.render()`` it to
    SVG, PNG or PDF for slides. ``pipe`` and ``render`` take graphviz's arguments and a
    ``timeout`` (default :attr:`timeout` seconds) after which they stop ``dot`` with a
    RenderError, like every layout vizad runs; ``render`` writes its file as
    :mod:`vizad.view.files` says (links followed, FIFOs and devices written to, never replaced).

    Examples:
        >>> from vizad.view import render
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> drawing = vz.draw(y)
        >>> isinstance(drawing, render.Drawing), drawing.source.startswith("digraph")
        (True, True)
    """

    _vizad_summary = ""
    #: SVG element id (a box's or an edge's) → its title, escaped (see :func:`titled`).
    _vizad_titles: dict[str, str] = {}
    #: Box id → its name (:func:`dot_names`), as drawn.
    _vizad_names: dict[str, str] = {}
    #: (scene, drawing of a scene, budget): how vz.draw made this drawing, so that a display
    #: whose layout runs long falls back to the next rung of the budget (None: no fallback).
    _vizad_plan: tuple | None = None
    #: Seconds ``dot`` may take in :meth:`pipe` and :meth:`render`.
    timeout: float = DISPLAY_TIMEOUT
    _call_timeout: float | None = None

    # node names and edge ends quoted once per process (vizad's own ids: v3, a12, c1): a view
    # with one box or another opened names the same boxes again and again
    _quote = staticmethod(functools.lru_cache(maxsize=65536)(graphviz.quoting.quote))
    _quote_edge = staticmethod(functools.lru_cache(maxsize=65536)(graphviz.quoting.quote_edge))

    @staticmethod
    def _attr_list(label=None, kwargs=None, attributes=None) -> str:
        """graphviz's ``attr_list`` (the same text), each ``key=value`` pair quoted once per
        process: a drawing of a large graph repeats a few styles on thousands of boxes. A
        box's or an edge's style given as ``_attributes=`` (a :class:`_Style`, its pairs
        sorted and quoted once) with only ``id=`` as keywords: the same text as with all of
        them as keywords, without sorting and quoting them again for each box."""
        if type(attributes) is _Style and kwargs is not None and kwargs.keys() == {"id"}:
            pairs = [f"label={graphviz.quoting.quote(label)}"] if label is not None else []
            pairs += [*attributes.before, _quoted_pair("id", kwargs["id"]), *attributes.after]
            return f" [{' '.join(pairs)}]"
        pairs = [f"label={graphviz.quoting.quote(label)}"] if label is not None else []
        for given in (kwargs, attributes):
            if given:
                items = given.items() if hasattr(given, "items") else given
                if type(given) is dict:
                    items = sorted(items)
                pairs += [_quoted_pair(k, v) for k, v in items if v is not None]
        return f" [{' '.join(pairs)}]" if pairs else ""

    def pipe(self, format=None, renderer=None, formatter=None, neato_no_op=None, quiet=False, **kw):
        """graphviz's ``pipe`` (the output as bytes, or text with ``encoding=``), bounded by
        ``timeout=`` seconds."""
        encoding = kw.pop("encoding", None)
        data = self._run(format, renderer, formatter, neato_no_op, **kw)
        return data if encoding is None else data.decode(encoding)

    def render(self, *args, timeout: float | None = None, **kwargs):
        self._call_timeout = timeout
        try:
            return super().render(*args, **kwargs)
        except graphviz.ExecutableNotFound:
            raise GraphvizNotFoundError() from None
        except OSError as exc:  # saving the DOT source, as graphviz does, was refused
            if isinstance(exc, VizadError):
                raise
            where = exc.filename or kwargs.get("outfile") or (args[0] if args else self.filename)
            raise output_error("render", where, exc) from exc
        finally:
            del self._call_timeout

    @property
    def _render(self):  # graphviz's hook for the step that runs dot on the saved source
        return self._render_bounded

    def _render_bounded(self, engine, format, filepath, **options) -> str:
        """graphviz's render step (dot on the saved source, into ``outfile`` or the source's
        name with the format's suffix), bounded in time, written by vizad's writer."""
        renderer, formatter = options.get("renderer"), options.get("formatter")
        outfile = options.get("outfile")
        if outfile is None:
            suffix = ".".join(p for p in (formatter, renderer, format) if p)
            outfile = f"{os.fspath(filepath)}.{suffix}"
        if options.get("raise_if_result_exists") and os.path.exists(outfile):
            raise graphviz.FileExistsError(f"output file exists: {os.fspath(outfile)!r}")
        check_output(outfile, "render")
        no_op, timeout = options.get("neato_no_op"), self._call_timeout
        data = self._run(format, renderer, formatter, no_op, engine=engine, timeout=timeout)
        return os.fspath(write_output(outfile, data, "render"))

    def _run(self, format, renderer, formatter, neato_no_op, engine=None, timeout=None) -> bytes:
        """The output of ``dot`` on this drawing's source, bounded by ``timeout`` seconds."""
        format = format or self.format
        kind = ":".join(p for p in (format, renderer or self.renderer, formatter) if p)
        args = [f"-K{engine or self.engine}", f"-T{kind}"]
        if neato_no_op:
            args.append(f"-n{int(neato_no_op)}")
        timeout = self.timeout if timeout is None else timeout
        source = self.source.encode(self.encoding or "utf-8")
        data = run_graphviz(source, args, timeout, f"writing {str(format).upper()} files")
        return titled(data.decode(), self._vizad_titles).encode() if format == "svg" else data

    def titles(self) -> dict[str, str]:
        """SVG id → the title (text, unescaped) of each box and edge of this drawing."""
        return unescaped_titles(self._vizad_titles)

    def laid_out(self, timeout: float, cpu: float | None = None) -> str:
        """This drawing's SVG from the ``dot`` program (stopped after ``timeout`` seconds, or
        ``cpu`` seconds of CPU time), its boxes titled by their names."""
        return titled(run_dot(self.source, timeout, cpu), self._vizad_titles)

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
        if layout_in_browser():
            # display only: a small widget lays the same DOT out in the browser (imported
            # here, so that drawing loads no widget library until a drawing is shown)
            from vizad.view.render.picture import picture_bundle

            return picture_bundle(browser_source(self.source), repr(self), self.titles())
        try:  # the same bound as every layout: a drawing never hangs a notebook
            svg = self._laid_out()
        except (GraphvizNotFoundError, RenderError) as exc:
            return {"text/plain": f"{self!r}\n({exc})"}
        # the picture is stored once, as the HTML's image (as a stepper's is): an SVG beside it
        # would double every drawing in a saved notebook, and every front end that shows
        # HTML (JupyterLab, Notebook 7, nbconvert, VS Code, Colab) passes over it
        return {"text/html": fitted_html(notebook_size(svg), repr(self)), "text/plain": repr(self)}

    def _laid_out(self) -> str:
        """The SVG of this drawing; one made by vz.draw whose layout runs longer than its
        budget allows is stopped and the next rung of the budget is shown instead."""
        if self._vizad_plan is None:
            return self.laid_out(DISPLAY_TIMEOUT)
        scene, make, budget = self._vizad_plan

        def run(rung, cpu):  # the full rung is this drawing (as the user may have set it)
            drawing = self if rung is scene else make(rung)
            if cpu is None:
                return drawing.laid_out(DISPLAY_TIMEOUT)
            return drawing.laid_out(wall_after(cpu), cpu)

        return lay_out(scene, run, budget)[1]

    def __repr__(self) -> str:
        return f"<vizad drawing: {self._vizad_summary}>"

    def __getstate__(self):
        # a copy or a pickle is the drawing as it is (its DOT): the plan of its fallback layouts
        # holds the scene it was made from (closures: not picklable), and stays behind
        state = dict(self.__dict__)
        state.pop("_vizad_plan", None)
        return state


class _Style(tuple):
    """A style's ``key=value`` pairs for DOT (:meth:`Drawing._attr_list`), sorted by key and
    quoted: those before ``id`` and those after it (``before``, ``after``)."""

    before: tuple[str, ...]
    after: tuple[str, ...]


@functools.lru_cache(maxsize=4096)
def _style(pairs: tuple[tuple[str, str], ...]) -> _Style:
    """The :class:`_Style` of ``pairs`` (key, value; a None value left out), made once."""
    made = _Style(sorted((k, v) for k, v in pairs if v is not None))
    made.before = tuple(_quoted_pair(k, v) for k, v in made if k < "id")
    made.after = tuple(_quoted_pair(k, v) for k, v in made if k > "id")
    return made


@functools.lru_cache(maxsize=4096)
def _quoted_pair(key: str, value: str) -> str:
    """``key=value`` quoted for DOT (graphviz's quoting: a style's pairs recur on every box)."""
    return f"{graphviz.quoting.quote(key)}={graphviz.quoting.quote(value)}"


_TITLED = re.compile(r'(<g id="([^"<>]*)" class="(?:node|edge)">\s*<title>)[^<]*(</title>)')


def titled(svg: str, titles: Mapping[str, str]) -> str:
    """Graphviz's SVG ``svg`` with the title of each box and edge whose id is in ``titles``
    (escaped text) put in: DOT names boxes by vizad's ids, a person reads their names."""
    if not titles:
        return svg
    return _TITLED.sub(
        lambda m: m.group(1) + titles[m.group(2)] + m.group(3) if m.group(2) in titles else m[0],
        svg,
    )


def notebook_size(svg: str) -> str:
    """``svg`` (Graphviz's, sized in pt) sized for a notebook: its natural size when it is at
    most NOTEBOOK_WIDTH px wide, else scaled down to that width but never below MIN_SCALE."""
    m = _SIZE.search(svg)
    if not m:
        return svg
    width, height = float(m.group(2)) * 4 / 3, float(m.group(3)) * 4 / 3  # pt → px
    scale = 1.0 if width <= NOTEBOOK_WIDTH else max(NOTEBOOK_WIDTH / width, MIN_SCALE)
    return _SIZE.sub(
        lambda m: f'{m.group(1)}width="{width * scale:.0f}px" height="{height * scale:.0f}px"',
        svg,
        count=1,
    )


def fitted_html(svg: str, alt: str) -> str:
    """``svg`` (as :func:`notebook_size` sizes it) as HTML for a notebook's output: an image no
    wider than the output, so that a wide graph is seen whole (an overview: its text is then
    smaller than 9 px, as 9 px text of a 2,000 px graph cannot fit a 600 px output), which a
    click shows at its actual size (the output scrolls) and a second click fits again. No
    script: the image is the summary of a ``<details>`` element, whose ``open`` state the style
    sheet reads. A notebook reopened untrusted (JupyterLab's sanitizer drops the sheet) shows
    the image fitted by its own style, with no control to click (a checkbox there would be
    shown, disabled). Graphviz's comments are left out (its version: outputs compare equal)."""
    data = base64.b64encode(_PROLOG.sub("", svg).encode()).decode()
    return (
        f'<details class="vizad-drawing"><style>{drawing_style()}</style>'
        '<summary title="click: actual size; click again: fit the output" '
        'style="display:block;list-style:none">'
        f'<img alt="{html.escape(alt, quote=True)}" style="max-width:100%;height:auto" '
        f'src="data:image/svg+xml;base64,{data}"></summary></details>'
    )


def unescaped_titles(titles: Mapping[str, str]) -> dict[str, str]:
    """SVG id → title as text, of a drawing's escaped titles (``Drawing._vizad_titles``)."""
    return {k: html.unescape(v) for k, v in titles.items()}


def to_drawing(
    scene: Scene,
    states: Mapping[str, str] | None = None,
    edge_highlights: frozenset[str] = frozenset(),
    caption: str | Sequence[str] = "",
    lines: dict | None = None,
    noted: bool = True,
) -> Drawing:
    """The DOT of ``scene``, each box styled by its kind and its step state. A box's DOT name
    is its item id; its name (v̄₃→₅) is its label and, in the SVG, its title (tooltip).
    ``noted``: whether the graph's label carries the scene's note (what was done to fit); the
    stepper leaves it out, as its own text row above the picture says it.
    ``lines``: a cache of the DOT statements of boxes and edges, shared by drawings of scenes
    that share most of them (a view with one box or another opened:
    :meth:`~vizad.view.render.Layout.openings`), so that each is written once."""
    states = states or {}
    lines = {} if lines is None else lines
    drawing = Drawing(name="vizad", engine="dot")
    forward = sum(1 for i in scene.items if i.kind in ("variable", "forward"))
    extension = sum(1 for i in scene.items if i.kind in ("adjoint", "tangent"))
    drawing._vizad_summary = f"{scene.title}; {forward} forward and {extension} extension boxes" + (
        f"; {scene.note}" if scene.note else ""
    )
    captions = [caption] if isinstance(caption, str) else list(caption)
    note = [scene.note] if scene.note and noted else []
    label = [line for line in [scene.title, *note, *captions] if line]  # heading=False: none
    drawing.attr(
        "graph",
        rankdir="LR",
        bgcolor="transparent",
        fontname=FONT,
        fontsize="13",
        fontcolor=FRAME_INK,
        labelloc="t",
        labeljust="l",
        nodesep="0.25",
        ranksep="0.45",
        label=_html_lines(label, bold_first=False, cut=False) if label else "",
    )
    if scene.layout:  # a bounded layout (vizad.view.render.budget): in the DOT, for every Graphviz
        drawing.attr("graph", **scene.layout)
    drawing.attr("node", fontname=FONT, fontsize="12", margin="0.08,0.04")
    drawing.attr("edge", arrowsize="0.7", color=FRAME_INK, fontname=FONT)
    # DOT node names are vizad's own item ids (v3, a12, c1), never user text: no name can
    # read as DOT; the SVG's titles (tooltips) are the boxes' names, put in by titled()
    names = drawing._vizad_names = dot_names(scene)
    drawing._vizad_titles = {item.id: escape(_titled_name(item, names)) for item in scene.items}

    def add_items(target, items):
        for item in items:
            # an equal box (same id, kind, node, cluster, members: the same text) of the same
            # name and state has the same statement
            key = (item, names[item.id], states.get(item.id))
            if key in lines:
                target.body.append(lines[key])
                continue
            style = _style(tuple(dot_attrs(item.kind, key[2]).items()))
            target.node(item.id, label=_label(item), _attributes=style, id=item.id)
            lines[key] = target.body[-1]

    if scene.legend:
        drawing.node("legend", label=_legend(scene.trace.mode), id="vz_legend", shape="plaintext")
    members: dict[str | None, list] = {}
    for item in scene.items:
        members.setdefault(item.cluster, []).append(item)
    children: dict[str | None, list[str]] = {}
    for cluster in scene.clusters:
        children.setdefault(scene.parents.get(cluster), []).append(cluster)

    add_items(drawing, members.get(None, ()))
    for cluster in children.get(None, ()):
        _add_cluster(drawing, cluster, scene.clusters, members, children, add_items)
    titles = drawing._vizad_titles
    for edge in scene.edges:
        titles[edge.id] = f"{escape(names[edge.tail])}&#45;&gt;{escape(names[edge.head])}"
        key = (edge, names[edge.tail], names[edge.head], edge.id in edge_highlights)
        if key in lines:
            drawing.body.append(lines[key])
            continue
        style = edge_attrs(edge.kind, edge.id in edge_highlights)
        if edge.label:
            style.update(fontsize="12", fontcolor=FRAME_INK)
        drawing.edge(
            edge.tail,
            edge.head,
            label=_plain_text(edge.label) if edge.label else None,
            _attributes=_style(tuple(style.items())),
            id=edge.id,
        )
        lines[key] = drawing.body[-1]
    return drawing


def _add_cluster(target, cluster: str, titles, members, children, add_items) -> None:
    """Cluster ``cluster`` with its items and its nested clusters (as deep as the scopes
    are); a module function, since a closure calling itself is a reference cycle."""
    with target.subgraph(name=cluster) as sub:
        scope = cluster.startswith("cluster_s")
        sub.attr(
            label=f"<{_html_text(_fit(titles[cluster]))}>",
            style="rounded" if scope else "dashed,rounded",
            color=SCOPE_BORDER if scope else FRAME_INK,
            fontcolor=FRAME_INK,
            fontname=FONT,
            fontsize="12",
        )
        add_items(sub, members.get(cluster, ()))
        for child in children.get(cluster, ()):
            _add_cluster(sub, child, titles, members, children, add_items)


def _titled_name(item, names: Mapping[str, str]) -> str:
    """A box's title (tooltip): its name, and the line of the user's code its node was
    imported or recorded from, when a bridge said it (``node.source``): the stepper's panel
    shows that line at the box's step, a drawing on hover."""
    source = item.node.source if item.node is not None else None
    return f"{names[item.id]}\n{_fit(visible(source))}" if source else names[item.id]


def dot_names(scene: Scene) -> dict[str, str]:
    """Item id → the box's unique name, its SVG title (tooltip): the item's name; a
    constant's value with " (constant)", made unique with primes (constants can share a
    value, and names longer than MAX_TEXT a beginning). Text, never a DOT node name."""
    names: dict[str, str] = {}
    seen: set[str] = set()
    for item in scene.items:
        name = _shown_name(item.name + (" (constant)" if item.kind == "constant" else ""))
        while name in seen or name == "legend":
            name += "′"
        seen.add(name)
        names[item.id] = name
    return names


@functools.lru_cache(maxsize=65536)
def _shown_name(name: str) -> str:
    """A box's name as its title shows it (visible, fitted): made once per process (a view's
    openings name the same boxes again)."""
    return _fit(visible(name))


def heat_cells(item) -> int:
    """How many heatmap cells the label of ``item`` draws for its last heatmap."""
    return heat_grid(item.heatmaps[-1][1]).size if item.heatmaps else 0


def _label(item) -> str:
    bold = item.kind not in ("constant", "zero")
    if not item.heatmaps:
        return _text_label(item.lines, bold)
    rows = [
        f"<TR><TD>{_cell_text(line, bold and k == 0)}</TD></TR>"
        for k, line in enumerate(item.lines)
    ]
    for caption, array in item.heatmaps:
        if caption:  # a second tensor (v̄ᵢ laid on vᵢ): its name over its heatmap
            rows.append(f"<TR><TD>{_cell_text(caption, False)}</TD></TR>")
        grid = heat_grid(array)
        top = heat_scale(grid)
        cells = "".join(
            "<TR>"
            + "".join(
                f'<TD FIXEDSIZE="TRUE" WIDTH="{CELL}" HEIGHT="{CELL}" '
                f'BGCOLOR="{diverging(x / top if top else 0.0)}"></TD>'
                for x in row
            )
            + "</TR>"
            for row in grid
        )
        height, width = grid.shape
        rows.append(
            '<TR><TD><TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="0" '
            f'FIXEDSIZE="TRUE" WIDTH="{width * CELL}" HEIGHT="{height * CELL}">'
            f"{cells}</TABLE></TD></TR>"
        )
        rows.append(f'<TR><TD><FONT POINT-SIZE="12">±{escape(format_number(top))}</FONT></TD></TR>')
    return (
        '<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">'
        + "".join(rows)
        + "</TABLE>>"
    )


#: Graphviz reads a quoted string, or a run of text in an HTML-like label, of at most 16384
#: bytes (longer, and ``dot`` stops with a syntax error). Escaped, a character takes at most
#: 10 bytes (a lone surrogate's visible escape ``&#92;ud800``), so any text vizad writes into
#: DOT (names, titles, edge labels) is cut at MAX_TEXT characters, with "…".
MAX_TEXT = 1500


def _fit(text: str, limit: int = MAX_TEXT) -> str:
    """``text`` cut to ``limit`` characters (the last one "…") when it is longer."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


#: Line ends and tabs, shown as their escapes in a drawing (a name "a\nb" is one line that
#: reads a\nb, and a name that is only a line end still has something to draw).
_LINE_ENDS = str.maketrans({"\n": "\\n", "\r": "\\r", "\t": "\\t"})


def visible(text: str) -> str:
    """``text`` as a drawing shows it: unprintable characters, line ends and tabs written as
    visible escapes (:func:`vizad.engine.text.printable`), so that every name draws as text."""
    return printable(str(text)).translate(_LINE_ENDS)


def _html_text(text: str) -> str:
    """``text`` as the text of an HTML-like label: escaped, with ``]`` as an entity (Graphviz's
    HTML lexer stops on a text that is only ``]``), a backslash doubled (Graphviz reads
    ``\\N``, ``\\G`` in a label as the node's or graph's name, even written as entities)
    and a space for an empty text."""
    return escape(visible(text)).replace("]", "&#93;").replace("&#92;", "&#92;&#92;") or "&#32;"


def _plain_text(text: str) -> str:
    """``text`` (cut at MAX_TEXT) as a quoted, plain DOT label: HTML-escaped (Graphviz reads
    entities in labels; a backslash is doubled, so no ``\\N``/``\\G`` escape)."""
    return escape(visible(_fit(text))).replace("&#92;", "&#92;&#92;")


@functools.lru_cache(maxsize=65536)  # a view's boxes, and each line, again in the others
def _cell_text(line: str, bold: bool, cut: bool = True) -> str:
    """One escaped line of a label, cut at MAX_LINE (with "…"), or at MAX_TEXT when ``cut``
    is False (titles)."""
    text = _html_text(_fit(line, MAX_LINE if cut else MAX_TEXT))
    return f"<B>{text}</B>" if bold else text


def _legend(mode: str) -> str:
    """The legend of the step states, in two rows, as an HTML-like label."""
    k = 0 if mode == "reverse" else 1
    cells = [
        f'<TD BGCOLOR="{STATE_STYLE[state].get("fill", BACKGROUND)}" '
        f'COLOR="{STATE_STYLE[state]["stroke"]}" BORDER="2" WIDTH="12"> </TD>'
        f'<TD ALIGN="LEFT"><FONT POINT-SIZE="10" COLOR="{FRAME_INK}">{escape(words[k])}</FONT></TD>'
        for state, words in STATE_WORDS.items()
    ]
    half = (len(cells) + 1) // 2
    rows = "".join(f"<TR>{''.join(row)}</TR>" for row in (cells[:half], cells[half:]))
    return f'<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="3" CELLPADDING="1">{rows}</TABLE>>'


@functools.lru_cache(maxsize=16384)
def _text_label(lines: tuple[str, ...], bold_first: bool) -> str:
    """:func:`_html_lines` of a box's lines, made once per process: a forward box reads the
    same in each view of a walkthrough (and in each of its openings)."""
    return _html_lines(lines, bold_first)


def _html_lines(lines, bold_first: bool, cut: bool = True) -> str:
    """An HTML-like label: escaped lines joined by <BR/>, the first one bold."""
    parts = [_cell_text(line, bold_first and k == 0, cut) for k, line in enumerate(lines)]
    return "<" + "<BR/>".join(parts) + ">"


#: The environment variable that chooses where graphs are laid out for Jupyter and the exported
#: page: "dot" (Graphviz's program, here), "browser" (Graphviz compiled to WebAssembly, in the
#: page) or "auto" (the default: "dot" when the program is on PATH, else "browser").
LAYOUT_VARIABLE = "VIZAD_LAYOUT"


def layout_in_browser() -> bool:
    """Whether graphs shown in Jupyter or in an exported page are laid out in the browser (see
    LAYOUT_VARIABLE). Files (``Drawing.render``, the CLI) always need the ``dot`` program."""
    choice = os.environ.get(LAYOUT_VARIABLE, "auto").strip().lower() or "auto"
    if choice not in ("auto", "dot", "browser"):
        given = os.environ[LAYOUT_VARIABLE]
        raise ArgumentError(f"{LAYOUT_VARIABLE} must be 'auto', 'dot' or 'browser', got {given!r}")
    return choice == "browser" or (choice == "auto" and shutil.which("dot") is None)


#: The font Graphviz is told about when the browser lays a graph out: compiled to WebAssembly,
#: Graphviz has no font files and estimates text widths from built-in metrics, which it has
#: for "DejaVu Sans" (widths within 1 % of the dot program's) but not for a list of fonts such
#: as FONT (it would fall back to Times, whose text is narrower: labels overflow their boxes).
#: The component's CSS gives that text the same fallbacks as FONT, Verdana first (same widths).
BROWSER_FONT = "DejaVu Sans"


def browser_source(source: str) -> str:
    """DOT ``source`` as the browser's Graphviz lays it out: FONT named as BROWSER_FONT (user
    text cannot contain the quoted attribute: the graphviz package escapes quotes in names and
    labels are HTML-escaped)."""
    return source.replace(f'fontname="{FONT}"', f'fontname="{BROWSER_FONT}"')


def run_dot_format(
    source: str, fmt: str, timeout: float, what: str | None = None, cpu: float | None = None
) -> bytes:
    """The picture of DOT ``source`` in format ``fmt`` (svg, pdf, png) from the ``dot``
    program, bounded by ``timeout`` seconds, or ``cpu`` CPU seconds (GraphvizNotFoundError,
    RenderError)."""
    return run_graphviz(
        source.encode(), [f"-T{fmt}"], timeout, what or f"writing {fmt.upper()} files", cpu
    )


def run_graphviz(
    source: bytes, args: list[str], timeout: float, what: str, cpu: float | None = None
) -> bytes:
    """What the ``dot`` program writes for DOT ``source`` with ``args``, bounded by
    ``timeout`` seconds: GraphvizNotFoundError when it is missing (``what`` needs it),
    RenderError when it fails or takes longer. ``cpu``: a limit in CPU seconds instead (the
    layout budget's: the same on a busy machine as on an idle one; where the system cannot
    limit CPU time, wall-clock seconds), ``timeout`` then guarding the wall-clock time."""
    exe = shutil.which("dot")
    if exe is None:
        raise GraphvizNotFoundError(what)
    limit = max(1, math.ceil(cpu)) if cpu is not None and _CPU_LIMITS else None
    if cpu is not None and limit is None:
        timeout = cpu
    stopped = LayoutTimeoutError(
        f"Graphviz's dot took more than {cpu if cpu is not None else timeout:g} s to lay out "
        "this graph (and was stopped); draw it with a smaller max_boxes= to summarise it, or "
        "give a longer timeout="
    )
    with subprocess.Popen(
        [exe, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as child:
        if limit is not None:
            _limit_cpu(child.pid, limit)
        try:
            out, err = child.communicate(source, timeout=timeout)
        except subprocess.TimeoutExpired:
            child.kill()
            child.communicate()
            raise stopped from None
    if limit is not None and child.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        raise stopped
    if child.returncode != 0:
        raise RenderError(f"Graphviz's dot failed: {err.decode(errors='replace')[:500]}")
    return out


def run_dot(source: str, timeout: float, cpu: float | None = None) -> str:
    """SVG of DOT ``source`` from Graphviz's ``dot`` program (GraphvizNotFoundError when it
    is missing, RenderError when it fails or takes longer than ``timeout`` seconds, or than
    ``cpu`` seconds of CPU time: see :func:`run_graphviz`)."""
    return run_dot_format(source, "svg", timeout, "laying out a graph", cpu).decode()


#: Whether this system limits a running child's CPU time (Linux: prlimit(2), RLIMIT_CPU).
#: The limit is set on the started process rather than by a function run between fork and
#: exec (``preexec_fn``): that is unsafe in a threaded parent (JAX, PyTorch) and makes JAX
#: warn about ``os.fork()`` in the notebook's output.
def _can_limit_cpu() -> bool:
    if os.name != "posix" or not hasattr(signal, "SIGXCPU"):
        return False
    import resource  # POSIX only

    return hasattr(resource, "prlimit")


_CPU_LIMITS = _can_limit_cpu()


def _limit_cpu(pid: int, seconds: int) -> None:
    """Limit the CPU time of the running process ``pid`` to ``seconds`` (SIGXCPU stops it,
    SIGKILL a second later). The time it has used already counts, so starting it unbounded
    for a moment loses nothing; a process that has already ended is left alone."""
    import resource  # POSIX only

    try:
        resource.prlimit(pid, resource.RLIMIT_CPU, (seconds, seconds + 1))
    except ProcessLookupError:  # pragma: no cover - dot ended before its limit was set
        pass
