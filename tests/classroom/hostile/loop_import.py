"""while True at import."""

# ruff: noqa
# course: 599w
# engine: none
# expect: importing the submission took more than
while True:
    pass
