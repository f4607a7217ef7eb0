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
from ..errors import ArgumentError, ArgumentTypeError, NotPicklableError, VizadError
from ..graph import as_node_list
from ..node import Node
from ..render import LAYOUT_BUDGET, MAX_BOXES, Layout
from ..render.options import Collapse
from ..render.legibility import DEFAULT_FRAME
from ..trace import Trace, trace_forward, trace_reverse
from ..trace.check import by_differences
from ..trace.quiz import Question, Verdict, judge, questions
from ..trace.traces import ForwardTrace, ReverseTrace
from .data import (
    check_failures,
    frame_data,
    frame_patch,
    inputs_data,
    shared_steps,
    walkthrough_data,
)
from .panel import step_panel
from .page import WALKTHROUGH, fragment, needs_graphviz, snapshot_html

__all__ = ["Stepper", "step"]
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
_QUIZ_SNAPSHOT = '<div class="vz-muted">(a quiz: its values are asked, not shown)</div>'
#: Walkthroughs with at most this many steps carry every view in their output's HTML, so that
#: a notebook reopened without its kernel switches views too (bigger ones: those laid out).
SAVED_VIEWS = 100
#: Graphs with at most this many steps are checked with trace.check() when the stepper opens.
CHECK_LIMIT = 400


class _StepNumber(traitlets.Int):
    """The step traitlet: an int (a number out of range goes to the nearest step, as a
    slider does); anything else is an ArgumentTypeError saying so."""

    def validate(self, obj: Any, value: Any) -> Any:
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
    to zoom, drag to pan, "fit" and "1:1". With a kernel, the scalar inputs are editable
    (``inputs``): the walkthrough is traced again at the new values, at the same step.
    ``quiz=True``: see :meth:`answer`. ``collapse``, ``max_boxes`` and ``detail`` draw the
    views as vz.draw does; each view is laid out within ``budget`` seconds (the layout budget,
    vizad.render.budget; None lays every view out in full), its picture saying what it took.
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
    #: In a quiz: {"right": questions answered right (first or second try), "asked":
    #: questions answered, revealed or skipped, "questions": how many there are}; kept by the
    #: browser and by :meth:`answer` alike, made from ``progress``.
    score = traitlets.Dict({"right": 0, "asked": 0, "questions": 0}).tag(sync=True)
    #: In a quiz: question key → {"tries": wrong tries, "state": "right", "wrong" (revealed
    #: after two wrong tries) or "skipped" (the student went on: revealed)}.
    progress = traitlets.Dict({}).tag(sync=True)
    #: The scalar inputs' values, by name: the browser edits them (what-if) and the
    #: walkthrough is traced again here, at the same step.
    inputs = traitlets.Dict({}).tag(sync=True)
    #: Whether a kernel runs this stepper (the saved and exported pages have none: their
    #: inputs are read-only).
    live = traitlets.Bool(True).tag(sync=True)
    #: Why the inputs last typed could not be traced ("" when they were).
    input_error = traitlets.Unicode("").tag(sync=True)
    #: The browser asks for a check of a step's result by finite differences (its number;
    #: each ask a new ``{"step": k, "ask": n}``) and reads the answer in ``differences``.
    difference_request = traitlets.Dict({}).tag(sync=True)
    differences = traitlets.Dict({}).tag(sync=True)

    def __init__(
        self,
        trace: Trace,
        view: str | None = None,
        *,
        check: bool | None = None,
        decimals: int | None = None,
        collapse: Collapse = None,
        max_boxes: int = MAX_BOXES,
        detail: bool = False,
        budget: float | None = LAYOUT_BUDGET,
        scale: float = 1.0,
        quiz: bool = False,
        **kwargs: Any,
    ) -> None:
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
        #: Scopes drawn as one box, the boxes above which a view is summarised, and whether
        #: extended views show every node (vz.draw's ``collapse``, ``max_boxes``, ``detail``).
        self.collapse, self.max_boxes, self.detail = collapse, max_boxes, detail
        #: The seconds each view's layout may take (vizad.render.budget; None: every view
        #: laid out in full, however long that takes).
        self.budget = budget
        self.decimals = trace.decimals if decimals is None else decimals
        self._check = check
        #: Whether the student types each step's results before they are shown.
        self.quiz = quiz
        data, module = self._prepare(trace, view)
        super().__init__(
            data=data, view=view, scale=float(scale), step=1, _graphviz=module, **kwargs
        )
        self.score = self._score()
        self.set_trait("inputs", {d["name"]: d["value"] for d in data.get("inputs", ())})
        self.on_msg(self._message)

    def _prepare(self, trace: Trace, view: str) -> tuple[dict, str]:
        """The component's data for ``trace`` (its layouts, checks and questions made here)."""
        check = self._check
        if check is None:
            check = len(trace.steps) <= CHECK_LIMIT
        #: 0-based step index → the message of the rule that fails trace.check() there.
        self.failures: dict[int, str] = check_failures(trace) if check else {}
        self._options: dict[str, Any] = {
            "decimals": self.decimals,
            "failed": frozenset(self.failures),
            "collapse": self.collapse,
            "max_boxes": self.max_boxes,
            "detail": self.detail,
            "budget": self.budget,
            "frame": DEFAULT_FRAME,  # the picture readable there (vizad.render.legibility)
        }
        #: The views laid out so far: the one shown first now, each other one when the view
        #: first switches to it (``layout_of``).
        self._layouts: dict[str, Layout] = {view: self._make_layout(view)}
        self._frames: dict[str, dict] = {}  # each laid-out view's data, as the browser has it
        self._opened: dict[tuple, dict] = {}  # (view, boxes) → that view's patch, opened
        #: Per step, the quiz's questions (see vizad.trace.quiz), with their answers.
        self.questions = questions(trace) if self.quiz else []
        data = walkthrough_data(
            trace,
            view=view,
            failures=self.failures,
            decimals=self.decimals,
            layouts=self._layouts,
            questions=self.questions if self.quiz else None,
            views=[view],
        )
        self._frames[view] = data["frames"][view]
        data["inputs"] = inputs_data(trace, editable=_retraceable(trace))  # what-if
        module = graphviz_module() if needs_graphviz(data) else ""
        return data, module

    # -- the quiz, from Python -----------------------------------------------------------
    @property
    def question(self) -> Question | None:
        """The question the current step asks now (a :class:`vizad.trace.quiz.Question`:
        ``.prompt``, ``.hint``), or None (no quiz, or this step asks nothing more)."""
        if not self.quiz:
            return None
        for q in self.questions[self.step - 1]:
            if "state" not in self.progress.get(q.key, {}):
                return q
        return None

    def answer(self, text: str) -> Verdict:
        """Answer the current question as the student would type it (``"1.72"``,
        ``"2 - cos(5)"``): the verdict (``.status`` "right", "wrong" or "refused", and its
        ``.message``), the browser showing the same; ``stepper.score`` counts it. Two wrong
        tries reveal the answer. ``vizad.trace.quiz.RULE`` says how answers are judged."""
        q = self.question
        if q is None:
            raise ArgumentError(
                "stepper.answer: " + ("this stepper is not a quiz (vz.step(..., quiz=True))"
                if not self.quiz else f"step {self.step} asks nothing more: stepper.next()")
            )  # fmt: skip
        verdict = judge(q, text)
        if verdict.status == "refused":
            return verdict
        entry = dict(self.progress.get(q.key, {"tries": 0}))
        if verdict.right:
            entry["state"] = "right"
            message = f"right: {q.prompt} = {q.shown}"
        else:
            entry["tries"] = entry.get("tries", 0) + 1
            if entry["tries"] < 2:
                close = f" ({verdict.message})" if verdict.message else ""
                message = (
                    f"not {str(text).strip()}{close}: try again (one more try). Hint: {q.hint}"
                )
            else:
                entry["state"] = "wrong"
                message = f"the answer: {q.prompt} = {q.shown}"
        self.progress = {**self.progress, q.key: entry}
        return Verdict(verdict.status, message)

    def _score(self) -> dict:
        done = [self.progress.get(q.key, {}) for qs in self.questions for q in qs]
        return {
            "right": sum(1 for e in done if e.get("state") == "right"),
            "asked": sum(1 for e in done if "state" in e),
            "questions": len(done),
        }

    @traitlets.observe("progress")
    def _progress_changed(self, change: dict[str, Any]) -> None:
        self.score = self._score()

    @traitlets.observe("step")
    def _step_changed(self, change: dict[str, Any]) -> None:
        """Going on past questions (this step's, or steps jumped over) skips them: their
        answers are revealed, since later steps need them."""
        if change["old"] is None or not self.quiz:
            return
        skipped = {
            q.key: {**self.progress.get(q.key, {"tries": 0}), "state": "skipped"}
            for k in range(change["old"] - 1, min(change["new"] - 1, len(self.questions)))
            for q in self.questions[k]
            if "state" not in self.progress.get(q.key, {})
        }
        if skipped:
            self.progress = {**self.progress, **skipped}

    # -- a check by finite differences ---------------------------------------------------
    def check_by_differences(self) -> dict:
        """The current step's result (v̄ᵢ or v̇ᵢ) against central differences of the function
        itself (see :func:`vizad.trace.check.by_differences`): {"step", "numeric",
        "computed", "agree", "text"}; the panel's "check by finite differences" shows it."""
        k = self.step - 1
        numeric, computed = by_differences(self.trace, k)
        agree = bool(np.isclose(numeric, computed, rtol=1e-4, atol=1e-6))
        name = self.trace.result_name(self.trace.steps[k].node).text
        along = "" if np.ndim(self.trace.result(self.trace.steps[k])) == 0 else " along a random d"
        text = (
            f"{name}{along} by central differences: {numeric:.6g}, the walkthrough's "
            f"{computed:.6g}: " + ("they agree" if agree else "they DIFFER")
        )
        return {"step": self.step, "numeric": numeric, "computed": computed, "agree": agree,
                "text": text}  # fmt: skip

    @traitlets.observe("difference_request")
    def _difference_requested(self, change: dict[str, Any]) -> None:
        if self.trace is None or not change["new"]:
            return
        if self.quiz and self.question is not None:  # a check would give the answer away
            self.differences = {"step": self.step, "text": "answer this step's questions first"}
            return
        try:
            self.differences = self.check_by_differences()
        except VizadError as exc:
            self.differences = {"step": self.step, "text": f"no check here: {exc}"}

    # -- what-if inputs ------------------------------------------------------------------
    @traitlets.observe("inputs")
    def _inputs_changed(self, change: dict[str, Any]) -> None:
        """An input edited (in the browser, or here): the walkthrough traced again at the new
        values, every view redrawn, at the same step."""
        if self.trace is None or not _retraceable(self.trace):
            return
        feed = dict(self.trace.feed)
        changed = False
        for node in list(feed):
            name = node.name
            if name in change["new"] and np.ndim(feed[node]) == 0:
                value = float(change["new"][name])
                if value != float(np.asarray(feed[node])):
                    feed[node] = value
                    changed = True
        if not changed:
            return
        try:
            trace = _retrace(self.trace, feed)
        except VizadError as exc:  # log(-1), a shape that no longer fits: said, not traced
            self.input_error = f"not traced: {exc}"
            self.set_trait("inputs", change["old"])
            return
        self.input_error = ""
        self.trace = trace
        data, module = self._prepare(self.trace, self.view)
        self.progress = {}
        self.set_trait("_graphviz", module)
        self.data = data

    def close(self) -> None:
        """Close the widget and release what it holds (the trace, its layouts and frames), so
        that a closed stepper kept in a variable does not keep a large walkthrough alive."""
        super().close()
        self._layouts = {}
        self._frames = {}
        self._opened = {}
        self.failures = {}
        self.set_trait("data", {})
        self.set_trait("_graphviz", "")
        self.trace = None  # type: ignore[assignment]  # a closed stepper holds no trace

    def __reduce_ex__(self, protocol: Any) -> Any:
        raise NotPicklableError(
            "a Stepper cannot be pickled or copied: it is a live widget of this kernel; save "
            "it as a page (vz.export_html(stepper, path)), or make another from its trace "
            "(vz.Stepper(stepper.trace))"
        )

    def __copy__(self) -> Any:
        self.__reduce_ex__(4)

    def __deepcopy__(self, memo: Any) -> Any:
        self.__reduce_ex__(4)

    def __repr__(self) -> str:
        if self.trace is None:
            return "<vizad Stepper: closed>"
        return (
            f"<vizad Stepper: {self.trace.mode} mode, step {self.step} of {self.n_steps}, "
            f"{self.view} view>"
        )

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        """The output of a stepper: vizad's own MIME type (the step shown, saved with the
        notebook; the widget model's id in its metadata), which vizad's JupyterLab / Notebook 7
        extension renders as the live widget while the kernel holds it and from the HTML
        otherwise; and that HTML, the component with its data for every other renderer
        (nbconvert, VS Code, a notebook reopened anywhere), which starts as a static picture
        of the step (GitHub). No widget-view MIME type: nbconvert would prefer it to the HTML
        whenever widget state is stored, and show a blank output without its CDN."""
        bundle: Any = super()._repr_mimebundle_(**kwargs) or {}  # None: a closed widget's
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
        view = data.pop(WIDGET_VIEW, None)
        if view is not None:
            data[WALKTHROUGH] = {"step": self.step}
            metadata = {**metadata, WALKTHROUGH: {"model_id": view["model_id"]}}
        layout = self.layout_of(self.view)
        if self.quiz:  # a quiz's picture and data give no answer away
            snapshot = snapshot_html(self.trace.describe(), None, _QUIZ_SNAPSHOT)
        else:
            snapshot = snapshot_html(
                self.trace.describe(),
                None if layout.in_browser else layout.svg(self.step),
                step_panel(
                    self.trace, self.step - 1, self.failures, math=False, decimals=self.decimals
                ),
            )
        data["text/html"] = fragment(
            self._saved_data(), layout.scope, snapshot, self.step, hidden=self.quiz
        )
        return data, metadata

    def _saved_data(self) -> dict:
        """The component's data as the output's HTML carries it (a notebook reopened without
        its kernel, nbconvert): every view when the walkthrough has at most SAVED_VIEWS steps
        (laid out now if need be), else the views laid out so far."""
        views = self.trace.views if self.n_steps <= SAVED_VIEWS else tuple(self._layouts)
        frames: dict[str, dict] = {}
        for v in views:
            frames[v] = shared_steps(self._frame(v), frames)
        return {**self.data, "frames": frames}

    # -- the Python API ------------------------------------------------------------------
    @property
    def n_steps(self) -> int:
        return len(self.trace.steps)

    @property
    def current(self) -> Any:
        """The record of the current step (``trace.steps[stepper.step - 1]``)."""
        return self.trace.steps[self.step - 1]

    def next(self) -> None:
        """Go to the next step (stays on the last)."""
        self.step = self.step + 1

    def prev(self) -> None:
        """Go to the previous step (stays on the first)."""
        self.step = self.step - 1

    def layout_of(self, view: str) -> Layout:
        """The layout of ``view``, made once: the view shown first when the stepper opened,
        any other when it is first shown (or asked for here)."""
        view = self.trace.view(view)
        if view not in self._layouts:
            self._layouts[view] = self._make_layout(view)
        return self._layouts[view]

    @property
    def laid_out(self) -> tuple[str, ...]:
        """The views laid out so far, in the order they were."""
        return tuple(self._layouts)

    def _make_layout(self, view: str) -> Layout:
        return Layout(self.trace, view, **self._options)

    def _frame(self, view: str) -> dict:
        """The browser's data of ``view`` (its layout made first if need be)."""
        if view not in self._frames:
            layout = self.layout_of(view)
            self._frames[view] = frame_data(layout, self.trace, self.decimals)
        return self._frames[view]

    def opened(self, view: str, boxes: Iterable[str]) -> dict:
        """The data of ``view`` with its collapsed ``boxes`` opened, as a patch of the view's
        data (what the browser asks for when a collapsed box is clicked); laid out like the
        view (by ``dot`` here, or in the browser). Made once per set of boxes."""
        view = self.trace.view(view)
        key = (view, tuple(sorted(boxes)))
        if key not in self._opened:
            base = self._frame(view)
            layout = self.layout_of(view).opened(key[1])
            self._opened[key] = frame_patch(base, frame_data(layout, self.trace, self.decimals))
        return self._opened[key]

    @traitlets.observe("view")
    def _view_shown(self, change: dict[str, Any]) -> None:
        # each view is laid out when it is first shown: the browser asks for its data then
        if change["new"] and self.trace is not None:
            self.layout_of(change["new"])

    def _message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        """The browser's requests: {"kind": "view", "view": v} (a view's data, laid out when
        first asked for) and {"kind": "open", "view": v, "boxes": [ids], "key": k} (the view
        with those collapsed boxes opened). Each is answered by a message with the same kind
        and view (and key), carrying ``frame`` or ``patch``, or ``error`` saying what failed."""
        if not isinstance(content, dict) or self.trace is None:
            return
        view: Any
        kind, view = content.get("kind"), content.get("view")  # the browser's: any JSON
        reply = {"kind": kind, "view": view, "key": content.get("key")}
        try:
            if kind == "view":
                reply["frame"] = self._frame(view)
            elif kind == "open":
                reply["patch"] = self.opened(view, [str(b) for b in content.get("boxes", ())])
            else:
                return
        except VizadError as err:
            reply["error"] = str(err)
        self.send(reply)

    @traitlets.validate("step")
    def _valid_step(self, proposal: dict[str, Any]) -> Any:
        return min(max(int(proposal["value"]), 1), max(self.n_steps, 1))

    @traitlets.validate("view")
    def _valid_view(self, proposal: dict[str, Any]) -> Any:
        return self.trace.view(proposal["value"]) if proposal["value"] else ""

    @traitlets.validate("scale")
    def _valid_scale(self, proposal: dict[str, Any]) -> Any:
        return min(max(float(proposal["value"]), 0.25), 4.0)


def _retraceable(trace: Trace) -> bool:
    """Whether a walkthrough can be traced again at other inputs (vizad's own traces; a
    recorded one is what another engine did)."""
    return type(trace) in (ReverseTrace, ForwardTrace)


def _retrace(trace: Trace, feed: dict) -> Trace:
    if isinstance(trace, ReverseTrace):
        return trace_reverse(trace.output, list(trace.wrt), feed, decimals=trace.decimals)
    assert isinstance(trace, ForwardTrace)  # _retraceable: vizad's own traces only
    tangents = {s: trace.values[t] for s, t in trace.seeds.items()}
    return trace_forward(trace.output, feed=feed, tangents=tangents, decimals=trace.decimals)


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
    collapse: Collapse = None,
    max_boxes: int = MAX_BOXES,
    detail: bool = False,
    budget: float | None = LAYOUT_BUDGET,
    quiz: bool = False,
) -> Stepper:
    """Trace ``y`` at ``feed`` and open the stepper: reverse mode w.r.t. ``wrt`` (default
    every Variable), or forward mode seeded with ``tangents`` (default ẋ = 1 for the first
    node of ``wrt``, or the first Variable). ``scale`` enlarges everything (1.5 on a
    projector). ``quiz=True``: the student types each step's values (local partials, partial
    adjoints, the result v̄ᵢ or v̇ᵢ) before they are shown; ``stepper.answer(text)`` answers
    from Python and ``stepper.score`` counts the right ones (see vizad.trace.quiz.RULE).
    ``y`` may be a trace made already (``vz.torch_backward(loss)``): it is opened as it is.
    ``collapse``, ``max_boxes`` and ``detail`` draw the views as vz.draw does; ``budget``:
    the seconds each view's layout may take (None: in full, however long)."""
    drawn: dict[str, Any] = {
        "collapse": collapse,
        "max_boxes": max_boxes,
        "detail": detail,
        "budget": budget,
    }
    if isinstance(y, Trace):
        if wrt is not None or feed is not None or tangents is not None or mode != "reverse":
            raise ArgumentError(
                "step: a trace is opened as it is; wrt, feed, mode and tangents are for a node "
                "(trace it again with vz.trace_reverse or vz.trace_forward to change them)"
            )
        return Stepper(y, view, decimals=decimals, scale=scale, quiz=quiz, **drawn)
    decimals = 3 if decimals is None else decimals
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
        raise ArgumentError(f"mode must be 'reverse' or 'forward', got {mode!r}")
    return Stepper(trace, view, scale=scale, quiz=quiz, **drawn)
