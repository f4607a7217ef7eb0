"""Drawing benchmarks.

    python bench/render.py

1. A step's SVG for a 300-box adjoint graph, restyled from one layout (vz.Layout), against the
   baseline of drawing the step and running dot again. Target: ≤ 5 ms per step.
2. A 5,000-node graph, drawn (summarised) and rendered to SVG by dot. Target: ≤ 3 s.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import vizad as vz  # noqa: E402
from _timing import machine, median_time  # noqa: E402


def graph(n_inputs: int, n_ops: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    xs = [vz.Variable(f"x{k}") for k in range(n_inputs)]
    nodes = list(xs)
    for _ in range(n_ops):
        a, b = rng.integers(max(0, len(nodes) - 30), len(nodes), 2)
        nodes.append(nodes[a] * nodes[b] if rng.random() < 0.5 else vz.tanh(nodes[a]))
    return vz.add_n(*nodes[-5:]), xs


def step_svg() -> None:
    y, xs = graph(8, 115)
    trace = vz.trace_reverse(y, xs, {x: 0.3 for x in xs})
    start = time.perf_counter()
    layout = vz.Layout(trace, "adjoint")
    t_layout = time.perf_counter() - start
    boxes = len(layout.scene.items)
    steps = len(trace.steps)
    k = iter(range(10**9))
    t_step = median_time(lambda: layout.svg(next(k) % steps), repeat=51)
    t_dot = median_time(
        lambda: vz.draw(trace, "adjoint", step=next(k) % steps).pipe("svg"), repeat=5
    )
    print(
        f"step SVG of a {boxes}-box adjoint graph ({steps} steps); one layout took "
        f"{t_layout * 1e3:.0f} ms"
    )
    print(f"  draw + dot per step  {t_dot * 1e3:8.2f} ms")
    print(
        f"  Layout.svg(step)     {t_step * 1e3:8.3f} ms   ratio {t_step / t_dot:.4f}   "
        f"(target <= 5 ms)"
    )


def large() -> None:
    y, _ = graph(40, 8800, seed=1)
    n = len(vz.topo_sort(y))
    t = median_time(lambda: vz.draw(y).pipe("svg"), repeat=3, warmup=0)
    drawing = vz.draw(y)
    print(f"{n}-node graph: draw (summary) + dot to SVG {t:.2f} s   (target <= 3 s)")
    print(f"  {drawing!r}")


if __name__ == "__main__":
    print(machine())
    step_svg()
    large()
