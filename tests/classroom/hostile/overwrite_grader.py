"""Overwrites vizad's grader source."""

# ruff: noqa
# course: 599w
# engine: honest
# expect: write only in its copy
import os, vizad

path = os.path.join(os.path.dirname(vizad.__file__), "classroom", "grading", "cases.py")
open(path, "a").write("# owned")
