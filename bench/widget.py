"""Stepper benchmark: what Python does once when a stepper opens, for a 300-box adjoint graph.

    python bench/widget.py

Stepping happens in the browser (the walkthrough is sent once; the browser tests time a click
and "last step"). Here: opening a Stepper (three layouts, every step's highlights and panel)
against the baseline of the three layouts alone, and the size of the data sent.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import vizad as vz  # noqa: E402
from _timing import machine, median_time  # noqa: E402
from render import graph  # noqa: E402


def main() -> None:
    print(machine())
    y, xs = graph(8, 115)
    trace = vz.trace_reverse(y, xs, {x: 0.3 for x in xs})
    t_layouts = median_time(lambda: [vz.render.Layout(trace, v) for v in trace.views], repeat=5)
    t_open = median_time(lambda: vz.Stepper(trace, check=False), repeat=5)
    stepper = vz.Stepper(trace, check=False)
    size = len(json.dumps(stepper.data, ensure_ascii=False).encode())
    boxes = len(stepper.layout_of("adjoint").scene.items)
    print(f"stepper on a {boxes}-box adjoint graph, {stepper.n_steps} steps")
    print(f"  three layouts alone      {t_layouts * 1e3:7.1f} ms")
    print(
        f"  vz.Stepper(trace)        {t_open * 1e3:7.1f} ms   ratio {t_open / t_layouts:.2f}   "
        f"data sent once {size / 1e3:.0f} kB"
    )


if __name__ == "__main__":
    main()
