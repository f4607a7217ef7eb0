"""The step-through debugger: an ipywidgets box driven by one piece of state, the step.

Buttons, the slider and play all set ``step``; one observer redraws the graph (restyling a
layout made once per view, never running ``dot`` again) and the panels. Exceptions raised in
callbacks are shown in the widget's own Output area.
"""

from __future__ import annotations

import functools
import traceback
from typing import Any
from collections.abc import Iterable, Mapping

import ipywidgets as w
import traitlets

from ..errors import ArgumentError
from ..node import Node
from ..render import Layout
from ..trace import Trace, trace_forward, trace_reverse
from .panel import PANEL_CSS, running_table, step_panel

__all__ = ["Stepper", "step"]
#: Graphs with at most this many steps are checked with trace.check() when the stepper opens.
CHECK_LIMIT = 400


class Stepper(w.VBox):
    """Step through a trace one node at a time, like the lecture's walkthrough.

    ``stepper.step`` is the index (settable), ``next()``/``prev()`` move by one, ``n_steps``
    counts them. Steps whose op fails ``trace.check()`` are shown in red with the error.
    """

    step = traitlets.Int(0)

    def __init__(
        self,
        trace: Trace,
        view: str | None = None,
        *,
        check: bool | None = None,
        decimals: int | None = None,
        collapse=None,
        **kwargs,
    ):
        if not isinstance(trace, Trace):
            raise ArgumentError(
                f"Stepper steps through a trace (vz.trace_reverse or "
                f"vz.trace_forward), got {type(trace).__name__}"
            )
        view = trace.view(view)
        if not trace.steps:
            raise ArgumentError(
                "this trace has no steps to walk through: the output does not "
                "depend on the inputs it was traced with respect to"
            )
        self.trace = trace
        #: Scopes drawn as one box (see vz.draw's ``collapse``).
        self.collapse = collapse
        self.decimals = trace.decimals if decimals is None else decimals
        if check is None:
            check = len(trace.steps) <= CHECK_LIMIT
        self.failures: dict[int, str] = {}
        if check:
            for failure in trace.check():
                self.failures.setdefault(failure.step, failure.message)
        self._layouts: dict[str, Layout] = {}

        mode = trace.mode
        self.errors = w.Output(layout=w.Layout(max_height="200px", overflow="auto"))
        self.title = w.HTML(
            f"<style>{PANEL_CSS}</style><b>vizad</b> · {mode} mode · {len(trace.steps)} steps"
        )
        self.view = w.ToggleButtons(
            options=list(trace.views),
            value=view,
            tooltips=[trace.view_titles[v] for v in trace.views],
            style={"button_width": "90px"},
        )
        self.graph = w.HTML(
            layout=w.Layout(
                overflow="auto", max_height="560px", border="1px solid rgba(128,128,128,0.3)"
            )
        )
        last = max(len(trace.steps) - 1, 0)
        self.first_button = self._button("fast-backward", "first step", lambda: self._go(0))
        self.prev_button = self._button("step-backward", "previous step", self.prev)
        self.next_button = self._button("step-forward", "next step", self.next)
        self.last_button = self._button("fast-forward", "last step", lambda: self._go(last))
        self.play = w.Play(
            value=0,
            min=0,
            max=last,
            step=1,
            interval=800,
            repeat=False,
            description="play",
            layout=w.Layout(width="auto"),
        )
        self.slider = w.IntSlider(
            value=0,
            min=0,
            max=last,
            description="step",
            continuous_update=True,
            layout=w.Layout(width="320px"),
        )
        self.speed = w.FloatSlider(
            value=1.25,
            min=0.25,
            max=5.0,
            step=0.25,
            description="steps/s",
            readout_format=".2f",
            layout=w.Layout(width="240px"),
        )
        self.panel = w.HTMLMath(layout=w.Layout(flex="2 1 420px"))
        self.table = w.HTML(layout=w.Layout(flex="1 1 200px", max_height="320px", overflow="auto"))
        controls = w.HBox(
            [
                self.first_button,
                self.prev_button,
                self.play,
                self.next_button,
                self.last_button,
                self.slider,
                self.speed,
            ],
            layout=w.Layout(flex_flow="row wrap", align_items="center"),
        )
        super().__init__(
            [
                self.title,
                self.view,
                self.graph,
                controls,
                w.HBox([self.panel, self.table]),
                self.errors,
            ],
            **kwargs,
        )
        self.add_class("vizad-stepper")

        # one piece of state: every control sets `step`, one observer redraws
        self.play.observe(self._guarded(lambda ch: self._go(ch["new"])), names="value")
        self.slider.observe(self._guarded(lambda ch: self._go(ch["new"])), names="value")
        self.speed.observe(self._guarded(self._set_speed), names="value")
        self.view.observe(self._guarded(lambda ch: self._render()), names="value")
        self.observe(self._guarded(lambda ch: self._render()), names="step")
        self._set_speed({"new": self.speed.value})
        self._render()

    def __repr__(self) -> str:
        return f"<vizad Stepper: {self.trace.mode} mode, step {self.step + 1} of {self.n_steps}>"

    # -- the Python API ------------------------------------------------------------------
    @property
    def n_steps(self) -> int:
        return len(self.trace.steps)

    def next(self) -> None:
        """Go to the next step (stays on the last)."""
        self._go(self.step + 1)

    def prev(self) -> None:
        """Go to the previous step (stays on the first)."""
        self._go(self.step - 1)

    @traitlets.validate("step")
    def _valid_step(self, proposal):
        return min(max(int(proposal["value"]), 0), max(self.n_steps - 1, 0))

    # -- internals -----------------------------------------------------------------------
    def _go(self, k: int) -> None:
        self.step = k

    def _button(self, icon: str, tooltip: str, action) -> w.Button:
        button = w.Button(icon=icon, tooltip=tooltip, layout=w.Layout(width="44px"))
        button.on_click(self._guarded(lambda _b: action()))
        return button

    def _guarded(self, fn):
        """``fn`` with its exceptions shown in the widget instead of vanishing."""

        @functools.wraps(fn)
        def run(*args):
            try:
                return fn(*args)
            except Exception:  # noqa: BLE001  (shown to the user, not swallowed)
                self.errors.append_stderr(traceback.format_exc())

        return run

    def _set_speed(self, change: Mapping[str, Any]) -> None:
        self.play.interval = int(1000 / change["new"])

    def layout_of(self, view: str) -> Layout:
        """The layout of ``view``, made on first use (one ``dot`` run per view)."""
        if view not in self._layouts:
            self._layouts[view] = Layout(
                self.trace,
                view,
                decimals=self.decimals,
                failed=frozenset(self.failures),
                collapse=self.collapse,
            )
        return self._layouts[view]

    def _render(self) -> None:
        k = self.step
        if self.slider.value != k:
            self.slider.value = k
        if self.play.value != k and not self.play.playing:
            self.play.value = k
        self.graph.value = self.layout_of(self.view.value).svg(k)
        self.panel.value = step_panel(self.trace, k, self.failures, decimals=self.decimals)
        self.table.value = running_table(self.trace, k, self.failures, decimals=self.decimals)
        self.prev_button.disabled = self.first_button.disabled = k == 0
        self.next_button.disabled = self.last_button.disabled = k >= self.n_steps - 1


def step(
    y: Node,
    wrt: Node | Iterable[Node] | None = None,
    feed: Mapping[Node, Any] | None = None,
    mode: str = "reverse",
    *,
    tangents: Mapping[Node, Any] | None = None,
    view: str | None = None,
    decimals: int = 3,
) -> Stepper:
    """Trace ``y`` at ``feed`` and open the stepper: reverse mode w.r.t. ``wrt`` (default
    every Variable), or forward mode seeded with ``tangents`` (default ẋ = 1 for the first
    node of ``wrt``, or the first Variable)."""
    if mode == "reverse":
        return Stepper(trace_reverse(y, wrt, feed, decimals=decimals), view)
    if mode == "forward":
        if tangents is None and wrt is not None:
            first = wrt if isinstance(wrt, Node) else list(wrt)[0]
            tangents = {first: 1.0}
        return Stepper(trace_forward(y, feed, tangents, decimals=decimals), view)
    raise ArgumentError(f"mode must be 'reverse' or 'forward', got {mode!r}")
