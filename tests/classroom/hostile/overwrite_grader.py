"""Overwrites the grader's case runner source."""

# ruff: noqa
# course: 599w micrograd needle
# engine: honest
# expect: write only in its copy|Permission denied
# expect-bubblewrap: Read-only file system
import gradekit.case as c

open(c.__file__, "a").write("# owned")
