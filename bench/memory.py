"""Memory returns when a graph is dropped: RSS around building and deleting a 1M-node chain.

    python bench/memory.py [nodes]

In a fresh process: RSS before building (numpy and vizad imported), after building a chain of
``nodes`` sin nodes (1,000,000 by default) and its gradient with ``vz.gradients``, and after
``del`` of both, with the cyclic garbage collector left as it is (no ``gc.collect()``);
then what ``gc.collect()`` still finds (0: no reference cycles), and the RSS after asking
glibc's allocator to return its free memory (``malloc_trim``), which tells memory the process
still uses from memory the allocator keeps for reuse. Baseline: the same chain built and
deleted without gradients. Target (issue 16): RSS after ``del`` <= 1.3x RSS before.
"""

from __future__ import annotations

import ctypes
import gc
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import load, machine  # noqa: E402


def rss_mib() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def child(nodes: int, with_gradients: bool) -> None:
    import vizad as vz

    before = rss_mib()
    x = vz.Variable("x")
    y = x
    for _ in range(nodes):
        y = vz.sin(y)
    grads = vz.gradients(y, [x]) if with_gradients else []
    built = rss_mib()
    start = time.perf_counter()
    del x, y, grads
    freed_in = time.perf_counter() - start
    after = rss_mib()
    found = gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    trimmed = rss_mib()
    print(f"{before:.0f} {built:.0f} {after:.0f} {freed_in:.2f} {found} {trimmed:.0f}")


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        child(int(sys.argv[2]), sys.argv[3] == "1")
        return
    nodes = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    print(machine())
    print(load())
    for label, flag in (("chain alone (baseline)", "0"), ("chain + vz.gradients", "1")):
        out = subprocess.run(
            [sys.executable, __file__, "--child", str(nodes), flag],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        before, built, after, freed_in, found, trimmed = out
        print(
            f"  {label:24s} {nodes:,} nodes: RSS before {before} MiB, built {built} MiB, "
            f"after del {after} MiB (ratio {float(after) / float(before):.2f}, del took "
            f"{freed_in} s), gc.collect() found {found}, after malloc_trim {trimmed} MiB "
            f"(ratio {float(trimmed) / float(before):.2f})"
        )
    print("  target: after del <= 1.3x before")


if __name__ == "__main__":
    main()
