"""Overwrites a classmate's engine (later in the batch) with a broken one."""

# ruff: noqa
# course: 599w
# engine: honest
# isolation: bubblewrap uid none
# expect: Permission denied|No such file|Read-only|write only in its copy|read only its copy
import os

path = os.path.join(os.path.dirname(OUTSIDE), "class", "zz_honest", "autodiff.py")
open(path, "w").write("raise SystemExit")
