"""A drawing laid out in the browser: how ``vz.draw(...)`` and a Layout are displayed in Jupyter
when Python has no ``dot`` program (or VIZAD_LAYOUT=browser).

The picture is the stepper's own component (``static/stepper/``), which imports the Graphviz
module (Graphviz compiled to WebAssembly) and lays out the DOT source once: as HTML that starts
it in the page (``picture_html``: JupyterLab, Notebook 7, nbconvert, no kernel needed), and as
a small anywidget too where the front end has a widget manager but not vizad's renderer
(Colab, VS Code: vizad.view.frontends). Only the display goes through here: the DOT is made by
``vizad.view.render.dot`` as always, which imports this module when a drawing is first shown in the
browser (so that drawing loads no widget library).
"""

from __future__ import annotations

import itertools

import anywidget
import traitlets

from vizad.view import frontends

from vizad.view import sharing
from vizad.view.assets import (
    boot_elements,
    component_module,
    graphviz_module,
    graphviz_script,
    json_element,
    style,
)
from vizad.view.render.palette import MIN_SCALE, NOTEBOOK_WIDTH

__all__ = ["Picture", "picture_bundle", "picture_html"]

_ids = itertools.count(1)


class Picture(anywidget.AnyWidget):
    """The DOT source ``dot`` laid out in the browser, sized like a drawing in a notebook (its
    natural size, or narrower down to MIN_SCALE of it when wider than NOTEBOOK_WIDTH px)."""

    # the files' text, not their paths: anywidget watches a path for changes with a callback
    # that holds every widget made from it forever (a leak of every trace ever shown)
    _esm = component_module()
    _css = style()

    picture = traitlets.Dict().tag(sync=True)
    _graphviz = traitlets.Unicode("").tag(sync=True)

    def __init__(self, dot: str, titles: dict[str, str] | None = None, **kwargs):
        super().__init__(
            picture=_picture_data(dot, titles),
            _graphviz=graphviz_module(),
            **kwargs,
        )


def _picture_data(dot: str, titles: dict[str, str] | None = None) -> dict:
    """What the component's picture needs: the DOT, its size rule, and ``titles`` (SVG id →
    text) as the titles (tooltips) of its boxes and edges (the DOT names them by ids)."""
    picture = {"dot": dot, "maxWidth": NOTEBOOK_WIDTH, "minScale": MIN_SCALE}
    return {**picture, "titles": dict(titles or {})}


def picture_html(dot: str, titles: dict[str, str] | None = None) -> str:
    """DOT ``dot`` as HTML that lays it out in the page (the component's picture, started by
    ``static/boot.js``), carrying the component and the Graphviz module if no output of this
    run has yet (vizad.view.sharing)."""
    uid = f"vizad-picture-{next(_ids)}"
    component = sharing.carries(sharing.COMPONENT)
    graphviz = sharing.carries(sharing.GRAPHVIZ)
    return (
        '<div class="vizad-static tex2jax_ignore mathjax_ignore">'
        + (f"<style>{style()}</style>" if component else "")
        + f'<div id="{uid}"><div class="vz-muted">(laid out in the browser where scripts run)'
        "</div></div>"
        + json_element(_picture_data(dot, titles), f"{uid}-data")
        + (graphviz_script("vizad-graphviz") if graphviz else "")
        + boot_elements(
            {"root": uid, "data": uid + "-data", "graphviz": True, "picture": True}, component
        )
        + "</div>"
    )


def picture_bundle(dot: str, text: str, titles: dict[str, str] | None = None) -> dict:
    """The display data of DOT ``dot`` laid out in the browser, with ``text`` as its plain text
    and ``titles`` (SVG id → text) as its boxes' titles,
    by the one rule of vizad.view.frontends: the HTML that lays it out in the page (JupyterLab,
    Notebook 7, nbconvert: a drawing needs no kernel), and the widget too where the front end
    has a widget manager but not vizad's renderer (Colab, VS Code)."""
    data = {"text/html": picture_html(dot, titles), "text/plain": text}
    if frontends.display() == "widget":
        bundle = Picture(dot, titles)._repr_mimebundle_()
        data = {**(bundle[0] if isinstance(bundle, tuple) else bundle), **data}
    return data
