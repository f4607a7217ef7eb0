"""Every step state reads on a projector: the text of a box in any state has a contrast of at
least 4.5:1 (WCAG 2 AA, relative luminance) with the box, on a light page and on a dark one,
as the stepper's CSS shows it (DARK_STATE_STYLE on a dark page, any opacity composited over
the page)."""

from __future__ import annotations

import re

import pytest

from vizad.render.palette import DARK_STATE_STYLE, KIND_STYLE, STATE_STYLE, state_css

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


def test_a_dark_pages_colours_stay_on_dark_pages():
    """Every selector of a dark rule names the dark page: a rule "dark page A, B" would give
    B's boxes (a pending band's or fold's polygon) the dark fill on a light page too, a black
    bar (issue 36)."""
    css = state_css(".vizad-stepper")
    inside = css[css.index("@media") :].split("{", 1)[1]  # the colour scheme's own rules
    dark_rules = [r for r in css.split("\n") if r.startswith(("body[", "body."))]
    dark_rules += [r for r in inside.split("\n") if r.strip()]
    assert dark_rules
    for rule in dark_rules:
        for selector in rule.split("{", 1)[0].split(","):
            assert selector.startswith("body"), selector
