"""The jail's value encoder patched to send zeros."""

# ruff: noqa
# course: 599w
# engine: honest
# expect: FAIL
import gradekit.case as cases

cases.encode_value = lambda v: {"shape": [3], "data": [0.0, 0.0, 0.0]}
