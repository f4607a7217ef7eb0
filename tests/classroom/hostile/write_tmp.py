"""Writes into /tmp by absolute path."""

# ruff: noqa
# course: 599w
# engine: honest
# expect: write only in its copy
# expect-bubblewrap: cases on autodiff: 12/12
open("/tmp/vizad-hostile-was-here", "w").write("x")
