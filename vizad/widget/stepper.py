"""The step-through debugger: an anywidget whose browser side is ``static/stepper/``.

The walkthrough (every view laid out once, each step's highlights and panel) is sent to the
browser once as ``data``; stepping, zooming, clicking and keys are handled there, without a
kernel round trip. ``step`` (1-based, like "Step 3 of 7"), ``view`` and ``scale`` are synced
traitlets: Python can read and set them. The same component runs the exported page.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Iterable, Mapping

import anywidget
import numpy as np
import traitlets

from ..assets import component_module, graphviz_module, style
from ..errors import ArgumentError, ArgumentTypeError, NotPicklableError
from ..graph import as_node_list
from ..node import Node
from ..render import Layout
from ..trace import Trace, trace_forward, trace_reverse
from .data import check_failures, walkthrough_data
from .panel import step_panel
from .page import fragment, needs_graphviz, snapshot_html

__all__ = ["Stepper", "step"]
#: Graphs with at most this many steps are checked with trace.check() when the stepper opens.
CHECK_LIMIT = 400


class _StepNumber(traitlets.Int):
    """The step traitlet: an int (a number out of range goes to the nearest step, as a
    slider does); anything else is an ArgumentTypeError saying so."""

    def validate(self, obj, value):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ArgumentTypeError(
                f"stepper.step is a step number: give an int from 1 to the number of steps; "
                f"got {type(value).__name__} {value!r:.40}"
            )
        return super().validate(obj, int(value))


class Stepper(anywidget.AnyWidget):
    """Step through a trace one node at a time, like the lecture's walkthrough.

    ``stepper.step`` is the step number, 1 … ``n_steps`` (settable; the browser shows
    "Step k of n" for the same k); ``next()``/``prev()`` move by one. ``view`` is one of
    ``trace.views``; ``scale`` enlarges the graph and the panel together (presentation).
    Steps whose op fails ``trace.check()`` are shown in red with the error. In the browser:
    ←/→ or PageUp/PageDown (what presenter clickers send), Home/End, Space to play, F for
    presentation mode (the whole screen); click a box to go to its step; ctrl+wheel or pinch
    to zoom, drag to pan, "fit" and "1:1".
    """

    # the files' text, not their paths: anywidget watches a path for changes with a callback
    # that holds every widget made from it forever (a leak of every trace ever shown)
    _esm = component_module()
    _css = style()

    step = _StepNumber(1).tag(sync=True)
    view = traitlets.Unicode("").tag(sync=True)
    scale = traitlets.Float(1.0).tag(sync=True)
    data = traitlets.Dict().tag(sync=True)
    #: The Graphviz module's text when a view is laid out in the browser (no ``dot``), else "".
    _graphviz = traitlets.Unicode("").tag(sync=True)
    #: In a quiz: {"right": answers right (first or second try), "asked": steps answered or
    #: revealed}, kept by the browser.
    score = traitlets.Dict({"right": 0, "asked": 0}).tag(sync=True)

    def __init__(
        self,
        trace: Trace,
        view: str | None = None,
        *,
        check: bool | None = None,
        decimals: int | None = None,
        collapse=None,
        scale: float = 1.0,
        quiz: bool = False,
        **kwargs,
    ):
        if not isinstance(trace, Trace):
            raise ArgumentTypeError(
                f"Stepper steps through a trace (vz.trace_reverse or "
                f"vz.trace_forward), got {type(trace).__name__}; for a node, use "
                "vz.step(y, wrt, feed)"
            )
        view = trace.view(view)
        if not trace.steps:
            raise ArgumentError(
                "this trace has no steps to walk through: the output does not "
                "depend on the inputs it was traced with respect to"
            )
        if not 0.25 <= float(scale) <= 4:
            raise ArgumentError(f"scale must be between 0.25 and 4, got {scale!r}")
        self.trace = trace
        #: Scopes drawn as one box (see vz.draw's ``collapse``).
        self.collapse = collapse
        self.decimals = trace.decimals if decimals is None else decimals
        if check is None:
            check = len(trace.steps) <= CHECK_LIMIT
        #: 0-based step index → the message of the rule that fails trace.check() there.
        self.failures: dict[int, str] = check_failures(trace) if check else {}
        self._layouts = {
            v: Layout(
                trace,
                v,
                decimals=self.decimals,
                failed=frozenset(self.failures),
                collapse=collapse,
            )
            for v in trace.views
        }
        data = walkthrough_data(
            trace,
            view=view,
            failures=self.failures,
            decimals=self.decimals,
            layouts=self._layouts,
            quiz=quiz,
        )
        #: Whether the student types each step's result before it is shown.
        self.quiz = quiz
        module = graphviz_module() if needs_graphviz(data) else ""
        super().__init__(
            data=data, view=view, scale=float(scale), step=1, _graphviz=module, **kwargs
        )

    def close(self) -> None:
        """Close the widget and release what it holds (the trace, its layouts and frames), so
        that a closed stepper kept in a variable does not keep a large walkthrough alive."""
        super().close()
        self._layouts = {}
        self.failures = {}
        self.set_trait("data", {})
        self.set_trait("_graphviz", "")
        self.trace = None

    def __reduce_ex__(self, protocol):
        raise NotPicklableError(
            "a Stepper cannot be pickled or copied: it is a live widget of this kernel; save "
            "it as a page (vz.export_html(stepper, path)), or make another from its trace "
            "(vz.Stepper(stepper.trace))"
        )

    def __copy__(self):
        self.__reduce_ex__(4)

    def __deepcopy__(self, memo):
        self.__reduce_ex__(4)

    def __repr__(self) -> str:
        if self.trace is None:
            return "<vizad Stepper: closed>"
        return (
            f"<vizad Stepper: {self.trace.mode} mode, step {self.step} of {self.n_steps}, "
            f"{self.view} view>"
        )

    def _repr_mimebundle_(self, **kwargs):
        """The widget, and an HTML rendering of the same component for where the widget
        cannot be shown (a saved notebook reopened without its widget state, nbconvert): a
        static picture of the current step that the component replaces where scripts run."""
        bundle = super()._repr_mimebundle_(**kwargs)
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
        layout = self._layouts[self.view]
        snapshot = snapshot_html(
            self.trace.describe(),
            None if layout.in_browser else layout.svg(self.step),
            step_panel(
                self.trace, self.step - 1, self.failures, math=False, decimals=self.decimals
            ),
        )
        data["text/html"] = fragment({**self.data, "step": self.step}, layout.scope, snapshot)
        return data, metadata

    # -- the Python API ------------------------------------------------------------------
    @property
    def n_steps(self) -> int:
        return len(self.trace.steps)

    @property
    def current(self):
        """The record of the current step (``trace.steps[stepper.step - 1]``)."""
        return self.trace.steps[self.step - 1]

    def next(self) -> None:
        """Go to the next step (stays on the last)."""
        self.step = self.step + 1

    def prev(self) -> None:
        """Go to the previous step (stays on the first)."""
        self.step = self.step - 1

    def layout_of(self, view: str) -> Layout:
        """The layout of ``view`` (made once, when the stepper opened)."""
        return self._layouts[self.trace.view(view)]

    @traitlets.validate("step")
    def _valid_step(self, proposal):
        return min(max(int(proposal["value"]), 1), max(self.n_steps, 1))

    @traitlets.validate("view")
    def _valid_view(self, proposal):
        return self.trace.view(proposal["value"]) if proposal["value"] else ""

    @traitlets.validate("scale")
    def _valid_scale(self, proposal):
        return min(max(float(proposal["value"]), 0.25), 4.0)


def step(
    y: Node | Trace,
    wrt: Node | Iterable[Node] | None = None,
    feed: Mapping[Node, Any] | None = None,
    mode: str = "reverse",
    *,
    tangents: Mapping[Node, Any] | None = None,
    view: str | None = None,
    decimals: int | None = None,
    scale: float = 1.0,
    collapse=None,
    quiz: bool = False,
) -> Stepper:
    """Trace ``y`` at ``feed`` and open the stepper: reverse mode w.r.t. ``wrt`` (default
    every Variable), or forward mode seeded with ``tangents`` (default ẋ = 1 for the first
    node of ``wrt``, or the first Variable). ``scale`` enlarges everything (1.5 on a
    projector). ``quiz=True``: the student types each step's result (v̄ᵢ or v̇ᵢ) before it is
    shown; ``stepper.score`` counts the right ones. ``y`` may be a trace made already
    (``vz.torch_backward(loss)``): it is opened as it is."""
    if isinstance(y, Trace):
        if wrt is not None or feed is not None or tangents is not None or mode != "reverse":
            raise ArgumentError(
                "step: a trace is opened as it is; wrt, feed, mode and tangents are for a node "
                "(trace it again with vz.trace_reverse or vz.trace_forward to change them)"
            )
        return Stepper(y, view, decimals=decimals, scale=scale, collapse=collapse, quiz=quiz)
    decimals = 3 if decimals is None else decimals
    if mode == "reverse":
        trace = trace_reverse(y, wrt, feed, decimals=decimals)
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
        raise ArgumentError(f"mode must be 'reverse' or 'forward', got {mode!r}")
    return Stepper(trace, view, scale=scale, collapse=collapse, quiz=quiz)
