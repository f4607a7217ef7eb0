"""The browser component's files (``vizad/view/widget/static/``), read once: the text of its module
and of its CSS, and the Graphviz module that lays graphs out in the browser.

One component serves the drawings laid out in the browser (``vizad.view.render``), the stepper
widget and the pages without a kernel (``vizad.view.widget``, ``vizad.view.export``): this module
imports only vizad's base layer (``vizad.trace.text``), so that each of them can read the files
without importing the others. Each of them mounts the component by :func:`boot_elements`: a JSON
element saying what to mount, and a module script holding only these files' text (no
JavaScript is written in Python).
"""

from __future__ import annotations

import functools
from pathlib import Path

from vizad.trace.text import json_in_html

__all__ = [
    "STATIC",
    "COMPONENT_BUNDLE",
    "component_module",
    "style",
    "graphviz_module",
    "boot_script",
    "boot_elements",
    "graphviz_script",
    "drawing_style",
]

#: The component's JavaScript and CSS files.
STATIC = Path(__file__).parent / "widget" / "static"

#: The browser component as one ES module: the modules of ``static/stepper/`` (entry
#: ``mount.js``) bundled by esbuild (``make component``); committed, so that users and CI need
#: no Node. Its first line records a hash of the sources it was built from (checked by
#: tests/test_component_bundle.py).
COMPONENT_BUNDLE = STATIC / "stepper.bundle.js"


@functools.cache
def graphviz_module() -> str:
    """The text of the Graphviz module (WebAssembly inlined, ~0.8 MB): the browser imports it
    to lay out graphs when Python has no ``dot`` program. Built by ``make frontend``."""
    return (STATIC / "graphviz.js").read_text(encoding="utf-8")


@functools.cache
def component_module() -> str:
    """The text of the browser component: one ES module (``stepper.bundle.js``, bundled from
    the modules of ``static/stepper/``) for anywidget and the pages."""
    return COMPONENT_BUNDLE.read_text(encoding="utf-8")


@functools.cache
def style() -> str:
    """The component's CSS (``static/stepper.css``)."""
    return (STATIC / "stepper.css").read_text(encoding="utf-8")


@functools.lru_cache(maxsize=4)
def graphviz_script(element_id: str) -> str:
    """The Graphviz module (:func:`graphviz_module`, ~0.8 MB) as the JSON data element
    ``element_id`` that the component reads it from: written once per process, not once per
    page or output."""
    return (
        f'<script type="application/json" id="{element_id}">'
        f"{json_in_html(graphviz_module())}</script>"
    )


@functools.cache
def drawing_style() -> str:
    """The CSS of a drawing shown in a notebook (``static/drawing.css``: vz.draw's HTML)."""
    return (STATIC / "drawing.css").read_text(encoding="utf-8")


@functools.cache
def boot_script() -> str:
    """The few lines that mount the component on the page's mount elements, waiting for it
    when another notebook output of the page carries it (``static/boot.js``)."""
    return (STATIC / "boot.js").read_text(encoding="utf-8")


def boot_elements(options: dict, component: bool) -> str:
    """What mounts the component on one element without a kernel (a notebook output's stepper
    or picture, an exported page): a mount element, ``<script type="application/json"
    data-vizad-mount>`` holding ``options`` ({"root": the element's id, "data": its data
    element's id, and how to mount: ``static/boot.js``'s ``vizadBoot``), then a module script
    of files only: the component's code when ``component`` (else it waits for the output of
    the page that carries it, vizad.view.sharing) and ``static/boot.js``, which mounts every mount
    element of the page not mounted yet."""
    code = component_module() + "\n" if component else ""
    return (
        f'<script type="application/json" data-vizad-mount>{json_in_html(options)}</script>'
        f'<script type="module">\n{code}{boot_script()}</script>'
    )
