"""The browser component's files (``vizad/view/widget/static/``), read once: the text of its
module and of its CSS, and the Graphviz module that lays graphs out in the browser; and the one
writer of the JSON data elements the component reads (:func:`json_element`).

One component serves the drawings laid out in the browser (``vizad.view.render``), the stepper
widget and the pages without a kernel (``vizad.view.widget``, ``vizad.view.export``): this module
imports nothing of vizad, so that each of them can read the files without importing the
others. Each of them mounts the component by :func:`boot_elements`: a JSON
element saying what to mount, and a module script holding only these files' text (no
JavaScript is written in Python).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any


__all__ = [
    "STATIC",
    "COMPONENT_BUNDLE",
    "component_module",
    "widget_shim",
    "style",
    "graphviz_module",
    "boot_script",
    "boot_code",
    "boot_elements",
    "script_hash",
    "page_policy",
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
def widget_shim() -> str:
    """The text of the module of a Stepper widget whose model does not carry the component
    (``static/shim.js``): it renders with the component loaded in the page, or asks the
    kernel for it."""
    return (STATIC / "shim.js").read_text(encoding="utf-8")


@functools.cache
def style() -> str:
    """The component's CSS (``static/stepper.css``)."""
    return (STATIC / "stepper.css").read_text(encoding="utf-8")


#: Characters a UTF-8 page cannot hold: lone surrogates (JSON reads their escapes back).
_SURROGATE = re.compile("[\ud800-\udfff]")


def json_element(data: Any, element_id: str | None = None) -> str:
    """``data`` as a ``<script type="application/json">`` element, which the component reads
    and no browser runs: with the id ``element_id``, else the mount element
    (``data-vizad-mount``) that ``static/boot.js`` looks for. The JSON holds no "<" (no text
    can close the element) and no lone surrogate."""
    text = json.dumps(data, ensure_ascii=False).replace("<", "\\u003c")
    text = _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    marker = f'id="{element_id}"' if element_id is not None else "data-vizad-mount"
    return f'<script type="application/json" {marker}>{text}</script>'


@functools.lru_cache(maxsize=4)
def graphviz_script(element_id: str) -> str:
    """The Graphviz module (:func:`graphviz_module`, ~0.8 MB) as the JSON data element
    ``element_id`` that the component reads it from: written once per process, not once per
    page or output."""
    return json_element(graphviz_module(), element_id)


@functools.cache
def drawing_style() -> str:
    """The CSS of a drawing shown in a notebook (``static/drawing.css``: vz.draw's HTML)."""
    return (STATIC / "drawing.css").read_text(encoding="utf-8")


@functools.cache
def boot_script() -> str:
    """The few lines that mount the component on the page's mount elements, waiting for it
    when another notebook output of the page carries it (``static/boot.js``)."""
    return (STATIC / "boot.js").read_text(encoding="utf-8")


@functools.lru_cache(maxsize=2)
def boot_code(component: bool) -> str:
    """The exact text of the module script that :func:`boot_elements` writes: the component's
    code when ``component``, then ``static/boot.js``."""
    code = component_module() + "\n" if component else ""
    return f"\n{code}{boot_script()}"


def boot_elements(options: dict, component: bool) -> str:
    """What mounts the component on one element without a kernel (a notebook output's stepper
    or picture, an exported page): a mount element, ``<script type="application/json"
    data-vizad-mount>`` holding ``options`` ({"root": the element's id, "data": its data
    element's id, and how to mount: ``static/boot.js``'s ``vizadBoot``), then a module script
    of files only (:func:`boot_code`): the component's code when ``component`` (else it waits
    for the output of the page that carries it, vizad.view.sharing) and ``static/boot.js``,
    which mounts every mount element of the page not mounted yet."""
    return json_element(options) + f'<script type="module">{boot_code(component)}</script>'


@functools.lru_cache(maxsize=8)
def script_hash(text: str) -> str:
    """The Content-Security-Policy source that lets the inline script whose text is ``text``
    (exactly as written between its tags) run: ``'sha256-…'``, the SHA-256 of its UTF-8 bytes
    in base64."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def page_policy(scripts: Iterable[str], graphviz: bool) -> str:
    """The Content-Security-Policy of a page of vizad's (an exported walkthrough) whose inline
    scripts have the texts ``scripts``: only those run (by their hashes: no inline event
    handler, no ``javascript:`` link, no script from elsewhere), nothing is fetched, framed,
    posted or based elsewhere, so that a markup escape missed somewhere cannot run code or
    send anything out. ``graphviz``: the page carries the Graphviz module and lays graphs out
    in the browser, which needs what the module does (below)."""
    script = [script_hash(text) for text in scripts]
    more = []
    if graphviz:
        # the Graphviz module (text in a JSON element) is imported from a blob: URL that the
        # page's own code makes (static/stepper/layout.js; only running code can make one),
        # compiles its WebAssembly, and runs in a Worker made from a blob: URL
        # (static/stepper/worker.js), which keeps this policy
        script += ["blob:", "'wasm-unsafe-eval'"]
        more.append("worker-src blob:")
    return "; ".join(
        [
            "default-src 'none'",
            f"script-src {' '.join(script)}",
            # the page's <style> element and the style attributes the component sets
            # (sizes, colours; static/stepper/mount.js). CSS runs no code; 'unsafe-inline'
            # rather than hashes, which would not cover style attributes
            "style-src 'unsafe-inline'",
            *more,
            "base-uri 'none'",
            "form-action 'none'",
        ]
    )
