"""WCAG 2.1 AA for the stepper (issue 44, item 7), in headless Chromium at 1024×768.

axe-core (tests/browser/axe.py: the WCAG 2.0/2.1 A and AA rules) finds no serious or critical
violation in vizad's component — in JupyterLab, in Notebook 7, in the exported page (the
lecture, a 2-layer MLP and rnn(45), light and dark, every view, first and last steps,
presenting) and in the JupyterLite site. axe is scoped to the component (``.vizad-stepper``):
the pages around it (JupyterLab's and Notebook 7's own toolbars, JupyterLite's) are not
vizad's, and their own findings are not ours to fix.

A keyboard-only walkthrough of the lecture (``page.keyboard.press`` only, no click): Tab into
the graph lands on the step's box with a visible focus ring (a 3 px outline, ≥ 3:1 against
the background around it); → and ← reach every box; Enter on a box goes to its step; the
live region says each step's derivation ("Step 6 of 7: v̄₂ = … = 1.716"). And with
prefers-reduced-motion, nothing in the component moves by transition or animation.
"""

from __future__ import annotations

import re
import shutil

import pytest

import vizad as vz
from axe import axe, serious, summary
from conftest import artifact, settled

ROOT = ".vizad-stepper"
#: the lecture's derivation line at steps 1 … 7 (vizad/trace/panel.py's "line"), as the live
#: region says it
LECTURE_LINES = [
    "v̄₇ = ∂y/∂v₇ = 1",
    "v̄₆ = v̄₇ ∂v₇/∂v₆ = v̄₇ = 1",
    "v̄₅ = v̄₇ ∂v₇/∂v₅ = -v̄₇ = -1",
    "v̄₄ = v̄₆ ∂v₆/∂v₄ = v̄₆ = 1",
    "v̄₃ = v̄₆ ∂v₆/∂v₃ = v̄₆ = 1",
    "v̄₂ = v̄₅ ∂v₅/∂v₂ + v̄₄ ∂v₄/∂v₂ = v̄₅ cos v₂ + v̄₄ v₁ = -0.284 + 2 = 1.716",
    "v̄₁ = v̄₄ ∂v₄/∂v₁ + v̄₃ ∂v₃/∂v₁ = v̄₄ v₂ + v̄₃/v₁ = 5 + 0.5 = 5.5",
]
ACTIVE_BOX = (
    "() => { const a = document.activeElement;"
    " return a && a.matches('.vizad-stepper .vz-stage g.node') ? a.id : null; }"
)


def _no_serious(page, where: str, context: str = ROOT) -> list[dict]:
    """axe's violations in ``context``; fails on any serious or critical one."""
    found = axe(page, context)
    bad = serious(found)
    assert not bad, f"{where}: axe finds\n{summary(bad)}"
    return found


def _announced(page) -> str:
    return page.locator(f"{ROOT} .vz-announce").text_content()


def _wait_announced(page, text: str) -> None:
    page.wait_for_function(
        "t => document.querySelector('.vizad-stepper .vz-announce').textContent === t", arg=text
    )


def _relative_luminance(rgb: tuple[int, ...]) -> float:
    def linear(c: int) -> float:
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a: str, b: str) -> float:
    """WCAG's contrast ratio of two CSS colours written rgb(…)."""
    la, lb = (_relative_luminance(tuple(int(x) for x in re.findall(r"\d+", c)[:3])) for c in (a, b))
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def _ring(page) -> dict:
    """The focus ring: shown or not, its computed outline, the background it is drawn
    between (its box-shadow's colour), its rectangle and the focused box's."""
    return page.evaluate(
        """() => {
             const ring = document.querySelector('.vizad-stepper .vz-focus-ring');
             const s = getComputedStyle(ring);
             const box = document.activeElement.getBoundingClientRect();
             const r = ring.getBoundingClientRect();
             return { shown: !ring.hidden && s.display !== 'none',
                      width: parseFloat(s.outlineWidth), style: s.outlineStyle,
                      colour: s.outlineColor,
                      halo: s.boxShadow.match(/rgba?\\([^)]*\\)/)[0],
                      ring: [r.left, r.top, r.right, r.bottom],
                      box: [box.left, box.top, box.right, box.bottom] }; }"""
    )


def _focus_visible(page, where: str) -> None:
    ring = _ring(page)
    assert ring["shown"], f"{where}: no focus ring"
    assert ring["width"] >= 2 and ring["style"] == "solid", f"{where}: {ring}"
    assert _contrast(ring["colour"], ring["halo"]) >= 3, f"{where}: {ring}"
    (rl, rt, rr, rb), (bl, bt, br, bb) = ring["ring"], ring["box"]
    assert rl <= bl and rt <= bt and rr >= br and rb >= bb, f"{where}: ring not around: {ring}"


def _axe_every_view(page, where: str) -> None:
    """axe at the opening step, the last and the one before, in each view; then presenting."""
    views = page.locator(f"{ROOT} .vz-view")
    for v in range(views.count()):
        views.nth(v).focus()
        page.keyboard.press("Enter")  # the view's button
        page.wait_for_selector(f"{ROOT} .vz-stage svg", timeout=60_000)
        page.locator(ROOT).focus()
        for key in ("", "End", "ArrowLeft"):
            if key:
                page.keyboard.press(key)
            settled(page)
            _no_serious(page, f"{where}, view {v + 1}, {key or 'opening step'}")
    page.keyboard.press("f")
    page.wait_for_selector(f"{ROOT}.vz-present")
    settled(page)
    _no_serious(page, f"{where}, presenting")
    page.keyboard.press("f")


@pytest.mark.parametrize("name", ["lecture", "mlp", "rnn45"])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_in_the_exported_page(browser, tmp_path, page_errors, name, scheme):
    trace = vz.examples.rnn(45) if name == "rnn45" else getattr(vz.examples, name)()
    path = vz.export_html(trace, tmp_path / f"{name}.html")
    context = browser.new_context(
        offline=True, viewport={"width": 1024, "height": 768}, color_scheme=scheme
    )
    page = page_errors(context.new_page())
    page.goto(path.as_uri())
    page.wait_for_selector(f"{ROOT} .vz-panel")
    page.wait_for_selector(f"{ROOT} .vz-stage svg", timeout=60_000)
    _axe_every_view(page, f"{name} ({scheme})")
    context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)


def test_axe_in_jupyterlab(browser, jupyterlab, page_errors):
    from test_jupyterlab import NOTEBOOK, _delete_sessions, _open_and_run, _wait_step

    url, root = jupyterlab
    shutil.copy(NOTEBOOK, root / "a11y.ipynb")
    _delete_sessions(url)
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = page_errors(context.new_page())
    _open_and_run(page, f"{url}/lab/tree/a11y.ipynb?reset", "a11y-jupyterlab")
    _no_serious(page, "JupyterLab, step 1")
    # vizad's other output in the notebook, the trace's table, is vizad's too
    _no_serious(page, "JupyterLab, the trace's table", ".vizad-trace")
    page.locator(f"{ROOT} .vz-counter").click()  # the component has the keys
    page.keyboard.press("End")
    _wait_step(page, 7)
    _no_serious(page, "JupyterLab, step 7")
    # Tab into the graph from the component: its step's box, with the ring, in JupyterLab too
    for _ in range(30):
        page.keyboard.press("Tab")
        if page.evaluate(ACTIVE_BOX):
            break
    assert page.evaluate(ACTIVE_BOX) == "v1"  # step 7's box (the lecture's v₁)
    _focus_visible(page, "JupyterLab, Tab into the graph")
    page.screenshot(path=artifact("a11y-jupyterlab-focused-box.png"))
    _no_serious(page, "JupyterLab, a box focused")
    context.close()


def test_axe_in_notebook7(browser, notebook7, page_errors):
    from test_jupyterlab import NOTEBOOK, _delete_sessions, _open_and_run, _wait_step

    url, root = notebook7
    shutil.copy(NOTEBOOK, root / "a11y.ipynb")
    _delete_sessions(url)
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = page_errors(context.new_page())
    _open_and_run(page, f"{url}/notebooks/a11y.ipynb", "a11y-notebook7")
    _no_serious(page, "Notebook 7, step 1")
    page.locator(f"{ROOT} .vz-counter").click()
    page.keyboard.press("End")
    _wait_step(page, 7)
    _no_serious(page, "Notebook 7, step 7")
    context.close()


def test_axe_in_the_site(browser, page_errors):
    """The first tutorial of the JupyterLite site (built by `make site`) that stores a
    walkthrough, with no kernel (as test_site.py serves it)."""
    from built import require
    from test_site import NOTEBOOK, SITE, WALKTHROUGHS, _QuietHandler, _scroll_to_walkthrough

    require(SITE / "index.html", "make site")
    import functools
    import http.server
    import threading

    handler = functools.partial(_QuietHandler, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    site = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        context = browser.new_context(viewport={"width": 1024, "height": 768})
        context.route(lambda url: not url.startswith(site), lambda route: route.abort())
        page = context.new_page()
        name = sorted(WALKTHROUGHS)[0]
        page.goto(f"{site}/lab/index.html?path={name}")
        page.wait_for_selector(f"{NOTEBOOK} .jp-Notebook .jp-Cell", timeout=60_000)
        root = _scroll_to_walkthrough(page, 0)
        root.locator(".vz-stage svg").wait_for(timeout=60_000)
        _no_serious(page, f"the site's {name}", f"{NOTEBOOK} .vizad-walkthrough {ROOT}")
        context.close()
    finally:
        server.shutdown()
        server.server_close()


def test_keyboard_only_walkthrough_of_the_lecture(browser, tmp_path, page_errors):
    stepper = vz.Stepper(vz.examples.lecture())
    frame = stepper.data["frames"][stepper.data["view"]]
    path = vz.export_html(stepper, tmp_path / "lecture.html")
    context = browser.new_context(offline=True, viewport={"width": 1024, "height": 768})
    page = page_errors(context.new_page())
    page.goto(path.as_uri())
    page.wait_for_selector(f"{ROOT} .vz-stage svg")
    live = page.locator(f"{ROOT} .vz-announce")
    assert live.get_attribute("aria-live") == "polite"
    assert _announced(page) == f"Step 1 of 7: {LECTURE_LINES[0]}"
    # the graph: a named group described by the step panel (its text alternative)
    svg = page.locator(f"{ROOT} .vz-stage svg")
    assert svg.get_attribute("role") == "group"
    assert "step panel" in svg.get_attribute("aria-label")
    described = svg.get_attribute("aria-describedby")
    assert page.locator(f"#{described}").inner_text().startswith("Step 1 of 7: v₇ = v₆ - v₅")
    # Tab into the graph: the step's own box (the page gives the component the keys first)
    for _ in range(30):
        page.keyboard.press("Tab")
        if page.evaluate(ACTIVE_BOX):
            break
    assert page.evaluate(ACTIVE_BOX) == frame["steps"][0]["current"]
    _focus_visible(page, "Tab into the graph")
    page.screenshot(path=artifact("a11y-focused-box.png"))
    name = page.evaluate("() => document.activeElement.getAttribute('aria-label')")
    assert name.startswith("v₇; = v₆ - v₅; = 11.652") and "Enter: step 1" in name, name
    # every step, by keys, the focus staying on its box; the live region says the derivation
    for k in range(2, 8):
        page.keyboard.press("PageDown")
        _wait_announced(page, f"Step {k} of 7: {LECTURE_LINES[k - 1]}")
        assert page.evaluate(ACTIVE_BOX) == frame["steps"][0]["current"]
        _focus_visible(page, f"step {k}")
    page.keyboard.press("Home")
    _wait_announced(page, f"Step 1 of 7: {LECTURE_LINES[0]}")
    # every box, by ← then →, in reading order; the ring follows
    seen = [page.evaluate(ACTIVE_BOX)]
    for _ in range(len(frame["clicks"]) + 5):
        page.keyboard.press("ArrowLeft")
        seen.append(page.evaluate(ACTIVE_BOX))
    first = seen[-1]
    assert seen[-2] == first, "← stops at the first box"
    order = [first]
    for _ in range(len(frame["clicks"]) + 5):
        page.keyboard.press("ArrowRight")
        order.append(page.evaluate(ACTIVE_BOX))
        _focus_visible(page, f"box {order[-1]}")
    boxes = page.evaluate(
        "() => [...document.querySelectorAll('.vizad-stepper .vz-stage g.node')].map(g => g.id)"
    )
    assert set(order) == set(boxes), set(boxes) - set(order)
    # ↓ from the first box (the top row's left) goes to a box lower down, ↑ back up
    middle = (
        "(id) => { const r = document.getElementById(id).getBoundingClientRect();"
        " return (r.top + r.bottom) / 2; }"
    )
    for _ in range(len(boxes)):
        page.keyboard.press("ArrowLeft")
    assert page.evaluate(ACTIVE_BOX) == first
    page.keyboard.press("ArrowDown")
    below = page.evaluate(ACTIVE_BOX)
    assert page.evaluate(middle, below) > page.evaluate(middle, first)
    page.keyboard.press("ArrowUp")
    assert page.evaluate(middle, page.evaluate(ACTIVE_BOX)) < page.evaluate(middle, below)
    # Enter on the box v̄₂'s step computes (step 6), reached with the arrows
    target = next(i for i, k in frame["clicks"].items() if k == 5 and i in boxes)
    for _ in range(len(boxes)):
        page.keyboard.press("ArrowLeft")
    for _ in range(len(boxes)):
        if page.evaluate(ACTIVE_BOX) == target:
            break
        page.keyboard.press("ArrowRight")
    assert page.evaluate(ACTIVE_BOX) == target
    page.keyboard.press("Enter")
    _wait_announced(page, f"Step 6 of 7: {LECTURE_LINES[5]}")
    assert page.locator(f"{ROOT} .vz-counter").inner_text().startswith("Step 6 of 7")
    assert page.evaluate(ACTIVE_BOX) == target  # the focus stays where it was
    _focus_visible(page, "Enter on a box")
    page.locator(ROOT).screenshot(path=artifact("a11y-step6-by-keys.png"))
    _no_serious(page, "a box focused at step 6")
    # the player's keys still work from a box (Home: the first step)
    page.keyboard.press("Home")
    _wait_announced(page, f"Step 1 of 7: {LECTURE_LINES[0]}")
    # Tab leaves the graph for the next control (the boxes are one stop)
    page.keyboard.press("Tab")
    assert page.evaluate(ACTIVE_BOX) is None
    context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)


def test_reduced_motion_turns_transitions_off(browser, tmp_path):
    path = vz.export_html(vz.examples.lecture(), tmp_path / "lecture.html")
    durations = {}
    for motion in ("no-preference", "reduce"):
        context = browser.new_context(
            offline=True, viewport={"width": 1024, "height": 768}, reduced_motion=motion
        )
        page = context.new_page()
        page.goto(path.as_uri())
        page.wait_for_selector(f"{ROOT} .vz-stage svg")
        # a transition and an animation on the stage (what a smooth pan would use), and on a
        # box: what the reader's system asks for decides whether they run
        durations[motion] = page.evaluate(
            """() => [document.querySelector('.vizad-stepper .vz-stage'),
                      document.querySelector('.vizad-stepper g.node')].map((e) => {
                 e.style.transition = 'transform 0.4s ease';
                 e.style.animation = 'vz-none 0.4s';
                 const s = getComputedStyle(e);
                 return [s.transitionDuration, s.animationDuration]; })"""
        )
        context.close()
    assert durations["no-preference"] == [["0.4s", "0.4s"]] * 2
    assert durations["reduce"] == [["0s", "0s"]] * 2
