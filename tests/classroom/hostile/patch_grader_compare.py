"""The comparison (_agree, _differences) patched where the submission runs, with a sign bug."""

# ruff: noqa
# course: 599w
# engine: sign
# expect: cases on autodiff: 7/12
import gradekit.case as cases

cases._agree = lambda *a: True  # the comparison is the grader's, not here
cases._differences = lambda *a: []
