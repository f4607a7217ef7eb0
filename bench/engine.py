"""Engine benchmarks: medians and ratios against a baseline run in the same process.

    python bench/engine.py

1. A 784-256-10 ReLU MLP, batch 128, loss −sum(Y · log_softmax(L)) / 128: forward plus both
   weight gradients through vz.Executor, against the same maths written in numpy.
   Target: ratio ≤ 1.15.
2. gradients() and one run on chains of 25k, 50k and 100k nodes: time per node must stay flat
   (linear growth). Target: < 1 s to build the 100k chain's gradients.
3. A scalar graph of about 50,000 nodes: executor time per node, against a bare loop of the
   same numpy calls. Target: ≤ 2 µs per node.
"""

from __future__ import annotations

import builtins
import operator
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import vizad as vz  # noqa: E402
from _timing import machine, median_time  # noqa: E402


def mlp(dtype=np.float64) -> None:
    rng = np.random.default_rng(0)
    n, d, h, k = 128, 784, 256, 10
    X_val = rng.standard_normal((n, d)).astype(dtype)
    Y_val = np.eye(k, dtype=dtype)[rng.integers(0, k, n)]
    W1_val = (rng.standard_normal((d, h)) * 0.05).astype(dtype)
    W2_val = (rng.standard_normal((h, k)) * 0.05).astype(dtype)

    X, Y = vz.Variable("X", shape=(n, d)), vz.Variable("Y", shape=(n, k))
    W1, W2 = vz.Variable("W1", shape=(d, h)), vz.Variable("W2", shape=(h, k))
    L = vz.relu(X @ W1) @ W2
    loss = -vz.sum(Y * vz.log_softmax(L)) / n
    g1, g2 = vz.gradients(loss, [W1, W2])
    executor = vz.Executor([loss, g1, g2])
    feed = {X: X_val, Y: Y_val, W1: W1_val, W2: W2_val}

    def by_hand():
        H = X_val @ W1_val
        A = np.maximum(H, 0)
        Lv = A @ W2_val
        s = Lv - Lv.max(axis=1, keepdims=True)
        LS = s - np.log(np.exp(s).sum(axis=1, keepdims=True))
        loss_v = -np.sum(Y_val * LS) / n
        dLS = -Y_val / n
        dL = dLS - np.exp(LS) * dLS.sum(axis=1, keepdims=True)
        dW2 = A.T @ dL
        dH = (dL @ W2_val.T) * (H > 0)
        dW1 = X_val.T @ dH
        return loss_v, dW1, dW2

    ours, ref = executor.run(feed), by_hand()
    exact = dtype == np.float64
    for a, b in zip(ours, ref):
        assert a.dtype == b.dtype == dtype, (a.dtype, b.dtype)
        np.testing.assert_allclose(
            a, b, rtol=1e-10 if exact else 1e-4, atol=1e-12 if exact else 1e-6
        )
    t_vz = median_time(lambda: executor.run(feed), repeat=21, warmup=3)
    t_np = median_time(by_hand, repeat=21, warmup=3)
    print(
        f"MLP 784-256-10, batch 128, {np.dtype(dtype).name}, forward + 2 weight gradients "
        f"({len(executor._steps)} ops in the plan)"
    )
    print(f"  numpy by hand   {t_np * 1e3:8.3f} ms")
    print(f"  vz.Executor     {t_vz * 1e3:8.3f} ms   ratio {t_vz / t_np:.3f}   (target <= 1.15)")


def chains() -> None:
    print("gradients() + one run on a chain of sin nodes (time per node must stay flat)")
    base = None
    for size in (25_000, 50_000, 100_000):
        x = vz.Variable("x")
        y = x
        for _ in range(size):
            y = vz.sin(y)

        def build():
            return vz.gradients(y, [x])

        t_build = median_time(build, repeat=3, warmup=0)
        (g,) = build()
        start = time.perf_counter()
        executor = vz.Executor([y, g])
        executor.run({x: 1.0})
        t_run = time.perf_counter() - start
        per_node = t_build / size
        base = base or per_node
        print(
            f"  {size:>7} nodes: gradients {t_build:6.3f} s ({per_node * 1e6:5.2f} µs/node, "
            f"ratio to 25k {per_node / base:4.2f}); plan + run {t_run:6.3f} s"
        )
    print("  target: gradients of the 100k chain < 1 s")


def scalar_graph() -> None:
    rng = np.random.default_rng(1)
    inputs = [vz.Variable(f"x{k}") for k in range(100)]
    bounded = list(inputs)  # values in [-1, 1]: inputs, and sin/tanh/cos of anything
    sums = []  # binary results of bounded values: |v| <= 2
    unused = set(inputs)
    binary = [vz.ops.add, vz.ops.mul, vz.ops.sub]
    unary = [vz.sin, vz.tanh, vz.cos]

    def pick(pool):
        node = pool[int(rng.integers(max(0, len(pool) - 100), len(pool)))]
        unused.discard(node)
        return node

    while len(bounded) + len(sums) < 50_000:
        if rng.random() < 0.5:
            node = binary[rng.integers(3)](pick(bounded), pick(bounded))
            sums.append(node)
        else:
            node = unary[rng.integers(3)](pick(sums if sums and rng.random() < 0.5 else bounded))
            bounded.append(node)
        unused.add(node)
    output = vz.ops.add_n(*sorted(unused, key=lambda n: n.id))  # every node is needed
    executor = vz.Executor([output])
    feed = {x: rng.uniform(-1, 1) for x in inputs}
    steps = len(executor._steps)

    # the baseline: the same computations in a bare loop, arguments by position, with
    # Python's operators for + × − (faster than numpy's ufuncs on scalars)
    order = vz.topo_sort(output)
    slot = {n: k for k, n in enumerate(order)}
    raw = {
        "add": operator.add,
        "mul": operator.mul,
        "sub": operator.sub,
        "sin": np.sin,
        "tanh": np.tanh,
        "cos": np.cos,
        "add_n": lambda *xs: builtins.sum(xs),
    }
    program = [
        (raw[n.op.name], tuple(slot[i] for i in n.inputs), slot[n])
        for n in order
        if n.op.name in raw
    ]
    start_values = [np.float64(feed[n]) if n in feed else None for n in order]

    def bare():
        values = list(start_values)
        for fn, args, k in program:
            values[k] = fn(*[values[i] for i in args])
        return values[-1]

    assert np.isclose(bare(), executor.run(feed)[0])
    t_vz = median_time(lambda: executor.run(feed), repeat=7)
    t_bare = median_time(bare, repeat=7)
    print(f"scalar graph of {steps} op nodes")
    print(f"  bare loop       {t_bare * 1e3:8.2f} ms  ({t_bare / steps * 1e6:.2f} µs/node)")
    print(
        f"  vz.Executor     {t_vz * 1e3:8.2f} ms  ({t_vz / steps * 1e6:.2f} µs/node)   "
        f"ratio {t_vz / t_bare:.2f}   (target <= 2 µs/node)"
    )


if __name__ == "__main__":
    print(machine())
    mlp(np.float64)
    mlp(np.float32)
    chains()
    scalar_graph()
