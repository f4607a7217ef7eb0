"""Instruction counts of the walkthroughs and of gradients, this tree against a git revision.

    python bench/instructions.py [--base REV] [--nodes N] [--only WORKLOAD ...]

Wall-clock figures on a shared 2-core machine can move by ±30 % from one minute to the next,
which hides a 10 % change. Instructions counted by valgrind (``--tool=callgrind``) do not
depend on the machine's speed: each workload runs in a process of its own, twice (stopping
just before the workload, and going through it), and the difference is the workload's count.

Workloads: ``trace_reverse``, ``gradients()`` + one run, ``trace_forward`` on bench/trace.py's
random scalar graph of N nodes (default 5,000), the symbolic scalar MLP of
bench/scalar_mlp.py on 16 points, opening ``vz.Stepper(trace, check=False)`` on a 1,018-step
trace of bench/export.py, and micrograd's MLP on 16 points (forward and ``loss.backward()``)
with ``vizad.classroom.courses.micrograd``'s Value, with ``vz.tensor`` (reading the gradients too)
and, as the yardstick, with micrograd's own; micrograd's demo step (bench/tape.py's: 16 points,
hinge loss + L2, every gradient read) with ``vz.tensor`` and with micrograd, GC off; and
micrograd's demo training loop with ``vz.tensor`` (6 SGD steps on 16 points) with the GC off and
on (the collector's share: on minus off, over on). With
``--base REV`` the same runs are made on that revision (checked out in a temporary git
worktree) and the ratios printed. Needs valgrind
(``sh tools/ensure-system-package valgrind valgrind``); it takes a few minutes per tree.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORKLOADS = (
    *("trace_reverse", "gradients + run", "trace_forward", "scalar MLP", "Stepper"),
    *("compat Value", "vz.tensor", "micrograd"),
    *("demo vz.tensor", "demo micrograd", "tensor loop, GC off", "tensor loop, GC on"),
)


def count(root: Path, workload: str, nodes: int, run: bool) -> int:
    """Instructions of a process that sets ``workload`` up (and runs it, if ``run``)."""
    # one BLAS thread (OpenBLAS's idle threads spin, a count that moves by millions between
    # runs), one hash seed, no address randomisation: the same process, the same count
    env = {**os.environ, "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    fixed = ["setarch", platform.machine(), "-R"] if shutil.which("setarch") else []
    cmd = [
        *fixed,
        "valgrind",
        "--tool=callgrind",
        "--callgrind-out-file=/dev/null",
        sys.executable,
        str(HERE / "_instructions_child.py"),
        str(root),
        workload,
        str(nodes),
        "run" if run else "setup",
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env).stderr
    return int(re.search(r"Collected : (\d+)", out).group(1))


def counts(root: Path, nodes: int, workloads: tuple = WORKLOADS) -> dict[str, float]:
    """Millions of instructions of each workload, run from the vizad of ``root``."""
    result = {}
    for workload in workloads:
        result[workload] = (
            count(root, workload, nodes, True) - count(root, workload, nodes, False)
        ) / 1e6
        print(f"  {root}: {workload} {result[workload]:,.0f} M", flush=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="a git revision to compare with (e.g. HEAD~3)")
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--only", nargs="+", choices=WORKLOADS, help="count these workloads alone")
    args = parser.parse_args()
    workloads = tuple(args.only or WORKLOADS)
    if shutil.which("valgrind") is None:
        sys.exit("needs valgrind: sh tools/ensure-system-package valgrind valgrind")
    repo = HERE.parent
    now = counts(repo, args.nodes, workloads)
    before = None
    if args.base:
        with tempfile.TemporaryDirectory() as tmp:
            tree = Path(tmp) / "base"
            git = ["git", "-C", str(repo)]
            subprocess.run([*git, "worktree", "add", "--detach", str(tree), args.base], check=True)
            try:
                before = counts(tree, args.nodes, workloads)
            finally:
                subprocess.run([*git, "worktree", "remove", "--force", str(tree)], check=True)
    print(f"millions of instructions ({args.nodes:,}-node random graph, valgrind callgrind)")
    for workload in workloads:
        line = f"  {workload:18s} {now[workload]:9,.0f}"
        if before is not None:
            ratio = now[workload] / before[workload]
            line += f"   {args.base}: {before[workload]:9,.0f}   ratio {ratio:.3f}"
        print(line)


if __name__ == "__main__":
    main()
