"""A drawing laid out in the browser: how ``vz.draw(...)`` and a Layout are displayed in Jupyter
when Python has no ``dot`` program (or VIZAD_LAYOUT=browser).

The picture is a small anywidget on the stepper's own module (``static/stepper/``), which
imports the Graphviz module (Graphviz compiled to WebAssembly) from the text sent with it and
lays out the DOT source once. Only the display goes through here: the DOT is made by
``vizad.render.dot`` as always, which imports this module when a drawing is first shown in the
browser (so that drawing loads no widget library).
"""

from __future__ import annotations

import anywidget
import traitlets

from ..assets import component_module, graphviz_module, style
from .palette import MIN_SCALE, NOTEBOOK_WIDTH

__all__ = ["Picture", "picture_bundle"]


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
        picture = {"dot": dot, "maxWidth": NOTEBOOK_WIDTH, "minScale": MIN_SCALE}
        super().__init__(
            picture={**picture, "titles": dict(titles or {})},
            _graphviz=graphviz_module(),
            **kwargs,
        )


def picture_bundle(dot: str, text: str, titles: dict[str, str] | None = None) -> dict:
    """The display data of DOT ``dot`` laid out in the browser, with ``text`` as its plain text
    and ``titles`` (SVG id → text) as the titles (tooltips) of its boxes and edges."""
    data = Picture(dot, titles)._repr_mimebundle_()
    data = data[0] if isinstance(data, tuple) else data
    return {**data, "text/plain": text}
