"""Closes every fd from 3 up at import."""

# ruff: noqa
# course: 599w micrograd needle
# engine: honest
# expect: importing the submission ended the process|closed the grader's channel
import os

os.closerange(3, 256)
