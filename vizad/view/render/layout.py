"""Lay out once, restyle per step: the SVG a stepper shows.

``dot`` runs once per (target, view). A step's SVG is that SVG with a small CSS block that
restyles the boxes and edges of the step by id: positions never move between steps, and
stepping never runs ``dot`` again. Without the ``dot`` program (or with VIZAD_LAYOUT=browser)
the layout is left to the browser, which runs Graphviz compiled to WebAssembly on the same
DOT source once per view; Python then has the DOT and the step states but no SVG.
"""

from __future__ import annotations

import copy
import functools
import itertools
import operator
import re
from collections.abc import Mapping

from vizad.engine._gc import gc_paused
from vizad.errors import ArgumentError, GraphvizNotFoundError, NotPicklableError
from vizad.view.render.budget import LAYOUT_BUDGET, lay_out, planned, wall_after
from vizad.view.render.dot import (
    DISPLAY_TIMEOUT,
    browser_source,
    heat_cells,
    layout_in_browser,
    to_drawing,
    unescaped_titles,
)
from vizad.view.render.highlight import computed_values, highlight, step_states
from vizad.view.render.legibility import states_of
from vizad.view.render.opening import BoxOpener, collapsed_boxes
from vizad.view.render.palette import MIN_SCALE, css_rules
from vizad.view.render.scene import Scene, headed
from vizad.view.render.scene_builder import build_scene
from vizad.view.render.summary import scene_for

__all__ = ["Layout"]

_scopes = itertools.count(1)
_PROLOG = re.compile(r"<\?xml.*?\?>\s*|<!DOCTYPE.*?>\s*|<!--.*?-->\s*", re.S)


class Layout:
    """The laid-out SVG of a trace (or of nodes) in one view, and the SVG of any step.

    ``Layout(trace, "adjoint").svg(3)`` is step 3 (of 1 … n) highlighted. The scene is laid
    out within ``budget`` seconds (:mod:`vizad.view.render.budget`: in full, bounded or summarised,
    the picture saying which; None: in full); ``timeout`` bounds each ``dot`` run (seconds; by
    default twice the budget). ``in_browser`` says whether the browser lays it out (then ``svg()``
    is not available in Python, and ``dot_source`` is what the browser lays out). ``frame``:
    the reader's frame (width, height in CSS px), for which the picture readable in it is
    chosen when nothing is collapsed (:func:`~vizad.view.render.summary.legible`). ``like``: the
    layout this one opens boxes of, whose step states are kept where the opening changes none.
    ``twin``: a layout of another view of the same trace, whose step states are taken when it
    draws the same boxes for the same nodes with the same edges (the laid view and the
    forward view: :func:`alike`). ``legend`` and ``heading``: the drawing options' legend and
    title (:class:`~vizad.view.render.DrawOptions`), also for the boxes it opens.

    Examples:
        >>> from vizad.view import render
        >>> layout = render.Layout(vz.examples.lecture(), "adjoint")
        >>> "<svg" in layout.svg(6)
        True
    """

    def __init__(
        self,
        target,
        view: str | None = None,
        *,
        decimals: int = 3,
        max_boxes: int = 400,
        timeout: float | None = None,
        failed=frozenset(),
        detail: bool = False,
        reads: bool = False,
        collapse=None,
        budget: float | None = LAYOUT_BUDGET,
        legend: bool = True,
        heading: str | bool | None = None,
        in_browser: bool | None = None,
        scene: Scene | None = None,
        frame: tuple[float, float] | None = None,
        like: Layout | None = None,
        twin: Layout | None = None,
    ):
        full = None
        if scene is None:
            with gc_paused():  # many small objects, all alive (see vizad.engine._gc)
                full = build_scene(target, view, decimals, detail=detail, reads=reads)
            scene = scene_for(
                target,
                view,
                decimals,
                detail=detail,
                reads=reads,
                collapse=collapse,
                max_boxes=max_boxes,
                frame=frame,
                full=full,
            )
        scene = headed(scene, heading, legend)  # the drawing options' title and legend
        self.view = scene.view
        self.failed = frozenset(failed)
        self.scope = f"vizad-svg-{next(_scopes)}"
        #: Whether the browser lays this out (default: VIZAD_LAYOUT, or no ``dot`` program).
        self.in_browser = layout_in_browser() if in_browser is None else bool(in_browser)
        # what opening a box rebuilds: the unsummarised scene of the same target and view
        self._source = (target, decimals, detail, reads, timeout, budget)
        self._heading = {"heading": heading, "legend": legend}
        #: The unsummarised scene this one was made from (what opening a box shows), kept
        #: when it differs: opening boxes does not build it again.
        self._full = full if full is not None and full is not scene else None
        if self.in_browser:  # the browser lays out the rung predicted to fit the budget
            self.scene, svg = planned(scene, budget), None
        else:  # dot lays it out here: a run that passes its time is stopped, the next rung run

            def run(rung, cpu):  # cpu: the budget's CPU seconds (None: no budget)
                drawing = to_drawing(rung, noted=False)  # the stepper's text row says it
                if timeout is not None:  # the caller's bound, in seconds
                    return drawing.laid_out(timeout)
                if cpu is None:
                    return drawing.laid_out(DISPLAY_TIMEOUT)
                return drawing.laid_out(wall_after(cpu), cpu)

            self.scene, svg = lay_out(scene, run, budget)
        #: The DOT laid out (by ``dot`` here, or by Graphviz in the browser); a layout opened
        #: from ``like`` shares its cache of DOT statements (most are the same).
        self._dot_lines: dict = {} if like is None else like._dot_lines
        drawing = to_drawing(self.scene, lines=self._dot_lines, noted=False)
        self.dot_source, self._drawing_titles = drawing.source, drawing._vizad_titles
        #: Box id → its unique name (:func:`~vizad.view.render.dot.dot_names`), as drawn.
        self.box_names: dict[str, str] = drawing._vizad_names
        if self.in_browser:
            self.dot_source = browser_source(self.dot_source)
        #: The step states of the walkthrough (None for a drawing of nodes), made once.
        with gc_paused():
            if self.scene.trace is None:
                self.states = None
            elif twin is not None and twin.states is not None and alike(self.scene, twin.scene):
                self.states = twin.states  # the same boxes, nodes and edges: the same states
            elif like is None:  # kept if legible() judged this very scene
                self.states = states_of(self.scene)
            else:
                self.states = step_states(self.scene, (like.scene, like.states))
        #: Box id → heatmap cells of what a step computes in it (its value in the extended
        #: view, the result laid on it in the laid view): hidden while that step is pending.
        self.hides = _hides(self.scene, like)
        self._svg = None if svg is None else _inline(svg, self.scope)
        self._parts: list[str] | None = None

    @functools.cached_property
    def collapsed(self) -> list[str]:
        """The ids of the boxes that stand for others (collapsed scopes, chains, bands, folds):
        the boxes that :meth:`opened` can open (found once)."""
        return collapsed_boxes(self.scene)

    def opened(self, boxes, *, in_browser: bool | None = None) -> Layout:
        """This layout's picture with the collapsed ``boxes`` opened (see
        :func:`~vizad.view.render.opening.open_boxes`): only what they stand for is new. Laid out
        by ``dot`` here, or by the browser (``in_browser``, by default as this one)."""
        return self.openings([tuple(boxes)], in_browser=in_browser)[tuple(boxes)]

    def openings(
        self, sets, *, in_browser: bool | None = None, twins: Mapping[tuple, Layout] | None = None
    ) -> dict[tuple, Layout]:
        """:meth:`opened` for each tuple of boxes in ``sets``, the unsummarised scene built
        once (ArgumentError for a box that is not a collapsed one). ``twins``: the same boxes
        opened in a layout of another view (the forward view's, for the laid view's), whose
        step states each opening takes when it is alike (see ``Layout(twin=)``)."""
        target, decimals, detail, reads, timeout, budget = self._source
        sets = [tuple(s) for s in sets]
        unknown = sorted({b for s in sets for b in s} - set(self.collapsed))
        if unknown:
            raise ArgumentError(
                f"no collapsed box {', '.join(map(repr, unknown))} in the {self.view} view "
                f"(its collapsed boxes: {', '.join(self.collapsed) or 'none'})"
            )
        if not sets:
            return {}
        full = self._full
        if full is None:
            with gc_paused():
                full = build_scene(
                    target if self.scene.trace is None else self.scene.trace,
                    self.view,
                    decimals,
                    detail=detail,
                    reads=reads,
                )
        opener = BoxOpener(full, self.scene)
        return {
            s: Layout(
                target,
                self.view,
                decimals=decimals,
                timeout=timeout,
                failed=self.failed,
                budget=budget,
                in_browser=self.in_browser if in_browser is None else in_browser,
                scene=opener.open(s),
                **self._heading,
                like=self,  # the steps the opening leaves alone keep their states
                twin=None if twins is None else twins.get(s),
            )
            for s in sets
        }

    @property
    def steps(self) -> int:
        return len(self.scene.trace.steps) if self.scene.trace is not None else 0

    @property
    def template(self) -> str:
        """The laid-out SVG with the marker ``<!--vizad-style-->`` where a step's CSS goes."""
        if self._svg is None:
            raise GraphvizNotFoundError(
                "the SVG of a layout in Python (the browser lays this one out itself)"
            )
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
        if self._parts is None:
            self._parts = self.template.split("<!--vizad-style-->", 1)
        head, tail = self._parts
        if step is None or self.scene.trace is None:
            return head + tail
        return f"{head}<style>{self.css(step)}</style>{tail}"

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
        if self.in_browser:
            from vizad.view.render.picture import picture_bundle  # display only (see Drawing)

            # the titles unescaped only when shown (a page's openings never are)
            titles = unescaped_titles(self._drawing_titles)
            return picture_bundle(self.dot_source, repr(self), titles)
        return {
            "text/html": f'<div class="tex2jax_ignore mathjax_ignore">{self.svg()}</div>',
            "text/plain": repr(self),
        }

    def __repr__(self) -> str:
        where = "laid out in the browser" if self.in_browser else "laid out by dot"
        return f"<vizad Layout: {self.scene.title}, {self.view} view, {where}>"

    # copies are made field by field; a pickle cannot be (a layout holds its graph's nodes)
    def __copy__(self) -> Layout:
        made = object.__new__(type(self))
        made.__dict__.update(self.__dict__)
        return made

    def __deepcopy__(self, memo) -> Layout:
        made = object.__new__(type(self))
        memo[id(self)] = made
        made.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return made

    def __reduce_ex__(self, protocol):
        raise NotPicklableError(
            f"a Layout cannot be pickled ({self.scene.title}): it holds its graph's nodes, "
            "which live in this process; send layout.svg(step) (a str) or the trace's values "
            "instead"
        )


def alike(scene: Scene, other: Scene) -> bool:
    """Whether ``scene`` and ``other`` (two views of one trace) have the same step states: the
    same trace, the same box for each node, the same edges (ends and ids) and the same folds.
    The laid view and the forward view are alike (the laid one writes results in the same
    boxes); a comparison at C speed, not the walkthrough's states made again."""
    if scene.trace is not other.trace or scene.ids != other.ids:
        return False
    if len(scene.edges) != len(other.edges) or scene.folds != other.folds:
        return False
    ends = operator.attrgetter("tail", "head", "id")
    if list(map(ends, scene.edges)) != list(map(ends, other.edges)):
        return False
    members = operator.attrgetter("id", "members")
    return list(map(members, scene.items)) == list(map(members, other.items))


def _hides(scene: Scene, like: Layout | None) -> dict[str, int]:
    """Box id → heatmap cells of what a step computes in it (:attr:`Layout.hides`); those of
    the boxes that ``like`` (the layout this one opens boxes of) draws too are its own."""
    kept = {} if like is None else {i.id: i for i in like.scene.items}
    return {
        item.id: like.hides[item.id] if kept.get(item.id) is item else heat_cells(item)
        for item in computed_values(scene)
    }


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
