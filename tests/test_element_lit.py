"""The cells an element's terms read, as the stepper lights them (issue 48 item 3): each
element cell of a step's heatmap carries the heatmap cells its terms read (``lit``: [tensor
key, cell]); each view says which box draws each tensor's heatmap (``heats``); the running
table's rows name theirs (``key``). A block-averaged heatmap lights the block holding the
element (vizad.trace.values.heat_cell, checked against heat_grid itself)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import vizad as vz
from vizad.trace.panel import running_row, step_panel
from vizad.trace.values import heat_cell, heat_grid
from vizad.view.widget.data import walkthrough_data


@pytest.mark.parametrize(
    "shape", [(5,), (9,), (30,), (8, 16), (13, 25), (40, 3), (2, 3, 30), (1, 1), (100, 70)]
)
def test_heat_cell_is_the_cell_heat_grid_draws_the_element_in(shape):
    n = int(np.prod(shape))
    for index in itertools.islice(np.ndindex(*shape), 0, None, max(1, n // 60)):
        one = np.zeros(shape)
        one[index] = 1.0
        assert np.flatnonzero(heat_grid(one).ravel()).tolist() == [heat_cell(shape, index)]


@pytest.fixture(scope="module")
def mlp():
    trace = vz.examples.mlp()
    named = {w.name: w for w in trace.wrt}
    return trace, named


def test_b_bar_reads_a_column_of_z_bar_and_w_bar_a_column_of_x_and_of_z_bar(mlp):
    trace, named = mlp
    b1, w1 = named["b1"], named["W1"]
    tanh_in = next(n for n in trace.graph if n.op.name == "tanh").inputs[0]  # Z = XW + b
    z_key = f"g{trace.names.number(tanh_in)}"
    x = next(n for n in trace.graph if n.op.name == "matmul").inputs[0]
    panel = step_panel(trace, trace.step_of(b1).index, {})
    assert panel["elements"][2]["lit"] == [[z_key, i * 16 + 2] for i in range(8)]
    z_bar = trace.names.bar(tanh_in).text
    assert panel["elements"][2]["read"] == f"its terms read the outlined cells: 8 of {z_bar}"
    panel = step_panel(trace, trace.step_of(w1).index, {})
    matmul = next(n for n in trace.graph if n.op.name == "matmul")
    zw_key = f"g{trace.names.number(matmul)}"  # v̄ of XW, a copy of Z̄
    lit = panel["elements"][1 * 16 + 2]["lit"]
    x_key = f"v{trace.names.number(x)}"
    assert sorted(map(tuple, lit)) == sorted(
        [(x_key, i * 4 + 1) for i in range(8)] + [(zw_key, i * 16 + 2) for i in range(8)]
    )


def test_each_view_says_which_box_draws_each_tensor(mlp):
    trace, named = mlp
    data = walkthrough_data(trace)
    record = trace.record
    tanh_in = next(n for n in trace.graph if n.op.name == "tanh").inputs[0]
    n = trace.names.number(tanh_in)
    frames = data["frames"]
    # the adjoint view: v̄ₙ's own box (its adjoint node), one heatmap of 8×16
    box, first, cells = frames["adjoint"]["heats"][f"g{n}"]
    assert box.startswith("a") and first == 0 and cells == 128
    assert frames["adjoint"]["heats"][f"v{n}"] == [f"v{n}", 0, 128]
    # the backprop view: under vₙ's value in vₙ's box
    assert frames["backprop"]["heats"][f"g{n}"] == [f"v{n}", 128, 256]
    # the forward view draws no adjoint
    assert f"g{n}" not in frames["forward"]["heats"]
    # W₂ (16×3) is drawn in 12×3 blocks: 36 cells
    w2 = trace.names.number(named["W2"])
    assert frames["adjoint"]["heats"][f"v{w2}"] == [f"v{w2}", 0, 36]
    assert record.adjoint(tanh_in) is not None
    # the running table's rows name the tensor their heatmap shows
    k = trace.step_of(tanh_in).index
    assert running_row(trace, k)["key"] == f"g{n}"
    assert "key" not in running_row(trace, 0)  # the seed: a number, no heatmap


def _wide(rows: int, cols: int):
    """sum(tanh(x @ w)) for x of rows × 3 and w of 3 × cols: v̄ of x @ w is rows × cols."""
    rng = np.random.default_rng(0)
    x, w = vz.Variable("x", shape=(rows, 3)), vz.Variable("w", shape=(3, cols))
    product = x @ w
    trace = vz.trace_reverse(
        vz.sum(vz.tanh(product)),
        [x, w],
        {x: rng.normal(size=(rows, 3)), w: rng.normal(size=(3, cols))},
    )
    return trace, product


@pytest.mark.parametrize(
    ("rows", "cols", "cells", "columns"),
    [(40, 30, 1200, 30), (64, 64, 4096, 64), (70, 10, 640, 10), (5, 100, 5 * 64, 64)],
)
def test_the_panel_shows_its_result_cell_by_cell_up_to_64_by_64(rows, cols, cells, columns):
    trace, product = _wide(rows, cols)
    k = trace.step_of(product).index
    heat = step_panel(trace, k, {})["total"]["heat"]
    assert (len(heat["cells"]), heat["columns"]) == (cells, columns)
    exact = rows <= 64 and cols <= 64
    assert heat["cells"][-1][1].startswith(f"[{rows - 1}, {cols - 1}] =" if exact else "block")
    # the running table's row and the drawings' boxes keep their 12 × 24 cells at most
    row = running_row(trace, k)["cells"][1][0]["heat"]
    assert len(row["cells"]) == min(rows, 12) * min(cols, 24)
    assert heat_grid(trace.result(trace.step_of(product))).shape == (min(rows, 12), min(cols, 24))


def test_a_result_of_20_rows_is_clickable_cell_by_cell():
    """20 × 5 (100 cells): once averaged into 12 rows of blocks, now one cell per element,
    each carrying its walkthrough (within the budget of 128 cells a step)."""
    trace, product = _wide(20, 5)
    panel = step_panel(trace, trace.step_of(product).index, {})
    assert len(panel["elements"]) == 100
    element = trace.element(product, (13, 4))
    assert panel["elements"][13 * 5 + 4]["line"] == element.line_text(trace.decimals)


def test_results_drawn_finer_than_the_boxes_within_a_budget(monkeypatch):
    """Past FINE_BUDGET cells in all, a step's result is averaged in 12 × 24 blocks as in
    the drawings (the page stays small): the first steps' are drawn cell by cell."""
    from vizad.trace import panel as panels

    monkeypatch.setattr(panels, "FINE_BUDGET", 4096 + 100)
    trace, product = _wide(64, 64)
    tanh = next(n for n in trace.graph if n.op.name == "tanh")
    first = step_panel(trace, trace.step_of(tanh).index, {})["total"]["heat"]
    second = step_panel(trace, trace.step_of(product).index, {})["total"]["heat"]
    assert trace.step_of(tanh).index < trace.step_of(product).index
    assert (len(first["cells"]), len(second["cells"])) == (4096, 12 * 24)
    assert second["cells"][0][1].startswith("block mean")
