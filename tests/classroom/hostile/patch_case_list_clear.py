"""The jail's case list cleared (0/0 = passed?): the grader sent the cases by name."""

# ruff: noqa
# course: 599w
# engine: sign
# expect: could not read
import gradekit.autodiff_cases as c

c.CASES.clear()
