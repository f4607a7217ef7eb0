"""Every step state reads on a projector: the text of a box in any state has a contrast of at
least 4.5:1 (WCAG 2 AA, relative luminance) with the box, on a light page and on a dark one,
as the stepper's CSS shows it (DARK_STATE_STYLE on a dark page, any opacity composited over
the page)."""

from __future__ import annotations

import re

import pytest

import vizad as vz
from vizad.view.render.palette import (
    DARK_STATE_STYLE,
    EDGE_STYLE,
    FRAME_INK,
    KIND_STYLE,
    LIGHT_PAGE_INK,
    STATE_STYLE,
    state_css,
)

#: The page behind the boxes: JupyterLab's light theme and the exported page (white);
#: JupyterLab's dark theme (--jp-layout-color0) and the exported page in dark mode.
PAGES = {"light": ["#ffffff"], "dark": ["#111111", "#1e1e1e"]}
#: The kinds of box a step state is drawn on (filled boxes; a constant is plain text).
BOXES = [kind for kind, look in KIND_STYLE.items() if look["fill"] != "none"]


def rgb(colour: str) -> tuple[float, float, float]:
    colour = colour.lstrip("#")
    return tuple(int(colour[k : k + 2], 16) / 255 for k in (0, 2, 4))


def luminance(c: tuple[float, float, float]) -> float:
    """WCAG 2's relative luminance of an sRGB colour (channels in 0 … 1)."""
    lin = [x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4 for x in c]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a, b) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def over(c, page, alpha: float):
    return tuple(alpha * x + (1 - alpha) * y for x, y in zip(c, page))


def look(kind: str, state: str, theme: str) -> dict[str, str]:
    dark = DARK_STATE_STYLE.get(state, {}) if theme == "dark" else {}
    return {**KIND_STYLE[kind], **STATE_STYLE[state], **dark}


def test_the_measure():
    """The measure itself: black on white is 21:1, #767676 on white just passes 4.5:1, and
    the old "not yet" boxes (grey text, 55 % opacity) were 1.7:1 on white, 2.3:1 on #111."""
    assert contrast(rgb("#000000"), rgb("#ffffff")) == pytest.approx(21)
    assert contrast(rgb("#767676"), rgb("#ffffff")) == pytest.approx(4.54, abs=0.01)
    for page, expected in (("#ffffff", 1.7), ("#111111", 2.3)):
        text = over(rgb("#8a8a8a"), rgb(page), 0.55)
        fill = over(rgb("#f2f2f2"), rgb(page), 0.55)
        assert contrast(text, fill) == pytest.approx(expected, abs=0.05)


@pytest.mark.parametrize("theme", sorted(PAGES))
@pytest.mark.parametrize("state", sorted(STATE_STYLE))
def test_every_state_reads(state, theme):
    for kind in BOXES:
        style = look(kind, state, theme)
        alpha = float(style.get("opacity", "1"))
        for page in PAGES[theme]:
            text = over(rgb(style["text"]), rgb(page), alpha)
            fill = over(rgb(style["fill"]), rgb(page), alpha)
            ratio = contrast(text, fill)
            assert ratio >= 4.5, f"{state} on a {kind} box, {theme} page {page}: {ratio:.2f}:1"


def test_the_css_carries_the_dark_states():
    """The component's CSS gives each DARK_STATE_STYLE change under every dark page's
    selector and in the dark colour scheme, after the light rules (so that it wins)."""
    css = state_css(".vizad-stepper")
    for state, change in DARK_STATE_STYLE.items():
        for selector in ('body[data-jp-theme-light="false"]', "@media (prefers-color-scheme"):
            at = css.index(selector)
            assert css.index(f"g.vz-s-{state}") < at
            rule = css[at:]
            assert f"fill:{change['fill']}" in rule and f"fill:{change['text']}" in rule
    assert not re.search(r"opacity:0\.[0-5]", css), "no state is faded below readability"


def test_every_dark_selector_is_scoped_to_a_dark_page():
    """Each selector of a dark rule's list is under a dark page: a light page never gets a
    dark fill (the fold boxes, drawn as polygons, were black on a light page)."""
    css = state_css(".vizad-stepper")
    dark_fills = {change["fill"] for change in DARK_STATE_STYLE.values()}
    for rule in re.findall(r"([^{}]+)\{([^{}]*)\}", css):
        selectors, body = rule
        if not any(f"fill:{fill}" in body for fill in dark_fills - {"none"}):
            continue
        for selector in selectors.split(","):
            selector = selector.strip()
            assert selector.startswith(
                (
                    'body[data-jp-theme-light="false"]',
                    "body.vscode-dark",
                    "body:not([data-jp-theme-light])",
                )
            ), selector


def test_the_frames_ink_reads_on_every_page():
    """The drawing's frame (graph title, group titles such as "× 45", captions, edge labels,
    the legend's words) and its extension edges: as drawn (FRAME_INK, EDGE_STYLE) they read on
    a dark page, and the component shows them darkened on any other page (LIGHT_PAGE_INK),
    4.5:1 on white; a dark page's rules give back the drawn colours."""
    extension = EDGE_STYLE["extension"]["stroke"]
    assert set(LIGHT_PAGE_INK) == {FRAME_INK, extension}
    for page in PAGES["dark"]:
        for drawn in LIGHT_PAGE_INK:
            assert contrast(rgb(drawn), rgb(page)) >= 4.5, (drawn, page)
    css = state_css(".vizad-stepper").splitlines()
    for drawn, shown in LIGHT_PAGE_INK.items():
        assert contrast(rgb(shown), rgb("#ffffff")) >= 4.5, (drawn, shown)
        for attr in ("fill", "stroke"):
            where = f'.vizad-stepper :where(svg [{attr}="{drawn}"])'
            assert f"{where}{{{attr}:{shown}}}" in css  # on a light page (the default)
            for page in ('body[data-jp-theme-light="false"]', "body.vscode-dark"):
                assert f"{page} {where}{{{attr}:{drawn}}}" in css  # a dark page: as drawn
    # the frame of a drawing is drawn in those colours (the rules find them in its SVG)
    source = vz.draw(vz.examples.lecture(), "adjoint").source
    assert f'fontcolor="{FRAME_INK}"' in source and f'color="{extension}"' in source
