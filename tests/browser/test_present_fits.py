"""Presentation mode shows the whole step on a projector's screen (issue 45): the lecture's
walkthrough and the course's, on an exported page at 1280×800 and 1024×768, at scale 1 and
1.5, in presentation mode; at every step the boxes of the step (its node and the nodes
computing v̄ᵢ, the result among them) are inside the graph's frame, and the step's panel (its
sum, its table of partial adjoints, its derivation) is on the screen, inside its column.
Screenshots: artifacts/present-fits-*.png."""

from __future__ import annotations

import pytest
from conftest import artifact

import vizad as vz

ROOT = ".vizad-stepper"
#: In CSS px: the step's boxes outside the graph's frame, and whether the step's panel is
#: inside its column and the column inside the window.
FIT = """() => {
  const r = document.querySelector('.vizad-stepper');
  const rect = (e) => {
    const b = e.getBoundingClientRect();
    return [b.left, b.top, b.right, b.bottom];
  };
  const within = (a, f) =>
    a[0] >= f[0] - 1 && a[1] >= f[1] - 1 && a[2] <= f[2] + 1 && a[3] <= f[3] + 1;
  const frame = rect(r.querySelector('.vz-viewport'));
  const side = rect(r.querySelector('.vz-side'));
  const panel = rect(r.querySelector('.vz-panel'));
  const lit = '.vz-stage g.node.vz-s-current, .vz-stage g.node.vz-s-involved';
  const boxes = [...r.querySelectorAll(lit)];
  return {
    boxes: boxes.length,
    out: boxes.filter((g) => !within(rect(g), frame)).map((g) => g.id),
    panel: within(panel, side) && within(side, [0, 0, innerWidth, innerHeight]),
    sum: within(rect(r.querySelector('.vz-sum')), [0, 0, innerWidth, innerHeight]),
    present: r.classList.contains('vz-present'),
  };
}"""


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    folder = tmp_path_factory.mktemp("present")
    return {
        (name, scale): vz.export_html(
            getattr(vz.examples, name)(), folder / f"{name}-{scale}.html", scale=scale
        )
        for name in ("lecture", "course")
        for scale in (1.0, 1.5)
    }


@pytest.mark.parametrize("size", [(1280, 800), (1024, 768)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("scale", [1.0, 1.5])
@pytest.mark.parametrize("name", ["lecture", "course"])
def test_presenting_shows_the_whole_step(browser, pages, page_errors, name, scale, size):
    width, height = size
    page = page_errors(browser.new_page(viewport={"width": width, "height": height}))
    page.goto(pages[name, scale].as_uri())
    page.wait_for_selector(f"{ROOT} .vz-stage svg g.node", timeout=60_000)
    page.locator(f"{ROOT} .vz-counter").click()
    page.keyboard.press("f")
    page.wait_for_selector(f"{ROOT}.vz-present")
    n = int(page.locator(f"{ROOT} .vz-slider").get_attribute("max"))
    for k in range(1, n + 1):
        page.locator(f"{ROOT} .vz-slider").fill(str(k))
        page.wait_for_function(
            "k => document.querySelector('.vizad-stepper .vz-counter').textContent"
            ".startsWith(`Step ${k} of`)",
            arg=k,
        )
        page.wait_for_timeout(150)  # followed: the view panned and zoomed to the step
        fit = page.evaluate(FIT)
        assert fit["present"] and fit["boxes"] >= 1, (k, fit)
        assert fit["out"] == [], (name, scale, size, k, fit)
        assert fit["panel"] and fit["sum"], (name, scale, size, k, fit)
        if k == n:
            page.screenshot(path=artifact(f"present-fits-{name}-{width}x{height}-{scale:g}.png"))
    assert not page_errors.errors, "\n".join(page_errors.errors)
    page.close()


def test_a_page_without_legend_or_heading(browser, tmp_path, page_errors):
    """legend=False and heading=False reach the exported page: no legend row, no title."""
    path = vz.export_html(
        vz.examples.lecture(), tmp_path / "slide.html", legend=False, heading=False
    )
    page = page_errors(browser.new_page(viewport={"width": 1280, "height": 800}))
    page.goto(path.as_uri())
    page.wait_for_selector(f"{ROOT} .vz-stage svg g.node", timeout=60_000)
    shown = page.evaluate(
        "() => { const r = document.querySelector('.vizad-stepper');"
        " return [r.querySelectorAll('.vz-legend-item').length,"
        " r.querySelector('.vz-title').textContent,"
        " r.querySelector('.vz-stage svg').textContent.includes('Adjoint graph of')]; }"
    )
    assert shown == [0, "", False]
    assert not page_errors.errors, "\n".join(page_errors.errors)
    page.close()
