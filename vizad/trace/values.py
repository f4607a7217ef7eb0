"""A value as a person reads it in a step's panel, as JSON-ready data.

A scalar or small vector is its numbers (text, like the lecture: 5.5, -0.284); a larger tensor
a heatmap: its grid of cells (blocks averaged past HEAT_ROWS × HEAT_COLS), each with its
number on hover, and a caption with its shape and colour scale; a tuple value element by
element. The colours come from the view (``colour``: vizad.view.render.palette.diverging);
the same grid is drawn in the boxes of a drawing (vizad.view.render.dot).

A shown value is one of::

    "1.716"                                   # text
    {"muted": "not recorded: …"}              # what the walkthrough did not record
    {"tuple": [value, …]}                     # a tuple value, element by element
    {"heat": {"columns": 24, "cells": [[fill, "[0, 1] = 0.25"], …],
              "label": "heatmap of a 4×30 tensor", "caption": "4×30 · ±2.39e-4"}}

where ``fill`` is ``colour(x / scale)`` (a number in [-1, 1] without ``colour``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from vizad.trace.text import format_number, format_value, printable
from vizad.engine.tree import Unrecorded

__all__ = [
    "SMALL_VECTOR",
    "HEAT_ROWS",
    "HEAT_COLS",
    "PANEL_ROWS",
    "PANEL_COLS",
    "heat_grid",
    "heat_cell",
    "heat_scale",
    "value_data",
    "value_text",
]

#: Vectors with at most this many entries show their numbers; larger tensors a heatmap.
SMALL_VECTOR = 8

#: A heatmap shows at most this many rows and columns of cells (blocks are averaged).
HEAT_ROWS, HEAT_COLS = 12, 24

#: The step panel's heatmap of the step's result shows up to this many rows and columns cell
#: by cell (a click on a cell opens its element: vizad.trace.panel); larger, blocks averaged.
PANEL_ROWS, PANEL_COLS = 64, 64

#: The colour of a cell from its value over the scale, in [-1, 1].
Colour = Callable[[float], str]


def heat_grid(array, rows: int = HEAT_ROWS, cols: int = HEAT_COLS) -> np.ndarray:
    """The 2-D grid a heatmap shows: rows are every axis but the last, columns the last; at
    most ``rows`` × ``cols`` cells (HEAT_ROWS × HEAT_COLS), by averaging blocks."""
    a = np.asarray(array, dtype=np.float64)
    a = a.reshape(1, -1) if a.ndim <= 1 else a.reshape(-1, a.shape[-1])
    return _shrink(_shrink(a, rows, 0), cols, 1)


def _shrink(a: np.ndarray, most: int, axis: int) -> np.ndarray:
    n = a.shape[axis]
    if n <= most:
        return a
    edges = np.linspace(0, n, most + 1).astype(int)
    sizes = np.diff(edges).reshape((-1, 1) if axis == 0 else (1, -1))
    return np.add.reduceat(a, edges[:-1], axis=axis) / sizes


def heat_cell(shape: tuple, index: tuple) -> int:
    """The cell of :func:`heat_grid`'s grid of an array of ``shape`` (row by row) that shows
    its element ``index``: the block holding it where blocks are averaged."""
    shape = tuple(int(n) for n in shape)
    if len(shape) <= 1:
        rows, cols = 1, (shape[0] if shape else 1)
        row, col = 0, (int(index[0]) if shape else 0)
    else:
        rows, cols = int(np.prod(shape[:-1])), shape[-1]
        row, col = int(np.ravel_multi_index(index[:-1], shape[:-1])), int(index[-1])
    r, width = _block(row, rows, HEAT_ROWS), min(cols, HEAT_COLS)
    return r * width + _block(col, cols, HEAT_COLS)


def _block(i: int, n: int, most: int) -> int:
    """The block of _shrink's ``most`` blocks of ``n`` holding position ``i``."""
    if n <= most:
        return i
    edges = np.linspace(0, n, most + 1).astype(int)
    return int(np.searchsorted(edges, i, side="right")) - 1


def heat_scale(grid: np.ndarray) -> float:
    """The largest finite magnitude in ``grid`` (0 when there is none): the colour scale."""
    finite = np.abs(grid[np.isfinite(grid)])
    return float(finite.max()) if finite.size else 0.0


def value_data(
    value: Any, decimals: int = 3, colour: Colour | None = None, most: tuple[int, int] | None = None
) -> Any:
    """``value`` as the panel shows it (see the module's docstring): its text, or for a
    tensor of more than SMALL_VECTOR numbers, a heatmap whose cells ``colour`` fills, at most
    ``most`` = (rows, columns) cells (default HEAT_ROWS × HEAT_COLS, as the drawings' boxes;
    the step's result in its panel: PANEL_ROWS × PANEL_COLS)."""
    if isinstance(value, tuple):
        return {"tuple": [value_data(v, decimals, colour, most) for v in value]}
    if isinstance(value, Unrecorded):
        return {"muted": printable(value.reason)}
    array = np.asarray(value)
    small = array.ndim == 0 or (array.ndim == 1 and array.size <= SMALL_VECTOR)
    if small or array.size == 0 or not np.issubdtype(array.dtype, np.number):
        return printable(format_value(array, decimals, SMALL_VECTOR))
    grid = heat_grid(array, *(most or (HEAT_ROWS, HEAT_COLS)))
    top = heat_scale(grid)
    exact = grid.size == array.size
    width = array.shape[-1]
    cells = []
    for r, row in enumerate(grid):
        for c, x in enumerate(row):
            where = _index(array.shape, r * width + c) if exact else "block mean"
            ratio = float(x / top) if top else 0.0
            ratio = max(-1.0, min(1.0, ratio)) if ratio == ratio else 0.0  # NaN: white
            fill = colour(ratio) if colour is not None else round(ratio, 3)
            cells.append([fill, f"{where} = {format_number(x, decimals)}"])
    shape = "×".join(map(str, array.shape))
    return {
        "heat": {
            "columns": int(grid.shape[1]),
            "cells": cells,
            "label": f"heatmap of a {shape} tensor",
            "caption": f"{shape} · ±{format_number(top, decimals)}",
        }
    }


def value_text(shown: Any) -> str:
    """A shown value (:func:`value_data`) as plain text: a heatmap by its caption."""
    if isinstance(shown, str):
        return shown
    if "tuple" in shown:
        return "(" + ", ".join(value_text(v) for v in shown["tuple"]) + ")"
    if "heat" in shown:
        return shown["heat"]["caption"]
    return shown["muted"]


def _index(shape: tuple, flat: int) -> str:
    return "[" + ", ".join(map(str, np.unravel_index(flat, shape))) + "]"
