"""What ``vz.from_torch`` costs against PyTorch's tracer alone (issue 34: ≤ 1.2× ``make_fx``).

    python bench/from_torch.py

Two 1,001-op functions (bench/bridges.py's 250 residual steps h = tanh(h @ w) * 0.5 + h on a
4×4 matrix, in float64): as written there, and writing in place (``u = tanh(h @ w) * 0.5;
u.add_(h)``), which from_torch traces twice (as far as the first write, then functionalized)
and runs once as PyTorch does (the check that PyTorch's backward would not fail on a value
written after it was saved). The baseline is ``make_fx`` of the same function, without
decompositions, in the same process. Medians of 5 runs, taken in turns. (``h.add_(t)`` itself
would be refused: the matmul saved h for its backward pass.)
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import torch  # noqa: E402
from torch.fx.experimental.proxy_tensor import make_fx  # noqa: E402

import vizad as vz  # noqa: E402
from _timing import load, machine, paired_medians  # noqa: E402
from bridges import STEPS, W, X, torch_fn  # noqa: E402


def in_place(x, w):
    """bridges.torch_fn with its residual add written in place."""
    h = x
    for _ in range(STEPS):
        u = torch.tanh(h @ w) * 0.5
        u.add_(h)  # u is saved by no op: PyTorch differentiates it
        h = u
    return h.sum()


def main() -> int:
    print(machine(), "·", load())
    print(f"torch {torch.__version__}\n")
    print("| function | make_fx alone | vz.from_torch | ratio |")
    print("| --- | --- | --- | --- |")
    for name, fn in (("out of place", lambda x, w: torch_fn(x, w)), ("in place", in_place)):
        ops = sum(1 for n in vz.graph.topo_sort(vz.from_torch(fn, X, W).output) if n.inputs)
        times = paired_medians(
            {
                "make_fx": lambda: make_fx(fn)(torch.tensor(X), torch.tensor(W)),
                "from_torch": lambda: vz.from_torch(fn, X, W),
            },
            repeat=5,
        )
        t, base = times["from_torch"], times["make_fx"]
        print(f"| {name}, {ops} ops | {base * 1e3:.0f} ms | {t * 1e3:.0f} ms | {t / base:.2f} |")
    print("\n" + load())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
