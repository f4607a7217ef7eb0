"""Drawing benchmarks.

    python bench/render.py

1. The first layout and a step's SVG restyled from it (vz.render.Layout), against the baseline of
   drawing the step and running dot again, for a 300-box adjoint graph, the 2-layer MLP of
   vz.examples (adjoint and backprop views, with heatmaps) and a 1,000-node graph (summarised).
   Target: ≤ 5 ms per step.
2. A 5,000-node graph, drawn (summarised) and rendered to SVG by dot. Target: ≤ 3 s.
"""

from __future__ import annotations

import sys
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
    return vz.ops.add_n(*nodes[-5:]), xs


def layout_and_steps(what: str, trace, view: str = "adjoint") -> None:
    """The first layout of ``trace`` in ``view`` (one dot run), and a step's SVG restyled from
    it, against the baseline of drawing the step and running dot again."""
    t_layout = median_time(lambda: vz.render.Layout(trace, view), repeat=3, warmup=0)
    layout = vz.render.Layout(trace, view)
    boxes = len(layout.scene.items)
    steps = len(trace.steps)
    k = iter(range(10**9))
    t_step = median_time(lambda: layout.svg(next(k) % steps + 1), repeat=51)
    t_dot = median_time(
        lambda: vz.draw(trace, view, step=next(k) % steps + 1).pipe("svg"), repeat=3
    )
    print(
        f"{what}: {view} view, {boxes} boxes, {steps} steps"
        + (f" ({layout.scene.note})" if layout.scene.note else "")
    )
    print(f"  first layout (scene + dot)  {t_layout * 1e3:9.1f} ms")
    print(f"  draw + dot per step        {t_dot * 1e3:9.2f} ms   (baseline)")
    print(
        f"  Layout.svg(step)           {t_step * 1e3:9.3f} ms   ratio {t_step / t_dot:.4f}   "
        f"(target <= 5 ms)"
    )


def step_svg() -> None:
    y, xs = graph(8, 115)
    layout_and_steps("random scalar graph", vz.trace_reverse(y, xs, {x: 0.3 for x in xs}))
    layout_and_steps("2-layer MLP on a batch of 8x4", vz.examples.mlp())
    layout_and_steps("2-layer MLP on a batch of 8x4", vz.examples.mlp(), "backprop")
    y, xs = graph(10, 1700, seed=2)
    n = len(vz.topo_sort(y))
    layout_and_steps(f"{n}-node graph", vz.trace_reverse(y, xs, {x: 0.3 for x in xs}))


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
