"""What a drawing shows in a notebook: the SVG inside its output's HTML (``vz.draw``'s bundle
stores the picture once, as the HTML's image)."""

from __future__ import annotations

import base64
import re


def shown_svg(bundle: dict) -> str:
    """The SVG of a drawing's notebook bundle (the image of its ``text/html``)."""
    found = re.search(r'src="data:image/svg\+xml;base64,([^"]+)"', bundle["text/html"])
    assert found, "no image in the drawing's HTML"
    return base64.b64decode(found[1]).decode()
