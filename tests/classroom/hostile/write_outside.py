"""Writes a file outside its copy."""

# ruff: noqa
# course: 599w micrograd needle
# engine: honest
# expect: write only in its copy
# expect-bubblewrap: No such file
open(OUTSIDE, "w").write("owned")
