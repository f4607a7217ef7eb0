"""Overwrites vizad's grader source."""

# ruff: noqa
# course: 599w
# engine: honest
# expect: write only in its copy
import os, vizad

open(os.path.join(os.path.dirname(vizad.__file__), "grading", "cases.py"), "a").write("# owned")
