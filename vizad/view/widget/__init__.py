"""The step-through debugger widget. ``Stepper`` and ``step`` are imported on first use: the
widget libraries (anywidget, ipywidgets) load only then, not for an exported page or a
drawing."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vizad.view.widget.entry import step
    from vizad.view.widget.stepper import Stepper

__all__ = ["Stepper", "step"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from vizad.view.widget import entry  # (which imports the stepper's module)

        return getattr(entry, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
