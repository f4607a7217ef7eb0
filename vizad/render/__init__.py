"""Graphviz views of a graph: forward, adjoint (the generated graph) and backprop."""

from __future__ import annotations

from .dot import INSTALL_HINT, Drawing, GraphvizNotFoundError, to_drawing
from .highlight import StepHighlight, highlight
from .layout import Layout
from .scene import VIEWS, Scene, build_scene
from .summary import summarize

__all__ = [
    "draw",
    "Drawing",
    "Layout",
    "GraphvizNotFoundError",
    "Scene",
    "build_scene",
    "highlight",
    "StepHighlight",
    "summarize",
    "VIEWS",
    "INSTALL_HINT",
]

#: Graphs with more boxes than this are drawn as a summary.
MAX_BOXES = 400


def draw(
    target,
    view: str = "forward",
    step: int | None = None,
    *,
    decimals: int = 3,
    max_boxes: int = MAX_BOXES,
) -> Drawing:
    """A drawing of ``target`` (a node, a list of nodes, or a trace) as a ``graphviz.Digraph``.

    ``view`` is "forward" (the graph, left to right), "adjoint" (the graph with the adjoint or
    tangent nodes that reverse or forward mode generated) or "backprop" (the forward graph with
    each node's adjoint value laid on it; needs a trace). With a trace and a ``step``, that step
    is highlighted. Graphs with more than ``max_boxes`` boxes are summarised (the picture says
    what was collapsed). Display it in Jupyter, or ``.render(format="png")`` it for slides.
    """
    scene = summarize(build_scene(target, view, decimals), max_boxes)
    if step is None:
        return to_drawing(scene)
    lit = highlight(scene, step)
    return to_drawing(
        scene,
        lit.states,
        lit.edges,
        caption=f"step {step % len(scene.trace.steps)}: {scene.trace.steps[step].label}",
    )
