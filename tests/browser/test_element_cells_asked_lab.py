"""Issue 48: the cells of a heatmap of v̄ᵢ that the page does not carry (past its budget of
element walkthroughs). In a real JupyterLab 4 at 1024×768 with the file browser open, the live
stepper of the 2-layer MLP, its page's budget lowered to 20 cells in the kernel (so that none
of its heatmaps carries its cells): a click on a cell of b̄₁ asks Python, which makes that
cell's walkthrough (vizad/view/widget/messages.py's element), shown and lit as a carried one;
the arrows move to the next cell, asked in turn. In an exported page of the same walkthrough
(no kernel), that heatmap says why its cells do not open and none does. A 64 × 64 result in
the panel zooms ("−" "+": 5 → 10 → 15 px cells in a box of the same size) and pans (drag,
arrows); one past the walkthrough's budget of cells drawn one by one (averaged in blocks in the
page) is drawn cell by cell by Python in the live widget. Screenshots go to
artifacts/element-cells-{asked,zoom,fine-on-demand}-*.png."""

from __future__ import annotations

from conftest import artifact, settled, write_notebook
from test_element_cells_jupyterlab import LIT_BOXES, LIT_ROWS, _open, _read_cells, _says
from test_jupyterlab import _delete_sessions

import vizad as vz
from vizad.trace import panel as panels

ROOT = ".vizad-stepper"
PANEL = f"{ROOT} .vz-step-panel"
CELLS = [
    "import vizad as vz\nimport vizad.trace.panel as panels\n"
    "panels.ELEMENT_BUDGET = 20  # the page carries no heatmap's cells: each is asked\n"
    "trace = vz.examples.mlp()\nvz.step(trace)"
]
NOTE = "cells open in a live notebook: this page carries the first 20 cells' derivations"


def _go(page, k: int, n: int) -> None:
    page.locator(f"{ROOT} .vz-counter").click()  # the stepper takes the keys
    for _ in range(k - 1):
        page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "([k, n]) => document.querySelector('.vizad-stepper .vz-counter')"
        ".textContent.startsWith(`Step ${k} of ${n}`)",
        arg=[k, n],
    )
    settled(page)


def test_a_cell_past_the_budget_is_made_by_python(browser, jupyterlab, page_errors):
    trace = vz.examples.mlp()
    d = trace.decimals
    b1 = next(w for w in trace.wrt if w.name == "b1")
    k = trace.step_of(b1).index + 1
    url, root = jupyterlab
    write_notebook(root / "element_cells_asked.ipynb", CELLS)
    _delete_sessions(url)
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = page_errors(context.new_page())
    _open(page, url, "element_cells_asked.ipynb")
    assert page.locator(".jp-FileBrowser").is_visible()
    _go(page, k, len(trace.steps))
    cells = page.locator(f"{PANEL} .vz-sum .vz-heat > span")
    # every cell opens (Python makes it), none is carried by the page, and no note says
    # otherwise: the kernel is there
    assert cells.count() == 16 == page.locator(f"{PANEL} .vz-cell-click").count()
    assert page.locator(f"{PANEL} .vz-cells-note").count() == 0
    cells.nth(2).scroll_into_view_if_needed()
    cells.nth(2).click()
    page.wait_for_selector(f"{PANEL} .vz-element-terms li", timeout=30_000)
    _says(page, trace.element(b1, 2), d)
    assert "vz-cell-open" in (cells.nth(2).get_attribute("class") or "")
    settled(page)
    read = _read_cells(trace, trace.element(b1, 2))
    assert read == [i * 16 + 2 for i in range(8)]
    page.wait_for_function(f"() => ({LIT_ROWS})().length === 1")
    assert [(n.split(" ")[0], lit) for _, n, lit in page.evaluate(LIT_BOXES)] == [("v̄₇", read)]
    assert page.evaluate(LIT_ROWS) == [["v̄₇", read]]
    page.locator(f"{PANEL} .vz-element").scroll_into_view_if_needed()
    settled(page)
    page.screenshot(path=artifact("element-cells-asked-jupyterlab-1024x768.png"))
    # the arrows: the next cell, asked of Python in its turn; the step stays
    cells.nth(2).focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "line => document.querySelector('.vizad-stepper .vz-element .vz-math')"
        "?.textContent === line",
        arg=trace.element(b1, 3).line_text(d),
        timeout=30_000,
    )
    _says(page, trace.element(b1, 3), d)
    read = _read_cells(trace, trace.element(b1, 3))
    page.wait_for_function(
        f"(read) => JSON.stringify(({LIT_ROWS})()[0]?.[1]) === JSON.stringify(read)", arg=read
    )
    assert page.locator(f"{ROOT} .vz-counter").inner_text().startswith(f"Step {k} of")
    # back to cell 2: the answer kept, shown at once
    page.keyboard.press("ArrowLeft")
    _says(page, trace.element(b1, 2), d)
    context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)


def test_an_exported_page_says_why_its_cells_do_not_open(
    browser, tmp_path, page_errors, monkeypatch
):
    monkeypatch.setattr(panels, "ELEMENT_BUDGET", 20)
    trace = vz.examples.mlp()
    b1 = next(w for w in trace.wrt if w.name == "b1")
    k = trace.step_of(b1).index + 1
    path = vz.export_html(trace, tmp_path / "mlp.html")
    page = page_errors(browser.new_page(viewport={"width": 1024, "height": 768}))
    page.goto(path.as_uri())
    page.wait_for_selector(".vz-step-panel .vz-head", timeout=60_000)
    for _ in range(k - 1):
        page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "k => document.querySelector('.vz-step-panel .vz-head')?.textContent"
        ".startsWith(`Step ${k} `)",
        arg=k,
    )
    note = page.locator(".vz-step-panel .vz-cells-note")
    assert note.inner_text() == NOTE + " (the first steps')"
    assert note.is_visible()
    # right under the heatmap, in the panel
    heat = page.locator(".vz-step-panel .vz-sum").bounding_box()
    box = note.bounding_box()
    assert 0 <= box["y"] - (heat["y"] + heat["height"]) < 8, (heat, box)
    assert page.locator(".vz-step-panel .vz-cell-click").count() == 0
    page.locator(".vz-step-panel .vz-sum .vz-heat > span").nth(2).click()
    assert page.locator(".vz-step-panel .vz-element").count() == 0
    settled(page)
    page.screenshot(path=artifact("element-cells-asked-exported-1024x768.png"))
    page.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)


ZOOM_CELLS = [
    "import numpy as np\nimport vizad as vz\n"
    "x = vz.Variable('x', shape=(64, 64))\n"
    "rng = np.random.default_rng(0)\n"
    "trace = vz.trace_reverse(vz.sum(vz.tanh(x) * x), [x], {x: rng.standard_normal((64, 64))})\n"
    "vz.step(trace)"
]
BOX = f"{PANEL} .vz-sum .vz-heat-box"


def _geometry(page) -> dict:
    return page.evaluate(
        """() => {
      const box = document.querySelector('.vizad-stepper .vz-step-panel .vz-sum .vz-heat-box');
      const cell = box.querySelector('.vz-heat > span').getBoundingClientRect();
      const side = document.querySelector('.vizad-stepper .vz-side').getBoundingClientRect();
      const b = box.getBoundingClientRect();
      return {cell: cell.width, zoom: box.dataset.zoom, left: box.scrollLeft, top: box.scrollTop,
        scrollW: box.scrollWidth, clientW: box.clientWidth, width: b.width, height: b.height,
        right: b.right, sideRight: side.right, tab: box.getAttribute('tabindex')};
    }"""
    )


def _below(page) -> float:
    """How far under the panel's head its table of partial adjoints starts."""
    head = page.locator(f"{PANEL} .vz-head").bounding_box()
    return page.locator(f"{PANEL} .vz-contributions").bounding_box()["y"] - head["y"]


def test_the_panels_fine_heatmap_zooms_and_pans(browser, jupyterlab, page_errors):
    url, root = jupyterlab
    write_notebook(root / "heatmap_zoom.ipynb", ZOOM_CELLS)
    _delete_sessions(url)
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = page_errors(context.new_page())
    _open(page, url, "heatmap_zoom.ipynb")
    assert page.locator(".jp-FileBrowser").is_visible()
    _go(page, 4, 4)  # x̄: 64 × 64, cell by cell
    assert page.locator(f"{PANEL} .vz-sum .vz-heat > span").count() == 64 * 64
    assert page.locator(f"{ROOT}.vz-wide").count() == 0  # stacked
    less = page.get_by_role("button", name="smaller heatmap cells")
    more = page.get_by_role("button", name="larger heatmap cells")
    settled(page)
    page.screenshot(path=artifact("element-cells-zoom-before-jupyterlab-1024x768.png"))
    before = _geometry(page)
    assert before["cell"] == 5 and before["zoom"] == "5" and before["tab"] is None
    assert before["scrollW"] <= before["clientW"] + 1  # all of it shown: nothing to pan
    assert less.is_disabled() and more.is_enabled()
    rows_before = _below(page)
    more.click()
    zoomed = _geometry(page)
    assert zoomed["cell"] == 10 and zoomed["zoom"] == "10"
    # the box keeps its size, within the panel; its cells now scroll in it
    assert abs(zoomed["height"] - before["height"]) <= 16, (before, zoomed)
    assert zoomed["right"] <= zoomed["sideRight"] + 1
    assert zoomed["scrollW"] > zoomed["clientW"] + 40 and zoomed["tab"] == "0"
    # the panel's layout holds: its table of partial adjoints as far under its head
    assert abs(_below(page) - rows_before) <= 16, (rows_before, _below(page))
    settled(page)
    page.locator(BOX).scroll_into_view_if_needed()
    settled(page)
    page.screenshot(path=artifact("element-cells-zoom-jupyterlab-1024x768.png"))
    # a drag pans, and opens no cell
    b = page.locator(BOX).bounding_box()
    x, y = b["x"] + b["width"] / 2, b["y"] + b["height"] / 2
    left = _geometry(page)["left"]
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x - 40, y - 30, steps=5)
    page.mouse.move(x - 80, y - 60, steps=5)
    page.mouse.up()
    panned = _geometry(page)
    assert panned["left"] >= left + 60 and panned["top"] > 0, (left, panned)
    assert page.locator(f"{PANEL} .vz-element-terms").count() == 0
    assert page.locator(f"{PANEL} .vz-cell-open").count() == 0
    # the keyboard: "+" pressed by Enter, the arrows on the focused box scroll it, the step stays
    more.focus()
    page.keyboard.press("Enter")
    assert _geometry(page)["cell"] == 15
    page.locator(BOX).focus()
    top = _geometry(page)["top"]
    page.keyboard.press("ArrowDown")
    page.wait_for_function(
        "t => document.querySelector('.vizad-stepper .vz-step-panel .vz-heat-box').scrollTop > t",
        arg=top,
    )
    assert page.locator(f"{ROOT} .vz-counter").inner_text().startswith("Step 4 of 4")
    # a cell of the zoomed heatmap still opens (x̄'s 4,096 cells: made by Python)
    cell = page.locator(f"{PANEL} .vz-sum .vz-heat > span").nth(64 * 10 + 20)
    cell.scroll_into_view_if_needed()
    cell.click()
    page.wait_for_selector(f"{PANEL} .vz-element-terms li", timeout=30_000)
    namespace: dict = {}
    exec(ZOOM_CELLS[0].replace("vz.step(trace)", ""), namespace)  # the same trace, here
    zoomed_trace = namespace["trace"]
    x = zoomed_trace.wrt[0]
    line = zoomed_trace.element(x, (10, 20)).line_text(zoomed_trace.decimals)
    assert page.inner_text(f"{PANEL} .vz-element .vz-math") == line
    # the zoom is kept from step to step; "−" back to 5 px
    page.locator(f"{ROOT} .vz-counter").click()
    page.keyboard.press("ArrowLeft")
    page.wait_for_function(
        "() => document.querySelector('.vizad-stepper .vz-counter').textContent"
        ".startsWith('Step 3 of 4')"
    )
    assert _geometry(page)["cell"] == 15
    less.click()
    less.click()
    assert _geometry(page)["cell"] == 5 and less.is_disabled()
    context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)


def test_a_step_past_the_fine_budget_is_drawn_cell_by_cell_live(browser, jupyterlab, page_errors):
    """The walkthrough's budget of cells drawn one by one lowered to one 64 × 64 result: the
    page averages x̄ in 12 × 24 blocks, the live widget asks Python for it cell by cell, and
    its cells open (made by Python too)."""
    cells = ["import vizad.trace.panel as panels\npanels.FINE_BUDGET = 4096\n" + ZOOM_CELLS[0]]
    url, root = jupyterlab
    write_notebook(root / "fine_on_demand.ipynb", cells)
    _delete_sessions(url)
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = page_errors(context.new_page())
    _open(page, url, "fine_on_demand.ipynb")
    _go(page, 4, 4)  # x̄: past the budget
    heat = f"{PANEL} .vz-sum .vz-heat > span"
    page.wait_for_function(
        "s => document.querySelectorAll(s).length === 4096", arg=heat, timeout=30_000
    )
    assert page.locator(f"{PANEL} .vz-cells-note").count() == 0
    namespace: dict = {}
    exec(ZOOM_CELLS[0].replace("vz.step(trace)", ""), namespace)  # the same trace, here
    trace = namespace["trace"]
    x = trace.wrt[0]
    titles = page.eval_on_selector_all(heat, "cells => cells.map((c) => c.title)")
    d = trace.decimals
    assert titles[64 * 3 + 7].startswith("[3, 7] =")
    cell = page.locator(heat).nth(64 * 3 + 7)
    cell.scroll_into_view_if_needed()
    cell.click()
    page.wait_for_selector(f"{PANEL} .vz-element-terms li", timeout=30_000)
    line = trace.element(x, (3, 7)).line_text(d)
    assert page.inner_text(f"{PANEL} .vz-element .vz-math") == line
    page.locator(f"{PANEL} .vz-element").scroll_into_view_if_needed()
    settled(page)
    page.screenshot(path=artifact("element-cells-fine-on-demand-jupyterlab-1024x768.png"))
    context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)
