"""SIGTERM to the grader (its parent)."""

# ruff: noqa
# course: 599w
# engine: honest
# expect: refuses os.kill
# expect-bubblewrap: cases on autodiff: 12/12
import os, signal

os.kill(os.getppid(), signal.SIGTERM)
