"""os._exit(0) at import."""

# ruff: noqa
# course: 599w micrograd needle
# engine: honest
# expect: importing the submission ended the process with exit code 0
import os

os._exit(0)
