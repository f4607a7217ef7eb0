"""One process of bench/instructions.py: ``python _instructions_child.py ROOT WORKLOAD N MODE``.

Imports vizad from ROOT (not from an editable install), sets WORKLOAD up on a graph of N
nodes, runs it once to warm up, and with MODE "run" runs it once more: the difference between
the two modes' instruction counts is the workload's.
"""

from __future__ import annotations

import sys
from pathlib import Path

root, workload, nodes, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
# vizad from ROOT: drop an editable install's finder, put ROOT first; the bench helpers
# (random graphs, the MLP) from this directory, whichever tree is measured
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
sys.path[:0] = [str(Path(__file__).resolve().parent), root]

import vizad as vz  # noqa: E402

if not vz.__file__.startswith(str(Path(root).resolve())):
    sys.exit(f"vizad imported from {vz.__file__}, not from {root}")


def setup():
    """The workload as a function of no arguments."""
    if workload == "scalar MLP":
        from scalar_mlp import data, forward, symbolic_problem, weights

        xs, ys = data()
        xs, ys = xs[:16], ys[:16]
        variables, flat_vars, feed = symbolic_problem(weights())

        def mlp():
            loss = forward(variables, xs, ys, vz.relu)
            grads = vz.gradients(loss, flat_vars)
            return vz.Executor([loss, *grads]).run(feed)

        return mlp
    if workload in ("micrograd", "compat Value"):  # micrograd's MLP, forward + backward
        from scalar_mlp import data, forward, weights

        if workload == "micrograd":  # the yardstick: the same in every tree
            from micrograd.engine import Value
        else:
            from vizad.classroom.courses.micrograd.engine import Value
        xs, ys = data()
        xs, ys, w0 = xs[:16], ys[:16], weights()

        def step():
            params = [[[Value(v) for v in n] for n in layer] for layer in w0]
            loss = forward(params, xs, ys, Value.relu)
            loss.backward()
            return loss

        return step
    if workload == "vz.tensor":  # the same MLP eagerly: forward, backward, read the grads
        from scalar_mlp import data, forward, weights

        xs, ys = data()
        xs, ys, w0 = xs[:16], ys[:16], weights()

        def tensor_step():
            params = [[[vz.tensor(v) for v in n] for n in layer] for layer in w0]
            loss = forward(params, xs, ys, vz.relu)
            loss.backward()
            return [p.grad.value for layer in params for n in layer for p in n]

        return tensor_step
    if workload.startswith("demo "):  # micrograd's demo step (16 points), as bench/tape.py's
        from tape import _demo_step

        return _demo_step({"demo vz.tensor": "tensor", "demo micrograd": "micrograd"}[workload], 16)
    if workload.startswith("tensor loop"):  # micrograd's demo training loop, 6 SGD steps
        return _tensor_loop
    if workload == "Stepper":
        from export import trace_of

        trace = trace_of(1700)
        return lambda: vz.Stepper(trace, check=False)
    from trace import random_graph

    y, xs, feed = random_graph(nodes)
    if workload == "trace_reverse":
        return lambda: vz.trace_reverse(y, xs, feed)
    if workload == "trace_forward":
        return lambda: vz.trace_forward(y, feed=feed, tangents={xs[0]: 1.0})
    if workload == "gradients + run":

        def baseline():
            grads = vz.gradients(y, xs)
            return vz.Executor(grads).run(feed)

        return baseline
    sys.exit(f"unknown workload {workload!r}")


def _tensor_loop():
    """micrograd's demo training loop with vz.tensor parameters: 6 SGD steps on 16 points."""
    import random

    from demo_loop import engine, moons, total_loss

    random.seed(0)
    value, mlp = engine("tensor")
    model = mlp(2, [16, 16, 1])
    xs, ys = moons(16)
    for k in range(6):
        loss = total_loss(model, value, xs, ys)
        loss.backward()
        rate = 1.0 - 0.9 * k / 100
        model.layers = [  # SGD: new leaves (a vz.tensor's value is read-only)
            [
                ([vz.tensor(w.value - rate * w.grad.value) for w in ws],
                 vz.tensor(b.value - rate * b.grad.value))
                for ws, b in layer
            ]
            for layer in model.layers
        ]  # fmt: skip
    return loss


# the demo's figures are named GC off or on: the collector's share is on minus off
if workload in ("demo vz.tensor", "demo micrograd", "tensor loop, GC off"):
    import gc

    gc.disable()
fn = setup()
result = fn()  # warm-up: first-use imports and caches are not the workload's
del result
if mode == "run":
    result = fn()
