"""Issue 48: the cells of a heatmap of v̄ᵢ that the page does not carry (past its budget of
element walkthroughs). In a real JupyterLab 4 at 1024×768 with the file browser open, the live
stepper of the 2-layer MLP, its page's budget lowered to 20 cells in the kernel (so that none
of its heatmaps carries its cells): a click on a cell of b̄₁ asks Python, which makes that
cell's walkthrough (vizad/view/widget/messages.py's element), shown and lit as a carried one;
the arrows move to the next cell, asked in turn. In an exported page of the same walkthrough
(no kernel), that heatmap says why its cells do not open and none does. Screenshots go to
artifacts/element-cells-asked-*.png."""

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
