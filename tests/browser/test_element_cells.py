"""A click on a cell of a step's heatmap of v̄ᵢ shows that element's walkthrough (issue 48):
in an exported page of the 2-layer MLP, at the step of b̄₁, cell 2 shows b̄₁[2] = Σᵢ v̄₇[i, 2]
with its 8 terms, the cell is marked; Enter opens a focused cell and the arrows move between
cells (not steps); nothing goes to the console."""

from __future__ import annotations

from axe import axe, serious, summary
from conftest import artifact
from test_element_cells_jupyterlab import LIT_BOXES, LIT_ROWS


def test_a_click_on_a_cell_of_b_bar_shows_its_terms(browser, tmp_path):
    import vizad as vz

    trace = vz.examples.mlp()
    b1 = next(w for w in trace.wrt if w.name == "b1")
    k = trace.step_of(b1).index + 1
    path = vz.export_html(trace, tmp_path / "mlp.html")
    page = browser.new_page(viewport={"width": 1024, "height": 768})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    page.wait_for_selector(".vz-step-panel .vz-head", timeout=60_000)
    for _ in range(k - 1):
        page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "k => document.querySelector('.vz-step-panel .vz-head')?.textContent"
        ".startsWith(`Step ${k} `)",
        arg=k,
        timeout=60_000,
    )
    cells = page.query_selector_all(".vz-step-panel .vz-sum .vz-heat > span")
    assert len(cells) == 16
    assert len(page.query_selector_all(".vz-step-panel .vz-cell-click")) == 16
    cells[2].click()
    shown = page.inner_text(".vz-step-panel .vz-element")
    element = trace.element(b1, 2)
    assert element.line_text(trace.decimals) in shown
    assert all(t.label in shown for t in element.terms) and "bit for bit" in shown
    assert "vz-cell-open" in (cells[2].get_attribute("class") or "")
    cells[5].focus()
    page.keyboard.press("Enter")  # the keyboard opens a cell too, and the step stays
    assert trace.element(b1, 5).line_text(trace.decimals) in page.inner_text(".vz-element")
    page.keyboard.press("ArrowRight")  # the next cell, not the next step
    assert trace.element(b1, 6).line_text(trace.decimals) in page.inner_text(".vz-element")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert trace.element(b1, 4).line_text(trace.decimals) in page.inner_text(".vz-element")
    assert page.inner_text(".vz-step-panel .vz-head").startswith(f"Step {k} ")
    assert errors == []
    page.close()


def test_the_cells_an_element_reads_are_lit(browser, tmp_path, page_errors):
    """At the step of v̄₈ = v̄₉ W₂ᵀ (the MLP's hidden layer), cell [0, 13] of v̄₈ reads row 0 of
    v̄₉ (8×3, one cell each) and row 13 of W₂ (16×3, drawn as 12×3 blocks: row 13 is in block
    row 10, rows 13 … 13 of 16 averaged there): those cells are outlined in the boxes of the
    adjoint view and in v̄₉'s row of the running table; another cell lights others, another
    step none."""
    import vizad as vz

    trace = vz.examples.mlp()
    v8 = next(n for n in trace.graph if n.op.name == "tanh")
    k = trace.step_of(v8).index + 1
    element = trace.element(v8, (0, 13))
    reads = {
        (trace.label(n) if n in trace.graph else "v̄", i) for t in element.terms for n, i in t.reads
    }
    assert reads == {("v₄", (13, j)) for j in range(3)} | {("v̄", (0, j)) for j in range(3)}
    edges = [0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 16]  # 16 rows in 12 blocks (np.linspace)
    block = next(b for b in range(12) if edges[b] <= 13 < edges[b + 1])
    assert block == 10
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
    cells = page.query_selector_all(".vz-step-panel .vz-sum .vz-heat > span")
    assert len(cells) == 128
    assert page.evaluate(LIT_BOXES) == []
    cells[13].click()
    assert element.line_text(trace.decimals) in page.inner_text(".vz-step-panel .vz-element")
    lit = {name.split(" ")[0]: cells for _, name, cells in page.evaluate(LIT_BOXES)}
    assert lit == {"v₄": [3 * block + j for j in range(3)], "v̄₉": [0, 1, 2]}
    assert page.evaluate(LIT_ROWS) == [["v̄₉", [0, 1, 2]]]
    page.screenshot(path=artifact("element-cells-blocks-1024x768.png"))
    bad = serious(axe(page))  # an element open, cells lit: nothing serious for axe
    assert not bad, summary(bad)
    cells[16 * 7 + 1].click()  # v̄₈[7, 1]: row 7 of v̄₉, row 1 of W₂ (a block of its own)
    lit = {name.split(" ")[0]: cells for _, name, cells in page.evaluate(LIT_BOXES)}
    assert lit == {"v₄": [3, 4, 5], "v̄₉": [21, 22, 23]}
    page.click(".vizad-stepper .vz-prev")  # the step before: nothing lit
    page.wait_for_function(
        "k => document.querySelector('.vz-step-panel .vz-head')?.textContent"
        ".startsWith(`Step ${k} `)",
        arg=k - 1,
    )
    assert page.evaluate(LIT_BOXES) == [] and page.evaluate(LIT_ROWS) == []
    page.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)


def test_a_64_by_64_result_cell_by_cell_in_the_panel(browser, tmp_path, page_errors):
    """The step's result in its panel cell by cell up to 64 × 64 (no blocks averaged), in
    smaller cells that fit the panel at 1024×768; axe finds nothing serious there. A 20 × 5
    result (12 rows of blocks before) is clickable cell by cell, and the cell it reads of the
    20 × 5 value drawn in 12 rows of blocks is lit in its block."""
    import numpy as np

    import vizad as vz

    for rows, cols in [(64, 64), (20, 5)]:
        rng = np.random.default_rng(0)
        x, w = vz.Variable("x", shape=(rows, 3)), vz.Variable("w", shape=(3, cols))
        product = x @ w
        trace = vz.trace_reverse(
            vz.sum(vz.tanh(product)),
            [x, w],
            {x: rng.normal(size=(rows, 3)), w: rng.normal(size=(3, cols))},
        )
        k = trace.step_of(product).index + 1
        path = vz.export_html(trace, tmp_path / f"wide{rows}.html")
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
        grid = page.locator(".vz-step-panel .vz-sum .vz-heat")
        cells = grid.locator(":scope > span")
        assert cells.count() == rows * cols
        assert cells.last.get_attribute("title").startswith(f"[{rows - 1}, {cols - 1}] = ")
        if rows == 64:
            assert "vz-heat-fine" in grid.get_attribute("class")
            box, panel = grid.bounding_box(), page.locator(".vz-step-panel").bounding_box()
            assert box["x"] + box["width"] <= panel["x"] + panel["width"]
            assert 64 * 4.5 <= box["width"] <= 64 * 5 + 4  # 5 px cells and the border
            page.screenshot(path=artifact("element-cells-64x64-1024x768.png"))
            bad = serious(axe(page))
            assert not bad, summary(bad)
        else:
            cells.nth(13 * 5 + 4).click()  # v̄₃[13, 4] = v̄₄[13, 4] (1 − v₄[13, 4]²)
            element = trace.element(product, (13, 4))
            assert element.line_text(trace.decimals) in page.inner_text(".vz-element")
            # v₄ (tanh) and v̄₄ drawn as 12 rows of blocks: row 13 is in block row 8, rows
            # 13 and 14 (np.linspace(0, 20, 13).astype(int) = 0 1 3 5 6 8 10 11 13 15 …)
            lit = {name.split(" ")[0]: c for _, name, c in page.evaluate(LIT_BOXES)}
            assert lit == {"v₄": [8 * 5 + 4], "v̄₄": [8 * 5 + 4]}
        page.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)
