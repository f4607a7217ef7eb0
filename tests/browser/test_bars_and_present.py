"""What a dense walkthrough looks like (issue 36), on exported pages in headless Chromium:
bands and folds are never drawn as black bars (the screenshot's pixels of each collapsed box,
sampled: no large area near black), and presentation mode at 1024×768 cuts nothing (the step
panel's table of partial adjoints inside its column, the panel's key line in view).
Screenshots: artifacts/bars-*.png, artifacts/present-1024x768-*.png."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

import vizad as vz
from conftest import artifact

ROOT = ".vizad-stepper"
#: A pixel this dark (0 … 255, the darkest channel's mean) is "near black": the dark pages'
#: pending fill (#2b2b2b) is 43; the darkest text of a light page's box is #5e5e5e (94).
DARK = 60
#: At most this share of a collapsed box's pixels may be near black (its outline, text).
DARK_SHARE = 0.15


def _dense_random():
    """A random graph of 600 nodes: its adjoint view is summarised into bands."""
    rng = np.random.default_rng(5)
    xs = [vz.Variable(f"x{k}") for k in range(10)]
    nodes = list(xs)
    while len(nodes) < 600:
        a, b = rng.integers(max(0, len(nodes) - 20), len(nodes), 2)
        nodes.append(nodes[a] * nodes[b] if rng.random() < 0.5 else vz.tanh(nodes[a]))
    return vz.trace_reverse(vz.ops.add_n(*nodes[-4:]), xs, {x: 0.3 for x in xs})


def _page(browser, path, width=1024, height=768):
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(path.as_uri())
    page.wait_for_selector(f"{ROOT} .vz-stage svg g.node", timeout=60_000)
    page.wait_for_timeout(300)
    return page


#: The boxes that stand for others (folds, bands, collapsed scopes) on screen, each clipped to
#: the graph's frame: [id, x, y, width, height] in CSS px.
COLLAPSED = """() => {
  const f = document.querySelector('.vizad-stepper .vz-viewport').getBoundingClientRect();
  const stage = document.querySelector('.vizad-stepper .vz-stage');
  const boxes = "g.node.vz-collapsible, g.node[id^='band_'], g.node[id^='fold_']";
  return [...stage.querySelectorAll(boxes)]
    .map((g) => {
      const b = g.getBoundingClientRect();
      const x0 = Math.max(b.left, f.left), y0 = Math.max(b.top, f.top);
      const x1 = Math.min(b.right, f.right), y1 = Math.min(b.bottom, f.bottom);
      return [g.id, x0, y0, x1 - x0, y1 - y0];
    })
    .filter(([, , , w, h]) => w >= 12 && h >= 12);
}"""


def _dark_shares(page) -> dict[str, float]:
    """Per collapsed box on screen, the share of its pixels near black (screenshot)."""
    shot = np.asarray(Image.open(io.BytesIO(page.screenshot())).convert("RGB"), dtype=float)
    scale = shot.shape[1] / page.viewport_size["width"]
    shares = {}
    for box, x, y, w, h in page.evaluate(COLLAPSED):
        x0, y0 = int(x * scale) + 2, int(y * scale) + 2  # inside its outline
        x1, y1 = int((x + w) * scale) - 2, int((y + h) * scale) - 2
        pixels = shot[y0:y1, x0:x1].mean(axis=2)
        shares[box] = float((pixels < DARK).mean()) if pixels.size else 0.0
    return shares


@pytest.mark.parametrize("name", ["rnn100", "bands"])
def test_bands_and_folds_are_not_drawn_as_black_bars(browser, tmp_path, name):
    trace = vz.examples.rnn(100) if name == "rnn100" else _dense_random()
    page = _page(browser, vz.export_html(trace, tmp_path / f"{name}.html"))
    seen = 0
    for view in ("adjoint", "forward") if name == "rnn100" else ("adjoint",):  # bands there
        page.locator(f"{ROOT} .vz-views button[data-view='{view}']").click()
        page.wait_for_function(
            "(v) => { const r = document.querySelector('.vizad-stepper');"
            " return r.querySelector(`.vz-views button[data-view='${v}']`)"
            ".getAttribute('aria-pressed') === 'true' && r.dataset.layout !== 'busy'"
            " && r.querySelector('.vz-stage svg g.node'); }",
            arg=view,
            timeout=60_000,
        )
        for step in ("first", "middle"):
            if step == "middle":  # half the walkthrough: some boxes done, some pending
                n = int(page.locator(f"{ROOT} .vz-slider").get_attribute("max"))
                page.locator(f"{ROOT} .vz-slider").fill(str(n // 2))
            page.wait_for_timeout(400)  # followed: the step's boxes in view, readable
            shares = _dark_shares(page)
            print(f"\n{name} {view} {step}: {len(shares)} collapsed boxes, dark shares {shares}")
            assert shares, "a collapsed box on screen"
            assert max(shares.values()) <= DARK_SHARE, shares
            seen += len(shares)
        page.screenshot(path=artifact(f"bars-{name}-{view}.png"))
    assert seen
    page.close()


#: In presentation mode: the step panel's column, its table of partial adjoints and its sum
#: line (v̄ᵢ = Σ … = value), in CSS px.
PANEL = """() => {
  const root = document.querySelector('.vizad-stepper');
  const side = root.querySelector('.vz-side');
  const s = side.getBoundingClientRect();
  const table = side.querySelector('.vz-contributions');
  const t = table && table.getBoundingClientRect();
  const sum = side.querySelector('.vz-sum').getBoundingClientRect();
  const r = root.getBoundingClientRect();
  return { side: [s.left, s.right], table: t && [t.left, t.right], root: [r.left, r.right],
           sum: [sum.top, sum.bottom, sum.left, sum.right], window: [innerWidth, innerHeight],
           scroll: [side.scrollWidth, side.clientWidth],
           present: root.classList.contains('vz-present') };
}"""


@pytest.mark.parametrize("name", ["rnn45", "mlp"])
def test_presentation_at_1024_cuts_nothing(browser, tmp_path, name):
    trace = vz.examples.rnn(45) if name == "rnn45" else vz.examples.mlp()
    page = _page(browser, vz.export_html(trace, tmp_path / f"{name}.html"))
    page.locator(f"{ROOT} .vz-counter").click()
    page.keyboard.press("f")
    page.wait_for_selector(f"{ROOT}.vz-present")
    page.wait_for_timeout(500)
    n = int(page.locator(f"{ROOT} .vz-slider").get_attribute("max"))
    checked = 0
    for k in range(2, n + 1, max(1, n // 12)):  # steps with partial adjoints to show
        page.locator(f"{ROOT} .vz-slider").fill(str(k))
        page.wait_for_timeout(60)
        p = page.evaluate(PANEL)
        assert p["present"]
        if p["table"] is None:
            continue
        checked += 1
        assert p["side"][1] <= p["root"][1] + 1 and p["side"][1] <= p["window"][0] + 1, p
        assert p["side"][0] - 1 <= p["table"][0] and p["table"][1] <= p["side"][1] + 1, (k, p)
        assert p["scroll"][0] <= p["scroll"][1] + 1, (k, p)  # nothing to scroll sideways
        top, bottom, left, right = p["sum"]
        assert 0 <= top and bottom <= p["window"][1] and right <= p["side"][1] + 1, (k, p)
        if k == 2 or checked == 3:
            page.screenshot(path=artifact(f"present-1024x768-{name}-{k}.png"))
    assert checked
    page.close()
