"""``vz.step``: trace a graph (or take a trace made already) and open its stepper."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from vizad.engine.graph import as_node_list
from vizad.engine.node import Node
from vizad.errors import ArgumentError
from vizad.trace import Trace, trace_forward, trace_reverse
from vizad.view.render.options import SCALE, DrawOptions, draw_options, takes_draw_options
from vizad.view.widget.stepper import Stepper

__all__ = ["step", "Stepper"]


@takes_draw_options
def step(
    y: Node | Trace,
    wrt: Node | Iterable[Node] | None = None,
    feed: Mapping[Node, Any] | None = None,
    mode: str = "reverse",
    *,
    tangents: Mapping[Node, Any] | None = None,
    view: str | None = None,
    scale: float = SCALE,
    quiz: bool = False,
    step: int = 1,
    options: DrawOptions | None = None,
    memory: bool = False,
    **drawing: Any,
) -> Stepper:
    """Trace ``y`` at ``feed`` and open the stepper: reverse mode w.r.t. ``wrt`` (default
    every Variable), or forward mode seeded with ``tangents`` (default ẋ = 1 for the first
    node of ``wrt``, or the first Variable). ``scale`` enlarges everything (1.5 on a
    projector). ``quiz=True``: the student types each step's values (local partials, partial
    adjoints, the result v̄ᵢ or v̇ᵢ) before they are shown; ``stepper.answer(text)`` answers
    from Python and ``stepper.score`` counts the right ones (see vizad.trace.quiz.RULE).
    ``y`` may be a trace made already (``vz.torch_backward(loss)``): it is opened as it is.
    The drawing options (the fields of :class:`~vizad.view.render.DrawOptions`, by keyword or
    as ``options=``) draw the views as vz.draw does; ``budget``: the seconds each view's
    layout may take (None: in full, however long). ``step``: the step it opens at (a notebook
    executed headless saves its output there). ``memory=True``: the memory timeline under the
    graph, with the checkpoint editor (see :class:`~vizad.view.widget.Stepper`).

    Examples:
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> stepper = vz.step(y, [x1, x2], {x1: 2.0, x2: 5.0})
        >>> stepper
        <vizad Stepper: reverse mode, step 1 of 7, adjoint view>
        >>> stepper.step = 6
        >>> stepper.current.label, stepper.current.adjoint
        ('v₂', array(1.71633781))
    """
    how = draw_options(options, drawing, "step")
    if isinstance(y, Trace):
        if wrt is not None or feed is not None or tangents is not None or mode != "reverse":
            raise ArgumentError(
                "step: a trace is opened as it is; wrt, feed, mode and tangents are for a node "
                "(trace it again with vz.trace_reverse or vz.trace_forward to change them)"
            )
        return Stepper(y, view, scale=scale, quiz=quiz, step=step, options=how, memory=memory)
    decimals = how.decimals_for(y)  # a node has none of its own: DECIMALS unless given
    if isinstance(wrt, Mapping):  # the feed given in wrt's place: said as this call
        as_node_list(wrt, "step: wrt")
    if mode == "reverse":
        trace: Trace = trace_reverse(y, wrt, feed, decimals=decimals)
    elif mode == "forward":
        if tangents is None and wrt is not None:
            nodes = as_node_list(wrt, "step: wrt")
            if not nodes:
                raise ArgumentError(
                    "step: forward mode seeds the first node of wrt, and wrt is empty; give "
                    "wrt=[x] or tangents={x: 1.0}"
                )
            tangents = {nodes[0]: 1.0}
        trace = trace_forward(y, feed=feed, tangents=tangents, decimals=decimals)
    else:
        raise ArgumentError(f"mode must be 'reverse' or 'forward', got {mode!r}; give one")
    return Stepper(trace, view, scale=scale, quiz=quiz, step=step, options=how, memory=memory)
