"""time.sleep(1000) at import."""

# ruff: noqa
# course: 599w micrograd needle
# engine: none
# expect: importing the submission took more than
import time

time.sleep(1000)
