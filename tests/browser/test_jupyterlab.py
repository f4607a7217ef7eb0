"""The stepper component in a real JupyterLab and Notebook 7, and in the exported page opened
from disk with the network off, in headless Chromium: the lecture's v̄ walkthrough, keys,
clicks, hover, views, follow, scale; with click-to-update timings."""

from __future__ import annotations

import json
import re
import shutil
import time
import urllib.request
import vizad as vz
from pathlib import Path

from conftest import artifact, kernel_connected, settled, wait_until

NOTEBOOK = Path(__file__).parent / "data" / "stepper.ipynb"
#: (current node, v̄ of that node) for steps 1 … 7 of the lecture's reverse walkthrough
EXPECTED = [
    ("v7", "1"),
    ("v6", "1"),
    ("v5", "-1"),
    ("v4", "1"),
    ("v3", "1"),
    ("v2", "1.716"),
    ("v1", "5.5"),
]
YELLOW = "rgb(240, 228, 66)"
ROOT = ".vizad-stepper"


def _delete_sessions(url: str) -> None:
    sessions = json.load(urllib.request.urlopen(f"{url}/api/sessions"))
    for s in sessions:
        req = urllib.request.Request(f"{url}/api/sessions/{s['id']}", method="DELETE")
        urllib.request.urlopen(req)


def _counter(page) -> str:
    return page.locator(f"{ROOT} .vz-counter").inner_text()


def _wait_step(page, k: int, n: int = 7, timeout: float = 10_000) -> None:
    page.wait_for_function(
        "([k, n]) => document.querySelector('.vizad-stepper .vz-counter')"
        ".textContent.startsWith('Step ' + k + ' of ' + n)",
        arg=[k, n],
        timeout=timeout,
    )


def _fill_of(page, item_id: str) -> str | None:
    return page.evaluate(
        """(id) => { const g = document.querySelector('.vizad-stepper .vz-stage #' + id);
                     if (!g) return null;
                     const shape = g.querySelector('path, polygon, ellipse');
                     return getComputedStyle(shape).fill; }""",
        item_id,
    )


def _step_in_view(page, item_id: str) -> bool:
    """Whether the current step is in view (issue 44: the step's result first): its node's
    box ``item_id`` inside the graph's frame, or, where the step's boxes do not all fit at a
    readable zoom, its result box (g.vz-result) inside and the node's box out of view but
    marked at the frame's edge (a marker naming it and its value)."""
    return page.evaluate(
        """(id) => { const root = document.querySelector('.vizad-stepper');
                     const v = root.querySelector('.vz-viewport').getBoundingClientRect();
                     const inside = (g) => { const b = g.getBoundingClientRect();
                       return b.left >= v.left && b.right <= v.right && b.top >= v.top
                              && b.bottom <= v.bottom; };
                     const g = root.querySelector('.vz-stage #' + id);
                     if (inside(g)) return true;
                     const result = root.querySelector('.vz-stage g.node.vz-result');
                     const name = g.querySelector('text').textContent.trim();
                     return !!result && inside(result) && [...root.querySelectorAll(
                       '.vz-edge-mark')].some((m) => m.textContent.includes(name + ' ')); }""",
        item_id,
    )


def _label_px(page, item_id: str) -> float:
    """The rendered height in CSS px of a box's first line (its name)."""
    return page.evaluate(
        """(id) => document.querySelector('.vizad-stepper .vz-stage #' + id + ' text')
                     .getBoundingClientRect().height""",
        item_id,
    )


def _open_and_run(page, notebook_url: str, name: str, ready: str = ".vz-panel") -> None:
    """Open the test notebook, run all cells, wait for the stepper to show (its ``ready``
    element: the step's panel, or a quiz's question)."""
    page.goto(notebook_url)
    page.wait_for_selector(".jp-Notebook", timeout=60_000)
    for attempt in range(3):  # a click before the kernel is connected can be lost
        kernel_connected(notebook_url)
        page.locator(".lm-MenuBar-item", has_text="Run").click()
        page.locator(".lm-Menu-item[data-command='runmenu:run-all']").click()
        try:
            page.wait_for_selector(f"{ROOT} {ready}", timeout=20_000)
            break
        except Exception:
            if attempt == 2:
                page.screenshot(path=artifact(f"{name}-not-shown.png"), full_page=True)
                raise
    page.wait_for_function("() => document.querySelector('.vizad-stepper .vz-stage svg')")


def _click_time(page, selector: str) -> float:
    """Click a control in the page and time it until the next frame is drawn (seconds): the
    update is the browser's own, no kernel round trip."""
    return page.evaluate(
        """async (sel) => {
             const b = document.querySelector('.vizad-stepper ' + sel);
             const t0 = performance.now();
             b.click();
             await new Promise((r) => requestAnimationFrame(r));
             return (performance.now() - t0) / 1000; }""",
        selector,
    )


def _walk(page, where: str) -> list[float]:
    """Steps 1 … 7 by the "next" button: the counter, the panel's v̄, the highlighted box
    (inside the view), and the click-to-update times."""
    timings = []
    for k, (node, adjoint) in enumerate(EXPECTED, start=1):
        if k > 1:
            timings.append(_click_time(page, ".vz-next"))
            _wait_step(page, k)
        assert _counter(page).startswith(f"Step {k} of 7")
        assert page.locator(f"{ROOT} .vz-slider").input_value() == str(k)
        total = page.locator(f"{ROOT} .vz-sum").inner_text().strip()
        assert re.search(rf"= {re.escape(adjoint)}$", total), total
        assert _fill_of(page, node) == YELLOW, f"{node} should be highlighted at step {k}"
        assert _step_in_view(page, node), f"{node} is outside the view at step {k}"
        if node == "v2":
            table = page.locator(f"{ROOT} .vz-contributions").inner_text()
            assert "-0.284" in table and "v̄₅ cos v₂" in table
            assert "partial adjoint v̄ᵢ→ⱼ" in table  # the head, sent once for every panel
            page.locator(ROOT).screenshot(path=artifact(f"{where}-step6-v2.png"))
    assert page.locator(f"{ROOT} .vz-next").is_disabled()
    return timings


def _keys_clicks_hover(page) -> None:
    """Every key, a click on a box, the tooltip, typing in the speed box."""
    page.locator(f"{ROOT} .vz-counter").click()  # focus the component
    for key, k in [("Home", 1), ("ArrowRight", 2), ("PageDown", 3), ("PageUp", 2),
                   ("ArrowLeft", 1), ("End", 7)]:  # fmt: skip
        page.keyboard.press(key)
        _wait_step(page, k)
        settled(page)  # a second step from one key press would have happened by now
        assert _counter(page).startswith(f"Step {k} of 7"), (key, _counter(page))
    # on the slider too: one step per key press, never two
    page.locator(f"{ROOT} .vz-slider").focus()
    page.keyboard.press("ArrowLeft")
    _wait_step(page, 6)
    settled(page)
    assert _counter(page).startswith("Step 6 of 7")
    # typing in the speed box never steps
    speed = page.locator(f"{ROOT} .vz-speed")
    speed.fill("")
    speed.type("8")
    page.keyboard.press("ArrowRight")
    settled(page)
    assert _counter(page).startswith("Step 6 of 7")
    # click a box: its step (v₄ may be out of view, marked at the frame's edge: the step's
    # result and its terms come first, issue 44)
    page.locator(f"{ROOT} .vz-stage #v4 text").first.dispatch_event("click")
    _wait_step(page, 4)
    # hover: what the box is, its value, its adjoint once computed
    page.locator(f"{ROOT} .vz-stage #v4 text").first.dispatch_event("mouseover")
    tip = page.locator(f"{ROOT} .vz-tip")
    tip.wait_for(state="visible")
    text = tip.inner_text()
    assert "v₄" in text and "v₁ × v₂" in text and "v̄₄ = 1" in text, text
    page.locator(f"{ROOT} .vz-stage #v1 text").first.dispatch_event("mouseover")  # maybe off view
    assert "comes later" in tip.inner_text()  # v̄₁ is step 7's
    # Space plays (at 8 steps/s) to the end, and stops
    page.locator(f"{ROOT} .vz-counter").click()
    page.keyboard.press("Space")
    _wait_step(page, 7, timeout=5_000)
    # playing stops at the last step
    page.wait_for_function(
        "() => document.querySelector('.vizad-stepper .vz-play').textContent.trim() === '▶ play'",
        timeout=5_000,
    )


def _run_in_new_cell(page, code: str) -> None:
    """Add a cell below the stepper's, type ``code`` and run it."""
    page.locator(".jp-Cell .jp-InputArea-editor").first.click()
    page.keyboard.press("Escape")
    page.keyboard.press("b")
    page.keyboard.press("Enter")  # edit the new cell
    page.keyboard.type(code)
    page.keyboard.press("Shift+Enter")


def _python_sees_the_same_step(page) -> None:
    """The step is one synced number: Python reads what the browser shows, and sets it."""
    _run_in_new_cell(page, "print('python step', stepper.step)")
    page.wait_for_selector("text=python step 7", timeout=20_000)
    _run_in_new_cell(page, "stepper.step = 3")
    _wait_step(page, 3, timeout=20_000)
    assert page.locator(f"{ROOT} .vz-slider").input_value() == "3"


def _zoom(page) -> float:
    return float(page.locator(ROOT).get_attribute("data-zoom"))


def _zoom_and_pan(page) -> None:
    """fit, 1:1, + and −, ctrl+wheel, dragging."""
    zoom = page.locator(f"{ROOT} .vz-zoom")
    zoom.get_by_text("1:1").click()
    assert _zoom(page) == 1.0
    zoom.get_by_text("+").click()
    assert abs(_zoom(page) - 1.25) < 1e-3
    zoom.get_by_text("−").click()
    assert abs(_zoom(page) - 1.0) < 1e-3
    zoom.get_by_text("fit").click()
    fitted = page.evaluate(
        """() => { const v = document.querySelector('.vizad-stepper .vz-viewport')
                       .getBoundingClientRect();
                   const s = document.querySelector('.vizad-stepper .vz-stage svg')
                       .getBoundingClientRect();
                   return s.width <= v.width + 1 && s.height <= v.height + 1; }"""
    )
    assert fitted, "fit shows the whole graph"
    before = _zoom(page)
    box = page.locator(f"{ROOT} .vz-viewport").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.keyboard.down("Control")
    page.mouse.wheel(0, -200)
    page.keyboard.up("Control")
    page.wait_for_function(
        "before => parseFloat(document.querySelector('.vizad-stepper').dataset.zoom) > before",
        arg=before,
        timeout=5_000,
    )  # ctrl+wheel zooms in
    transform = page.locator(f"{ROOT} .vz-stage").evaluate("(e) => e.style.transform")
    page.mouse.move(box["x"] + 5, box["y"] + 5)
    page.mouse.down()
    page.mouse.move(box["x"] + 85, box["y"] + 45, steps=4)
    page.mouse.up()
    moved = page.locator(f"{ROOT} .vz-stage").evaluate("(e) => e.style.transform")
    assert moved != transform, "dragging pans"


def _views_and_scale(page) -> None:
    page.locator(f"{ROOT} .vz-view[data-view='forward']").click()
    page.wait_for_function(  # laid out (in the browser, without dot) and not the adjoint view
        "() => document.querySelector('.vizad-stepper .vz-stage #v1')"
        " && !document.querySelector('.vizad-stepper .vz-stage #a1')"
    )
    assert _fill_of(page, "v1") == YELLOW
    page.locator(f"{ROOT} .vz-view[data-view='backprop']").click()
    page.wait_for_function(
        "() => document.querySelector('.vizad-stepper .vz-stage').textContent"
        ".includes('v̄₂ = 1.716')"
    )
    page.locator(f"{ROOT} .vz-view[data-view='adjoint']").click()
    page.wait_for_function("() => document.querySelector('.vizad-stepper .vz-stage #a1')")
    assert page.locator(f"{ROOT} .vz-legend").count() == 1  # the legend
    assert _shown_whole(page, f"{ROOT} .vz-legend")
    # the step's boxes are in view (zoomed out as far as that needs: see test_room.py); at
    # its natural size the lecture's text is at least 14 px, 20 px at the 150 % scale
    assert _step_in_view(page, "v1")
    page.locator(f"{ROOT} .vz-zoom").get_by_text("1:1").click()
    assert _label_px(page, "v1") >= 14, "the lecture's labels are at least 14 px"
    panel = (
        "() => parseFloat(getComputedStyle("
        "document.querySelector('.vizad-stepper .vz-sum')).fontSize)"
    )
    small = page.evaluate(panel)
    page.locator(f"{ROOT} .vz-scale").select_option("1.5")
    page.wait_for_function(
        "() => document.querySelector('.vizad-stepper').style"
        ".getPropertyValue('--vz-scale') === '1.5'"
    )
    assert page.evaluate(panel) >= 1.45 * small >= 20, "the panel grows with the scale"
    assert _step_in_view(page, "v1")
    page.locator(f"{ROOT} .vz-scale").select_option("1")


def test_stepper_in_jupyterlab(browser, jupyterlab, page_errors):
    url, root = jupyterlab
    shutil.copy(NOTEBOOK, root / "stepper.ipynb")
    _delete_sessions(url)
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = page_errors(context.new_page())
    # anywidget's own warnings (e.g. its deprecation of a module exporting `render` by name)
    anywidget_warnings = []
    page.on(
        "console",
        lambda m: anywidget_warnings.append(m.text) if "[anywidget]" in m.text else None,
    )
    _open_and_run(page, f"{url}/lab/tree/stepper.ipynb?reset", "jupyterlab")
    page.screenshot(path=artifact("stepper-step1.png"))
    # user text with $…$ is never typeset as maths (the notebook typesets HTML outputs)
    table = page.locator(".vizad-trace").first
    table.wait_for()
    assert "$a^2$" in table.inner_text() and table.locator("mjx-container").count() == 0
    # a name that is TeX (\href): its derivation is typeset with the name as symbols, and
    # MathJax makes no link of it
    page.locator(".jp-OutputArea-output mjx-container").last.wait_for()
    page.locator(".jp-OutputArea-output mjx-container").last.screenshot(
        path=artifact("tex-name.png")
    )
    assert page.locator('a[href*="example.org"]').count() == 0
    assert "\\href{https://example.org}{click}" in page.locator(".vizad-trace").last.inner_text()
    timings = _walk(page, "jupyterlab")
    median = sorted(timings)[len(timings) // 2]
    print(
        f"\nclick-to-update in JupyterLab: median {median * 1e3:.0f} ms, "
        f"max {max(timings) * 1e3:.0f} ms (target <= 100 ms)"
    )
    _python_sees_the_same_step(page)
    _keys_clicks_hover(page)
    _views_and_scale(page)
    _zoom_and_pan(page)
    page.screenshot(path=artifact("stepper-jupyterlab.png"))
    # JupyterLab's dark theme: the component's text follows it, pending boxes are dark grey
    # (with light grey text: tests/test_contrast.py)
    page.locator(".lm-MenuBar-item", has_text="Settings").click()
    page.locator(".lm-Menu-item", has_text="Theme").first.hover()
    page.get_by_role("menuitem", name="JupyterLab Dark", exact=True).click()
    page.wait_for_selector("body[data-jp-theme-light='false']", state="attached", timeout=20_000)
    page.locator(f"{ROOT} .vz-first").click()
    _wait_step(page, 1)
    # the theme's colours reach the component (its text turns light)
    page.wait_for_function(
        "() => Math.min(...getComputedStyle(document.querySelector('.vizad-stepper .vz-counter'))"
        ".color.match(/\\d+/g).slice(0, 3).map(Number)) > 180",
        timeout=20_000,
    )
    colour = page.evaluate(
        "() => getComputedStyle(document.querySelector('.vizad-stepper .vz-counter')).color"
    )
    assert min(int(c) for c in re.findall(r"\d+", colour)[:3]) > 180, colour
    assert _fill_of(page, "v1") == "rgb(43, 43, 43)"  # DARK_STATE_STYLE's pending
    page.locator(ROOT).screenshot(path=artifact("stepper-jupyterlab-dark.png"))
    context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)
    assert not anywidget_warnings, "\n".join(anywidget_warnings)


def test_stepper_in_notebook7(browser, notebook7, page_errors):
    url, root = notebook7
    shutil.copy(NOTEBOOK, root / "stepper.ipynb")
    # Notebook 7 itself raises a page error on load (a plugin's settings schema is missing),
    # with or without vizad: record what a notebook without vizad raises, and require that
    # the stepper adds nothing to it.
    plain = json.loads(NOTEBOOK.read_text())
    plain["cells"][0]["source"] = ["1 + 1"]
    (root / "plain.ipynb").write_text(json.dumps(plain))
    baseline = browser.new_context()
    plain_errors: list[str] = []
    plain_page = baseline.new_page()
    plain_page.on("pageerror", lambda e: plain_errors.append(f"pageerror: {e}"))
    plain_page.on(
        "console",
        lambda m: plain_errors.append(f"console.{m.type}: {m.text}") if m.type == "error" else None,
    )
    plain_page.goto(f"{url}/notebooks/plain.ipynb")
    plain_page.wait_for_selector(".jp-Notebook", timeout=60_000)
    kernel_connected(f"{url}/notebooks/plain.ipynb")  # its kernel started: what it raises, raised
    baseline.close()
    _delete_sessions(url)
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = page_errors(context.new_page())
    _open_and_run(page, f"{url}/notebooks/stepper.ipynb", "notebook7")
    timings = _walk(page, "notebook7")
    _keys_clicks_hover(page)
    _views_and_scale(page)
    print(f"\nclick-to-update in Notebook 7: median {sorted(timings)[2] * 1e3:.0f} ms")
    context.close()
    added = [e for e in page_errors.errors if e not in plain_errors]
    assert not added, "\n".join(added)


def test_exported_html_steps_offline(browser, tmp_path, page_errors):
    import vizad as vz

    path = vz.export_html(vz.examples.lecture(), tmp_path / "walkthrough.html")
    context = browser.new_context(offline=True, viewport={"width": 1024, "height": 768})
    requests = []
    context.route(
        "**/*",
        lambda route: (
            requests.append(route.request.url),
            route.continue_() if route.request.url.startswith("file:") else route.abort(),
        ),
    )
    page = page_errors(context.new_page())
    page.goto(path.as_uri())
    page.wait_for_selector(f"{ROOT} .vz-panel")
    timings = _walk(page, "export")
    print(
        f"\nclick-to-update in the exported page: median "
        f"{sorted(timings)[len(timings) // 2] * 1e3:.0f} ms (target <= 50 ms)"
    )
    _keys_clicks_hover(page)
    _views_and_scale(page)
    _zoom_and_pan(page)
    page.emulate_media(color_scheme="dark")
    page.screenshot(path=artifact("export-dark.png"))
    assert all(r.startswith("file:") for r in requests), requests
    context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)


def _long_trace(size: int):
    import numpy as np

    import vizad as vz

    rng = np.random.default_rng(3)
    xs = [vz.Variable(f"x{k}") for k in range(8)]
    nodes = list(xs)
    while len(nodes) < size:
        a, b = rng.integers(max(0, len(nodes) - 20), len(nodes), 2)
        nodes.append(nodes[a] * nodes[b] if rng.random() < 0.5 else vz.tanh(nodes[a]))
    return vz.trace_reverse(vz.ops.add_n(*nodes[-6:]), xs, {x: 0.3 for x in xs})


def test_exported_page_of_a_long_walkthrough(browser, tmp_path, page_errors):
    """ "Last step" on a 700-step walkthrough, the current box followed into view; opening a
    walkthrough of about 5,000 steps."""
    import vizad as vz

    context = browser.new_context(viewport={"width": 1024, "height": 768})
    for size, most in ((1100, 700), (8000, 5000)):
        trace = _long_trace(size)
        n = len(trace.steps)
        assert most * 0.85 <= n <= most
        path = vz.export_html(vz.Stepper(trace, check=False), tmp_path / f"long{n}.html")
        page = page_errors(context.new_page())
        start = time.perf_counter()
        page.goto(path.as_uri())
        page.wait_for_selector(f"{ROOT} .vz-panel")
        opened = time.perf_counter() - start
        last = _click_time(page, ".vz-last")
        _wait_step(page, n, n)
        print(
            f"\n{n}-step walkthrough ({path.stat().st_size / 1e6:.1f} MB): opened in "
            f"{opened:.2f} s (target <= 2 s), last step in {last * 1e3:.0f} ms (target <= 100 ms)"
        )
        # the figures are printed (bench/export.py measures them); what is asserted is that
        # the page opens and the last step is shown with its box in view
        item = vz.render.Layout(trace, "adjoint").scene.ids[trace.steps[-1].node]
        assert _step_in_view(page, item)
        page.close()
    context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)


def test_saved_tutorial_shows_its_walkthrough_without_running(browser, jupyterlab, page_errors):
    """A tutorial reopened before anything runs shows its stepper's step (the HTML rendering
    of the component in the output bundle), not the widget's text repr."""
    url, root = jupyterlab
    tutorial = Path(__file__).parents[2] / "notebooks" / "05_reverse_mode.ipynb"
    shutil.copy(tutorial, root / "saved.ipynb")
    _delete_sessions(url)
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = page_errors(context.new_page())
    page.goto(f"{url}/lab/tree/saved.ipynb?reset")
    page.wait_for_selector(".jp-Notebook", timeout=60_000)
    page.wait_for_selector(".jp-OutputArea-output", timeout=30_000)  # the stored outputs
    settled(page)
    page.screenshot(path=artifact("saved-tutorial.png"))
    # JupyterLab renders only the cells near the viewport: scroll down to the stepper's
    # (later cells are in the page but hidden until scrolled to: their innerText is empty)
    page.mouse.move(640, 450)  # over the notebook
    for _ in range(60):
        shown = page.locator(".jp-OutputArea-output").all_inner_texts()
        if any("Step 6 of 7" in t for t in shown):
            break
        page.mouse.wheel(0, 400)
        settled(page, 4)
    page.screenshot(path=artifact("saved-tutorial-scrolled.png"))
    texts = page.locator(".jp-OutputArea-output").all_inner_texts()
    assert not any(t.startswith("<vizad Stepper") for t in texts)
    assert any("Step 6 of 7: v₂ = x₂" in t for t in texts), texts
    output = page.locator(".jp-OutputArea-output", has_text="Step 6 of 7: v₂ = x₂").last
    output.scroll_into_view_if_needed()
    output.screenshot(path=artifact("saved-tutorial-stepper.png"))
    picture = output.locator("img[src^='data:image/svg+xml']")  # the picture of the step
    assert picture.count() == 1 and picture.evaluate("(i) => i.naturalWidth") > 300
    context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)


def test_a_drawing_reopened_untrusted_is_fitted_with_no_control(browser, jupyterlab, page_errors):
    """A notebook from elsewhere (unsigned: untrusted, as a course's notebooks are when a
    student opens them) shows a wide drawing's HTML through JupyterLab's sanitizer: the image
    fitted to the output by its own style, and no form control (a checkbox would show there,
    disabled), whatever the sanitizer drops."""
    import nbformat

    url, root = jupyterlab
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("vz.draw(vz.examples.mlp(), 'adjoint')", execution_count=1)
    bundle = vz.draw(vz.examples.mlp(), "adjoint")._repr_mimebundle_()
    cell.outputs = [nbformat.v4.new_output("execute_result", bundle, execution_count=1)]
    nb.cells = [cell]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(nb, root / "untrusted.ipynb")  # not signed
    _delete_sessions(url)
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = page_errors(context.new_page())
    page.goto(f"{url}/lab/tree/untrusted.ipynb?reset")
    page.wait_for_selector(".jp-OutputArea-output img", timeout=60_000)
    settled(page)
    output = page.locator(".jp-OutputArea-output").first
    output.screenshot(path=artifact("drawing-untrusted.png"))
    shown = output.evaluate(
        """(o) => { const img = o.querySelector('img'); return {
            inputs: o.querySelectorAll('input, button').length, natural: img.naturalWidth,
            width: img.getBoundingClientRect().width, out: o.getBoundingClientRect().width } }"""
    )
    assert shown["inputs"] == 0, shown
    assert shown["natural"] > shown["out"] >= shown["width"] > 300, shown
    context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)


def test_nbconvert_html_steps_offline(browser, tmp_path, page_errors):
    """`jupyter nbconvert --to html` of a tutorial with a stepper gives a page whose stepper
    steps with the network off (the component is inlined in the output's HTML)."""
    import subprocess
    import sys

    tutorial = Path(__file__).parents[2] / "notebooks" / "05_reverse_mode.ipynb"
    shutil.copy(tutorial, tmp_path / "tutorial.ipynb")
    subprocess.run(
        [sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", "tutorial.ipynb"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    context = browser.new_context(offline=True, viewport={"width": 1024, "height": 768})
    page = page_errors(context.new_page())
    page.goto((tmp_path / "tutorial.html").as_uri())
    page.wait_for_selector(f"{ROOT} .vz-counter")
    _wait_step(page, 6)
    page.locator(f"{ROOT} .vz-next").click()
    _wait_step(page, 7)
    assert page.locator(f"{ROOT} .vz-sum").inner_text().strip().endswith("= 5.5")
    context.close()
    # nbconvert's page itself asks a CDN for MathJax and require.js: offline, those fail
    ours = [e for e in page_errors.errors if "ERR_INTERNET_DISCONNECTED" not in e]
    assert not ours, "\n".join(ours)


def test_mlp_current_label_readable_after_follow(browser, tmp_path, page_errors):
    """At 1024×768 the 2-layer MLP's step is in view at every step (its node's box, or its
    result with the node marked at the frame's edge: the forward node and its adjoint boxes
    lie far apart); a step whose boxes fit at a readable zoom is shown at it."""
    import vizad as vz

    trace = vz.examples.mlp()
    path = vz.export_html(trace, tmp_path / "mlp.html")
    scene = vz.render.Layout(trace, "adjoint").scene
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = page_errors(context.new_page())
    page.goto(path.as_uri())
    page.wait_for_selector(f"{ROOT} .vz-panel")
    n = len(trace.steps)
    for k in range(1, n + 1):
        if k > 1:
            page.keyboard.press("ArrowRight")
            _wait_step(page, k, n)
        item = scene.ids[trace.steps[k - 1].node]
        assert _step_in_view(page, item), f"step {k}: {item} out of view"
        # issue 36: the zoom stays readable; a box of the step wholly out of the frame is
        # marked at its edge (at most 6 marks)
        out = page.evaluate(
            """(sel) => { const v = document.querySelector('.vizad-stepper .vz-viewport')
                            .getBoundingClientRect();
                          return [...document.querySelectorAll(sel)]
                            .map((g) => g.getBoundingClientRect())
                            .filter((b) => b.right < v.left || b.left > v.right
                                           || b.bottom < v.top || b.top > v.bottom).length; }""",
            ", ".join(f"{ROOT} .vz-stage g.vz-s-{s}" for s in ("current", "consumer", "involved")),
        )
        marks = page.locator(f"{ROOT} .vz-edge-mark").count()
        assert marks >= min(out, 6), f"step {k}: {out} boxes of the step out of view, {marks} marks"
    # the forward view: each step's boxes are near each other, shown at a readable size
    page.locator(f"{ROOT} .vz-view[data-view='forward']").click()
    page.keyboard.press("Home")
    _wait_step(page, 1, n)
    for k in range(1, n + 1):
        if k > 1:
            page.keyboard.press("ArrowRight")
            _wait_step(page, k, n)
        item = scene.ids[trace.steps[k - 1].node]
        assert _step_in_view(page, item), f"step {k}: {item} out of view"
        assert _label_px(page, item) >= 9, f"step {k}: label too small"
    page.screenshot(path=artifact("mlp-followed.png"))
    context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)


def _shown_whole(page, selector: str) -> bool:
    """Whether the element lies inside the window and inside every ancestor that clips it
    (the graph's viewport does: what pans out of it is cut off)."""
    return page.evaluate(
        """(sel) => { const e = document.querySelector(sel);
                      const b = e.getBoundingClientRect();
                      const inside = (r) => b.left >= r.left - 0.5 && b.right <= r.right + 0.5
                                            && b.top >= r.top - 0.5 && b.bottom <= r.bottom + 0.5;
                      if (!b.width || !inside({ left: 0, top: 0, right: innerWidth,
                                                bottom: innerHeight })) return false;
                      for (let a = e.parentElement; a; a = a.parentElement) {
                        if (getComputedStyle(a).overflow !== "visible"
                            && a !== document.body && a !== document.documentElement
                            && !inside(a.getBoundingClientRect())) return false;
                      }
                      return true; }""",
        selector,
    )


def test_legend_stays_whole_at_any_zoom_and_pan(browser, tmp_path, page_errors):
    """At 1024×768, zoomed in and following the current box to a middle and the last step (an
    MLP on a batch, a second-order graph, a tuple graph; light and dark): the legend of the
    step states is shown whole, at the same place, whatever the pan."""
    import vizad as vz

    context = browser.new_context(viewport={"width": 1024, "height": 768})
    legend = f"{ROOT} .vz-legend"
    for name in ("mlp", "hvp", "tuples"):
        path = vz.export_html(getattr(vz.examples, name)(), tmp_path / f"{name}.html")
        for scheme in ("light", "dark"):
            page = page_errors(context.new_page())
            page.emulate_media(color_scheme=scheme)
            page.goto(path.as_uri())
            page.wait_for_selector(f"{ROOT} .vz-panel")
            n = int(page.locator(f"{ROOT} .vz-slider").get_attribute("max"))
            page.locator(f"{ROOT} .vz-zoom").get_by_text("+").click()
            places = set()
            for k in ((n + 1) // 2, n):
                page.locator(f"{ROOT} .vz-slider").fill(str(k))
                _wait_step(page, k, n)
                assert _shown_whole(page, legend), f"{name} ({scheme}), step {k}: legend cut"
                box = page.locator(legend).bounding_box()
                assert box["width"] > 300, box  # at its natural size: readable
                places.add((round(box["x"]), round(box["y"])))
            assert len(places) == 1, f"{name} ({scheme}): the legend moved with the pan"
            page.screenshot(path=artifact(f"legend-{name}-{scheme}.png"))
            page.close()
    context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)


def test_save_shut_down_reopen_still_steps(browser, jupyterlab, page_errors):
    """Run, save, shut the kernel down, reopen: the stepper is still there and still steps
    (the saved, trusted output's HTML runs the same component, with no kernel)."""
    url, root = jupyterlab
    shutil.copy(NOTEBOOK, root / "reopen.ipynb")
    _delete_sessions(url)
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = page_errors(context.new_page())
    _open_and_run(page, f"{url}/lab/tree/reopen.ipynb?reset", "reopen")
    page.locator(f"{ROOT} .vz-next").click()
    _wait_step(page, 2)
    page.keyboard.press("Control+s")  # JupyterLab's own shortcuts still work in the widget
    page.wait_for_function(
        "() => !document.querySelector('.jp-mod-current .jp-mod-dirty')", timeout=10_000
    )
    cells = lambda: json.loads((root / "reopen.ipynb").read_text())["cells"]  # noqa: E731
    wait_until(lambda: any(c.get("outputs") for c in cells()), what="the notebook saved")
    _delete_sessions(url)  # the kernel is gone
    page.close()
    page = page_errors(context.new_page())
    page.goto(f"{url}/lab/tree/reopen.ipynb")
    page.wait_for_selector(".jp-Notebook", timeout=60_000)
    page.wait_for_selector(f"{ROOT} .vz-counter", timeout=30_000)
    page.screenshot(path=artifact("reopen-debug.png"), full_page=True)
    page.locator(f"{ROOT} .vz-next").click()
    page.wait_for_function(
        "() => [...document.querySelectorAll('.vizad-stepper .vz-counter')]"
        ".some((e) => /^Step [2-7] of 7/.test(e.textContent))"
    )
    page.locator(ROOT).last.screenshot(path=artifact("reopened.png"))
    context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)
