"""The memory timeline and the checkpoint editor in an exported page, offline (issue 49 item 2):
the timeline under the graph says trace.memory()'s peak; stepping moves its cursor and
outlines the values alive at the step; with "edit checkpoints" on, clicking boxes keeps them
as checkpoints and the peak, the forward ops run again and the curve change to trace.memory's
for those checkpoints; "store all" brings the first timeline back. No console errors."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import artifact, settled, write_notebook

import vizad as vz

ROOT = ".vizad-stepper"
MEMORY = f"{ROOT} .vz-memory"
LAYERS = 12


@pytest.fixture(scope="module")
def chain(tmp_path_factory):
    x = vz.Variable("x")
    layers = [x]
    for _ in range(LAYERS):
        layers.append(vz.tanh(layers[-1]))
    trace = vz.trace_reverse(vz.sum(layers[-1]), x, {x: np.linspace(-1, 1, 3)})
    page = vz.export_html(
        trace, tmp_path_factory.mktemp("memory") / "chain.html", view="forward", memory=True
    )
    return trace, layers, page


def _open(browser, path, page_errors):
    context = browser.new_context(viewport={"width": 1024, "height": 768}, offline=True)
    page = page_errors(context.new_page())
    page.goto(path.as_uri())
    page.wait_for_function(
        f"() => document.querySelector('{ROOT}')?.dataset.layout === 'done'", timeout=60_000
    )
    return context, page


def _memory(page, key: str) -> str:
    return page.locator(MEMORY).get_attribute(f"data-{key}")


def _alive(page) -> list[str]:
    return sorted(
        page.evaluate(
            f"() => [...document.querySelectorAll('{ROOT} g.node.vz-alive')].map(g => g.id)"
        )
    )


def test_the_timeline_steps_and_its_checkpoints_are_edited_offline(browser, chain, page_errors):
    trace, layers, path = chain
    stored = trace.memory()
    context, page = _open(browser, path, page_errors)
    assert page.locator(MEMORY).is_visible()
    assert _memory(page, "peak") == str(stored.peak_values) == str(LAYERS + 2)
    assert _memory(page, "recomputed") == "0"
    words = page.locator(f"{MEMORY} .vz-memory-words").text_content()
    assert words.startswith(f"memory: peak {LAYERS + 2} values, 336 B at step")
    assert "every value stored" in words

    # step 2 of the walkthrough (v̄ of the last tanh): the values alive there, outlined
    page.locator(f"{ROOT} .vz-next").click()
    settled(page)
    at = next(s for s in stored if s.walkthrough == 2)
    alive = stored.alive(at.index + 1)
    assert _alive(page) == sorted(
        f"v{trace.names.number(h.node)}" for h in alive if h.role == "value"
    )
    assert _memory(page, "values") == str(at.values)
    curve = page.locator(f"{MEMORY} .vz-memory-curve").get_attribute("points")

    # a checkpoint every 3 layers: the inputs of the segments (x is one of its own)
    page.locator(f"{MEMORY} .vz-memory-edit").click()
    kept = layers[3:LAYERS:3]
    for node in kept:
        page.locator(f"{ROOT} g.node#v{trace.names.number(node)}").dispatch_event("click")
        settled(page)
    checkpointed = trace.memory(keep=layers[0:LAYERS:3])
    assert _memory(page, "peak") == str(checkpointed.peak_values) == str(LAYERS // 3 + 3 + 2)
    assert _memory(page, "recomputed") == str(len(checkpointed.recomputed))
    assert _memory(page, "peak-step") == str(checkpointed.peak_step)
    assert page.locator(f"{MEMORY} .vz-memory-curve").get_attribute("points") != curve
    assert page.locator(f"{ROOT} g.node.vz-kept").count() == len(kept)
    assert "3 checkpoints" in page.locator(f"{MEMORY} .vz-memory-words").text_content()
    # the clicks edited: the walkthrough stayed at its step
    assert page.locator(f"{ROOT} .vz-counter").text_content().startswith("Step 2 of")

    # one dropped again, then every value stored again
    page.locator(f"{ROOT} g.node#v{trace.names.number(kept[0])}").dispatch_event("click")
    settled(page)
    assert _memory(page, "peak") == str(trace.memory(keep=[layers[0], *kept[1:]]).peak_values)
    page.locator(f"{MEMORY} .vz-memory-reset").click()
    settled(page)
    assert _memory(page, "peak") == str(stored.peak_values)
    assert page.locator(f"{MEMORY} .vz-memory-curve").get_attribute("points") == curve

    # by the keyboard: Enter on a box that has the focus keeps it (and stays at the step)
    page.locator(f"{ROOT} g.node#v5").focus()
    page.keyboard.press("Enter")
    settled(page)
    assert _memory(page, "kept") == "4"  # v₅: forward position 4
    assert page.locator(f"{ROOT} .vz-counter").text_content().startswith("Step 2 of")
    # a click on the curve's end goes to the walkthrough's last step
    chart = page.locator(f"{MEMORY} .vz-memory-chart").bounding_box()
    page.mouse.click(chart["x"] + chart["width"] - 1, chart["y"] + chart["height"] / 2)
    page.wait_for_function(
        f"() => document.querySelector('{ROOT} .vz-counter').textContent.startsWith('Step 14 of')"
    )
    assert page_errors.errors == []
    context.close()


def test_a_page_without_memory_has_no_timeline(browser, chain, page_errors, tmp_path):
    trace, _, _ = chain
    path = vz.export_html(trace, tmp_path / "plain.html", view="forward")
    context, page = _open(browser, path, page_errors)
    assert page.locator(MEMORY).count() == 0
    assert page_errors.errors == []
    context.close()


CELLS = [
    "import numpy as np\nimport vizad as vz\n"
    "x = vz.Variable('x')\nlayers = [x]\n"
    f"for _ in range({LAYERS}):\n    layers.append(vz.tanh(layers[-1]))\n"
    "trace = vz.trace_reverse(vz.sum(layers[-1]), x, {x: np.linspace(-1, 1, 3)})\n"
    "stepper = vz.step(trace, view='forward', memory=True)\nstepper",
]


def test_the_checkpoint_editor_in_the_jupyterlab_widget(browser, jupyterlab, page_errors, chain):
    """The live widget in JupyterLab 4 at 1024×768: the timeline under the graph, a step taken
    there moves its cursor, and checkpoints clicked change its peak."""
    from test_jupyterlab import _delete_sessions, _run_in_new_cell
    from test_room import _open as open_lab

    trace, layers, _ = chain
    url, root = jupyterlab
    write_notebook(root / "memory.ipynb", CELLS)
    _delete_sessions(url)
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = page_errors(context.new_page())
    open_lab(page, url, "memory.ipynb")
    page.wait_for_selector(MEMORY, timeout=60_000)
    assert _memory(page, "peak") == str(LAYERS + 2)
    before = _memory(page, "values")
    page.locator(f"{ROOT} .vz-next").click()
    page.wait_for_function(
        f"() => document.querySelector('{ROOT} .vz-counter').textContent.startsWith('Step 2 of')"
    )
    settled(page)
    at = next(s for s in trace.memory() if s.walkthrough == 2)
    assert _memory(page, "values") == str(at.values) != before
    alive = trace.memory().alive(at.index + 1)
    assert _alive(page) == sorted(
        f"v{trace.names.number(h.node)}" for h in alive if h.role == "value"
    )
    page.locator(f"{MEMORY} .vz-memory-edit").click()
    for node in layers[3:LAYERS:3]:
        page.locator(f"{ROOT} g.node#v{trace.names.number(node)}").dispatch_event("click")
        settled(page)
    assert _memory(page, "peak") == str(trace.memory(keep=layers[0:LAYERS:3]).peak_values)
    page.screenshot(path=artifact("memory-timeline-jupyterlab-1024x768.png"))

    # the checkpoints clicked are Python's: stepper.memory_keep reads them, and sets others
    _run_in_new_cell(page, "print('kept', stepper.memory_keep)")
    page.wait_for_selector("text=kept ['v₄', 'v₇', 'v₁₀']", timeout=20_000)
    _run_in_new_cell(page, "stepper.memory_keep = ['v6', 'v9']")
    page.wait_for_function(
        f"() => document.querySelector('{MEMORY}').dataset.kept === '5 8'", timeout=20_000
    )
    keep = [layers[5], layers[8]]
    assert _memory(page, "peak") == str(trace.memory(keep=keep).peak_values)
    assert _memory(page, "recomputed") == str(len(trace.memory(keep=keep).recomputed))
    assert page.locator(f"{ROOT} g.node.vz-kept").count() == 2
    # a name that is no forward value: refused, said in the cell, the checkpoints unchanged
    _run_in_new_cell(page, "stepper.memory_keep = ['v6', 'v99']")
    page.wait_for_selector("text='v99' is not a value of the forward pass", timeout=20_000)
    assert _memory(page, "kept") == "5 8"
    _run_in_new_cell(page, "stepper.memory_keep = None")
    page.wait_for_function(
        f"() => document.querySelector('{MEMORY}').dataset.kept === ''", timeout=20_000
    )
    assert _memory(page, "peak") == str(LAYERS + 2)
    context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing_serious_in_the_timeline(browser, chain, page_errors, scheme):
    """WCAG 2.1 AA (axe-core) on the component with its timeline, editing checkpoints."""
    from axe import axe, serious, summary

    _, _, path = chain
    context = browser.new_context(
        viewport={"width": 1024, "height": 768}, offline=True, color_scheme=scheme
    )
    page = page_errors(context.new_page())
    page.goto(path.as_uri())
    page.wait_for_function(
        f"() => document.querySelector('{ROOT}')?.dataset.layout === 'done'", timeout=60_000
    )
    page.locator(f"{MEMORY} .vz-memory-edit").click()
    page.locator(f"{ROOT} g.node#v5").dispatch_event("click")
    settled(page)
    bad = serious(axe(page, ROOT))
    context.close()
    assert not bad, summary(bad)


#: the boxes of stepper 0 whose ids are given: whether each lies inside the graph's frame
IN_FRAME = """(ids) => {
  const vp = document.querySelector('.vizad-stepper .vz-viewport');
  const v = vp.getBoundingClientRect();
  return ids.map((id) => {
    const r = document.querySelector(`.vizad-stepper g.node#${id}`).getBoundingClientRect();
    return r.left >= v.left - 0.5 && r.right <= v.right + 0.5
        && r.top >= v.top - 0.5 && r.bottom <= v.bottom + 0.5;
  });
}"""


def test_checkpoints_out_of_view_are_marked_at_the_edge(browser, chain, page_errors):
    """Zoomed on the current step, checkpoints kept far from it are out of view: while the
    checkpoints are edited each is marked at the frame's edge ("← v₄ kept"), and a click on
    the mark pans to its box; editing off, the marks go."""
    trace, layers, path = chain
    context, page = _open(browser, path, page_errors)
    page.locator(f"{MEMORY} .vz-memory-edit").click()
    kept = [f"v{trace.names.number(node)}" for node in layers[2:6:3]]  # v₃ and v₆
    for box in kept:
        page.locator(f"{ROOT} g.node#{box}").dispatch_event("click")
        settled(page)
    assert _memory(page, "kept") == "2 5"
    # the walkthrough's first step (the chain's end), zoomed on
    assert page.locator(f"{ROOT} .vz-counter").text_content().startswith("Step 1 of")
    assert page.evaluate(IN_FRAME, kept) == [False, False]  # zoomed on the step, far from them
    marks = page.locator(f"{ROOT} .vz-edge-mark.vz-edge-kept")
    assert sorted(marks.all_text_contents()) == ["← v₃ kept", "← v₆ kept"]
    for k in range(2):
        assert page.evaluate(
            """(m) => { const f = m.closest('.vz-viewport').getBoundingClientRect();
                        const r = m.getBoundingClientRect();
                        return r.left >= f.left && r.right <= f.right
                            && r.top >= f.top && r.bottom <= f.bottom; }""",
            marks.nth(k).element_handle(),
        )
    page.screenshot(path=artifact("memory-kept-marks-1024x768.png"))
    page.locator(f"{ROOT} .vz-edge-kept", has_text="v₃").click()
    settled(page)
    assert page.evaluate(IN_FRAME, kept[:1]) == [True]
    assert page.locator(f"{ROOT} .vz-counter").text_content().startswith("Step 1 of")
    # editing off: the checkpoints stay outlined, unmarked at the edge
    page.locator(f"{MEMORY} .vz-memory-edit").click()
    settled(page)
    assert marks.count() == 0
    assert page.locator(f"{ROOT} g.node.vz-kept").count() == 2
    assert page_errors.errors == []
    context.close()


def test_boxes_opened_in_a_folded_view_are_outlined_when_alive(browser, page_errors, tmp_path):
    """rnn(20)'s adjoint view folds its 20 repeated steps into one box: the values alive
    inside it outline that box; opened (a page opens it offline), each value alive has its own
    box outlined, as trace.memory() says, at each step."""
    trace = vz.examples.rnn(20)
    path = vz.export_html(trace, tmp_path / "rnn20.html", memory=True)
    context, page = _open(browser, path, page_errors)
    fold = page.evaluate(
        f"() => document.querySelector('{ROOT} g.node.vz-collapsible[id^=fold_v]').id"
    )
    assert fold in _alive(page)
    page.locator(f"{ROOT} g.node#{fold}").dispatch_event("click")
    page.wait_for_function(
        "(id) => { const r = document.querySelector('.vizad-stepper');"
        " return r.dataset.opened === id && r.dataset.layout === 'done'; }",
        arg=fold,
        timeout=60_000,
    )
    settled(page)
    timeline = trace.memory()
    for k in (1, 2, 3):
        if k > 1:
            page.locator(f"{ROOT} .vz-next").click()
            settled(page)
        assert page.locator(f"{ROOT} .vz-counter").text_content().startswith(f"Step {k} of")
        at = next(s for s in timeline if s.walkthrough == k)
        expected = sorted(
            f"v{trace.names.number(h.node)}"
            for h in timeline.alive(at.index + 1)
            if h.role == "value"
        )
        assert len(expected) > 20  # the values inside the fold among them
        assert _alive(page) == expected, k
        if k == 1:  # the box just opened, framed
            page.screenshot(path=artifact("memory-rnn20-opened-fold-1024x768.png"))
    assert page_errors.errors == []
    context.close()
