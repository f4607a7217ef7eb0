"""Which output a front end gets: one rule for the stepper and for drawings laid out in the
browser (as Plotly's renderers choose theirs), decided in the kernel.

- ``"vizad"``: vizad's own MIME type plus the component's HTML. JupyterLab and Notebook 7 with
  vizad's extension show the live widget from it (or the HTML without a kernel); nbconvert,
  nbclient and every other renderer show the HTML, which steps offline.
- ``"widget"``: the widget-view MIME type as well, for front ends with a widget manager but
  without vizad's renderer (Colab, VS Code): there the live widget syncs with Python both
  ways; the HTML stays in the output for a renderer with no widget manager.

``"auto"`` (the default) is ``"widget"`` in Colab (``google.colab`` imported) and VS Code
(``VSCODE_PID`` set), else ``"vizad"``. ``vz.config.display`` (or the environment variable
``VIZAD_DISPLAY``) chooses another. This module imports nothing of vizad but its errors, so
that the drawings (``vizad.view.render``) and the stepper (``vizad.view.widget``) both read it.
"""

from __future__ import annotations

import os
import sys

from vizad.errors import ArgumentError

__all__ = ["DISPLAY_VARIABLE", "DISPLAYS", "config", "display", "Config"]

#: The environment variable read when ``vz.config.display`` is not set.
DISPLAY_VARIABLE = "VIZAD_DISPLAY"
#: The choices of ``vz.config.display`` and of VIZAD_DISPLAY.
DISPLAYS = ("auto", "vizad", "widget")


class Config:
    """vizad's display settings (``vz.config``).

    ``display``: which output a front end gets, one of DISPLAYS, or None (the default: the
    environment variable VIZAD_DISPLAY, else ``"auto"``).
    """

    def __init__(self) -> None:
        self._display: str | None = None

    @property
    def display(self) -> str | None:
        return self._display

    @display.setter
    def display(self, value: str | None) -> None:
        self._display = None if value is None else _choice(value, "vz.config.display")

    def __repr__(self) -> str:
        return f"<vizad config: display={self._display!r} (now {display()!r})>"


#: The one settings object (``vz.config``).
config = Config()


def _choice(value, where: str) -> str:
    choice = str(value).strip().lower() if isinstance(value, str) else value
    if choice not in DISPLAYS:
        raise ArgumentError(
            f"{where} must be one of {', '.join(map(repr, DISPLAYS))} (or None), got {value!r}"
        )
    return choice


def display() -> str:
    """The output front ends get now: ``"widget"`` or ``"vizad"`` (see the module's text)."""
    choice = config.display
    if choice is None:
        choice = _choice(os.environ.get(DISPLAY_VARIABLE, "auto") or "auto", DISPLAY_VARIABLE)
    if choice == "auto":
        widget_only = "google.colab" in sys.modules or bool(os.environ.get("VSCODE_PID"))
        choice = "widget" if widget_only else "vizad"
    if choice == "widget":
        _colab_widgets()
    return choice


_colab_ready = False


def _colab_widgets() -> None:
    """In Colab, turn on its custom widget manager (anywidget's own set-up): once, and only
    where ``google.colab`` is already imported (nothing is imported to find out)."""
    global _colab_ready
    colab = sys.modules.get("google.colab")
    if _colab_ready or colab is None:
        return
    _colab_ready = True
    output = getattr(colab, "output", None)
    enable = getattr(output, "enable_custom_widget_manager", None)
    if callable(enable):
        enable()
