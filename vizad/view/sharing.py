"""Which notebook output carries the code the outputs share: the component (its JavaScript
and CSS, ~120 kB) and the Graphviz module (~0.8 MB, for graphs laid out in the browser).

Each is carried once per run of a notebook: by the first output that needs it in this kernel
process, and again when the cell that carried it runs again (its old output, and the copy in
it, are replaced; the front end tells the kernel a cell's id, JupyterLab and Notebook 7 do).
The other outputs carry their data and picture and a few lines that wait for the copy
(``static/boot.js``), as Plotly's and Bokeh's notebook modes load their library once.
"""

from __future__ import annotations

__all__ = ["COMPONENT", "GRAPHVIZ", "carries", "forget"]

COMPONENT = "component"
GRAPHVIZ = "graphviz"

#: What was carried in this process: kind → (the cell's id or None, its execution count).
_carried: dict[str, tuple[str | None, int | None]] = {}


def _cell() -> tuple[str | None, int | None]:
    """The id and execution count of the cell running now ((None, None) outside IPython, or
    where the front end sends no cell id)."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with ipywidgets
        return None, None
    shell = get_ipython()
    if shell is None:
        return None, None
    kernel = getattr(shell, "kernel", None)
    parent = kernel.get_parent() if kernel is not None and hasattr(kernel, "get_parent") else {}
    cell = ((parent or {}).get("metadata") or {}).get("cellId")
    return (cell if isinstance(cell, str) else None), getattr(shell, "execution_count", None)


def carries(kind: str) -> bool:
    """Whether the output made now carries ``kind`` (COMPONENT or GRAPHVIZ), and if so,
    remember it: the first output of this process that needs it does, and the first one made
    when the cell that carried it runs again."""
    here = _cell()
    before = _carried.get(kind)
    if before is None or (here[0] is not None and here[0] == before[0] and here[1] != before[1]):
        _carried[kind] = here
        return True
    return False


def forget() -> None:
    """Forget what was carried (the next output carries everything again): for tests, and
    for a notebook whose carrying output was deleted."""
    _carried.clear()
