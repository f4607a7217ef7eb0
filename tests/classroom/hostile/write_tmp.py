"""Writes into /tmp by absolute path."""

# ruff: noqa
# course: 599w micrograd needle
# engine: honest
# expect: write only in its copy
# expect-bubblewrap: cases on \w+: (?P<full>\d+)/(?P=full)
open("/tmp/vizad-hostile-was-here", "w").write("x")
