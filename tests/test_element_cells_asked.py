"""Issue 48: the cells of a heatmap of v̄ᵢ that a page does not carry (past its budgets) are
made on request by a live stepper, with the same maker as the carried ones
(vizad.trace.panel.element_entry), and say why they do not open where no kernel answers."""

from __future__ import annotations

import numpy as np
import pytest

import vizad as vz
from vizad.trace import panel as panels
from vizad.trace.panel import ELEMENT_STEP_TERMS, LIVE_ONLY, element_entry, step_panel
from vizad.view.widget import snapshot


def _custom(stepper, content):
    stepper._handle_msg(
        {"content": {"data": {"method": "custom", "content": content}}, "buffers": []}
    )


def _listening(stepper):
    sent: list = []
    stepper.send = lambda content, buffers=None: sent.append(content)
    return sent


def _wide():
    """A 12 × 24 input: 288 cells, one element each, past ELEMENT_CELLS."""
    x = vz.Variable("x", shape=(12, 24))
    rng = np.random.default_rng(3)
    y = vz.sum(vz.tanh(x) * vz.tanh(x))
    return vz.trace_reverse(y, [x], {x: rng.standard_normal((12, 24))}), x


def test_the_carried_cells_are_made_by_element_entry():
    trace = vz.examples.mlp()
    d = trace.decimals
    for step in trace.steps:
        panel = step_panel(trace, step.index)
        for k, entry in enumerate(panel.get("elements") or ()):
            assert entry == element_entry(trace, step, k, d)
    b1 = next(w for w in trace.wrt if w.name == "b1")
    entry = element_entry(trace, trace.step_of(b1), 2, d)
    element = trace.element(b1, 2)
    assert entry["line"] == element.line_text(d)
    assert [label for label, _ in entry["terms"]] == [t.label for t in element.terms]


def test_a_cell_past_the_budget_is_answered_by_the_kernel():
    trace, x = _wide()
    k = trace.step_of(x).index
    panel = step_panel(trace, k)
    assert "elements" not in panel  # 288 cells: the page does not carry them
    assert panel["cells"]["ask"] is True
    assert panel["cells"]["why"].startswith(LIVE_ONLY) and "128" in panel["cells"]["why"]
    stepper = vz.Stepper(trace)
    sent = _listening(stepper)
    _custom(stepper, {"kind": "element", "step": k, "cell": 30})  # row 1, column 6
    (reply,) = sent
    assert reply["kind"] == "element" and reply["step"] == k and reply["cell"] == 30
    element = trace.element(x, (1, 6))
    entry = reply["entry"]
    assert entry == element_entry(trace, trace.steps[k], 30, stepper.decimals)
    assert entry["line"] == element.line_text(stepper.decimals)
    assert [label for label, _ in entry["terms"]] == [t.label for t in element.terms]
    assert entry["lit"]  # the cells of x's heatmaps its terms read


@pytest.mark.parametrize(
    "content, says",
    [
        ({"kind": "element", "step": "1", "cell": 0}, "step must be an int"),
        ({"kind": "element", "step": 99, "cell": 0}, "step must be an int"),
        ({"kind": "element", "step": None, "cell": 0}, "step must be an int"),
        ({"kind": "element", "cell": 0, "step": True}, "step must be an int"),
        ({"kind": "element", "step": "x", "cell": 288}, "step must be an int"),
        ({"kind": "element", "cell": 288}, "step must be an int"),
    ],
)
def test_a_malformed_request_is_answered_with_an_error(content, says):
    trace, x = _wide()
    stepper = vz.Stepper(trace)
    sent = _listening(stepper)
    _custom(stepper, content)
    (reply,) = sent
    assert reply["kind"] == "element" and "entry" not in reply and says in reply["error"]


def test_a_cell_out_of_range_or_of_a_block_averaged_heatmap_is_refused():
    trace, x = _wide()
    k = trace.step_of(x).index
    stepper = vz.Stepper(trace)
    sent = _listening(stepper)
    for cell in (-1, 288, 2.0, "3"):
        _custom(stepper, {"kind": "element", "step": k, "cell": cell})
        assert "cell must be an int from 0 to 287" in sent[-1]["error"]
    big = vz.Variable("big", shape=(100, 100))
    averaged = vz.trace_reverse(vz.sum(vz.tanh(big)), [big], {big: np.ones((100, 100))})
    stepper = vz.Stepper(averaged)
    sent = _listening(stepper)
    j = averaged.step_of(big).index
    _custom(stepper, {"kind": "element", "step": j, "cell": 0})
    assert "no cell per element" in sent[-1]["error"] and "entry" not in sent[-1]
    assert "mean of a block" in step_panel(averaged, j)["cells"]["why"]
    assert "ask" not in step_panel(averaged, j)["cells"]
    stepper.close()
    _custom(stepper, {"kind": "element", "step": j, "cell": 0})  # closed: nobody to answer


def test_why_the_cells_do_not_open_says_the_reason():
    # the walkthrough's budget: a step past ELEMENT_BUDGET
    trace = vz.examples.mlp()
    said = {}
    for step in trace.steps:
        cells = step_panel(trace, step.index).get("cells")
        if cells:
            said[step.index] = cells["why"]
    assert not said  # the MLP's cells are all carried
    saved = panels.ELEMENT_BUDGET
    try:
        panels.ELEMENT_BUDGET = 20
        trace = vz.examples.mlp()
        b1 = next(w for w in trace.wrt if w.name == "b1")
        panel = step_panel(trace, trace.step_of(b1).index)
        assert "elements" not in panel and panel["cells"]["ask"] is True
        assert panel["cells"]["why"] == (
            LIVE_ONLY + "this page carries the first 20 cells' derivations (the first steps')"
        )
    finally:
        panels.ELEMENT_BUDGET = saved
    # too many terms: b̄ sums 600 rows for each of its 16 cells
    rng = np.random.default_rng(16)
    X, b = vz.Variable("X", shape=(600, 16)), vz.Variable("b", shape=(16,))
    trace = vz.trace_reverse(
        vz.sum(vz.tanh(X + b)), [b], {X: rng.standard_normal((600, 16)), b: np.zeros(16)}
    )
    cells = step_panel(trace, trace.step_of(b).index)["cells"]
    assert cells["ask"] is True and f"{ELEMENT_STEP_TERMS:,}" in cells["why"]
    assert "9,600 terms" in cells["why"]
    # a forward walkthrough says nothing (no element walkthroughs)
    x = vz.Variable("x", shape=(12, 24))
    forward = vz.trace_forward(vz.sum(vz.tanh(x)), x, {x: np.ones((12, 24))})
    assert all("cells" not in step_panel(forward, j) for j in range(len(forward.steps)))


def test_the_static_picture_says_why_the_cells_do_not_open():
    trace, x = _wide()
    panel = step_panel(trace, trace.step_of(x).index)
    html = snapshot.snapshot_html("t", None, panel, panels.CONTRIBUTIONS_HEAD)
    assert panel["cells"]["why"] in html and "vz-cells-note" in html
    # a heatmap whose cells are carried: no note
    mlp = vz.examples.mlp()
    b1 = next(w for w in mlp.wrt if w.name == "b1")
    carried = step_panel(mlp, mlp.step_of(b1).index)
    assert "vz-cells-note" not in snapshot.snapshot_html("t", None, carried, ())


def test_a_step_past_the_fine_budget_is_drawn_cell_by_cell_on_request(monkeypatch):
    from vizad.trace.values import value_data
    from vizad.view.render.palette import diverging

    monkeypatch.setattr(panels, "FINE_BUDGET", 4096)  # one 64 × 64 result cell by cell
    x = vz.Variable("x", shape=(64, 64))
    rng = np.random.default_rng(0)
    feed = {x: rng.standard_normal((64, 64))}
    trace = vz.trace_reverse(vz.sum(vz.tanh(x) * x), [x], feed)
    k = trace.step_of(x).index
    panel = step_panel(trace, k)
    assert len(panel["total"]["heat"]["cells"]) == 12 * 24  # averaged in blocks in the page
    assert panel["cells"] == {
        "why": "each cell is the mean of a block of elements: no cell opens (this walkthrough "
        "draws its first steps' results cell by cell, 4,096 cells in all)",
        "fine": True,
    }
    stepper = vz.Stepper(trace)
    sent = _listening(stepper)
    _custom(stepper, {"kind": "fine", "step": k})
    (reply,) = sent
    assert reply["kind"] == "fine" and reply["step"] == k and "error" not in reply
    d = stepper.decimals
    assert reply["total"] == value_data(trace.adjoint(x), d, diverging, (64, 64))
    assert len(reply["total"]["heat"]["cells"]) == 64 * 64
    assert reply["cells"]["ask"] is True  # its cells, in turn, made by Python
    _custom(stepper, {"kind": "element", "step": k, "cell": 64 * 10 + 20})
    entry = sent[-1]["entry"]
    assert entry["line"] == trace.element(x, (10, 20)).line_text(d)
    # a result past 64 × 64 has no cell per element, even asked
    big = vz.Variable("big", shape=(65, 3))
    averaged = vz.trace_reverse(vz.sum(vz.tanh(big)), [big], {big: np.ones((65, 3))})
    stepper = vz.Stepper(averaged)
    sent = _listening(stepper)
    j = averaged.step_of(big).index
    assert "fine" not in step_panel(averaged, j)["cells"]
    _custom(stepper, {"kind": "fine", "step": j})
    assert "no cell per element" in sent[-1]["error"] and "total" not in sent[-1]
