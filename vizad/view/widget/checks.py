"""What a stepper accepts from the page (and from Python): the errors that roll a value back,
and the checks of the values the page may set (the step, the inputs of a what-if, a request
for a check by finite differences, the frame it reports)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import traitlets

from vizad.errors import ArgumentError, ArgumentTypeError, VizadError
from vizad.trace import Trace
from vizad.trace.memory import forward_values, is_input
from vizad.view.render.options import SCALES
from vizad.view.widget.whatif import retraceable

if TYPE_CHECKING:
    from vizad.view.widget.stepper import Stepper

__all__ = [
    "StepperValueError",
    "StepperTypeError",
    "StepNumber",
    "CLOSED",
    "FRAME_STEP",
    "checked",
    "checked_trace",
    "checked_view",
    "checked_scale",
    "checked_inputs",
    "checked_difference_request",
    "checked_memory_keep",
    "reported_frame",
    "short",
    "plain",
]

CLOSED = (
    "this stepper was closed (stepper.close()): make another with vz.step(...) or vz.Stepper(trace)"
)
#: A frame the browser reports is taken to this many CSS px (a resize by a few px never
#: changes the picture, nor draws it again).
FRAME_STEP = 16


class StepperValueError(ArgumentError, traitlets.TraitError):
    """A value refused by a stepper (a view that is not one, an input that is not a finite
    number, a quiz progress no answer earned): an ArgumentError that is also traitlets'
    TraitError, so that a value sent by the page is rolled back, never kept."""


class StepperTypeError(ArgumentTypeError, traitlets.TraitError):
    """A value of the wrong type for a stepper's setting (rolled back, as StepperValueError)."""


class StepNumber(traitlets.Int):
    """The step traitlet: an int (a number out of range goes to the nearest step, as a
    slider does); anything else is an ArgumentTypeError saying so."""

    def validate(self, obj: Any, value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise StepperTypeError(
                f"stepper.step is a step number: give an int from 1 to the number of steps; "
                f"got {type(value).__name__} {value!r:.40}"
            )
        return super().validate(obj, int(value))


def checked(stepper: Stepper, name: str, value: Any) -> Any:
    """``value`` set to ``stepper``'s synced trait ``name`` (``step``, ``view``, ``scale``,
    ``inputs`` or ``difference_request``) as the stepper keeps it, or a StepperValueError
    (StepperTypeError) that rolls it back."""
    if name == "step":  # out of range: the nearest step, as a slider does
        return min(max(int(value), 1), max(stepper.n_steps, 1))
    if name == "inputs":  # none accepted yet: the stepper being made, its own inputs
        old = stepper._accepted_inputs
        return checked_inputs(old, value, retraceable(stepper.trace)) if old else value
    if name == "view":
        return checked_view(stepper.trace, value)
    if name == "scale":
        return checked_scale(value)
    if name == "memory_keep":
        return checked_memory_keep(stepper, value)
    return checked_difference_request(value)


#: a name's subscript digits as digits ("v₁₂" → "v12"): either is a name of the value
_DIGITS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")


def checked_memory_keep(stepper: Stepper, value: Any) -> list[str] | None:
    """``value`` set to ``stepper.memory_keep`` (a list, or None: its trait's) as the stepper
    keeps it: None (every value stored), or the names of the forward values kept as
    checkpoints ("v₄", or "v4") as the walkthrough writes them, in the forward order, each
    once, without the inputs (always kept); a StepperValueError naming a name that is no
    forward value, or when the stepper shows no memory timeline."""
    if value is None:
        return None
    if not stepper.memory:
        raise StepperValueError(
            "stepper.memory_keep: this stepper shows no memory timeline; make it with "
            "memory=True (vz.step(trace, memory=True)) to choose checkpoints"
        )
    trace = stepper.trace
    values = forward_values(trace)
    place = {trace.label(n).translate(_DIGITS): k for k, n in enumerate(values)}
    kept = set()
    for name in value:
        k = place.get(name.translate(_DIGITS)) if isinstance(name, str) else None
        if k is None:
            first, last = trace.label(values[0]), trace.label(values[-1])
            raise StepperValueError(
                f"stepper.memory_keep: {name!r:.40} is not a value of the forward pass: "
                f"give names of its values, {first} … {last}"
            )
        if not is_input(values[k]):  # an input is always kept
            kept.add(k)
    return [trace.label(values[k]) for k in sorted(kept)]


def checked_trace(trace: Any, view: str | None) -> str:
    """The view a stepper of ``trace`` opens at (``view``, or the trace's default): a
    trace with steps, else an ArgumentTypeError or ArgumentError saying what to give."""
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
    return view


def checked_view(trace: Any, value: str) -> str:
    """``value`` if it is one of ``trace.views`` (a StepperValueError otherwise)."""
    try:
        if not value:  # "" is no view (the trait's default, never a value set)
            raise ArgumentError(f"stepper.view: give one of {', '.join(trace.views)}")
        return trace.view(value)
    except VizadError as exc:  # rolled back: the view stays what it was
        raise StepperValueError(str(exc)) from None


def checked_scale(value: float) -> float:
    """A presentation scale: finite, taken to the nearest of SCALES' bounds."""
    if not math.isfinite(value):
        raise StepperValueError(f"stepper.scale must be a finite number, got {value!r}")
    return min(max(float(value), SCALES[0]), SCALES[1])


def checked_inputs(current: dict, new: dict, retraceable: bool) -> dict:
    """The inputs ``new`` as finite floats, by name, over ``current`` (the inputs last
    accepted): a name that is not an input, a value that is not a number (a str, even "3"),
    NaN or an infinity is refused; so is a change of a walkthrough that cannot be traced
    again (``retraceable`` False: recorded from another engine)."""
    out = {}
    for name, value in new.items():
        if name not in current:
            raise StepperValueError(
                f"stepper.inputs: {short(name)} is not an input of this walkthrough "
                f"(its inputs: {', '.join(map(str, current))})"
            )
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer,
                                                             np.floating)):  # fmt: skip
            raise StepperTypeError(
                f"stepper.inputs: {name} must be a number (int or float), got "
                f"{type(value).__name__} {short(value)}"
            )
        try:
            x = float(value)
        except OverflowError:
            x = math.inf
        if not math.isfinite(x):
            raise StepperValueError(
                f"stepper.inputs: {name} must be a finite number, got {short(value)}; "
                "type another value"
            )
        if x != current[name] and not retraceable:
            raise StepperValueError(
                f"stepper.inputs: {name} is read-only (this walkthrough was recorded "
                "from another engine: vizad cannot trace it again)"
            )
        out[name] = x
    return {**current, **out}


def checked_difference_request(ask: Any) -> Any:
    """A request for a check by finite differences: {} or ``{"step": k, "ask": n}`` (ints)."""
    fields = {"step", "ask"}
    if ask and (
        set(ask) - fields
        or not all(_is_int(ask[k]) and abs(int(ask[k])) < 2**53 for k in fields & set(ask))
    ):
        raise StepperValueError(
            f'stepper.difference_request: give {{"step": k, "ask": n}} (ints), got {short(ask)}'
        )
    return ask


def reported_frame(content: dict) -> tuple[tuple[int, int], float]:
    """The frame a page reports ({"kind": "frame", "width", "height" (CSS px), "scale" (the
    presentation scale), "zoom" (devicePixelRatio)}) as the stepper takes it: (width,
    height) at scale 1, to FRAME_STEP px, and the page's zoom. An ArgumentError when a number
    is missing, not positive or not finite."""
    numbers = {}
    for key in ("width", "height", "scale", "zoom"):
        value = content.get(key, 1.0 if key in ("scale", "zoom") else None)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise ArgumentError(f"frame: {key} must be a number, got {short(value)}")
        if not (math.isfinite(value) and value > 0):
            raise ArgumentError(f"frame: {key} must be positive and finite, got {value!r}")
        numbers[key] = float(value)
    scale = min(max(numbers["scale"], SCALES[0]), SCALES[1])
    width, height = (
        max(FRAME_STEP, FRAME_STEP * round(numbers[k] / scale / FRAME_STEP))
        for k in ("width", "height")
    )
    return (width, height), numbers["zoom"]


def _is_int(x: Any) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def short(value: Any) -> str:
    """``value`` as a message quotes it: its repr, at most 40 characters."""
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def plain(value: Any) -> Any:
    """A request's field as its reply echoes it: a str, int or None (else None)."""
    return value if value is None or isinstance(value, (str, int)) else None
