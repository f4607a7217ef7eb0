"""The grader's run_student patched to claim values."""

# ruff: noqa
# course: 599w
# engine: sign
# expect: cases on autodiff: 7/12
import vizad.classroom.grading.cases as cases

cases.run_student = lambda case, student: {"status": "values", "values": {}}
