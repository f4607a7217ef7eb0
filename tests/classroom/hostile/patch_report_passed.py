"""The jail's run_case replaced by one claiming passes, with a sign bug."""

# ruff: noqa
# course: 599w
# engine: sign
# expect: cases on autodiff: 7/12
import gradekit.case as c

c.run_case = lambda *a, **k: {"status": "passed"}  # the runner bound its own
