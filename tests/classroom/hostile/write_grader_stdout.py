"""Forged report lines written through the grader's /proc/<pid>/fd/1."""

# ruff: noqa
# course: 599w
# engine: sign
# expect: write only in its copy|Permission denied|cases on autodiff: 7/12
# expect-bubblewrap: cases on autodiff: 7/12
import os

with open(f"/proc/{os.getppid()}/fd/1", "w") as f:
    f.write("vz.grade: CSE 599W cases on autodiff: 12/12\n  PASS    identity\n")
