"""The browser component's files (``vizad/widget/static/``), read once: the text of its module
and of its CSS, and the Graphviz module that lays graphs out in the browser.

One component serves the drawings laid out in the browser (``vizad.render``), the stepper
widget and the pages without a kernel (``vizad.widget``, ``vizad.export``): this module imports
nothing of vizad, so that each of them can read the files without importing the others.
"""

from __future__ import annotations

import functools
from pathlib import Path

__all__ = [
    "STATIC",
    "COMPONENT_PARTS",
    "component_module",
    "style",
    "graphviz_module",
    "boot_script",
]

#: The component's JavaScript and CSS files.
STATIC = Path(__file__).parent / "widget" / "static"

#: The files of ``static/stepper/`` in the order they are joined into the component's one ES
#: module (no bundler, no Node): each declares top-level names for the files after it, and only
#: the last one exports. The one list of the parts.
COMPONENT_PARTS = (
    "helpers.js",
    "sanitize.js",
    "layout.js",
    "worker.js",
    "picture.js",
    "viewport.js",
    "drawing.js",
    "player.js",
    "quiz.js",
    "panel.js",
    "expand.js",
    "refused.js",
    "search.js",
    "minimap.js",
    "mount.js",
)


@functools.cache
def graphviz_module() -> str:
    """The text of the Graphviz module (WebAssembly inlined, ~0.8 MB): the browser imports it
    to lay out graphs when Python has no ``dot`` program. Built by ``make frontend``."""
    return (STATIC / "graphviz.js").read_text(encoding="utf-8")


@functools.cache
def component_module() -> str:
    """The text of the browser component: the files of ``static/stepper/`` joined in the order
    of COMPONENT_PARTS, one ES module for anywidget and the pages."""
    return "\n".join(
        (STATIC / "stepper" / part).read_text(encoding="utf-8") for part in COMPONENT_PARTS
    )


@functools.cache
def style() -> str:
    """The component's CSS (``static/stepper.css``)."""
    return (STATIC / "stepper.css").read_text(encoding="utf-8")


@functools.cache
def boot_script() -> str:
    """The few lines a notebook output runs to mount the component that another output of the
    page carries (``static/boot.js``)."""
    return (STATIC / "boot.js").read_text(encoding="utf-8")
