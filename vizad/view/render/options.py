"""The drawing options' defaults, written once: ``vz.draw``, ``vz.step``, ``vz.Stepper``,
``vz.export_html``, ``vz.export_frames`` and the command line take the same options under the
same names (``decimals``, ``max_boxes``, ``collapse``, ``detail``, ``reads``, ``budget``,
``legend``, ``heading``) with these
defaults, so that a view drawn one way looks the same drawn another; ``vz.step``,
``vz.Stepper`` and ``vz.export_html`` show them at the presentation ``scale`` (SCALE)."""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, TypeVar

from vizad.errors import ArgumentError, ArgumentTypeError
from vizad.view.render.budget import LAYOUT_BUDGET

__all__ = [
    "DrawOptions",
    "draw_options",
    "takes_draw_options",
    "DECIMALS",
    "MAX_BOXES",
    "LAYOUT_BUDGET",
    "SCALE",
    "SCALES",
    "Collapse",
    "decimals_of",
    "check_scale",
]

#: Decimals of the values shown, where no trace gives its own (a trace keeps the decimals it
#: was made with: ``vz.trace_reverse(..., decimals=5)``).
DECIMALS = 3
#: Graphs with more boxes than this are drawn as a summary.
MAX_BOXES = 400
#: What ``collapse=`` accepts: None, a scope depth, ``"repeats"``, a scope's name, or names.
Collapse = int | str | Sequence[str] | None


#: The presentation scale of a stepper (its graph and panel enlarged together; the page's
#: "scale" menu), and the scales it may be given.
SCALE = 1.0
SCALES = (0.25, 4.0)


def check_scale(scale: object, where: str) -> float:
    """``scale`` as a float, or an ArgumentError saying what ``where`` accepts."""
    try:
        value = float(scale)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        value = math.nan
    if isinstance(scale, bool) or not SCALES[0] <= value <= SCALES[1]:
        raise ArgumentError(
            f"{where}: scale must be between {SCALES[0]:g} and {SCALES[1]:g}, got {scale!r}"
        )
    return value


def decimals_of(decimals: int | None, target: object) -> int:
    """``decimals`` if given, else the decimals of ``target`` when it is a trace (it has its
    own), else :data:`DECIMALS`."""
    if decimals is not None:
        return decimals
    own = getattr(target, "decimals", None)
    return own if isinstance(own, int) else DECIMALS


@dataclass(frozen=True)
class DrawOptions:
    """How a view is drawn: one object for ``vz.draw``, ``vz.step``, ``vz.Stepper``,
    ``vz.export_html``, ``vz.export_frames`` and the command line, which take its fields by
    keyword (``vz.draw(trace, detail=True)``) or whole (``options=DrawOptions(detail=True)``;
    keywords given beside it replace its fields)::

        slides = vz.render.DrawOptions(decimals=2, collapse="repeats")
        vz.export_html(trace, "rnn.html", options=slides)
        vz.export_frames(trace, "frames/", options=slides)

    ``decimals``: the decimals of the values shown (None: a trace's own, else 3).
    ``max_boxes``: graphs with more boxes are summarised (the picture says what was
    collapsed). ``collapse``: scopes folded into one box each (a depth, a scope's name or
    names), or ``"repeats"`` for each run of repeated blocks drawn as one stacked box "× k".
    ``detail``: extended views unsimplified (every copy and constant drawn). ``reads``: the
    edges by which extension nodes read forward values. ``budget``: the seconds Graphviz may
    take to lay a view out (None: in full, whatever it costs; see
    :mod:`vizad.view.render.budget`). ``legend``: whether a trace's drawing carries the legend
    of the step states (False: none, for a slide). ``heading``: the drawing's title line and
    its note (what was folded): None, vizad's own; a string, that title instead (escaped, as
    every label), the note kept; False, neither (a slide's own title says it; what a layout
    budget did is still said).

    Examples:
        >>> from vizad.view import render
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> options = render.DrawOptions(decimals=2, detail=True)
        >>> options.decimals, options.max_boxes
        (2, 400)
        >>> type(vz.draw(y, options=options)).__name__
        'Drawing'
    """

    decimals: int | None = None
    max_boxes: int = MAX_BOXES
    collapse: Collapse = None
    detail: bool = False
    reads: bool = False
    budget: float | None = LAYOUT_BUDGET
    legend: bool = True
    heading: str | bool | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.legend, bool):
            raise ArgumentTypeError(f"legend must be True or False, got {self.legend!r}")
        if self.heading is True:  # True: vizad's own, as None
            object.__setattr__(self, "heading", None)
        if self.heading is not None and not isinstance(self.heading, (str, bool)):
            raise ArgumentTypeError(
                "heading must be a string (the drawing's title), False (no title) or None "
                f"(vizad's), got {type(self.heading).__name__}"
            )

    def decimals_for(self, target: object) -> int:
        """The decimals to show ``target`` with: :attr:`decimals`, else a trace's own."""
        return decimals_of(self.decimals, target)

    def layout_args(self, decimals: int) -> dict[str, Any]:
        """The keywords of :class:`~vizad.view.render.Layout` for these options, the values
        shown with ``decimals``."""
        return {
            "decimals": decimals,
            "max_boxes": self.max_boxes,
            "collapse": self.collapse,
            "detail": self.detail,
            "reads": self.reads,
            "budget": self.budget,
            "legend": self.legend,
            "heading": self.heading,
        }

    def given(self) -> list[str]:
        """The fields that differ from their defaults, as ``name=`` (for messages)."""
        return [f"{f.name}=" for f in fields(self) if getattr(self, f.name) != f.default]


#: The fields of :class:`DrawOptions`, in order.
DRAW_OPTIONS = tuple(f.name for f in fields(DrawOptions))


def draw_options(options: DrawOptions | None, given: dict[str, Any], where: str) -> DrawOptions:
    """The drawing options of a call of ``where``: ``options`` (default DrawOptions()) with
    the keywords ``given`` replacing its fields; a keyword that is not a field is Python's
    TypeError, naming the fields."""
    unknown = sorted(set(given) - set(DRAW_OPTIONS))
    if unknown:
        raise TypeError(
            f"{where}() got an unexpected keyword argument {unknown[0]!r} (its drawing options "
            f"are {', '.join(DRAW_OPTIONS)})"
        )
    if options is None:
        return DrawOptions(**given)
    if not isinstance(options, DrawOptions):
        raise ArgumentTypeError(
            f"{where}: options must be a vz.render.DrawOptions, got {type(options).__name__}"
        )
    return replace(options, **given) if given else options


F = TypeVar("F", bound=Callable[..., Any])


def takes_draw_options(function: F) -> F:
    """Show the drawing options in ``function``'s signature (``help()``, IPython's ``?``, the
    API reference) as keyword-only parameters with their defaults, in place of the
    ``**drawing`` that receives them (the function reads them with :func:`draw_options`); a
    ``**kwargs`` of other keywords (a widget's) stays last."""
    signature = inspect.signature(function)
    listed = list(signature.parameters.values())
    kept = [p for p in listed if p.kind is not p.VAR_KEYWORD]
    rest = [p for p in listed if p.kind is p.VAR_KEYWORD and p.name != "drawing"]
    fields_ = [
        inspect.Parameter(
            f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default, annotation=f.type
        )
        for f in fields(DrawOptions)
    ]
    new = signature.replace(parameters=kept + fields_ + rest)
    function.__signature__ = new  # type: ignore[attr-defined]
    return function
