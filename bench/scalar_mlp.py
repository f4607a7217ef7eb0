"""Scalar graphs end to end: micrograd's 2-16-16-1 MLP on a batch of 64 points.

    python bench/scalar_mlp.py

The network of micrograd's demo (``MLP(2, [16, 16, 1])``, ReLU hidden layers) with a squared
loss summed over 64 points, as people run it with the garbage collector on. Baseline:
micrograd 0.1.0 (PyPI) building the graph as it computes it (forward) and ``loss.backward()``;
against it, per forward node:

- vizad symbolic: build the graph over Variables, ``vz.gradients``, plan an Executor, run it
  once (what a first training step costs);
- vizad's micrograd compatibility ``Value`` (eager): forward, then ``backward()``;
- the same symbolic plan run again (a reused plan, as a training loop runs it).

Each is also timed with the GC off (micrograd too). Medians of 7 runs in turns; results freed
outside the timing. Target (issue 16): symbolic end to end <= 1.0x micrograd per forward node.
"""

from __future__ import annotations

import gc
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import vizad as vz  # noqa: E402
from _timing import load, machine, paired_medians  # noqa: E402

SIZES, POINTS = (2, 16, 16, 1), 64


def weights(seed: int = 0) -> list[list[list[float]]]:
    """Per layer, per neuron: its input weights then its bias (as micrograd's Neuron)."""
    rng = random.Random(seed)
    return [
        [[rng.uniform(-1, 1) for _ in range(n_in + 1)] for _ in range(n_out)]
        for n_in, n_out in zip(SIZES, SIZES[1:])
    ]


def data(seed: int = 1):
    rng = random.Random(seed)
    xs = [[rng.uniform(-2, 2), rng.uniform(-2, 2)] for _ in range(POINTS)]
    ys = [1.0 if x[0] * x[1] > 0 else -1.0 for x in xs]
    return xs, ys


def forward(params, xs, ys, relu):
    """The loss Σ (mlp(x) − y)², with ``params`` laid out as :func:`weights`."""
    loss = 0
    last = len(params) - 1
    for x, y in zip(xs, ys):
        act = x
        for k, layer in enumerate(params):
            act = [
                (lambda s: s if k == last else relu(s))(
                    sum((w * a for w, a in zip(neuron[:-1], act)), neuron[-1])
                )
                for neuron in layer
            ]
        diff = act[0] - y
        loss = loss + diff * diff
    return loss


def symbolic_problem(w0):
    """The MLP's weights as scalar Variables (laid out as :func:`weights`), the flat list of
    them, and a feed giving them ``w0``'s values."""
    variables = [[[vz.Variable(f"w{i}_{j}_{k}", shape=()) for k in range(len(n))]
                  for j, n in enumerate(layer)] for i, layer in enumerate(w0)]  # fmt: skip
    flat_vars = [v for layer in variables for n in layer for v in n]
    flat = [v for layer in w0 for neuron in layer for v in neuron]
    return variables, flat_vars, dict(zip(flat_vars, flat))


def count_nodes(root, children) -> int:
    seen, stack = {id(root)}, [root]
    while stack:
        for c in children(stack.pop()):
            if id(c) not in seen:
                seen.add(id(c))
                stack.append(c)
    return len(seen)


def main() -> None:
    from micrograd.engine import Value

    from vizad.classroom.courses.micrograd.engine import Value as CompatValue

    print(machine())
    print(load())
    w0 = weights()
    xs, ys = data()

    def micrograd():
        params = [[[Value(v) for v in n] for n in layer] for layer in w0]
        loss = forward(params, xs, ys, Value.relu)
        loss.backward()
        return loss, params

    def compat():
        params = [[[CompatValue(v) for v in n] for n in layer] for layer in w0]
        loss = forward(params, xs, ys, CompatValue.relu)
        loss.backward()
        return loss, params

    variables, flat_vars, feed = symbolic_problem(w0)

    def symbolic():
        loss = forward(variables, xs, ys, vz.relu)
        grads = vz.gradients(loss, flat_vars)
        return loss, grads, vz.Executor([loss, *grads]).run(feed)

    n_micro = count_nodes(micrograd()[0], lambda v: v._prev)
    n_vz = len(vz.topo_sort(forward(variables, xs, ys, vz.relu)))
    print(f"forward nodes: micrograd {n_micro:,}, vizad {n_vz:,} (vizad's constants are nodes)")
    fns = {
        "micrograd forward + backward": micrograd,
        "vizad symbolic: build + gradients + plan + run": symbolic,
        "vizad.classroom.courses.micrograd Value: forward + backward": compat,
    }
    for gc_on in (True, False):
        (gc.enable if gc_on else gc.disable)()
        t = paired_medians(fns, repeat=7)
        gc.enable()
        base = t["micrograd forward + backward"] / n_micro
        print(f"GC {'on' if gc_on else 'off'}: µs per forward node (ratio to micrograd)")
        for name, seconds in t.items():
            per = seconds / (n_micro if name.startswith("micrograd") else n_vz)
            print(f"  {name:52s} {per * 1e6:7.2f} µs   {per / base:5.2f}")
    # a plan kept for reuse, timed last: alive during the runs above, its 125k nodes would
    # be walked by every collection the others trigger
    loss = forward(variables, xs, ys, vz.relu)
    plan = vz.Executor([loss, *vz.gradients(loss, flat_vars)])
    reused = paired_medians({"run": lambda: plan.run(feed)}, repeat=7)["run"]
    print(f"  vizad, the plan reused: run {reused / n_vz * 1e6:7.2f} µs per forward node")
    print("  target: symbolic end to end <= 1.0x micrograd")
    print(load())


if __name__ == "__main__":
    main()
