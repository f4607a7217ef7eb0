"""Issue 48's "done when", in a real JupyterLab 4 at 1024×768 with the file browser open: the
live stepper of the 2-layer MLP, at the step of b̄₁, a click on a cell of its heatmap shows
that element's walkthrough, b̄₁[j] = Σᵢ v̄₇[i, j], with the terms trace.element(b1, j) gives
(computed here, in the test's process: the labels and the values as the panel writes them);
the keyboard opens a cell and the arrows move from cell to cell without leaving the step; the
cells its terms read (column j of v̄₇'s 8×16 heatmap) are outlined in the graph's box of v̄₇
(the backprop view: under v₇'s value in its box) and in the running table's row of v̄₇.
Screenshots go to artifacts/element-cells-jupyterlab-*.png."""

from __future__ import annotations

from conftest import artifact, kernel_connected, settled, write_notebook
from test_jupyterlab import _delete_sessions

import vizad as vz
from vizad.trace.text import format_value

ROOT = ".vizad-stepper"
PANEL = f"{ROOT} .vz-step-panel"
CELLS = ["import vizad as vz\ntrace = vz.examples.mlp()\nvz.step(trace)"]


def _open(page, url: str, name: str) -> None:
    page.goto(f"{url}/lab/tree/{name}?reset")
    page.wait_for_selector(".jp-Notebook", timeout=60_000)
    page.wait_for_selector(".jp-FileBrowser", state="visible")  # the file browser is open
    for attempt in range(3):  # a click before the kernel is connected can be lost
        kernel_connected(url)
        page.locator(".lm-MenuBar-item", has_text="Run").click()
        page.locator(".lm-Menu-item[data-command='runmenu:run-all']").click()
        try:
            page.wait_for_selector(f"{PANEL} .vz-head", timeout=30_000)
            break
        except Exception:
            if attempt == 2:
                page.screenshot(path=artifact("element-cells-jupyterlab-not-shown.png"))
                raise


def _shown(page) -> str:
    return page.inner_text(f"{PANEL} .vz-element")


#: The boxes of the drawing with cells lit: [box id, its first line, the lit cells' places
#: among the box's heatmap cells].
LIT_BOXES = """() => [...document.querySelectorAll('.vizad-stepper .vz-stage g.node')]
  .filter((g) => g.querySelector('.vz-lit'))
  .map((g) => [g.id, g.querySelector('text').textContent,
    [...g.querySelectorAll(':scope > polygon[stroke="transparent"],'
                           + ':scope > polygon[stroke="none"]')]
      .flatMap((p, k) => (p.classList.contains('vz-lit') ? [k] : []))])"""
#: The running table's heatmaps with cells lit: [the row's name, the lit cells].
LIT_ROWS = """() => [...document.querySelectorAll('.vizad-stepper .vz-table tr')]
  .filter((tr) => tr.querySelector('.vz-heat > .vz-lit'))
  .map((tr) => [tr.cells[0].textContent, [...tr.querySelector('.vz-heat').children]
    .flatMap((c, k) => (c.classList.contains('vz-lit') ? [k] : []))])"""


def _read_cells(trace, element) -> list[int]:
    """The cells of v̄₇'s 8×16 heatmap (row by row, one per element) the terms of
    ``element`` read: worked out here from the terms' reads, not from the page's data."""
    out = set()
    for term in element.terms:
        for node, (i, j) in term.reads:
            assert trace.values[node].shape == (8, 16)
            out.add(i * 16 + j)
    return sorted(out)


def _says(page, element, decimals: int) -> None:
    """The element box shows ``element``'s line and each of its terms with its value."""
    shown = _shown(page)
    assert element.line_text(decimals) in shown
    rows = page.eval_on_selector_all(
        f"{PANEL} .vz-element-terms li",
        "lis => lis.map(li => [...li.children].map(span => span.textContent))",
    )
    assert rows == [[t.label, format_value(t.value, decimals)] for t in element.terms]
    assert "bit for bit" in shown


def test_a_cell_of_b_bar_in_the_jupyterlab_widget(browser, jupyterlab, page_errors):
    trace = vz.examples.mlp()
    d = trace.decimals
    b1 = next(w for w in trace.wrt if w.name == "b1")
    k = trace.step_of(b1).index + 1
    n = len(trace.steps)
    url, root = jupyterlab
    write_notebook(root / "element_cells.ipynb", CELLS)
    _delete_sessions(url)
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = page_errors(context.new_page())
    _open(page, url, "element_cells.ipynb")
    assert page.locator(".jp-FileBrowser").is_visible()
    page.locator(f"{ROOT} .vz-counter").click()  # the stepper takes the keys
    for _ in range(k - 1):
        page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "([k, n]) => document.querySelector('.vizad-stepper .vz-counter')"
        ".textContent.startsWith(`Step ${k} of ${n}`)",
        arg=[k, n],
    )
    settled(page)
    cells = page.locator(f"{PANEL} .vz-sum .vz-heat > span")
    assert cells.count() == 16 == page.locator(f"{PANEL} .vz-cell-click").count()
    assert page.locator(f"{PANEL} .vz-element").inner_text() == ""  # nothing open yet
    cells.nth(2).scroll_into_view_if_needed()
    cells.nth(2).click()
    _says(page, trace.element(b1, 2), d)
    assert len(trace.element(b1, 2).terms) == 8  # b̄₁[2]: one term per row of the batch
    assert "vz-cell-open" in (cells.nth(2).get_attribute("class") or "")
    settled(page)
    # the cells its terms read: column 2 of v̄₇, in v̄₇'s box and in its row of the table
    read = _read_cells(trace, trace.element(b1, 2))
    assert read == [i * 16 + 2 for i in range(8)]
    boxes = page.evaluate(LIT_BOXES)
    assert [(name.split(" ")[0], lit) for _, name, lit in boxes] == [("v̄₇", read)]
    assert page.evaluate(LIT_ROWS) == [["v̄₇", read]]
    assert "its terms read the outlined cells: 8 of v̄₇" in _shown(page)
    # the element right under the sum whose cell was clicked, and in view
    sum_box = page.locator(f"{PANEL} .vz-sum").bounding_box()
    shown_box = page.locator(f"{PANEL} .vz-element").bounding_box()
    assert 0 <= shown_box["y"] - (sum_box["y"] + sum_box["height"]) < 8, (sum_box, shown_box)
    page.locator(f"{PANEL} .vz-element").scroll_into_view_if_needed()
    settled(page)
    page.screenshot(path=artifact("element-cells-jupyterlab-1024x768.png"))
    # the keyboard: Enter on a focused cell opens it; the arrows move between the cells (one
    # row of 16: → and ← by one), the step stays
    cells.nth(5).focus()
    page.keyboard.press("Enter")
    _says(page, trace.element(b1, 5), d)
    page.keyboard.press("ArrowRight")
    _says(page, trace.element(b1, 6), d)
    assert page.evaluate("() => document.activeElement.title").startswith("[6] =")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    _says(page, trace.element(b1, 4), d)
    page.keyboard.press(" ")
    _says(page, trace.element(b1, 4), d)
    read = _read_cells(trace, trace.element(b1, 4))
    assert [lit for *_, lit in page.evaluate(LIT_BOXES)] == [read]
    assert page.evaluate(LIT_ROWS) == [["v̄₇", read]]
    assert page.locator(f"{ROOT} .vz-counter").inner_text().startswith(f"Step {k} of {n}")
    opened = page.eval_on_selector_all(
        f"{PANEL} .vz-sum .vz-heat > span",
        "cells => cells.flatMap((c, k) => c.classList.contains('vz-cell-open') ? [k] : [])",
    )
    assert opened == [4]
    settled(page)
    page.screenshot(path=artifact("element-cells-jupyterlab-keys-1024x768.png"))
    # another view (laid out by the kernel when first asked): the element stays open, its
    # cells lit in v₇'s box, under v₇'s own 128 cells
    page.locator(f"{ROOT} button", has_text="backprop").click()
    page.wait_for_function(
        "() => document.querySelector('.vizad-stepper').dataset.layout === 'done'"
        " && document.querySelector('.vizad-stepper .vz-stage g.node .vz-lit')",
        timeout=60_000,
    )
    _says(page, trace.element(b1, 4), d)
    boxes = page.evaluate(LIT_BOXES)
    assert [(name, lit) for _, name, lit in boxes] == [("v₇", [128 + c for c in read])]
    settled(page)
    page.screenshot(path=artifact("element-cells-jupyterlab-backprop-1024x768.png"))
    # a step away: that step's panel has no element open
    page.locator(f"{ROOT} .vz-counter").click()
    page.keyboard.press("ArrowLeft")
    page.wait_for_function(
        "k => document.querySelector('.vizad-stepper .vz-counter').textContent"
        ".startsWith(`Step ${k} of`)",
        arg=k - 1,
    )
    assert page.locator(f"{PANEL} .vz-cell-open").count() == 0
    assert page.locator(f"{PANEL} .vz-element-terms").count() == 0
    context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)
