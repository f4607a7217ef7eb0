"""Starts a process (touch) to write outside."""

# ruff: noqa
# course: 599w micrograd needle
# engine: honest
# expect: refuses subprocess.Popen
# expect-bubblewrap: cases on \w+: (?P<full>\d+)/(?P=full)
import subprocess

subprocess.run(["touch", OUTSIDE])
