"""The step-through debugger: an anywidget whose browser side is ``static/stepper/``.

The walkthrough (every view laid out once, each step's highlights and panel) is sent to the
browser once as ``data``; stepping, zooming, clicking and keys are handled there, without a
kernel round trip. ``step`` (1-based, like "Step 3 of 7"), ``view`` and ``scale`` are synced
traitlets: Python can read and set them. The same component runs the exported page.

This module is the widget's model: its synced state and what Python can do with it. What it
sends and answers is made elsewhere in this package: the views' data (``views.py``, from
``data.py`` and ``frames.py``), the output (``output.py``, its static picture ``snapshot.py``),
the browser's requests (``messages.py``), the quiz (``quizzing.py``), the checks of what the
page sets (``checks.py``) and the what-if's tracing (``whatif.py``); ``vz.step`` opens a
stepper (``entry.py``).
"""

from __future__ import annotations

import inspect
import sys
import weakref
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import anywidget
import traitlets

from vizad.errors import ClosedError, NotPicklableError
from vizad.trace import Trace
from vizad.trace.check import differences_report
from vizad.trace.quiz import Question, Verdict
from vizad.view.assets import component_module, style, widget_shim
from vizad.view.render import Layout
from vizad.view.render.legibility import DEFAULT_FRAME
from vizad.view.render.options import (
    DRAW_OPTIONS,
    SCALE,
    DrawOptions,
    check_scale,
    draw_options,
    takes_draw_options,
)
from vizad.view import frontends
from vizad.view.widget import checks, messages, output, quizzing
from vizad.view.widget.checks import CLOSED, StepNumber, StepperValueError
from vizad.view.widget.data import packed_json

# the names the stepper's users import from here
from vizad.view.widget.checks import FRAME_STEP as FRAME_STEP
from vizad.view.widget.messages import REFUSED as REFUSED
from vizad.view.widget.output import WIDGET_VIEW as WIDGET_VIEW
from vizad.view.widget.whatif import retraceable, traced_again
from vizad.view.widget.views import Views, prepare

__all__ = ["Stepper", "carries_component"]


#: The stepper whose widget model carries the component's module and CSS (a weak reference):
#: one per kernel process (see carries_component).
_carrier: weakref.ref | None = None


def carries_component(stepper: Stepper) -> bool:
    """Whether ``stepper``'s widget model carries the component (its module, ~130 kB, and its
    CSS), and if so, remember it: the first stepper of the kernel process does, and the first
    one made after that one was closed; the others' models carry a few lines
    (``static/shim.js``) that render with the component loaded in the page (anywidget loads a
    model's module when the model is made, shown or not) or ask the kernel for it. Then a
    notebook's widget state (nbclient stores every model's) holds the component once, not
    once per walkthrough. Where each output is a page of its own (``vz.config.display ==
    "widget"``: Colab) or a widget's CSS stays inside it (marimo), every model carries it."""
    global _carrier
    carrier = _carrier() if _carrier is not None else None
    if frontends.display() == "widget" or "marimo" in sys.modules:
        return True
    if carrier is not None and carrier.trace is not None:
        return False
    _carrier = weakref.ref(stepper)
    return True


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
    ``step``: the step it opens at. ``quiz=True``: see :meth:`answer`. ``memory=True`` (a
    reverse walkthrough): a timeline under the graph of the values alive at each step
    (``trace.memory()``), the current step and the peak marked, the values alive at the step
    outlined in the graph, and a checkpoint editor (click boxes to keep them; the timeline,
    the peak and the forward ops run again follow, in the page). The drawing options
    (the fields of :class:`~vizad.view.render.DrawOptions`, by keyword or as ``options=``)
    draw the views as vz.draw does; each view is laid out within ``budget`` seconds (the
    layout budget, vizad.view.render.budget; None lays every view out in full), its picture
    saying what it took. Other keywords go to the widget (``layout=``).

    Examples:
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> trace = vz.trace_reverse(y, [x1, x2], {x1: 2.0, x2: 5.0})
        >>> stepper = vz.Stepper(trace, "adjoint", step=6)
        >>> stepper
        <vizad Stepper: reverse mode, step 6 of 7, adjoint view>
        >>> stepper.current.label, stepper.current.adjoint
        ('v₂', array(1.71633781))
        >>> stepper.next()
        >>> stepper.step, stepper.n_steps
        (7, 7)
    """

    # the files' text, not their paths: anywidget watches a path for changes with a callback
    # that holds every widget made from it forever (a leak of every trace ever shown)
    _esm = component_module()
    _css = style()

    step = StepNumber(1).tag(sync=True)
    view = traitlets.Unicode("").tag(sync=True)
    scale = traitlets.Float(1.0).tag(sync=True)
    #: The walkthrough's data (vizad.view.widget.data), sent to the browser packed: ``_data``.
    data = traitlets.Dict()
    #: ``data`` as the browser gets it: its JSON gzip-compressed, in base64 (about a tenth of
    #: it; vizad.view.widget.data.packed_json), which the component inflates; so is it stored
    #: in a notebook's widget state.
    _data = traitlets.Unicode("").tag(sync=True)
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
    #: With ``memory=True``: the values kept as checkpoints, by name (``["v₄", "v₈"]``; "v4"
    #: is taken too, and a name alone), the checkpoint editor's and Python's alike, in the
    #: forward order without the inputs (always kept); None: every value stored. The timeline
    #: is ``trace.memory(keep=...)``'s for those values.
    memory_keep: traitlets.List[str] = traitlets.List(default_value=None, allow_none=True).tag(
        sync=True
    )
    #: 0-based step index → the message of the rule that fails trace.check() there.
    failures: dict[int, str]
    #: Per step, the quiz's questions (see vizad.trace.quiz), with their answers.
    questions: list[list[Question]]
    _views: Views  # the views laid out and sent (vizad.view.widget.views)

    @takes_draw_options
    def __init__(
        self,
        trace: Trace,
        view: str | None = None,
        *,
        check: bool | None = None,
        scale: float = SCALE,
        quiz: bool = False,
        step: int = 1,
        options: DrawOptions | None = None,
        memory: bool = False,
        **kwargs: Any,
    ) -> None:
        drawing = {k: kwargs.pop(k) for k in DRAW_OPTIONS if k in kwargs}
        how = draw_options(options, drawing, "Stepper")
        view = checks.checked_trace(trace, view)  # a trace with steps, and one of its views
        scale = check_scale(scale, "Stepper")
        self.trace = trace
        #: How the views are drawn (vz.render.DrawOptions), its decimals those shown.
        self.options = replace(how, decimals=how.decimals_for(trace))
        self._check = check
        #: Whether the student types each step's results before they are shown.
        self.quiz = quiz
        #: Whether the memory timeline and the checkpoint editor are shown (reverse mode).
        self.memory = bool(memory)
        #: The graph's frame (width, height in CSS px at scale 1) that the picture is chosen
        #: for (vizad.view.render.legibility): JupyterLab's at 1024×768 until the browser reports
        #: its own (a live widget, once shown and when resized).
        self.reader_frame: tuple[int, int] = DEFAULT_FRAME
        #: The page's zoom (devicePixelRatio) the browser last reported (None: not yet).
        self.page_zoom: float | None = None
        self._choices: dict[tuple, tuple] = {}  # (view, frame) → the boxes of the picture
        data, module = prepare(self, trace, view)  # its checks, questions and views
        #: Whether a view in a front end has said it shows this stepper (else, headless: a
        #: step set here updates the displayed output, see _ipython_display_).
        self._seen = False
        self._shown = False  # displayed with its display id (the widget's model id)
        #: The shared code its output carries for the page (vizad.view.sharing): once
        #: carried, always (the same output, updated).
        self._carries: set[str] = set()
        if not carries_component(self):  # the component is the carrier's (static/shim.js)
            kwargs = {"_esm": widget_shim(), "_css": "", **kwargs}
        super().__init__(
            data=data, view=view, scale=float(scale), step=1, _graphviz=module, **kwargs
        )
        self.step = step
        self.score = self._score()
        self.set_trait("inputs", {d["name"]: d["value"] for d in data.get("inputs", ())})
        self.on_msg(self._message)

    # -- the Python API ------------------------------------------------------------------
    @property
    def decimals(self) -> int:
        """The decimals of the values shown (its options', a trace's own by default)."""
        return self.options.decimals_for(self.trace)

    @property
    def n_steps(self) -> int:
        """How many steps there are; ``step`` goes from 1 to this number."""
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
        return self._views.layout_of(self.trace.view(view))

    @property
    def laid_out(self) -> tuple[str, ...]:
        """The views laid out so far, in the order they were."""
        self._live()
        return tuple(self._views.layouts)

    def opened(self, view: str, boxes: Iterable[str]) -> dict:
        """The data of ``view`` with its collapsed ``boxes`` opened, as a patch of the view's
        data (what the browser asks for when a collapsed box is clicked); laid out like the
        view (by ``dot`` here, or in the browser). Made once per set of boxes."""
        self._live()
        return self._views.opened(self.trace.view(view), boxes)

    @property
    def question(self) -> Question | None:
        """The question the current step asks now (a :class:`vizad.trace.quiz.Question`:
        ``.prompt``, ``.hint``), or None (no quiz, or this step asks nothing more)."""
        self._live()
        return quizzing.asking(self.questions[self.step - 1], self.progress) if self.quiz else None

    def answer(self, text: str) -> Verdict:
        """Answer the current question as the student would type it (``"1.72"``,
        ``"2 - cos(5)"``): the verdict (``.status`` "right", "wrong" or "refused", and its
        ``.message``), the browser showing the same; ``stepper.score`` counts it. Two wrong
        tries reveal the answer. ``vizad.trace.quiz.RULE`` says how answers are judged."""
        return quizzing.answer(self, text)

    def check_by_differences(self) -> dict:
        """The current step's result (v̄ᵢ or v̇ᵢ) against central differences of the function
        itself (see :func:`vizad.trace.check.by_differences`): {"step", "numeric",
        "computed", "agree", "text"}; the panel's "check by finite differences" shows it."""
        self._live()
        return {"step": self.step, **differences_report(self.trace, self.step - 1)}

    # -- the synced state: checked (a value refused is rolled back), and what follows ------
    def _score(self) -> dict:
        return quizzing.score(self.questions, self.progress)

    #: The progress and inputs last accepted (a validator cannot read them from the trait:
    #: in an update from the page, the trait holds the value being checked already).
    _accepted_progress: dict = {}
    _accepted_inputs: dict = {}
    _restarting = False  # the progress emptied by Python, for a walkthrough traced again

    @traitlets.validate(
        "step", "view", "scale", "progress", "inputs", "difference_request", "memory_keep"
    )
    def _valid(self, proposal: dict[str, Any]) -> Any:
        """Each value the page (or Python) sets, checked (vizad.view.widget.checks): one that
        is refused is rolled back, and the page told why."""
        if self.trace is None:
            raise StepperValueError(CLOSED)
        name, value = proposal["trait"].name, proposal["value"]
        if name == "progress":  # each entry as its answers earn it, judged here
            old, again = self._accepted_progress, self._restarting
            return quizzing.checked_progress(self.questions, old, value, quiz=self.quiz,
                                             restarting=again)  # fmt: skip
        return checks.checked(self, name, value)

    @traitlets.validate("score")
    def _valid_score(self, proposal: dict[str, Any]) -> Any:
        # made here from the progress (itself checked against the answers): a score sent by
        # the page is replaced by the one its answers earned
        return self._score() if self.trace is not None else proposal["value"]

    @traitlets.observe("progress")
    def _progress_changed(self, change: dict[str, Any]) -> None:
        self._accepted_progress = change["new"]
        self.score = self._score()

    @traitlets.observe("step")
    def _step_changed(self, change: dict[str, Any]) -> None:
        """Going on past questions (this step's, or steps jumped over) skips them: their
        answers are revealed, since later steps need them. And with no front end showing
        this stepper (none said so), its output is updated to the step."""
        if change["old"] is not None and self.quiz:
            skipped = quizzing.skipped(self.questions, self.progress, change["old"], change["new"])
            if skipped:
                self.progress = {**self.progress, **skipped}
        if self._shown and not self._seen and self.trace is not None:
            output.update(self)

    @traitlets.observe("view")
    def _view_shown(self, change: dict[str, Any]) -> None:
        # each view is laid out when it is first shown: the browser asks for its data then
        if change["new"] and self.trace is not None:
            self.layout_of(change["new"])

    @traitlets.observe("data")
    def _data_changed(self, change: dict[str, Any]) -> None:
        self._data = packed_json(change["new"]) if change["new"] else ""

    @traitlets.observe("difference_request")
    def _difference_requested(self, change: dict[str, Any]) -> None:
        if self.trace is not None and change["new"]:
            self.differences = messages.differences(self)  # every request answered

    @traitlets.observe("inputs")
    def _inputs_changed(self, change: dict[str, Any]) -> None:
        self._accepted_inputs = change["new"]
        if self.trace is not None and retraceable(self.trace):
            traced_again(self, change["old"], change["new"])  # the what-if

    def _message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        messages.answer(self, content)  # the browser's requests

    def set_state(self, sync_data: Any) -> None:
        """The page's update of synced values (ipywidgets calls this for each one): applied
        only when every value is valid, else rolled back (vizad.view.widget.messages)."""
        messages.update(self, sync_data, super().set_state)

    def _live(self) -> None:
        """A ClosedError when this stepper was closed (every operation checks first)."""
        if self.trace is None:
            raise ClosedError(CLOSED)

    def _redraw(self, restart: bool = False) -> None:
        """Everything sent again for the trace as it is now (traced again, or for another
        frame): its data and Graphviz module; ``restart``: its quiz afresh."""
        data, module = prepare(self, self.trace, self.view)
        if restart:
            quizzing.restart(self)
        self.set_trait("_graphviz", module)
        self.data = data

    # -- its output, its end -------------------------------------------------------------
    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        """The output of a stepper (vizad.view.widget.output)."""
        if self.trace is None:
            return {"text/plain": repr(self)}
        return output.output_bundle(self, super()._repr_mimebundle_(**kwargs))

    def _ipython_display_(self, **kwargs: Any) -> None:
        """Shown by IPython with a display id (the widget model's), so that a step set here
        later (``stepper.step = 6`` in another cell) updates this output where no front end
        shows the widget: a notebook executed headless is saved at the author's step."""
        output.show(self, **kwargs)
        self._shown = True

    def close(self) -> None:
        """Close the widget and release what it holds (the trace, its layouts and frames), so
        that a closed stepper kept in a variable does not keep a large walkthrough alive;
        anything done with it afterwards is a ClosedError."""
        if getattr(self, "trace", None) is None:  # closed already (or never made)
            return
        super().close()
        self._views = None  # type: ignore[assignment]
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

    def __deepcopy__(self, memo: Any = None) -> Any:
        self.__reduce_ex__(4)

    __copy__ = __deepcopy__

    def __repr__(self) -> str:
        if self.trace is None:
            return "<vizad Stepper: closed>"
        return (
            f"<vizad Stepper: {self.trace.mode} mode, step {self.step} of {self.n_steps}, "
            f"{self.view} view>"
        )


# its signature as inspect and the API reference read it: traitlets' HasTraits.__new__ takes
# (*args, **kwargs), which Sphinx would show in place of __init__'s (drawing options included)
_INIT = inspect.signature(Stepper.__init__)
Stepper.__signature__ = _INIT.replace(parameters=list(_INIT.parameters.values())[1:])
