"""The views of a stepper's walkthrough as the browser gets them, each made once: its layout
(the view shown first when the stepper opens, any other when it is first shown or asked for),
its data (vizad.view.widget.frames), the view with collapsed boxes opened (a patch of that
data, per set of boxes), and the boxes of its picture chosen for a reader's frame; and
:func:`prepare`, what a stepper makes for a walkthrough (opened, traced again, or drawn
for another frame): its checks, its quiz's questions, its views and the data sent."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from vizad.trace import Trace
from vizad.trace.quiz import questions
from vizad.view.assets import graphviz_module
from vizad.view.render import DrawOptions, Layout
from vizad.view.render.summary import scene_for
from vizad.view.widget.data import CHECK_LIMIT, check_failures, inputs_data
from vizad.view.widget.data import frame_data, memory_boxes, shared_steps, walkthrough_data
from vizad.view.widget.frames import Openings
from vizad.view.widget.page import needs_graphviz
from vizad.view.widget.whatif import retraceable

if TYPE_CHECKING:
    from vizad.view.widget.stepper import Stepper

__all__ = ["Views", "prepare"]


def prepare(stepper: Stepper, trace: Trace, view: str) -> tuple[dict, str]:
    """The component's data for ``stepper``'s walkthrough ``trace``, with ``view`` laid out,
    and the Graphviz module when the browser lays a view out; made here: the stepper's
    ``failures`` (trace.check(), for walkthroughs of at most CHECK_LIMIT steps unless its
    ``check`` says), its ``questions`` (a quiz) and its views."""
    check = len(trace.steps) <= CHECK_LIMIT if stepper._check is None else stepper._check
    stepper.failures = check_failures(trace) if check else {}
    views = Views(trace, stepper.options, stepper.failures, stepper.reader_frame, stepper._choices)
    stepper._views = views
    views.memory = stepper.memory  # each view's data carries its boxes for the timeline
    stepper.questions = questions(trace) if stepper.quiz else []
    data = views.walkthrough(
        view, stepper.failures, stepper.questions if stepper.quiz else None, stepper.memory
    )
    data["inputs"] = inputs_data(trace, editable=retraceable(trace))  # what-if
    return data, graphviz_module() if needs_graphviz(data) else ""


class Views:
    """The views of ``trace`` laid out and sent so far. ``options``: how the views are drawn
    (a :class:`~vizad.view.render.DrawOptions`, its decimals given); ``frame``: the
    reader's frame the pictures are chosen for (vizad.view.render.legibility); ``choices``:
    the boxes chosen per (view, frame), kept by the stepper across walkthroughs traced
    again (the same graph)."""

    def __init__(
        self,
        trace: Trace,
        options: DrawOptions,
        failures: Mapping[int, str],
        frame: tuple[int, int],
        choices: dict[tuple, tuple],
    ) -> None:
        self.trace, self.options = trace, options
        self.decimals = options.decimals_for(trace)
        self._layout_args = {
            **options.layout_args(self.decimals),
            "failed": frozenset(failures),
            "frame": frame,
        }
        #: The views laid out so far, in the order they were.
        self.layouts: dict[str, Layout] = {}
        self.frames: dict[str, dict] = {}  # each laid-out view's data, as the browser has it
        self._opened: dict[tuple, dict] = {}  # (view, boxes) → that view's patch, opened
        self._openings: dict[str, Openings] = {}  # view → what makes its patches
        self._choices = choices
        #: Whether each view's data carries the boxes of the memory timeline's values.
        self.memory = False

    def walkthrough(
        self,
        view: str,
        failures: Mapping[int, str],
        questions: list | None,
        memory: bool = False,
    ) -> dict:
        """The component's data with ``view`` laid out (the others when first shown)."""
        layout = self.layout_of(view)
        data = walkthrough_data(
            self.trace,
            view=view,
            failures=failures,
            options=self.options,
            layouts={view: layout},
            questions=questions,
            views=[view],
            memory=memory,
        )
        self.frames[view] = data["frames"][view]
        return data

    def layout_of(self, view: str) -> Layout:
        """The layout of ``view`` (a view of the trace), made once."""
        if view not in self.layouts:
            self.layouts[view] = Layout(self.trace, view, **self._layout_args)
        return self.layouts[view]

    def frame(self, view: str) -> dict:
        """The browser's data of ``view`` (its layout made first if need be)."""
        if view not in self.frames:
            layout = self.layout_of(view)
            self.frames[view] = frame_data(layout, self.trace, self.decimals)
            if self.memory:
                self.frames[view]["memoryBoxes"] = memory_boxes(layout, self.trace)
        return self.frames[view]

    def opened(self, view: str, boxes: Iterable[str]) -> dict:
        """The data of ``view`` with its collapsed ``boxes`` opened, as a patch of the view's
        data; made once per set of boxes."""
        key = (view, tuple(sorted(boxes)))
        if key not in self._opened:
            layout = self.layout_of(view)
            if view not in self._openings:
                base = self.frame(view)
                self._openings[view] = Openings(layout, base, self.trace, self.decimals)
            self._opened[key] = self._openings[view].patch(layout.opened(key[1]))
        return self._opened[key]

    def saved(self, views: Iterable[str]) -> dict[str, dict]:
        """The data of ``views`` (laid out now if need be), each step's states sent once for
        views that share them."""
        frames: dict[str, dict] = {}
        for v in views:
            frames[v] = shared_steps(self.frame(v), frames)
        return frames

    def choice(self, view: str, frame: tuple) -> tuple:
        """The boxes of the picture of ``view`` chosen for ``frame`` (made once per frame)."""
        key = (view, frame)
        if key not in self._choices:
            scene = scene_for(
                self.trace,
                view,
                self.decimals,
                detail=self.options.detail,
                reads=self.options.reads,
                max_boxes=self.options.max_boxes,
                frame=frame,
            )
            self._choices[key] = tuple(i.id for i in scene.items)
        return self._choices[key]
