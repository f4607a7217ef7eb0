"""Writes in its copy (allowed), with a sign bug."""

# ruff: noqa
# course: 599w
# engine: sign
# expect: sign flipped
open("notes.txt", "w").write("fine")
