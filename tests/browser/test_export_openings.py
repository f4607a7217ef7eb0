"""An exported page opens its collapsed boxes itself (issue 36): the export carries each box
opened as DOT, which the page lays out in its worker (Graphviz compiled to WebAssembly) on the
reader's click, and the views other than the one it opens at come as DOT too, laid out when
first shown. In headless Chromium, offline: the drawing that appears is the one Python draws
(the same boxes as ``Layout.opened``), and stepping goes on inside it.

Screenshots go to artifacts/ (``export-opening-*.png``).
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import artifact

ROOT = ".vizad-stepper"


def _random_trace(ops: int = 800, seed: int = 1, inputs: int = 20):
    """A random scalar graph (bench/render.py's kind): its adjoint view summarised into bands
    by default, its forward view drawn with collapsed boxes."""
    import vizad as vz

    rng = np.random.default_rng(seed)
    xs = [vz.Variable(f"x{k}") for k in range(inputs)]
    nodes = list(xs)
    for _ in range(ops):
        a, b = rng.integers(max(0, len(nodes) - 30), len(nodes), 2)
        nodes.append(nodes[a] * nodes[b] if rng.random() < 0.5 else vz.tanh(nodes[a]))
    y = vz.ops.add_n(*nodes[-5:])
    return vz.trace_reverse(y, xs, {x: 0.3 for x in xs})


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """(trace, the page's path, its data): laid out by ``dot`` where it is installed."""
    import vizad as vz
    from vizad.view.widget.page import page_data

    trace = _random_trace()
    path = vz.export_html(trace, tmp_path_factory.mktemp("openings") / "walkthrough.html")
    return trace, path, page_data(path.read_text(encoding="utf-8"))


def _layout(trace, view: str):
    """The view as export_html lays it out (the same options, the reader's default frame)."""
    import vizad as vz
    from vizad.view.render.legibility import DEFAULT_FRAME

    return vz.render.Layout(trace, view, frame=DEFAULT_FRAME)


def _wait(page, script: str, timeout: float = 60_000) -> None:
    page.wait_for_function(
        f"() => {{ const r = document.querySelector('{ROOT}'); return {script}; }}",
        timeout=timeout,
    )


def _node_ids(page) -> set[str]:
    """The ids of the boxes drawn in the stage (the legend aside)."""
    return set(
        page.evaluate(
            f"() => [...document.querySelectorAll('{ROOT} .vz-stage g.node')]"
            ".map(g => g.id).filter(id => id && id !== 'vz_legend')"
        )
    )


def test_the_page_carries_openings_and_other_views_as_dot(exported):
    """What the page carries: the view it opens at laid out (SVG, by dot where it is
    installed), every collapsed box of each view opened as DOT, the other views as DOT."""
    trace, _, data = exported
    shown = data["view"]
    assert data["opens"]["ids"][shown], "no box carried opened"
    for view, frame in data["frames"].items():
        assert ("dot" in frame) == (view != shown or "svg" not in frame), view
        assert frame["collapsed"], view
        assert set(data["opens"]["ids"][view]) <= set(frame["collapsed"]), view


def test_a_box_opens_in_the_exported_page_as_python_draws_it(browser, exported, page_errors):
    trace, path, data = exported
    shown = data["view"]
    layout = _layout(trace, shown)
    context = browser.new_context(viewport={"width": 1024, "height": 768}, offline=True)
    page = page_errors(context.new_page())
    page.goto(path.as_uri())
    _wait(page, "r?.dataset.layout === 'done'")
    assert _node_ids(page) == {i.id for i in layout.scene.items}
    # the current step's box is a band of the summary: it opens on a click, laid out here
    band = page.evaluate(
        f"() => document.querySelector('{ROOT} .vz-stage g.node.vz-s-current')?.id ?? null"
    )
    assert band in data["opens"]["ids"][shown], band
    page.locator(f"{ROOT} g.node#{band}").click()
    _wait(page, "r.dataset.opened && r.dataset.layout === 'done'")
    root = page.locator(ROOT)
    assert root.get_attribute("data-opened") == band
    assert root.get_attribute("data-layout-thread") == "worker"
    opened = layout.opened([band], in_browser=True)
    assert _node_ids(page) == {i.id for i in opened.scene.items}  # the boxes Python draws
    members = {i.id for i in opened.scene.items} - {i.id for i in layout.scene.items}
    assert members and band not in _node_ids(page)
    # the opened box's frame, titled like the box, and the step's own box current in it
    title = page.locator(f"{ROOT} g.cluster.vz-opened-frame > text").first.text_content()
    assert title.startswith(next(i for i in layout.scene.items if i.id == band).lines[0])
    current = page.evaluate(
        f"() => document.querySelector('{ROOT} .vz-stage g.node.vz-s-current')?.id ?? null"
    )
    assert current in members, current
    root.locator(".vz-viewport").scroll_into_view_if_needed()
    page.screenshot(path=artifact("export-opening-opened.png"))
    root.locator(".vz-next").click()
    page.wait_for_function(
        f"() => document.querySelector('{ROOT} .vz-counter').textContent.startsWith('Step 2 of')"
    )
    assert "v̄" in root.locator(".vz-step-panel").inner_text()
    context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)


def test_another_view_is_laid_out_when_first_shown(browser, exported, page_errors):
    """A view the page does not open at comes as DOT: shown, it is laid out in the worker,
    with the boxes Python draws, and its boxes open too."""
    trace, path, data = exported
    other = next(v for v in data["frames"] if v != data["view"])
    layout = _layout(trace, other)
    context = browser.new_context(viewport={"width": 1024, "height": 768}, offline=True)
    page = page_errors(context.new_page())
    page.goto(path.as_uri())
    _wait(page, "r?.dataset.layout === 'done'")
    page.locator(f"{ROOT} .vz-view[data-view='{other}']").click()
    _wait(page, "r.dataset.layout === 'done' && r.querySelector('.vz-stage g.node') !== null")
    assert _node_ids(page) == {i.id for i in layout.scene.items}
    box = data["opens"]["ids"][other][0]
    page.locator(f"{ROOT} g.node#{box}").dispatch_event("click")
    _wait(page, "r.dataset.opened && r.dataset.layout === 'done'")
    assert _node_ids(page) == {i.id for i in layout.opened([box], in_browser=True).scene.items}
    page.locator(ROOT).locator(".vz-viewport").scroll_into_view_if_needed()
    page.screenshot(path=artifact("export-opening-other-view.png"))
    context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)


def test_a_box_the_page_does_not_carry_says_it_needs_python(browser, tmp_path, page_errors):
    """A page carries boxes opened for PAGE_OPENINGS nodes in all (the view it opens at
    first): a larger walkthrough's other boxes are sealed, and a click on one says that
    opening it needs Python (bench/render.py's graph(40, 1700, seed=1), 1,018 steps: its
    backprop view carries none)."""
    import vizad as vz
    from vizad.view.widget.page import page_data

    trace = _random_trace(1700, inputs=40)
    path = vz.export_html(trace, tmp_path / "large.html")
    data = page_data(path.read_text(encoding="utf-8"))
    assert "backprop" not in data["opens"]["ids"] and data["frames"]["backprop"]["collapsed"]
    context = browser.new_context(viewport={"width": 1024, "height": 768}, offline=True)
    page = page_errors(context.new_page())
    page.goto(path.as_uri())
    _wait(page, "r?.dataset.layout === 'done'")
    page.locator(f"{ROOT} .vz-view[data-view='backprop']").click()
    _wait(page, "r.dataset.layout === 'done' && r.querySelector('.vz-stage g.node.vz-sealed')")
    assert page.locator(f"{ROOT} .vz-stage g.node.vz-collapsible").count() == 0
    page.locator(f"{ROOT} .vz-stage g.node.vz-sealed").first.dispatch_event("click")
    note = page.locator(f"{ROOT} .vz-sealed-note")
    note.wait_for()
    assert note.inner_text() == (
        "this page does not carry the boxes inside this block: opening it needs Python (vz.step)"
    )
    context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)
