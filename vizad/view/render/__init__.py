"""Graphviz views of a graph: forward, adjoint (the generated graph) and backprop."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from typing import TYPE_CHECKING, Any

from vizad.view.render.budget import LAYOUT_BUDGET, layout_cost, planned
from vizad.view.render.dot import INSTALL_HINT, Drawing, GraphvizNotFoundError, to_drawing
from vizad.view.render.highlight import StepHighlight, highlight, without_pending
from vizad.view.render.layout import Layout
from vizad.view.render.options import (
    DECIMALS,
    MAX_BOXES,
    DrawOptions,
    draw_options,
    takes_draw_options,
)
from vizad.view.render.scene import VIEWS, Scene, headed
from vizad.view.render.scene_builder import build_scene
from vizad.view.render.summary import collapse_scopes, scene_for, summarize

if TYPE_CHECKING:  # for the signatures only
    from vizad.engine.node import Node
    from vizad.trace import Trace

__all__ = [
    "draw",
    "DrawOptions",
    "drawing_of",
    "Drawing",
    "Layout",
    "GraphvizNotFoundError",
    "Scene",
    "build_scene",
    "highlight",
    "StepHighlight",
    "summarize",
    "collapse_scopes",
    "VIEWS",
    "INSTALL_HINT",
    "LAYOUT_BUDGET",
    "MAX_BOXES",
    "DECIMALS",
    "layout_cost",
]


@takes_draw_options
def draw(
    target: Node | Iterable[Node] | Trace,
    view: str | None = None,
    step: int | None = None,
    *,
    caption: str = "",
    show_pending: bool = False,
    options: DrawOptions | None = None,
    **drawing: Any,
) -> Drawing:
    """A drawing of ``target`` (a node, a list of nodes, or a trace) as a ``graphviz.Digraph``.

    Views of nodes: "forward" (the default: the graph, left to right) and "adjoint" or
    "tangent" (the graph with the adjoint or tangent nodes that built them). Views of a trace
    (``trace.views``): reverse mode "forward", "adjoint" (the default) and "backprop" (each
    node's adjoint laid on the forward graph, edges labelled with ∂vⱼ/∂vᵢ); forward mode
    "forward", "tangent" (the default) and "tangents" (tangents laid on the forward graph).
    With a trace and a ``step`` (numbered 1 … n, as the stepper shows them), that step is
    highlighted, and the values that later steps compute are written "= ?" (a slide does not
    give away what the class is about to work out; ``show_pending=True`` shows them).

    Extended views are simplified unless ``detail=True`` (trivial copies folded, one-use parts
    of a formula and constants written into their consumers); ``reads=True`` draws the edges
    by which extension nodes read forward values. Nodes built inside ``with vz.scope("name"):``
    are drawn in a cluster per scope (mirrored in the adjoint graph); ``collapse=["name"]`` (or
    a depth: 1 for every top-level scope) folds scopes into one box each, and large graphs
    collapse their scopes before anything else is summarised. ``collapse="repeats"`` draws
    each run of repeated blocks (time steps of a recurrence, equal layers, the iterations of a
    loop) as one stacked box "× k"; fold ids ("fold_v11", listed in ``scene.folds``) fold
    those runs alone (:mod:`vizad.view.render.folding`). Tensors show their shape and a heatmap
    (blue negative, red positive, with the largest magnitude written under it). Graphs with
    more than ``max_boxes`` boxes are summarised (the picture says what was collapsed).
    ``caption`` adds a line under the title. Display it in Jupyter, or
    ``.render(format="png")`` it for slides.

    The drawing options (``decimals``, ``max_boxes``, ``collapse``, ``detail``, ``reads``,
    ``budget``) are the fields of :class:`DrawOptions`, given by keyword or whole as
    ``options=``; vz.step, vz.Stepper, vz.export_html and vz.export_frames take the same.
    ``decimals``: the decimals of the values shown (default: a trace's own, else 3).
    ``budget`` is the seconds Graphviz may take to lay it out (:mod:`vizad.view.render.budget`):
    a graph predicted to take longer is laid out with bounded effort, or summarised, and the
    picture says which; None lays it out in full whatever it costs.

    Examples:
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> drawing = vz.draw(y)
        >>> type(drawing).__name__
        'Drawing'
        >>> trace = vz.trace_reverse(y, [x1, x2], {x1: 2.0, x2: 5.0})
        >>> "v̄₂" in vz.draw(trace, "adjoint", step=6).source
        True
    """
    how = draw_options(options, drawing, "draw")
    scene = scene_drawn(target, view, how)
    chosen = planned(scene, how.budget)
    make = partial(drawing_of, step=step, caption=caption, show_pending=show_pending)
    drawn = make(chosen)
    if how.budget is not None:  # how to fall back, should its layout run long
        drawn._vizad_plan = (scene, make, how.budget)
    return drawn


def scene_drawn(target: Node | Iterable[Node] | Trace, view: str | None, how: DrawOptions) -> Scene:
    """The scene of ``target``'s ``view`` as the drawing options ``how`` draw it (summarised
    above ``how.max_boxes``, its scopes collapsed as ``how.collapse`` says)."""
    scene = scene_for(
        target,
        view,
        how.decimals_for(target),
        detail=how.detail,
        reads=how.reads,
        collapse=how.collapse,
        max_boxes=how.max_boxes,
    )
    return headed(scene, how.heading, how.legend)


def drawing_of(
    scene: Scene, step: int | None = None, caption: str = "", show_pending: bool = False
) -> Drawing:
    """The drawing of ``scene`` (as :func:`draw` makes it) with ``step`` (1 … n) highlighted,
    its line under the title and (unless ``show_pending``) the values of later steps written
    "= ?"; or with no step.

    Examples:
        >>> from vizad.view import render
        >>> scene = render.build_scene(vz.examples.lecture(), "adjoint")
        >>> type(render.drawing_of(scene, step=6)).__name__
        'Drawing'
    """
    if step is None:
        return to_drawing(scene, caption=caption)
    k = scene.trace.index(step) if scene.trace is not None else step
    lit = highlight(scene, k)
    if not show_pending:
        scene = without_pending(scene, lit.states)
    line = f"step {k + 1} of {len(scene.trace.steps)}: {scene.trace.steps[k].label}"
    return to_drawing(scene, lit.states, lit.edges, caption=[line, caption])
