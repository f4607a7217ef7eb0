"""Run the adversarial suite and print its counts by category (``make adversarial``): how many
hostile inputs gave a right result, a clear VizadError, a write refused by numpy's read-only
flag, were skipped on this machine, or failed (with why). Exits 1 when any failed."""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]

from cases import CATEGORIES, all_cases  # noqa: E402
from harness import tally  # noqa: E402

KINDS = ("result", "error", "read-only", "skipped", "FAIL")
HEADS = ("right result", "VizadError", "read-only", "skipped", "failed")


def main() -> int:
    start = time.perf_counter()
    cases = all_cases()
    counts, failures = tally(cases)
    width = max(map(len, CATEGORIES)) + 2
    print(f"{'category':<{width}}{'cases':>6}" + "".join(f"{h:>14}" for h in HEADS))
    total = {k: 0 for k in KINDS}
    for category in CATEGORIES:
        row = counts.get(category, {})
        n = sum(row.values())
        for k in KINDS:
            total[k] += row.get(k, 0)
        print(f"{category:<{width}}{n:>6}" + "".join(f"{row.get(k, 0):>14}" for k in KINDS))
    print(f"{'all':<{width}}{len(cases):>6}" + "".join(f"{total[k]:>14}" for k in KINDS))
    print(f"({time.perf_counter() - start:.0f} s)")
    for case, outcome in failures:
        print(f"FAILED {case.id}: {outcome.detail}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
