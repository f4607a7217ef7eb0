"""Issue 39's targets, in one process: medians of CPU time and their ratios to the yardstick.

    python bench/tape.py [--only demo mlp ops gc] [--repeat N]

``demo``: a warm step of micrograd's demo (``MLP(2, [16, 16, 1])``, hinge loss + L2, forward,
``backward()``, every gradient read) at 16 and 100 points, with the GC off and on, for
micrograd 0.1.0, ``vizad.classroom.courses.micrograd`` and ``vz.tensor`` (ratios to micrograd;
target ≤ 1.0 GC off, ≤ 0.5 GC on). ``mlp``: an eager MLP 784-256-10 step, batch 128 (forward, mean
cross-entropy-free squared loss, backward) with ``vz.tensor`` against the same step written
by hand in numpy, float64 and float32 (target ≤ 1.05). ``ops``: ``vz.sum`` and ``vz.matmul``
forward per call against torch eager, on scalars (1×1 for matmul) and 64×64 (target ≤ 1.0).
``gc``: the share of a ``vz.tensor`` training loop (the demo, 20 steps, 100 points) that the
cyclic GC takes: the loop with the GC on against the same loop with it off (target < 10 %).
The engines take turns in every round, so a drift of the machine's speed hits all of them.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from demo_loop import engine, grad_of, moons, total_loss  # noqa: E402

import numpy as np  # noqa: E402

import vizad as vz  # noqa: E402

clock = time.process_time


def _demo_step(name: str, points: int):
    """A function running one warm demo step with engine ``name``."""
    import random

    random.seed(0)
    value, mlp = engine(name)
    model = mlp(2, [16, 16, 1])
    xs, ys = moons(points)
    params = model.parameters()

    def step():
        loss = total_loss(model, value, xs, ys)
        for p in params:
            p.grad = 0 if name != "tensor" else None
        loss.backward()
        return [grad_of(p) for p in params]

    step()  # warm
    return step


def _timed(fn, gc_on: bool) -> float:
    gc.collect()
    if not gc_on:
        gc.disable()
    try:
        start = clock()
        fn()
        return clock() - start
    finally:
        gc.enable()


def demo(repeat: int) -> None:
    print("micrograd's demo step (warm), CPU ms, median; ratio to micrograd")
    for points in (16, 100):
        steps = {e: _demo_step(e, points) for e in ("micrograd", "compat", "tensor")}
        for gc_on in (False, True):
            times = {e: [] for e in steps}
            for _ in range(repeat):
                for e, fn in steps.items():
                    times[e].append(_timed(fn, gc_on))
            base = statistics.median(times["micrograd"])
            row = "  ".join(
                f"{e} {statistics.median(t) * 1e3:7.1f} ({statistics.median(t) / base:4.2f}×)"
                for e, t in times.items()
            )
            print(f"  {points:3d} points, GC {'on ' if gc_on else 'off'}: {row}")


def _mlp_steps(dtype):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(128, 784)).astype(dtype)
    T = rng.normal(size=(128, 10)).astype(dtype)
    W1 = (rng.normal(size=(784, 256)) * 0.05).astype(dtype)
    b1 = np.zeros(256, dtype)
    W2 = (rng.normal(size=(256, 10)) * 0.05).astype(dtype)
    b2 = np.zeros(10, dtype)

    def by_hand():
        h = X @ W1 + b1
        a = np.maximum(h, 0)
        out = a @ W2 + b2
        d = out - T
        loss = np.mean(d * d)
        g = d * (2.0 / d.size)
        gW2 = a.T @ g
        gb2 = g.sum(axis=0)
        ga = g @ W2.T
        gh = ga * (h > 0)
        gW1 = X.T @ gh
        gb1 = gh.sum(axis=0)
        return loss, gW1, gb1, gW2, gb2

    x = vz.tensor(X, requires_grad=False)
    t = vz.tensor(T, requires_grad=False)
    params = [vz.tensor(p) for p in (W1, b1, W2, b2)]

    def eager():
        w1, c1, w2, c2 = params
        for p in params:
            p.grad = None
        out = vz.relu(x @ w1 + c1) @ w2 + c2
        d = out - t
        loss = vz.mean(d * d)
        loss.backward()
        return [p.grad.value for p in params]

    return by_hand, eager


def mlp(repeat: int) -> None:
    print("eager MLP 784-256-10, batch 128, forward + backward, CPU ms, median")
    for dtype in (np.float64, np.float32):
        by_hand, eager = _mlp_steps(dtype)
        by_hand(), eager()
        for gc_on in (False, True):
            a, b = [], []
            for _ in range(repeat):
                a.append(_timed(by_hand, gc_on))
                b.append(_timed(eager, gc_on))
            ma, mb = statistics.median(a), statistics.median(b)
            print(
                f"  {np.dtype(dtype).name}, GC {'on ' if gc_on else 'off'}: numpy {ma * 1e3:6.2f}"
                f"  vz.tensor {mb * 1e3:6.2f}  ratio {mb / ma:4.2f}"
            )


def _per_call(fn, n: int) -> float:
    start = clock()
    for _ in range(n):
        fn()
    return (clock() - start) / n


def ops(repeat: int) -> None:
    import torch

    torch.set_num_threads(1)  # one thread, as numpy's small products run (and the machine has 2)
    print("forward per call, µs, median; ratio to torch eager (float64, one thread)")
    cases = []
    for label, shape in (("scalar", ()), ("64x64", (64, 64))):
        a = np.random.default_rng(0).normal(size=shape)
        ta, va = torch.tensor(a, requires_grad=True), vz.tensor(a)
        cases.append((f"sum {label}", lambda ta=ta: torch.sum(ta), lambda va=va: vz.sum(va)))
    for label, shape in (("1x1", (1, 1)), ("64x64", (64, 64))):
        a = np.random.default_rng(0).normal(size=shape)
        ta, va = torch.tensor(a, requires_grad=True), vz.tensor(a)
        cases.append((f"matmul {label}", lambda ta=ta: ta @ ta, lambda va=va: vz.matmul(va, va)))
    for name, torch_fn, vz_fn in cases:
        t, v = [], []
        for _ in range(repeat):
            t.append(_per_call(torch_fn, 2000))
            v.append(_per_call(vz_fn, 2000))
        mt, mv = statistics.median(t), statistics.median(v)
        print(f"  {name:13s} torch {mt * 1e6:6.2f}  vizad {mv * 1e6:6.2f}  ratio {mv / mt:4.2f}")


def gc_share(repeat: int) -> None:
    import random

    print("GC share of a vz.tensor training loop (demo, 20 SGD steps, 100 points)")

    def loop():
        random.seed(0)
        value, mlp_cls = engine("tensor")
        model = mlp_cls(2, [16, 16, 1])
        xs, ys = moons(100)
        for k in range(20):
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

    spent = []

    def timer(phase, info):
        if phase == "start":
            spent.append(-clock())
        else:
            spent[-1] += clock()

    gc.callbacks.append(timer)
    try:
        spent.clear()
        total = _timed(loop, True)
    finally:
        gc.callbacks.remove(timer)
    print(f"  gc.callbacks: {sum(spent):.3f} s of {total:.3f} s in {len(spent)} collections"
          f" = {sum(spent) / total:5.1%}")  # fmt: skip

    on, off = [], []
    for _ in range(min(repeat, 3)):  # a loop takes seconds
        off.append(_timed(loop, False))
        on.append(_timed(loop, True))
    mon, moff = statistics.median(on), statistics.median(off)
    print(f"  GC on {mon:.3f} s, GC off {moff:.3f} s: GC share {(mon - moff) / mon:5.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=("demo", "mlp", "ops", "gc"))
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    for part in args.only or ("demo", "mlp", "ops", "gc"):
        globals()[{"gc": "gc_share"}.get(part, part)](args.repeat)


if __name__ == "__main__":
    main()
