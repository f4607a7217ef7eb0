"""Walkthrough benchmarks: a trace costs what computing the gradients costs.

    python bench/trace.py [sizes...]

Traces random scalar graphs of 20k and 100k nodes (by default), in both modes, against a
baseline run in turns in the same process: the engine's own gradients() plus one run of
the gradient graph (what a trace cannot avoid doing: build the adjoint graph and evaluate
it). Each result (the trace; the gradient nodes and their values) is freed outside the
timing. Targets (issue 16): trace_reverse and trace_forward <= 1.0x the baseline and
<= 12 us per forward node.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import vizad as vz  # noqa: E402
from _timing import load, machine, paired_medians  # noqa: E402


def random_graph(size: int, seed: int = 0):
    """A random scalar graph of about ``size`` nodes (add, mul, sub, tanh over 50 inputs)."""
    rng = np.random.default_rng(seed)
    xs = [vz.Variable(f"x{k}") for k in range(50)]
    nodes = list(xs)
    binary = [vz.ops.add, vz.ops.mul, vz.ops.sub]

    def pick():
        return nodes[int(rng.integers(max(0, len(nodes) - 100), len(nodes)))]

    while True:
        for _ in range(500):
            nodes.append(
                binary[rng.integers(3)](pick(), pick()) if rng.random() < 0.5 else vz.tanh(pick())
            )
        y = vz.ops.add_n(*nodes[-20:])
        if len(vz.topo_sort(y)) >= size:
            return y, xs, {x: rng.uniform(-1, 1) for x in xs}


def main() -> None:
    sizes = [int(s) for s in sys.argv[1:]] or [20_000, 100_000]
    print(machine())
    print(load())
    print("trace_reverse / trace_forward on random scalar graphs, medians of 5 runs in turns")
    for size in sizes:
        y, xs, feed = random_graph(size)
        n = len(vz.topo_sort(y))

        def reverse_baseline():
            grads = vz.gradients(y, xs)
            return grads, vz.Executor(grads).run(feed)

        def forward_baseline():
            t = vz.jvp(y, {xs[0]: 1.0})
            return t, vz.Executor([t]).run(feed)

        def every_step():  # the trace with every step record made (labels, LaTeX)
            trace = vz.trace_reverse(y, xs, feed)
            latex = [c.partial_latex for step in trace.steps for c in step.contributions]
            return trace, latex

        t = paired_medians(
            {
                "gradients + run": reverse_baseline,
                "trace_reverse": lambda: vz.trace_reverse(y, xs, feed),
                "jvp + run": forward_baseline,
                "trace_forward": lambda: vz.trace_forward(y, feed=feed, tangents={xs[0]: 1.0}),
                "every step": every_step,
            },
            repeat=5,
        )
        rev, fwd = t["trace_reverse"], t["trace_forward"]
        print(
            f"  {n:>7} nodes: gradients + run {t['gradients + run']:6.3f} s | trace_reverse "
            f"{rev:6.3f} s ({rev / n * 1e6:5.1f} µs/node, ratio "
            f"{rev / t['gradients + run']:4.2f})"
        )
        print(
            f"  {'':>7}        jvp + run       {t['jvp + run']:6.3f} s | trace_forward "
            f"{fwd:6.3f} s ({fwd / n * 1e6:5.1f} µs/node, ratio {fwd / t['jvp + run']:4.2f}; "
            f"to gradients + run {fwd / t['gradients + run']:4.2f})"
        )
        full = t["every step"]
        print(
            f"  {'':>7}        trace_reverse with every step record read (labels, LaTeX): "
            f"{full:6.3f} s ({full / n * 1e6:5.1f} µs/node, "
            f"ratio {full / t['gradients + run']:4.2f})"
        )
    print("  targets: ratio to gradients + run <= 1.0, <= 12 µs per forward node")
    print(load())


if __name__ == "__main__":
    main()
