"""The step-through debugger: an anywidget whose browser side is ``static/stepper/``.

The walkthrough (every view laid out once, each step's highlights and panel) is sent to the
browser once as ``data``; stepping, zooming, clicking and keys are handled there, without a
kernel round trip. ``step`` (1-based, like "Step 3 of 7"), ``view`` and ``scale`` are synced
traitlets: Python can read and set them. The same component runs the exported page.
"""

from __future__ import annotations

import math
from typing import Any
from collections.abc import Iterable, Mapping

import anywidget
import numpy as np
import traitlets

from vizad.view.assets import component_module, graphviz_module, style
from vizad.view import frontends
from vizad.errors import (
    ArgumentError,
    ArgumentTypeError,
    ClosedError,
    NotPicklableError,
    VizadError,
)
from vizad.engine.graph import as_node_list
from vizad.engine.node import Node
from vizad.view.render import LAYOUT_BUDGET, MAX_BOXES, Layout
from vizad.view.render.options import SCALE, SCALES, Collapse, check_scale
from vizad.view.render.legibility import DEFAULT_FRAME
from vizad.view.render.summary import scene_for
from vizad.trace import Trace, trace_forward, trace_reverse
from vizad.trace.check import by_differences
from vizad.trace.quiz import MAX_ANSWER, Question, Verdict, judge, questions
from vizad.trace.traces import ForwardTrace, ReverseTrace
from vizad.view.widget.data import (
    CHECK_LIMIT,
    check_failures,
    frame_data,
    inputs_data,
    shared_steps,
    walkthrough_data,
)
from vizad.view.widget.frames import Openings
from vizad.view.widget.panel import step_panel
from vizad.view import sharing
from vizad.view.widget.page import WALKTHROUGH, fragment, needs_graphviz, snapshot_html

__all__ = ["Stepper", "step"]
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
_QUIZ_SNAPSHOT = '<div class="vz-muted">(a quiz: its values are asked, not shown)</div>'
#: Walkthroughs with at most this many steps carry every view in their output's HTML, so that
#: a notebook reopened without its kernel switches views too (bigger ones: those laid out).
SAVED_VIEWS = 100


#: The kernel message that the page's request was refused carries this kind (and ``error``).
REFUSED = "refused"
#: A frame the browser reports is taken to this many CSS px (a resize by a few px never
#: changes the picture, nor draws it again).
FRAME_STEP = 16
#: The synced values the page may change; the others (its data, the Graphviz module, the
#: answers to its requests) are Python's: a page's update of them is refused.
FROM_PAGE = frozenset(
    {"step", "view", "scale", "progress", "score", "inputs", "difference_request"}
)
_CLOSED = (
    "this stepper was closed (stepper.close()): make another with vz.step(...) or vz.Stepper(trace)"
)


class StepperValueError(ArgumentError, traitlets.TraitError):
    """A value refused by a stepper (a view that is not one, an input that is not a finite
    number, a quiz progress no answer earned): an ArgumentError that is also traitlets'
    TraitError, so that a value sent by the page is rolled back, never kept."""


class StepperTypeError(ArgumentTypeError, traitlets.TraitError):
    """A value of the wrong type for a stepper's setting (rolled back, as StepperValueError)."""


class _StepNumber(traitlets.Int):
    """The step traitlet: an int (a number out of range goes to the nearest step, as a
    slider does); anything else is an ArgumentTypeError saying so."""

    def validate(self, obj: Any, value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise StepperTypeError(
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
    ``step``: the step it opens at. ``quiz=True``: see :meth:`answer`. ``collapse``,
    ``max_boxes`` and ``detail`` draw the views as vz.draw does; each view is laid out within
    ``budget`` seconds (the layout budget, vizad.view.render.budget; None lays every view out in
    full), its picture saying what it took.
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
        scale: float = SCALE,
        quiz: bool = False,
        step: int = 1,
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
        scale = check_scale(scale, "Stepper")
        self.trace = trace
        #: Scopes drawn as one box, the boxes above which a view is summarised, and whether
        #: extended views show every node (vz.draw's ``collapse``, ``max_boxes``, ``detail``).
        self.collapse, self.max_boxes, self.detail = collapse, max_boxes, detail
        #: The seconds each view's layout may take (vizad.view.render.budget; None: every view
        #: laid out in full, however long that takes).
        self.budget = budget
        self.decimals = trace.decimals if decimals is None else decimals
        self._check = check
        #: Whether the student types each step's results before they are shown.
        self.quiz = quiz
        #: The graph's frame (width, height in CSS px at scale 1) that the picture is chosen
        #: for (vizad.view.render.legibility): JupyterLab's at 1024×768 until the browser reports
        #: its own (a live widget, once shown and when resized).
        self.reader_frame: tuple[int, int] = DEFAULT_FRAME
        #: The page's zoom (devicePixelRatio) the browser last reported (None: not yet).
        self.page_zoom: float | None = None
        self._choices: dict[tuple, tuple] = {}  # (view, frame) → the boxes of the picture
        data, module = self._prepare(trace, view)
        #: Whether a view in a front end has said it shows this stepper (else, headless: a
        #: step set here updates the displayed output, see _ipython_display_).
        self._seen = False
        self._shown = False  # displayed with its display id (the widget's model id)
        #: The shared code its output carries for the page (vizad.view.sharing): once
        #: carried, always (the same output, updated).
        self._carries: set[str] = set()
        super().__init__(
            data=data, view=view, scale=float(scale), step=1, _graphviz=module, **kwargs
        )
        self.step = step
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
            "frame": self.reader_frame,  # the picture readable there (render.legibility)
        }
        #: The views laid out so far: the one shown first now, each other one when the view
        #: first switches to it (``layout_of``).
        self._layouts: dict[str, Layout] = {view: self._make_layout(view)}
        self._frames: dict[str, dict] = {}  # each laid-out view's data, as the browser has it
        self._opened: dict[tuple, dict] = {}  # (view, boxes) → that view's patch, opened
        self._openings: dict[str, Openings] = {}  # view → what makes its patches
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
        self._live()
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
        self._live()
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
        entry["answers"] = [*entry.get("answers", ()), str(text)]
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

    #: The progress and inputs last accepted (a validator cannot read them from the trait:
    #: in an update from the page, the trait holds the value being checked already).
    _accepted_progress: dict = {}
    _accepted_inputs: dict = {}

    @traitlets.observe("progress")
    def _progress_changed(self, change: dict[str, Any]) -> None:
        self._accepted_progress = change["new"]
        self.score = self._score()

    @traitlets.validate("score")
    def _valid_score(self, proposal: dict[str, Any]) -> Any:
        # made here from the progress (itself checked against the answers): a score sent by
        # the page is replaced by the one its answers earned
        return self._score() if self.trace is not None else proposal["value"]

    @traitlets.validate("progress")
    def _valid_progress(self, proposal: dict[str, Any]) -> Any:
        """Each question's entry as its answers earn it, judged here: a state "right" or
        "wrong" needs the answers that earned it; an entry, once decided, never changes."""
        new = proposal["value"]
        if self.trace is None:
            raise StepperValueError(_CLOSED)
        if not new:  # a new walkthrough (inputs traced again) starts its quiz afresh
            if self._accepted_progress and not self._restarting:
                raise StepperValueError("stepper.progress: the questions decided stay decided")
            return {}
        if not self.quiz:
            raise StepperValueError("stepper.progress: this stepper is not a quiz")
        known = {q.key: q for qs in self.questions for q in qs}
        old = self._accepted_progress
        checked = {}
        for key, entry in new.items():
            if key not in known:
                raise StepperValueError(f"stepper.progress: no question {str(key)[:40]!r}")
            checked[key] = _earned(known[key], entry, old.get(key))
        for key in old:
            if "state" in old[key] and key not in checked:
                raise StepperValueError(
                    f"stepper.progress: question {key} was decided; its entry stays"
                )
        return checked

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
        self._live()
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
        except (VizadError, ArithmeticError, ValueError) as exc:  # every request answered
            self.differences = {"step": self.step, "text": f"no check here: {exc}"}

    @traitlets.validate("difference_request")
    def _valid_difference_request(self, proposal: dict[str, Any]) -> Any:
        ask = proposal["value"]
        if self.trace is None:
            raise StepperValueError(_CLOSED)
        fields = {"step", "ask"}
        if ask and (
            set(ask) - fields
            or not all(_is_int(ask[k]) and abs(int(ask[k])) < 2**53 for k in fields & set(ask))
        ):
            raise StepperValueError(
                'stepper.difference_request: give {"step": k, "ask": n} (ints), got '
                f"{_short(ask)}"
            )
        return ask

    @traitlets.validate("inputs")
    def _valid_inputs(self, proposal: dict[str, Any]) -> Any:
        """The inputs as finite floats, by name: a name that is not an input, a value that is
        not a number (a str, even "3"), NaN or an infinity is refused (and rolled back)."""
        new = proposal["value"]
        if self.trace is None:
            raise StepperValueError(_CLOSED)
        current = self._accepted_inputs
        if not current:  # the stepper being made: its own inputs
            return new
        out = {}
        for name, value in new.items():
            if name not in current:
                raise StepperValueError(
                    f"stepper.inputs: {_short(name)} is not an input of this walkthrough "
                    f"(its inputs: {', '.join(map(str, current))})"
                )
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer,
                                                                 np.floating)):  # fmt: skip
                raise StepperTypeError(
                    f"stepper.inputs: {name} must be a number (int or float), got "
                    f"{type(value).__name__} {_short(value)}"
                )
            try:
                x = float(value)
            except OverflowError:
                x = math.inf
            if not math.isfinite(x):
                raise StepperValueError(
                    f"stepper.inputs: {name} must be a finite number, got {_short(value)}; "
                    "type another value"
                )
            if x != current[name] and not _retraceable(self.trace):
                raise StepperValueError(
                    f"stepper.inputs: {name} is read-only (this walkthrough was recorded "
                    "from another engine: vizad cannot trace it again)"
                )
            out[name] = x
        return {**current, **out}

    # -- what-if inputs ------------------------------------------------------------------
    @traitlets.observe("inputs")
    def _inputs_changed(self, change: dict[str, Any]) -> None:
        """An input edited (in the browser, or here): the walkthrough traced again at the new
        values, every view redrawn, at the same step."""
        self._accepted_inputs = change["new"]
        if self.trace is None or not _retraceable(self.trace):
            return
        feed = dict(self.trace.feed)
        changed = False
        for node in list(feed):
            name = node.name
            if name in change["new"] and np.ndim(feed[node]) == 0:
                value = float(change["new"][name])  # finite: checked by _valid_inputs
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
        self._restarting = True
        try:
            self.progress = {}
        finally:
            self._restarting = False
        self.set_trait("_graphviz", module)
        self.data = data

    _restarting = False  # the progress emptied by Python, for a walkthrough traced again

    def _live(self) -> None:
        """A ClosedError when this stepper was closed (every operation checks first)."""
        if self.trace is None:
            raise ClosedError(_CLOSED)

    def set_state(self, sync_data: Any) -> None:
        """The page's update of synced values (ipywidgets calls this for each one): applied
        only when every value is valid, else rolled back (traitlets' TraitError), Python's
        values sent back and the page told why (a message of kind REFUSED)."""
        if not isinstance(sync_data, dict):
            return self._refuse("a state update must be a mapping of names to values", {})
        try:
            if self.trace is None:
                raise StepperValueError(_CLOSED)
            python = sorted(k for k in sync_data if k in self.keys and k not in FROM_PAGE)
            if python:
                raise StepperValueError(
                    f"the page cannot set {', '.join(python)}: Python makes "
                    + ("it" if len(python) == 1 else "them")
                )
            super().set_state(sync_data)
        except traitlets.TraitError as exc:  # rolled back by traitlets
            self._refuse(str(exc), sync_data)

    def _refuse(self, why: str, sync_data: dict) -> None:
        """Tell the page that its update was refused, and give it back Python's values."""
        if self.comm is None:  # closed: no page to tell
            return
        keys = [k for k in sync_data if k in self.keys and k in FROM_PAGE]
        if keys:
            self.send_state(keys)
        self.send({"kind": REFUSED, "error": why})

    def close(self) -> None:
        """Close the widget and release what it holds (the trace, its layouts and frames), so
        that a closed stepper kept in a variable does not keep a large walkthrough alive;
        anything done with it afterwards is a ClosedError."""
        if getattr(self, "trace", None) is None:  # closed already (or never made)
            return
        super().close()
        self._layouts = {}
        self._frames = {}
        self._opened = {}
        self._openings = {}
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
        """The output of a stepper, by the one rule of :mod:`vizad.view.frontends`: vizad's own
        MIME type (the step shown, saved with the notebook; the widget model's id in its
        metadata), which vizad's JupyterLab / Notebook 7 extension renders as the live widget
        while the kernel holds it and from the HTML otherwise; that HTML, the component with
        its data for every other renderer (nbconvert, a notebook reopened anywhere), which
        starts as a static picture of the step (an ``<img>``: kept where scripts do not run,
        untrusted outputs included). The picture is stored once, in that HTML: no
        ``image/svg+xml`` beside it, which every renderer that shows HTML (JupyterLab,
        Notebook 7, nbconvert, VS Code, Colab, GitHub's preview) passes over. The widget-view MIME
        type only where the front end has a widget manager and no vizad renderer (Colab, VS
        Code, ``vz.config.display = "widget"``): elsewhere nbconvert would prefer it to the
        HTML whenever widget state is stored, and show a blank output without its CDN."""
        if self.trace is None:
            return {"text/plain": repr(self)}
        bundle: Any = super()._repr_mimebundle_(**kwargs)
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
        view = data.pop(WIDGET_VIEW, None)
        if view is not None:
            data[WALKTHROUGH] = {"step": self.step}
            metadata = {**metadata, WALKTHROUGH: {"model_id": view["model_id"]}}
            if frontends.display() == "widget":
                data[WIDGET_VIEW] = view
        layout = self.layout_of(self.view)
        svg = None if self.quiz or layout.in_browser else layout.svg(self.step)
        if self.quiz:  # a quiz's picture and data give no answer away
            snapshot = snapshot_html(self.trace.describe(), None, _QUIZ_SNAPSHOT)
        else:
            snapshot = snapshot_html(
                self.trace.describe(),
                svg,
                step_panel(
                    self.trace, self.step - 1, self.failures, math=False, decimals=self.decimals
                ),
            )
        saved = self._saved_data()
        needed = {sharing.COMPONENT} | ({sharing.GRAPHVIZ} if needs_graphviz(saved) else set())
        self._carries |= {kind for kind in needed - self._carries if sharing.carries(kind)}
        data["text/html"] = fragment(
            saved,
            layout.scope,
            snapshot,
            self.step,
            hidden=self.quiz,
            component=sharing.COMPONENT in self._carries,
            graphviz=sharing.GRAPHVIZ in self._carries and sharing.GRAPHVIZ in needed,
        )
        return data, metadata

    def _ipython_display_(self, **kwargs: Any) -> None:
        """Shown by IPython with a display id (the widget model's), so that a step set here
        later (``stepper.step = 6`` in another cell) updates this output where no front end
        shows the widget: a notebook executed headless (nbconvert --execute, nbclient,
        Jupyter Book, MyST) is saved at the author's step."""
        from IPython.display import display

        data, metadata = self._repr_mimebundle_(**kwargs)
        self._shown = True
        display(data, metadata=metadata, raw=True, display_id=self._display_id)

    @property
    def _display_id(self) -> str:
        return f"vizad-{self.model_id}"

    @traitlets.observe("step")
    def _step_saved(self, change: dict[str, Any]) -> None:
        """No front end shows this stepper (none said so): its output is updated to the step."""
        if not self._shown or self._seen or self.trace is None:
            return
        from IPython.display import update_display

        data, metadata = self._repr_mimebundle_()
        update_display(data, metadata=metadata, raw=True, display_id=self._display_id)

    def _saved_data(self) -> dict:
        """The component's data as the output's HTML carries it (a notebook reopened without
        its kernel, nbconvert): every view when the walkthrough has at most SAVED_VIEWS steps
        (laid out now if need be), else the views laid out so far."""
        self._live()
        views = self.trace.views if self.n_steps <= SAVED_VIEWS else tuple(self._layouts)
        frames: dict[str, dict] = {}
        for v in views:
            frames[v] = shared_steps(self._frame(v), frames)
        return {**self.data, "frames": frames}

    # -- the Python API ------------------------------------------------------------------
    @property
    def n_steps(self) -> int:
        self._live()
        return len(self.trace.steps)

    @property
    def current(self) -> Any:
        """The record of the current step (``trace.steps[stepper.step - 1]``)."""
        self._live()
        return self.trace.steps[self.step - 1]

    def next(self) -> None:
        """Go to the next step (stays on the last)."""
        self._live()
        self.step = self.step + 1

    def prev(self) -> None:
        """Go to the previous step (stays on the first)."""
        self._live()
        self.step = self.step - 1

    def layout_of(self, view: str) -> Layout:
        """The layout of ``view``, made once: the view shown first when the stepper opened,
        any other when it is first shown (or asked for here)."""
        self._live()
        view = self.trace.view(view)
        if view not in self._layouts:
            self._layouts[view] = self._make_layout(view)
        return self._layouts[view]

    @property
    def laid_out(self) -> tuple[str, ...]:
        """The views laid out so far, in the order they were."""
        self._live()
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
        self._live()
        view = self.trace.view(view)
        key = (view, tuple(sorted(boxes)))
        if key not in self._opened:
            layout = self.layout_of(view)
            if view not in self._openings:
                base = self._frame(view)
                self._openings[view] = Openings(layout, base, self.trace, self.decimals)
            self._opened[key] = self._openings[view].patch(layout.opened(key[1]))
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
        and view (and key), carrying ``frame`` or ``patch``, or ``error`` saying what failed.
        {"kind": "shown"}: a view of this stepper runs in a front end (not answered)."""
        if not isinstance(content, dict):
            self._refuse(f"a request must be a mapping, got {type(content).__name__}", {})
            return
        if content.get("kind") == "shown":  # a front end's view runs: it shows each step
            if self.trace is not None:
                self._seen = True
            return
        if content.get("kind") == "frame":  # the size of the graph's frame in the browser
            try:
                self._live()
                self._framed(content)
            except VizadError as err:
                self._refuse(str(err), {})
            return
        kind, view, key = content.get("kind"), content.get("view"), content.get("key")
        reply = {"kind": _plain(kind), "view": _plain(view), "key": _plain(key)}
        try:
            self._live()
            if kind not in ("view", "open"):
                raise ArgumentError(f"unknown request {_short(kind)}: ask for 'view' or 'open'")
            if not isinstance(view, str):
                raise ArgumentError(f"a request names a view (a str), got {_short(view)}")
            if kind == "view":
                reply["frame"] = self._frame(view)
            elif kind == "open":
                boxes = content.get("boxes", ())
                if not isinstance(boxes, list) or not all(isinstance(b, str) for b in boxes):
                    raise ArgumentError(
                        f"open: boxes must be a list of box ids, got {_short(boxes)}"
                    )
                reply["patch"] = self.opened(view, boxes)
            else:
                raise ArgumentError(f"unknown request {_short(kind)}: ask for 'view' or 'open'")
        except VizadError as err:
            reply["error"] = str(err)
        if self.comm is not None:
            self.send(reply)

    def _framed(self, content: dict) -> None:
        """The browser's frame: {"kind": "frame", "width", "height" (CSS px), "scale" (the
        presentation scale), "zoom" (devicePixelRatio)}, sent once shown and when resized.
        The picture is chosen again for that frame (in scale-1 px, to FRAME_STEP px) and the
        views drawn anew only if that changes the choice: it depends on the graph and the
        frame, never on the machine."""
        numbers = {}
        for key in ("width", "height", "scale", "zoom"):
            value = content.get(key, 1.0 if key in ("scale", "zoom") else None)
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise ArgumentError(f"frame: {key} must be a number, got {_short(value)}")
            if not (math.isfinite(value) and value > 0):
                raise ArgumentError(f"frame: {key} must be positive and finite, got {value!r}")
            numbers[key] = float(value)
        self.page_zoom = numbers["zoom"]
        scale = min(max(numbers["scale"], SCALES[0]), SCALES[1])
        width, height = (
            max(FRAME_STEP, FRAME_STEP * round(numbers[k] / scale / FRAME_STEP))
            for k in ("width", "height")
        )
        frame = (width, height)
        if frame == self.reader_frame:
            return
        old, self.reader_frame = self.reader_frame, frame
        if self.collapse is not None:  # the reader chose what to collapse: kept
            return
        if all(self._choice(v, frame) == self._choice(v, old) for v in self._layouts):
            return
        data, module = self._prepare(self.trace, self.view)
        self.set_trait("_graphviz", module)
        self.data = data

    def _choice(self, view: str, frame: tuple) -> tuple:
        """The boxes of the picture of ``view`` chosen for ``frame`` (made once per frame)."""
        key = (view, frame)
        if key not in self._choices:
            scene = scene_for(
                self.trace,
                view,
                self.decimals,
                detail=self.detail,
                max_boxes=self.max_boxes,
                frame=frame,
            )
            self._choices[key] = tuple(i.id for i in scene.items)
        return self._choices[key]

    @traitlets.validate("step")
    def _valid_step(self, proposal: dict[str, Any]) -> Any:
        if self.trace is None:
            raise StepperValueError(_CLOSED)
        return min(max(int(proposal["value"]), 1), max(self.n_steps, 1))

    @traitlets.validate("view")
    def _valid_view(self, proposal: dict[str, Any]) -> Any:
        if self.trace is None:
            raise StepperValueError(_CLOSED)
        try:
            value = proposal["value"]
            if not value:  # "" is no view (the trait's default, never a value set)
                raise ArgumentError(f"stepper.view: give one of {', '.join(self.trace.views)}")
            return self.trace.view(value)
        except VizadError as exc:  # rolled back: the view stays what it was
            raise StepperValueError(str(exc)) from None

    @traitlets.validate("scale")
    def _valid_scale(self, proposal: dict[str, Any]) -> Any:
        if self.trace is None:
            raise StepperValueError(_CLOSED)
        value = proposal["value"]
        if not math.isfinite(value):
            raise StepperValueError(f"stepper.scale must be a finite number, got {value!r}")
        return min(max(float(value), SCALES[0]), SCALES[1])


def _earned(question: Question, entry: Any, before: Any) -> dict:
    """A quiz entry (``{"tries", "state", "answers"}``) as Python judges its answers: its
    tries and state must be what those answers earn (or "skipped": revealed, not earned),
    and an entry decided before stays as it was. A StepperValueError otherwise."""
    where = f"stepper.progress[{question.key!r}]"
    if before is not None and "state" in before:
        if entry != before:
            raise StepperValueError(f"{where}: this question was decided; its entry stays")
        return before
    if not isinstance(entry, dict) or set(entry) - {"tries", "state", "answers"}:
        raise StepperValueError(
            f"{where}: an entry is {{tries, state, answers}}, got {_short(entry)}"
        )
    answers = entry.get("answers", [])
    if (
        not isinstance(answers, list)
        or len(answers) > 2
        or not all(isinstance(a, str) and len(a) <= MAX_ANSWER for a in answers)
    ):
        raise StepperValueError(f"{where}: answers must be at most two answers typed (str)")
    typed_before = (before or {}).get("answers", [])
    if answers[: len(typed_before)] != typed_before:
        raise StepperValueError(f"{where}: the answers typed before stay (more can be added)")
    tries, state = 0, None
    for text in answers:
        if state is not None:
            raise StepperValueError(f"{where}: an answer after the question was decided")
        verdict = judge(question, text)
        if verdict.status == "refused":
            raise StepperValueError(f"{where}: {_short(text)} cannot be read: no try")
        if verdict.right:
            state = "right"
        else:
            tries += 1
            state = "wrong" if tries >= 2 else None
    claimed = entry.get("state")
    if claimed == "skipped" and state is None:
        state = "skipped"
    earned = {"tries": tries, **({"state": state} if state else {}), "answers": answers}
    if entry.get("tries", 0) != tries or claimed != state:
        raise StepperValueError(
            f"{where}: the answers typed earn {state or 'no decision'} after {tries} wrong "
            f"tries, not {_short(claimed)} after {_short(entry.get('tries'))}"
        )
    return earned


def _is_int(x: Any) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def _short(value: Any) -> str:
    """``value`` as a message quotes it: its repr, at most 40 characters."""
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _plain(value: Any) -> Any:
    """A request's field as its reply echoes it: a str, int or None (else None)."""
    return value if value is None or isinstance(value, (str, int)) else None


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
    scale: float = SCALE,
    collapse: Collapse = None,
    max_boxes: int = MAX_BOXES,
    detail: bool = False,
    budget: float | None = LAYOUT_BUDGET,
    quiz: bool = False,
    step: int = 1,
) -> Stepper:
    """Trace ``y`` at ``feed`` and open the stepper: reverse mode w.r.t. ``wrt`` (default
    every Variable), or forward mode seeded with ``tangents`` (default ẋ = 1 for the first
    node of ``wrt``, or the first Variable). ``scale`` enlarges everything (1.5 on a
    projector). ``quiz=True``: the student types each step's values (local partials, partial
    adjoints, the result v̄ᵢ or v̇ᵢ) before they are shown; ``stepper.answer(text)`` answers
    from Python and ``stepper.score`` counts the right ones (see vizad.trace.quiz.RULE).
    ``y`` may be a trace made already (``vz.torch_backward(loss)``): it is opened as it is.
    ``collapse``, ``max_boxes`` and ``detail`` draw the views as vz.draw does; ``budget``:
    the seconds each view's layout may take (None: in full, however long). ``step``: the step
    it opens at (a notebook executed headless saves its output there)."""
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
        return Stepper(y, view, decimals=decimals, scale=scale, quiz=quiz, step=step, **drawn)
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
        raise ArgumentError(f"mode must be 'reverse' or 'forward', got {mode!r}; give one")
    return Stepper(trace, view, scale=scale, quiz=quiz, step=step, **drawn)
