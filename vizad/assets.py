"""The browser component's files (``vizad/widget/static/``), read once: the text of its module
and of its CSS, and the Graphviz module that lays graphs out in the browser.

One component serves the drawings laid out in the browser (``vizad.render``), the stepper
widget and the pages without a kernel (``vizad.widget``, ``vizad.export``): this module imports
nothing of vizad, so that each of them can read the files without importing the others.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

__all__ = [
    "STATIC",
    "COMPONENT_BUNDLE",
    "component_module",
    "style",
    "graphviz_module",
    "boot_script",
    "boot_element",
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


@functools.cache
def boot_script() -> str:
    """The few lines a notebook output runs to mount the component that another output of the
    page carries (``static/boot.js``)."""
    return (STATIC / "boot.js").read_text(encoding="utf-8")


def boot_element(uid: str, options: dict, component: bool) -> str:
    """The module script that mounts the output ``uid`` (its data in element ``uid-data``) by
    ``static/boot.js``'s ``vizadBoot``, carrying the component's code when ``component`` (else
    it waits for the output of the page that carries it): one for steppers and pictures."""
    code = component_module() + "\n" if component else ""
    call = f"vizadBoot({json.dumps(uid)}, {json.dumps(uid + '-data')}, {json.dumps(options)});"
    return f'<script type="module">\n{code}{boot_script()}\n{call}\n</script>'
