"""Prints forever at import."""

# ruff: noqa
# course: 599w micrograd needle
# engine: honest
# expect: importing the submission took more than
while True:
    print("PASS mul_two_vars " * 10)
