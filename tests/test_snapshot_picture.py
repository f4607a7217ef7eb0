"""A stepper's static picture (vizad/view/widget/snapshot.py) is readable and says how to step
through it: its image is never shown so small that its smallest text is under 9 px (fitted to
the output while that holds, else wider, in a frame that scrolls), and its note says how to
trust the notebook; the JupyterLab extension, which writes the picture again when the reader
steps, says the same (issue 44, item 5)."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import vizad as vz
from vizad.view.widget.snapshot import READABLE_PX, STATIC_NOTE, picture_style, snapshot_html

ROOT = Path(__file__).resolve().parents[1]


def _svg(width_pt: float, fonts: list[float], scale: float = 1.0, height_pt: float = 100) -> str:
    texts = "".join(f'<text font-size="{f:.2f}">v</text>' for f in fonts)
    return (
        f'<svg width="{width_pt:.0f}pt" height="{height_pt:.0f}pt" '
        f'viewBox="0.00 0.00 {width_pt:.2f} {height_pt:.2f}">'
        f'<g id="graph0" class="graph" transform="scale({scale} {scale}) rotate(0)">{texts}</g>'
        "</svg>"
    )


def _widths(style: str) -> tuple[int, int]:
    found = re.fullmatch(r"width:100%;min-width:(\d+)px;max-width:(\d+)px;height:auto", style)
    assert found, style
    return int(found[1]), int(found[2])


def test_the_picture_is_never_narrower_than_its_smallest_text_allows():
    # 10 pt text is 13.3 px at the natural size (600 pt = 800 px): readable down to 9/13.3
    least, most = _widths(picture_style(_svg(600, [14, 10, 12])))
    assert (least, most) == (540, 800)
    assert least * (10 * 4 / 3) / 800 >= READABLE_PX
    # Graphviz's graph scale counts (text drawn at half size needs twice the width)
    least, most = _widths(picture_style(_svg(600, [10], scale=0.5)))
    assert (least, most) == (1080, 1080)  # wider than its natural size: its text needs it
    # 6 pt text (8 px at the natural size): shown larger than natural
    least, most = _widths(picture_style(_svg(300, [6])))
    assert least == most == 450
    # no sizes to read: fitted, as before
    assert picture_style("<svg></svg>") == "max-width:100%;height:auto"


def test_the_lectures_picture_is_readable_and_says_how_to_trust():
    stepper = vz.Stepper(vz.examples.lecture())
    html = stepper._repr_mimebundle_()[0]["text/html"]
    image = re.search(
        r'<img alt="[^"]*" style="([^"]+)" src="data:image/svg\+xml;base64,([^"]+)"', html
    )
    assert image, html[:300]
    svg = base64.b64decode(image[2]).decode()
    assert image[1] == picture_style(svg)
    least, most = _widths(image[1])
    natural = float(re.search(r'<svg\b[^>]*?\swidth="([\d.]+)pt"', svg)[1]) * 4 / 3
    assert least < natural <= most + 1  # a 572 px output shows it 757 px wide: it scrolls
    assert f'<div class="vz-muted vz-trust">{STATIC_NOTE}</div>' in html
    for words in ("Trust Notebook", "jupyter trust notebook.ipynb", "run the cell", "reopen"):
        assert words in STATIC_NOTE


def test_a_quiz_and_a_browser_layout_have_no_image_but_the_note():
    html = snapshot_html("t", None, None)
    assert "<img" not in html and STATIC_NOTE in html


def test_the_lab_extension_says_what_the_picture_says():
    """index.js writes the picture again when the reader steps: same note, same sizes."""
    source = (ROOT / "frontend" / "labextension" / "src" / "index.js").read_text(encoding="utf-8")
    found = re.search(r"const STATIC_NOTE =\s*((?:\"[^\"]*\"\s*\+?\s*)+);", source)
    assert found, "no STATIC_NOTE in index.js"
    assert "".join(re.findall(r'"([^"]*)"', found[1])) == STATIC_NOTE
    assert f"const READABLE_PX = {READABLE_PX};" in source
    from vizad.view.widget.snapshot import FRAME_STYLE

    assert f'const FRAME_STYLE = "{FRAME_STYLE}";' in source
    built = "".join(
        p.read_text(encoding="utf-8") for p in (ROOT / "vizad" / "labextension").rglob("*.js")
    )
    assert "vz-trust" in built and "(its file name) in a terminal" in built  # rebuilt
