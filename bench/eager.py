"""The eager front end: cost per scalar op and memory, against micrograd and the symbolic path.

    python bench/eager.py

Per op: a chain of 10,000 steps y = relu(y * a + b) (30,000 ops) built by micrograd 0.1.0's
Value (the baseline), by vz.tensor nodes (float64 and float32), by vizad.compat.micrograd's
Value, and by the symbolic path (Variables, then an Executor planned and run once); then the
same with the backward pass. Medians of 5 runs; what a run built is freed outside its timing.
Memory: tracemalloc's count of what 100,000 chained eager sin nodes keep, against the same
symbolic chain. Targets: <= 5 us per eager scalar op; eager memory <= 2x symbolic.
"""

from __future__ import annotations

import gc
import sys
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import numpy as np  # noqa: E402

import vizad as vz  # noqa: E402
from _timing import machine, median_time  # noqa: E402
from vizad.compat.micrograd.engine import Value as CompatValue  # noqa: E402

STEPS = 10_000
OPS = 3 * STEPS
MEMORY_NODES = 100_000
sys.setrecursionlimit(10 * OPS)  # micrograd's backward recurses once per node of the chain


def chain(y, a, b, relu):
    for _ in range(STEPS):
        y = relu(y * a + b)
    return y


def micrograd_build():
    from micrograd.engine import Value

    return chain(Value(0.5), Value(0.999), Value(0.001), Value.relu)


def micrograd_backward():
    y = micrograd_build()
    y.backward()
    return y


def eager_build(dtype=np.float64):
    t = [vz.tensor(v, dtype=dtype) for v in (0.5, 0.999, 0.001)]
    return chain(*t, vz.relu)


def eager_backward(dtype=np.float64):
    y = eager_build(dtype)
    y.backward()
    return y


def compat_build():
    return chain(CompatValue(0.5), CompatValue(0.999), CompatValue(0.001), CompatValue.relu)


def compat_backward():
    y = compat_build()
    y.backward()
    return y


_symbolic = [vz.Variable(n, shape=()) for n in ("y0", "a", "b")]


def symbolic_build_and_run():
    y0, a, b = _symbolic
    y = chain(y0, a, b, vz.relu)
    return vz.Executor([y]).run({y0: 0.5, a: 0.999, b: 0.001})


def symbolic_backward():
    y0, a, b = _symbolic
    y = chain(y0, a, b, vz.relu)
    grads = vz.gradients(y, [y0, a, b])
    return vz.Executor([y, *grads]).run({y0: 0.5, a: 0.999, b: 0.001})


def kept_bytes(build) -> int:
    """Bytes that the result of ``build()`` keeps alive (tracemalloc)."""
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    result = build()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del result
    gc.collect()
    return after - before


def sin_chain(x):
    y = x
    for _ in range(MEMORY_NODES):
        y = vz.sin(y)
    return y


def main() -> None:
    print(machine())
    print(f"per op: {STEPS:,} steps of y = relu(y * a + b), {OPS:,} ops; medians of 5 runs")
    rows = [
        ("micrograd 0.1.0 Value (baseline)", micrograd_build, micrograd_backward),
        ("vz.tensor, float64", eager_build, eager_backward),
        (
            "vz.tensor, float32",
            lambda: eager_build(np.float32),
            lambda: eager_backward(np.float32),
        ),
        ("vizad.compat.micrograd Value", compat_build, compat_backward),
        ("symbolic: build + plan + run", symbolic_build_and_run, symbolic_backward),
    ]
    base_build = base_both = None
    for what, build, both in rows:
        t_build = median_time(build, repeat=5) / OPS * 1e6
        t_both = median_time(both, repeat=5) / OPS * 1e6
        if base_build is None:
            base_build, base_both = t_build, t_both
        print(
            f"  {what:34s} build {t_build:6.2f} us/op (x{t_build / base_build:4.2f})   "
            f"build + backward {t_both:6.2f} us/op (x{t_both / base_both:4.2f})"
        )
    symbolic = kept_bytes(lambda: sin_chain(vz.Variable("x", shape=())))
    eager = kept_bytes(lambda: sin_chain(vz.tensor(0.5)))
    print(
        f"memory of {MEMORY_NODES:,} chained sin nodes: symbolic {symbolic / 2**20:.1f} MiB, "
        f"eager {eager / 2**20:.1f} MiB (x{eager / symbolic:.2f}; "
        f"{eager / MEMORY_NODES:.0f} B per eager node)"
    )
    print("targets: <= 5 us per eager scalar op; eager memory <= 2x symbolic")


if __name__ == "__main__":
    main()
