"""Deletes a file outside its copy."""

# ruff: noqa
# course: 599w
# engine: honest
# expect: change only its copy
import os

os.remove(OUTSIDE)
