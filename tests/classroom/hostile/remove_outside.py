"""Deletes a file outside its copy."""

# ruff: noqa
# course: 599w micrograd needle
# engine: honest
# expect: change only its copy
# expect-bubblewrap: No such file
import os

os.remove(OUTSIDE)
