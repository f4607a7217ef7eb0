"""Starts a process (touch) to write outside."""

# ruff: noqa
# course: 599w
# engine: honest
# expect: refuses subprocess.Popen
import subprocess

subprocess.run(["touch", OUTSIDE])
