"""What a jail costs a teaching assistant: one submission graded in each isolation, paired runs.

    python bench/grading.py

Grades an honest engine of each course (tests/classroom/engines) with ``isolation="none"`` (the
baseline: a process of the grader's own user), ``"uid"`` (root only) and ``"bubblewrap"``,
in turns, and prints medians and their ratios to the baseline; then one engine with a bug,
whose failures start the second, jailed run that adds vz.diagnose's explanations.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests" / "classroom")]
from _timing import load, machine, paired_medians  # noqa: E402
from engines import source  # noqa: E402

from vizad.classroom.grading import grade, jail  # noqa: E402

COURSES = {"micrograd": ("minigrad", "engine.py"), "599w": ("student599", "autodiff.py")}
BUG = ("self.grad += (1 - t**2) * out.grad  # TANH-RULE", "self.grad += out.grad")


def main() -> None:
    print(machine())
    print(load())
    modes = ["none"] + [m for m in ("uid", "bubblewrap") if jail._works(m)]
    folder = Path(tempfile.mkdtemp(prefix="bench-grading-"))
    cases = {}
    for course, (base, entry) in COURSES.items():
        (folder / course).mkdir()
        (folder / course / entry).write_text(source(base))
        cases[course] = folder / course / entry
    (folder / "bug").mkdir()
    (folder / "bug" / "engine.py").write_text(source("minigrad", BUG))
    cases["micrograd with a bug"] = folder / "bug" / "engine.py"
    print(f"{'submission':<22}" + "".join(f"{m:>14}" for m in modes) + "   ratio to none")
    for name, path in cases.items():
        course = "599w" if name == "599w" else "micrograd"
        runs = {m: (lambda m=m: grade(path, course, isolation=m)) for m in modes}
        times = paired_medians(runs, repeat=7)
        ratios = " ".join(f"{m} {times[m] / times['none']:.2f}x" for m in modes[1:])
        print(
            f"{name:<22}" + "".join(f"{times[m] * 1000:>11.0f} ms" for m in modes) + "   " + ratios
        )


if __name__ == "__main__":
    main()
