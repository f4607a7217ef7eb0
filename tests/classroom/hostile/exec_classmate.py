"""No engine: a classmate's autodiff.py (later in the batch) run as its own."""

# ruff: noqa
# course: 599w
# engine: none
# isolation: bubblewrap uid none
# expect: Permission denied|No such file|read only its copy
import os

path = os.path.join(os.path.dirname(OUTSIDE), "class", "zz_honest", "autodiff.py")
exec(compile(open(path).read(), "autodiff.py", "exec"))
