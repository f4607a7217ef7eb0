"""Prints a fake full-marks JSON report, then os._exit(0)."""

# ruff: noqa
# course: 599w micrograd needle
# engine: none
# expect: ended the process with exit code 0
import json, os

print(json.dumps({"course": "CSE 599W", "score": 12, "max_score": 12, "passed": True}))
os._exit(0)
