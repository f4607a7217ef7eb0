"""Writes into /tmp by absolute path."""

# ruff: noqa
# course: 599w
# engine: honest
# expect: write only in its copy
open("/tmp/vizad-hostile-was-here", "w").write("x")
