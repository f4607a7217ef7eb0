"""Prints 2 M lines at import, and has no gradients()."""

# ruff: noqa
# course: 599w
# engine: none
# expect: has no '(gradients|Variable)'|importing the submission took more than
for _ in range(2_000_000):
    print("testing")
