"""SIGTERM to the grader (its parent)."""

# ruff: noqa
# course: 599w micrograd needle
# engine: honest
# expect: refuses os.kill
# expect-bubblewrap: cases on \w+: (?P<full>\d+)/(?P=full)
import os, signal

os.kill(os.getppid(), signal.SIGTERM)
