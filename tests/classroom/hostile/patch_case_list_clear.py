"""The grader's case list cleared (0/0 = passed?)."""

# ruff: noqa
# course: 599w
# engine: sign
# expect: lost it|could not read
import vizad.classroom.grading.autodiff_cases as c

c.CASES.clear()
