"""GradeReport.passed and score patched, with a sign bug."""

# ruff: noqa
# course: 599w
# engine: sign
# expect: cases on autodiff: 7/12
import vizad.classroom.grading.report as r

r.GradeReport.passed = property(lambda self: True)
r.GradeReport.score = property(lambda self: 12)
