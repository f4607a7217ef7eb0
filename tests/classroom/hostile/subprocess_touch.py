"""Starts a process (touch) to write outside."""

# ruff: noqa
# course: 599w
# engine: honest
# expect: refuses subprocess.Popen
# expect-bubblewrap: cases on autodiff: 12/12
import subprocess

subprocess.run(["touch", OUTSIDE])
