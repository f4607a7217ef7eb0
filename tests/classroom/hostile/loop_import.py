"""while True at import."""

# ruff: noqa
# course: 599w micrograd needle
# engine: none
# expect: importing the submission took more than
while True:
    pass
