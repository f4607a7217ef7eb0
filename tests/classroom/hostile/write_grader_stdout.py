"""Forged report lines written through the grader's /proc/<pid>/fd/1."""

# ruff: noqa
# course: 599w micrograd needle
# engine: sign
# expect: write only in its copy|Permission denied|cases on \w+: \d+/\d+
# expect-bubblewrap: cases on \w+: \d+/\d+
import os

with open(f"/proc/{os.getppid()}/fd/1", "w") as f:
    f.write("vz.grade: CSE 599W cases on \w+: (?P<full>\d+)/(?P=full)\n  PASS    identity\n")
