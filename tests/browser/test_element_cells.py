"""A click on a cell of a step's heatmap of v̄ᵢ shows that element's walkthrough (issue 48):
in an exported page of the 2-layer MLP, at the step of b̄₁, cell 2 shows b̄₁[2] = Σᵢ v̄₇[i, 2]
with its 8 terms, the cell is marked; Enter opens a focused cell and the arrows move between
cells (not steps); nothing goes to the console."""

from __future__ import annotations


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
