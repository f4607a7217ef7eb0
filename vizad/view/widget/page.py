"""The stepper component without a kernel: its JavaScript and CSS files inlined with the
walkthrough's data, as an HTML fragment (the HTML of a Stepper's output, for renderers without
the widget: a saved notebook, nbconvert) or a whole page (vz.export_html).

The fragment starts as a static picture (the current step's SVG and panel, no script needed:
vizad.view.widget.snapshot) that the component replaces wherever inline scripts run.
"""

from __future__ import annotations

import base64
import gzip
import json
import re

from vizad.view.assets import boot_elements, graphviz_script, json_element, style
from vizad.view.widget.data import conceal, packed_json

__all__ = [
    "WALKTHROUGH",
    "fragment",
    "data_script",
    "needs_graphviz",
]


#: The MIME type of a stepper's output, rendered by vizad's JupyterLab / Notebook 7 extension
#: (``frontend/labextension/``): ``{"step": k}``, the step to open at (written back when the
#: reader steps, so a saved notebook reopens there); the widget model's id in its metadata.
WALKTHROUGH = "application/vnd.vizad.walkthrough+json"


def needs_graphviz(data: dict) -> bool:
    """Whether a walkthrough's data leaves a view (or an opened box) for the browser to lay
    out."""
    return "opens" in data or any("dot" in frame for frame in data["frames"].values())


def data_script(data, element_id: str, hidden: bool = False, packed: bool = False) -> str:
    """The walkthrough's data as a JSON script element (vizad.view.assets.json_element: no "<",
    no lone surrogate). ``packed`` (an exported page, a notebook output): gzip-compressed in
    base64 (:func:`~vizad.view.widget.data.packed_json`, about a tenth of the size), which
    ``mount`` inflates; :func:`page_data` reads it back."""
    if hidden:  # a quiz: no answer (panels, rows, pictures) readable in the page's source
        data = {"hidden": conceal(json.dumps(data, ensure_ascii=False), 0)}
    elif packed:
        data = {"gz": packed_json(data)}
    return json_element(data, element_id)


def page_data(page: str, element_id: str = "vz-data") -> dict:
    """The walkthrough's data in ``page``'s script element ``element_id`` (what
    :func:`data_script` wrote, read as ``mount`` reads it; a quiz's stays concealed)."""
    found = re.search(f'id="{re.escape(element_id)}">(.*?)</script>', page, re.S)
    if found is None:
        raise ValueError(f"no data element {element_id!r} in this page")
    data = json.loads(found.group(1))
    if "gz" in data:
        data = json.loads(gzip.decompress(base64.b64decode(data["gz"])))
    return data


def fragment(
    data: dict,
    uid: str,
    snapshot: str,
    step: int = 1,
    hidden: bool = False,
    *,
    component: bool = True,
    graphviz: bool = False,
) -> str:
    """The component as an HTML fragment at ``step``: ``snapshot`` (static HTML) until the
    script runs. The step is the root's ``data-vizad-step`` attribute (the one place the
    JupyterLab extension rewrites when the reader steps, so that a saved notebook's HTML opens
    at the saved step). ``hidden``: a quiz's data, encoded (see data_script). The classes
    ``tex2jax_ignore mathjax_ignore`` keep MathJax away from user text.

    ``component``: the fragment carries the component's code and CSS; ``graphviz``: the
    Graphviz module (for views the browser lays out). Without them its script waits for the
    output of the page that carries them (``static/boot.js``, see vizad.view.sharing), so
    that a notebook holds one copy, not one per output."""
    options = {"root": uid, "data": uid + "-data", "graphviz": needs_graphviz(data)}
    return (
        '<div class="vizad-static tex2jax_ignore mathjax_ignore">'
        + (f"<style>{style()}</style>" if component else "")
        + f'<div id="{uid}" data-vizad-step="{int(step)}">{snapshot}</div>'
        + data_script(data, uid + "-data", hidden=hidden, packed=True)
        + (graphviz_script("vizad-graphviz") if graphviz else "")
        + boot_elements(options, component)
        + "</div>"
    )
