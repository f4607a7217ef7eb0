"""Stepper benchmark: Python time per step for a 300-box adjoint graph.

    python bench/widget.py

Setting ``stepper.step`` restyles the laid-out SVG and redraws the panels; the baseline is the
SVG restyling alone (Layout.svg). Target: ≤ 10 ms of Python per step.
"""

from __future__ import annotations

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
    stepper = vz.Stepper(trace)
    layout = stepper.layout_of("adjoint")
    n = stepper.n_steps
    k = iter(range(10**9))
    t_step = median_time(lambda: setattr(stepper, "step", next(k) % n), repeat=41)
    t_svg = median_time(lambda: layout.svg(next(k) % n), repeat=41)
    print(f"stepper on a {len(layout.scene.items)}-box adjoint graph, {n} steps")
    print(f"  Layout.svg(step) alone   {t_svg * 1e3:7.3f} ms")
    print(
        f"  stepper.step = k         {t_step * 1e3:7.3f} ms   ratio {t_step / t_svg:.1f}   "
        f"(target <= 10 ms)"
    )


if __name__ == "__main__":
    main()
