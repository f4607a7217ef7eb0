"""Lay out once, restyle per step: the SVG a stepper shows.

``dot`` runs once per (target, view). A step's SVG is that SVG with a small CSS block that
restyles the boxes and edges of the step by id: positions never move between steps, and
stepping never runs ``dot`` again.
"""

from __future__ import annotations

import itertools
import re

from .dot import heat_cells, run_dot, to_drawing
from .highlight import highlight, step_states
from .palette import css_rules
from .summary import scene_for

__all__ = ["Layout"]

_scopes = itertools.count(1)
#: A laid-out graph is shown at least at this fraction of its natural size (text stays legible;
#: a larger graph scrolls).
MIN_SCALE = 0.7
_PROLOG = re.compile(r"<\?xml.*?\?>\s*|<!DOCTYPE.*?>\s*|<!--.*?-->\s*", re.S)


class Layout:
    """The laid-out SVG of a trace (or of nodes) in one view, and the SVG of any step.

    ``Layout(trace, "adjoint").svg(3)`` is step 3 (of 1 … n) highlighted; ``timeout`` bounds the one
    ``dot`` run (seconds).
    """

    def __init__(
        self,
        target,
        view: str | None = None,
        *,
        decimals: int = 3,
        max_boxes: int = 400,
        timeout: float = 30.0,
        failed=frozenset(),
        detail: bool = False,
        reads: bool = False,
        collapse=None,
    ):
        self.scene = scene_for(
            target,
            view,
            decimals,
            detail=detail,
            reads=reads,
            collapse=collapse,
            max_boxes=max_boxes,
        )
        self.view = self.scene.view
        self.failed = frozenset(failed)
        self.scope = f"vizad-svg-{next(_scopes)}"
        self.dot_source = to_drawing(self.scene).source
        laid = self.scene.trace is not None and self.view == self.scene.trace.laid_view
        #: The step states of the walkthrough (None for a drawing of nodes), made once.
        self.states = step_states(self.scene) if self.scene.trace is not None else None
        #: Box id → heatmap cells of what a step computes in it (its value in the extended
        #: view, the result laid on it in the laid view): hidden while that step is pending.
        self.hides = {
            item.id: heat_cells(item)
            for item in self.scene.items
            if laid or item.kind in ("adjoint", "tangent")
        }
        self._svg = _inline(run_dot(self.dot_source, timeout), self.scope)
        self._head, self._tail = self._svg.split("<!--vizad-style-->", 1)

    @property
    def steps(self) -> int:
        return len(self.scene.trace.steps) if self.scene.trace is not None else 0

    @property
    def template(self) -> str:
        """The laid-out SVG with the marker ``<!--vizad-style-->`` where a step's CSS goes."""
        return self._svg

    def css(self, step: int) -> str:
        """The CSS that highlights step number ``step`` (1 … n) in this layout."""
        lit = highlight(self.scene, self.scene.trace.index(step), self.failed, self.states)
        by_state: dict[str, list[str]] = {}
        for item_id, state in lit.states.items():
            by_state.setdefault(state, []).append(item_id)
        # the walkthrough does not give away what later steps compute: hide their values
        unknown = [i for i in by_state.get("pending", ()) if i in self.hides]
        cells = {i: self.hides[i] for i in unknown if self.hides[i]}
        return css_rules(self.scope, by_state, sorted(lit.edges), unknown, cells)

    def svg(self, step: int | None = None) -> str:
        """The SVG with ``step`` highlighted (no highlight for None)."""
        if step is None or self.scene.trace is None:
            return self._head + self._tail
        return f"{self._head}<style>{self.css(step)}</style>{self._tail}"

    def _repr_html_(self) -> str:
        return f'<div class="tex2jax_ignore mathjax_ignore">{self.svg()}</div>'


def _inline(svg: str, scope: str) -> str:
    """Graphviz's SVG ready to inline in HTML: no XML prolog or comments, the root <svg> with
    the scope id, and a marker where a step's <style> goes."""
    svg = _PROLOG.sub("", svg).strip()
    width = re.search(r'<svg\b[^>]*?\bwidth="([\d.]+)pt"', svg)
    natural = float(width.group(1)) * 4 / 3 if width else None  # CSS px
    # fit the container, but never below MIN_SCALE of the natural size (then it scrolls) nor
    # above the natural size
    style = (
        f"width:max(100%,{natural * MIN_SCALE:.0f}px);max-width:{natural:.0f}px;height:auto"
        if natural
        else "max-width:100%;height:auto"
    )
    svg = re.sub(r"<svg\b", f'<svg id="{scope}" class="vizad-graph" style="{style}"', svg, count=1)
    return re.sub(r"(<svg\b[^>]*>)", r"\1<!--vizad-style-->", svg, count=1)
