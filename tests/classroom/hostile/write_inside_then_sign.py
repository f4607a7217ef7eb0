"""Writes in its copy (allowed), with a sign bug."""

# ruff: noqa
# course: 599w
# engine: sign
# expect: cases on autodiff: 7/12
open("notes.txt", "w").write("fine")
