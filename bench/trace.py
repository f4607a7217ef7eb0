"""Walkthrough benchmarks: building a trace must be linear in the graph size.

    python bench/trace.py

Traces random scalar graphs of 5k, 10k and 20k nodes, in both modes, against a baseline run in
the same process: the engine's own gradients() plus one evaluation of the same graph (what a
trace cannot avoid doing). Target: a 20,000-node graph traces in well under a second.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import vizad as vz  # noqa: E402
from _timing import machine, median_time  # noqa: E402


def random_graph(size: int, seed: int = 0):
    """A random scalar graph of about ``size`` nodes (add, mul, sub, tanh over 50 inputs)."""
    rng = np.random.default_rng(seed)
    xs = [vz.Variable(f"x{k}") for k in range(50)]
    nodes = list(xs)
    binary = [vz.add, vz.mul, vz.sub]

    def pick():
        return nodes[int(rng.integers(max(0, len(nodes) - 100), len(nodes)))]

    while True:
        for _ in range(500):
            nodes.append(
                binary[rng.integers(3)](pick(), pick()) if rng.random() < 0.5 else vz.tanh(pick())
            )
        y = vz.add_n(*nodes[-20:])
        if len(vz.topo_sort(y)) >= size:
            return y, xs, {x: rng.uniform(-1, 1) for x in xs}


def main() -> None:
    print(machine())
    print("trace_reverse / trace_forward on random scalar graphs (ratio: to gradients + run)")
    for size in (5_000, 10_000, 20_000):
        y, xs, feed = random_graph(size)
        n = len(vz.topo_sort(y))

        def baseline():
            vz.Executor(vz.gradients(y, xs)).run(feed)

        t_base = median_time(baseline, repeat=3)
        t_rev = median_time(lambda: vz.trace_reverse(y, xs, feed), repeat=3)
        t_fwd = median_time(lambda: vz.trace_forward(y, feed, {xs[0]: 1.0}), repeat=3)
        print(
            f"  {n:>6} nodes: gradients + run {t_base:6.3f} s | trace_reverse {t_rev:6.3f} s "
            f"({t_rev / n * 1e6:5.1f} µs/node, ratio {t_rev / t_base:4.2f}) | "
            f"trace_forward {t_fwd:6.3f} s ({t_fwd / n * 1e6:5.1f} µs/node)"
        )
    print("  target: 20,000 nodes well under 1 s")


if __name__ == "__main__":
    main()
