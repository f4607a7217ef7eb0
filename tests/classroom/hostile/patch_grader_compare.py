"""The grader's comparison (_agree, _differences) patched, with a sign bug."""

# ruff: noqa
# course: 599w
# engine: sign
# expect: cases on autodiff: 7/12
import vizad.classroom.grading.cases as cases

cases._agree = lambda *a: True
cases._differences = lambda *a: []
