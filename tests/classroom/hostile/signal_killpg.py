"""SIGKILL to a process group."""

# ruff: noqa
# course: 599w micrograd needle
# engine: honest
# expect: refuses os.killpg
# expect-bubblewrap: No such process
import os, signal

os.killpg(os.getpgid(os.getppid()), signal.SIGKILL)
