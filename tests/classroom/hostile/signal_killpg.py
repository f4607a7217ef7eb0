"""SIGKILL to a process group."""

# ruff: noqa
# course: 599w
# engine: honest
# expect: refuses os.killpg
import os, signal

os.killpg(os.getpgid(os.getppid()), signal.SIGKILL)
