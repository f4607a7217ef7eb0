"""The memory timeline in the room (issue 49): with vz.step(..., memory=True) the step's result
box (inside the graph's frame), the player, the timeline's chart and, stacked, the step panel's
head are on screen together, at every step, in JupyterLab 4 at 1024×768 with its file browser
open (the stepper stacked in the narrow notebook) and closed, and in an exported page at
1024×768 and 640×640. In JupyterLab a stepper just under its code cell is cut at the area's
bottom (the room is sized for the component scrolled to its top): a step taken in it scrolls
the notebook the least that shows the timeline, the frame's top kept in view.
Screenshots: artifacts/memory-room-*.png."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import artifact, settled, write_notebook

import vizad as vz

ROOT = ".vizad-stepper"
LAYERS = 12

#: Stepper k (scrolled to the top of its scrolled area first when `top`): the rects (px, in
#: the window) of what must be seen together, and the part of the window its area shows
#: (JupyterLab's notebook, else the window).
MEASURE = """([k, top]) => {
  const root = document.querySelectorAll('.vizad-stepper')[k];
  const area = root.closest('.jp-WindowedPanel-outer');
  const y = root.getBoundingClientRect().top;
  if (top && area) area.scrollTop += y - area.getBoundingClientRect().top;
  else if (top) window.scrollTo(0, y + window.scrollY);
  const a = area ? area.getBoundingClientRect()
    : { top: 0, bottom: innerHeight, left: 0, right: innerWidth };
  const seen = { top: Math.max(a.top, 0), bottom: Math.min(a.bottom, innerHeight),
                 left: Math.max(a.left, 0), right: Math.min(a.right, innerWidth) };
  const rect = (s) => { const e = root.querySelector(s); if (!e) return null;
    const b = e.getBoundingClientRect();
    return { top: b.top, bottom: b.bottom, left: b.left, right: b.right }; };
  return { seen, wide: root.classList.contains('vz-wide'),
           step: root.querySelector('.vz-counter').textContent,
           frame: rect('.vz-viewport'), result: rect('.vz-stage g.node.vz-result'),
           controls: rect('.vz-controls'), chart: rect('.vz-memory-chart'),
           head: rect('.vz-step-panel .vz-head') };
}"""


def _inside(b: dict | None, o: dict) -> bool:
    return (
        b is not None
        and b["top"] >= o["top"] - 1
        and b["bottom"] <= o["bottom"] + 1
        and b["left"] >= o["left"] - 1
        and b["right"] <= o["right"] + 1
    )


def out_of_view(m: dict) -> list[str]:
    """The parts of MEASURE's answer not seen: frame, player, chart and (stacked) the panel's
    head outside the area seen, the step's result outside the frame."""
    parts = ["frame", "controls", "chart"] + ([] if m["wide"] else ["head"])
    bad = [p for p in parts if not _inside(m[p], m["seen"])]
    if not _inside(m["result"], m["frame"]):
        bad.append("result")
    return bad


def walk(page, k: int, where: str) -> list[tuple[str, list[str]]]:
    """Every step of stepper k, scrolled to its top, by →: the parts out of view at each."""
    page.evaluate(MEASURE, [k, True])
    page.locator(f"{ROOT} .vz-counter").nth(k).click()
    page.keyboard.press("Home")
    n = int(page.locator(f"{ROOT} .vz-slider").nth(k).get_attribute("max"))
    seen = []
    for step in range(1, n + 1):
        settled(page, 3)
        m = page.evaluate(MEASURE, [k, True])
        assert m["step"].startswith(f"Step {step} of {n}"), m["step"]
        seen.append((m["step"], out_of_view(m)))
        if step == 2:
            page.screenshot(path=artifact(f"memory-room-{where}-{k}-step2.png"))
        page.keyboard.press("ArrowRight")
    return [(s, bad) for s, bad in seen if bad]


def chain_trace():
    x = vz.Variable("x")
    layers = [x]
    for _ in range(LAYERS):
        layers.append(vz.tanh(layers[-1]))
    return vz.trace_reverse(vz.sum(layers[-1]), x, {x: np.linspace(-1, 1, 3)})


CELLS = [
    "import numpy as np\nimport vizad as vz\n"
    "x = vz.Variable('x')\nlayers = [x]\n"
    f"for _ in range({LAYERS}):\n    layers.append(vz.tanh(layers[-1]))\n"
    "trace = vz.trace_reverse(vz.sum(layers[-1]), x, {x: np.linspace(-1, 1, 3)})\n"
    "vz.step(trace, view='forward', memory=True)",
    "vz.step(vz.examples.mlp(), memory=True)",
]


def test_the_timeline_is_in_view_in_jupyterlab(browser, jupyterlab, page_errors):
    """JupyterLab 4 at 1024×768, the file browser open: the first stepper as the cell's run
    leaves it (under its code, its timeline cut at the bottom), then a step taken in it; then
    both steppers at every step scrolled to their top; then the file browser closed."""
    from test_jupyterlab import _delete_sessions
    from test_room import _open

    url, root = jupyterlab
    write_notebook(root / "memory-room.ipynb", CELLS)
    _delete_sessions(url)
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = page_errors(context.new_page())
    _open(page, url, "memory-room.ipynb")
    page.wait_for_function(
        "() => [...document.querySelectorAll('.vizad-stepper')]"
        ".filter((r) => r.querySelector('.vz-stage svg g.node')).length === 2",
        timeout=120_000,
    )
    page.wait_for_timeout(1500)  # the frames reported, the pictures for them drawn
    page.evaluate("() => document.querySelector('.jp-WindowedPanel-outer').scrollTop = 0")
    settled(page, 3)
    before = page.evaluate(MEASURE, [0, False])
    page.screenshot(path=artifact("memory-room-lab-open-under-code.png"))
    print(f"\nunder its code cell: {out_of_view(before)} out of view")
    page.locator(f"{ROOT} .vz-next").first.click()
    page.wait_for_function(
        "() => document.querySelector('.vizad-stepper .vz-counter').textContent"
        ".startsWith('Step 2 of')"
    )
    settled(page, 3)
    after = page.evaluate(MEASURE, [0, False])
    page.screenshot(path=artifact("memory-room-lab-open-after-a-step.png"))
    assert not after["wide"]  # stacked: the notebook is narrow with the file browser open
    assert out_of_view(after) == [], after
    assert after["frame"]["top"] >= after["seen"]["top"] - 1
    # stepping on does not scroll again once all is seen (the frame may get shorter: the
    # panel's rows grow)
    page.keyboard.press("ArrowRight")
    settled(page, 3)
    again = page.evaluate(MEASURE, [0, False])
    assert again["frame"]["top"] == after["frame"]["top"]
    assert out_of_view(again) == [], again

    opened = {k: walk(page, k, "lab-open") for k in range(2)}
    page.locator(".jp-SideBar .lm-TabBar-tab[data-id='filebrowser']").click()
    page.wait_for_selector(".jp-FileBrowser", state="hidden")
    page.wait_for_timeout(1500)
    closed = {k: walk(page, k, "lab-closed") for k in range(2)}
    wide = page.evaluate(MEASURE, [0, True])["wide"]
    context.close()
    assert opened == {0: [], 1: []}, opened
    assert closed == {0: [], 1: []}, closed
    assert wide
    assert not page_errors.errors, "\n".join(page_errors.errors)


@pytest.mark.parametrize("size", [(1024, 768), (640, 640)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_timeline_is_in_view_in_an_exported_page(browser, page_errors, tmp_path, size):
    width, height = size
    traces = {"chain": chain_trace(), "mlp": vz.examples.mlp()}
    for name, trace in traces.items():
        path = vz.export_html(trace, tmp_path / f"{name}.html", memory=True)
        page = page_errors(browser.new_page(viewport={"width": width, "height": height}))
        page.goto(path.as_uri())
        page.wait_for_selector(f"{ROOT} .vz-stage svg g.node", timeout=60_000)
        bad = walk(page, 0, f"{name}-{width}x{height}")
        page.close()
        assert bad == [], (name, bad)
    assert not page_errors.errors, "\n".join(page_errors.errors)
