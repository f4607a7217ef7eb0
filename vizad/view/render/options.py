"""The drawing options' defaults, written once: ``vz.draw``, ``vz.step``, ``vz.Stepper``,
``vz.export_html``, ``vz.export_frames`` and the command line take the same options under the
same names (``decimals``, ``max_boxes``, ``collapse``, ``detail``, ``budget``) with these
defaults, so that a view drawn one way looks the same drawn another; ``vz.step``,
``vz.Stepper`` and ``vz.export_html`` show them at the presentation ``scale`` (SCALE)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from vizad.errors import ArgumentError
from vizad.view.render.budget import LAYOUT_BUDGET

__all__ = [
    "DECIMALS",
    "MAX_BOXES",
    "LAYOUT_BUDGET",
    "DRAWN_DEFAULTS",
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

#: The options that draw a view, with their defaults (a Stepper's page refuses others: it
#: shows the views as the Stepper drew them).
DRAWN_DEFAULTS = {
    "max_boxes": MAX_BOXES,
    "collapse": None,
    "detail": False,
    "budget": LAYOUT_BUDGET,
}


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
