"""The eager front end: cost per scalar op and memory, against micrograd and the symbolic path.

    python bench/eager.py          (python bench/eager.py torch: the PyTorch comparison alone)

Per op: a chain of 10,000 steps y = relu(y * a + b) (30,000 ops) built by micrograd 0.1.0's
Value (the baseline), by vz.tensor nodes (float64 and float32), by
vizad.classroom.courses.micrograd's Value, and by the symbolic path (Variables, then an Executor
planned and run once); then the same with the backward pass. Medians of 5 runs; what a run built is
freed outside its timing.
Memory: tracemalloc's count of what 100,000 chained eager sin nodes keep, against the same
symbolic chain. Targets: <= 5 us per eager scalar op; eager memory <= 2x symbolic. Then per
op against PyTorch eager (scalars and 16x16 float32, forward and forward + backward).
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
from vizad.classroom.courses.micrograd.engine import Value as CompatValue  # noqa: E402

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


TORCH_STEPS = 2_000


def torch_comparison() -> None:
    """Per eager op against PyTorch eager (CPU) in the same run: scalars and 16×16 float32,
    the chain y = relu(y * a + b) built (forward) and built + backward, µs per op."""
    import torch

    torch.set_num_threads(1)
    ops = 3 * TORCH_STEPS

    def chain_of(relu):
        def build(y, a, b):
            for _ in range(TORCH_STEPS):
                y = relu(y * a + b)
            return y

        return build

    torch_chain, vizad_chain = chain_of(torch.relu), chain_of(vz.relu)
    print(f"per op against PyTorch {torch.__version__} eager: {TORCH_STEPS:,} steps of "
          "y = relu(y * a + b), medians of 5")  # fmt: skip
    for label, shape in (("scalar", ()), ("16x16", (16, 16))):
        rng = np.random.default_rng(0)
        start = [rng.uniform(0.5, 1.0, shape).astype(np.float32) for _ in range(3)]

        def torch_leaves():
            return [torch.tensor(v, requires_grad=True) for v in start]

        def vizad_leaves():
            return [vz.tensor(v, dtype=np.float32) for v in start]

        def torch_both():
            y = torch_chain(*torch_leaves())
            y.sum().backward() if shape else y.backward()
            return y

        def vizad_both():
            y = vizad_chain(*vizad_leaves())
            y.backward()
            return y

        t_fwd = median_time(lambda: torch_chain(*torch_leaves()), repeat=5) / ops * 1e6
        v_fwd = median_time(lambda: vizad_chain(*vizad_leaves()), repeat=5) / ops * 1e6
        t_both = median_time(torch_both, repeat=5) / ops * 1e6
        v_both = median_time(vizad_both, repeat=5) / ops * 1e6
        print(
            f"  {label:7s} float32: forward torch {t_fwd:5.2f} vizad {v_fwd:5.2f} us/op "
            f"(x{v_fwd / t_fwd:4.2f});  forward + backward torch {t_both:5.2f} "
            f"vizad {v_both:5.2f} us/op (x{v_both / t_both:4.2f})"
        )
    print("target (issue 29): <= 1.0x PyTorch's per-op overhead, forward and backward")


def main() -> None:
    if sys.argv[1:] == ["torch"]:
        print(machine())
        torch_comparison()
        return
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
        ("vizad.classroom.courses.micrograd Value", compat_build, compat_backward),
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
    torch_comparison()


if __name__ == "__main__":
    main()
