"""The cost of `import vizad` against `import numpy`, whole processes, paired runs.

    python bench/imports.py

Each round starts a fresh interpreter for `import numpy` and one for `import vizad` (which
imports numpy), alternating, and times the import inside it; medians of 15 rounds and their
ratio. Target (issue 16): <= 1.4x. Then the same two imports in instructions, counted by
valgrind's callgrind (one hash seed, no address randomisation, one BLAS thread; the least of 3
processes each, as a spinning thread can add to a count but nothing takes from it): the figure
that does not move with the load. Target (issue 50): <= 1.1x. Skipped, said, without valgrind.

Both are imported as installed packages are: from their bytecode caches (pip compiles them at
install time). The interpreters run without PYTHONDONTWRITEBYTECODE, so that the warm-up
imports write vizad's ``__pycache__`` in a source checkout too; compiling vizad's modules from
source on every import would cost ~20 ms more, measured as vizad's cost here before.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import machine  # noqa: E402

ROUNDS = 15
_TIMED = "import time; t = time.perf_counter(); import {0}; print(time.perf_counter() - t)"


_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def once(module: str) -> float:
    done = subprocess.run(
        [sys.executable, "-c", _TIMED.format(module)],
        capture_output=True,
        text=True,
        check=True,
        env=_ENV,
    )
    return float(done.stdout)


def instructions(module: str) -> int:
    """The instructions of a fresh interpreter that imports ``module`` (callgrind's count)."""
    env = {**_ENV, "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    fixed = ["setarch", platform.machine(), "-R"] if shutil.which("setarch") else []
    valgrind = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    cmd = [*fixed, *valgrind, sys.executable, "-c", f"import {module}"]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
    return int(re.search(r"refs:\s+([\d,]+)", done.stderr).group(1).replace(",", ""))


def main() -> None:
    print(machine())
    numpy_times, vizad_times = [], []
    once("numpy"), once("vizad")  # warm the file cache
    for _ in range(ROUNDS):
        numpy_times.append(once("numpy"))
        vizad_times.append(once("vizad"))
    t_numpy, t_vizad = statistics.median(numpy_times), statistics.median(vizad_times)
    print(f"import numpy {t_numpy * 1e3:6.1f} ms   import vizad {t_vizad * 1e3:6.1f} ms   "
          f"ratio {t_vizad / t_numpy:.2f}   (target <= 1.4)")  # fmt: skip
    if shutil.which("valgrind") is None:
        print("instructions: skipped (no valgrind: tools/ensure-system-package valgrind valgrind)")
        return
    i_numpy = min(instructions("numpy") for _ in range(3))
    i_vizad = min(instructions("vizad") for _ in range(3))
    ratio = i_vizad / i_numpy
    print(f"import numpy {i_numpy / 1e6:6.1f} M instructions   "
          f"import vizad {i_vizad / 1e6:6.1f} M   ratio {ratio:.3f}   (target <= 1.1)")  # fmt: skip


if __name__ == "__main__":
    main()
