"""micrograd's demo, as its users run it: one step and the training loop, one process each.

    python bench/demo_loop.py            # every case, each in fresh processes, alternating
    python bench/demo_loop.py CASE       # one case in this process (prints seconds)

Cases: ``step ENGINE POINTS`` — one step of micrograd's demo network (``MLP(2, [16, 16, 1])``)
on POINTS make_moons-like points: build the graph (hinge loss + L2), ``backward()``, read every
parameter's gradient, right after the process started (GC on); ``loop ENGINE`` — micrograd's
demo training loop, 20 SGD steps on 100 points. ENGINE is ``micrograd`` (0.1.0, the
baseline), ``compat`` (vizad.classroom.courses.micrograd) or ``tensor`` (vz.tensor, step only). The
driver runs each case in its own process, the engines in turns, three rounds, and prints the
medians and the ratios to micrograd. Targets (issue 29): a step <= 1.0x micrograd; the loop
<= 0.5x micrograd.
"""

from __future__ import annotations

import math
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path


def moons(n: int, seed: int = 1):
    """make_moons(n_samples=n, noise=0.1) without scikit-learn: two interleaved half circles."""
    rng = random.Random(seed)
    xs, ys = [], []
    for k in range(n):
        t = math.pi * (k // 2) / max(1, n // 2 - 1)
        if k % 2 == 0:
            x = [math.cos(t), math.sin(t)]
        else:
            x = [1 - math.cos(t), 0.5 - math.sin(t)]
        xs.append([x[0] + rng.gauss(0, 0.1), x[1] + rng.gauss(0, 0.1)])
        ys.append(1.0 if k % 2 else -1.0)
    return xs, ys


def engine(name: str):
    """(Value-making function, MLP class) of an engine."""
    if name == "micrograd":
        from micrograd.engine import Value
        from micrograd.nn import MLP

        return Value, MLP
    from vizad.classroom.courses.micrograd.engine import Value
    from vizad.classroom.courses.micrograd.nn import MLP

    if name == "compat":
        return Value, MLP
    import vizad as vz

    class TensorMLP:  # micrograd's MLP with vz.tensor parameters and vz.relu
        def __init__(self, nin, nouts):
            rng = random.Random(0)
            sizes = [nin, *nouts]
            self.layers = [
                [
                    ([vz.tensor(rng.uniform(-1, 1)) for _ in range(a)], vz.tensor(0.0))
                    for _ in range(b)
                ]
                for a, b in zip(sizes, sizes[1:])
            ]

        def __call__(self, x):
            for k, layer in enumerate(self.layers):
                out = [sum((w * xi for w, xi in zip(ws, x)), b) for ws, b in layer]
                x = out if k == len(self.layers) - 1 else [vz.relu(o) for o in out]
            return x[0]

        def parameters(self):
            return [p for layer in self.layers for ws, b in layer for p in (*ws, b)]

    return (lambda v: v), TensorMLP


def total_loss(model, value, xs, ys):
    """micrograd demo's loss: mean hinge loss plus 1e-4 × the parameters' squares."""
    scores = [model([value(v) for v in x]) for x in xs]
    losses = [(1 + -y * s).relu() if hasattr(s, "relu") else _relu(1 + -y * s)
              for y, s in zip(ys, scores)]  # fmt: skip
    data_loss = sum(losses) * (1.0 / len(losses))
    return data_loss + 1e-4 * sum(p * p for p in model.parameters())


def _relu(x):
    import vizad as vz

    return vz.relu(x)


def grad_of(p) -> float:
    g = p.grad
    return g if isinstance(g, float) else float(g.value)


def case(args: list[str]) -> float:
    what, name = args[0], args[1]
    random.seed(0)
    value, mlp = engine(name)
    model = mlp(2, [16, 16, 1])
    points = int(args[2]) if what == "step" else 100
    xs, ys = moons(points)
    start = time.perf_counter()
    for k in range(1 if what == "step" else 20):
        loss = total_loss(model, value, xs, ys)
        for p in model.parameters():
            p.grad = 0 if name != "tensor" else None
        loss.backward()
        grads = [grad_of(p) for p in model.parameters()]
        if what == "loop":
            rate = 1.0 - 0.9 * k / 100
            for p, g in zip(model.parameters(), grads):
                p.data -= rate * g
    return time.perf_counter() - start


def main() -> None:
    if len(sys.argv) > 1:
        print(case(sys.argv[1:]))
        return
    here = Path(__file__).resolve()
    cases = [
        *(["step", e, "16"] for e in ("micrograd", "compat", "tensor")),
        *(["step", e, "100"] for e in ("micrograd", "compat", "tensor")),
        *(["loop", e] for e in ("micrograd", "compat")),
    ]
    times: dict[tuple, list[float]] = {tuple(c): [] for c in cases}
    for _ in range(3):
        for c in cases:
            out = subprocess.run([sys.executable, str(here), *c], capture_output=True, text=True)
            times[tuple(c)].append(float(out.stdout.split()[-1]))
    for c, ts in times.items():
        base = statistics.median(times[(c[0], "micrograd", *c[2:])])
        t = statistics.median(ts)
        print(f"  {' '.join(c):22s} median {t * 1e3:9.1f} ms  ({min(ts) * 1e3:.1f}–"
              f"{max(ts) * 1e3:.1f})   ratio {t / base:5.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
