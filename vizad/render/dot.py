"""Scenes as Graphviz DOT, built with the graphviz package's API (never by gluing strings).

Every label is an HTML-like label whose text went through :func:`vizad.text.escape`, so no name
or value can inject markup. The returned :class:`Drawing` is a ``graphviz.Digraph`` whose
rendering explains how to install Graphviz when the ``dot`` program is missing, and whose
text repr is short and deterministic.
"""

from __future__ import annotations

from collections.abc import Mapping

import graphviz

from ..errors import INSTALL_HINT, GraphvizNotFoundError
from ..text import escape
from .palette import FONT, dot_attrs, edge_attrs
from .scene import Scene

__all__ = ["Drawing", "GraphvizNotFoundError", "to_drawing", "INSTALL_HINT"]


class Drawing(graphviz.Digraph):
    """A ``graphviz.Digraph`` of a vizad scene: display it in Jupyter, or ``.render()`` it to
    SVG, PNG or PDF for slides."""

    _vizad_summary = ""

    def pipe(self, *args, **kwargs):
        try:
            return super().pipe(*args, **kwargs)
        except graphviz.ExecutableNotFound:
            raise GraphvizNotFoundError() from None

    def render(self, *args, **kwargs):
        try:
            return super().render(*args, **kwargs)
        except graphviz.ExecutableNotFound:
            raise GraphvizNotFoundError() from None

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
        try:
            bundle = super()._repr_mimebundle_(include, exclude, **kwargs)
        except GraphvizNotFoundError as exc:
            return {"text/plain": f"{self!r}\n({exc})"}
        bundle.setdefault("text/plain", repr(self))
        return bundle

    def __repr__(self) -> str:
        return f"<vizad drawing: {self._vizad_summary}>"


def to_drawing(
    scene: Scene,
    states: Mapping[str, str] | None = None,
    edge_highlights: frozenset[str] = frozenset(),
    caption: str = "",
) -> Drawing:
    """The DOT of ``scene``, each box styled by its kind and its step state."""
    states = states or {}
    drawing = Drawing(name="vizad", engine="dot")
    forward = sum(1 for i in scene.items if i.kind in ("variable", "forward"))
    extension = sum(1 for i in scene.items if i.kind in ("adjoint", "tangent"))
    drawing._vizad_summary = f"{scene.title}; {forward} forward and {extension} extension boxes" + (
        f"; {scene.note}" if scene.note else ""
    )
    label = [scene.title] + ([scene.note] if scene.note else []) + ([caption] if caption else [])
    drawing.attr(
        "graph",
        rankdir="LR",
        bgcolor="transparent",
        fontname=FONT,
        fontsize="13",
        fontcolor="#888888",
        labelloc="t",
        labeljust="l",
        nodesep="0.25",
        ranksep="0.45",
        label=_html_lines(label, bold_first=False, cut=False),
    )
    drawing.attr("node", fontname=FONT, fontsize="12", margin="0.08,0.04")
    drawing.attr("edge", arrowsize="0.7", color="#888888")

    def add_items(target, items):
        for item in items:
            attrs = dot_attrs(item.kind, states.get(item.id))
            target.node(
                item.id,
                label=_html_lines(item.lines, bold_first=item.kind != "constant"),
                id=item.id,
                **attrs,
            )

    loose = [i for i in scene.items if i.cluster is None]
    add_items(drawing, loose)
    for cluster, title in scene.clusters.items():
        with drawing.subgraph(name=cluster) as sub:
            sub.attr(
                label=title,
                style="dashed,rounded",
                color="#888888",
                fontcolor="#888888",
                fontname=FONT,
                fontsize="12",
            )
            add_items(sub, [i for i in scene.items if i.cluster == cluster])
    for edge in scene.edges:
        extra = (
            {"label": escape(edge.label), "fontsize": "10", "fontcolor": "#888888"}
            if edge.label
            else {}
        )
        drawing.edge(
            edge.tail,
            edge.head,
            id=edge.id,
            **edge_attrs(edge.kind, edge.id in edge_highlights),
            **extra,
        )
    return drawing


#: Longer lines are cut (with "…") so that a box never spans the picture.
MAX_LINE = 48


def _html_lines(lines, bold_first: bool, cut: bool = True) -> str:
    """An HTML-like label: escaped lines joined by <BR/>, the first one bold."""
    parts = [
        escape(line if len(line) <= MAX_LINE or not cut else line[: MAX_LINE - 1] + "…")
        for line in lines
    ]
    if bold_first and parts:
        parts[0] = f"<B>{parts[0]}</B>"
    return "<" + "<BR/>".join(parts) + ">"
