"""Writes into the folder above its copy."""

# ruff: noqa
# course: 599w micrograd needle
# engine: honest
# expect: write only in its copy
# expect-bubblewrap: Read-only file system
open("../escaped.txt", "w").write("x")
