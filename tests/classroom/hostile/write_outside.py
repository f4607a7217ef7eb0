"""Writes a file outside its copy."""

# ruff: noqa
# course: 599w
# engine: honest
# expect: write only in its copy
# expect-bubblewrap: No such file
open(OUTSIDE, "w").write("owned")
