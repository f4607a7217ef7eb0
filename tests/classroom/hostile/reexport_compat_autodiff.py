"""from vizad.classroom.courses.autodiff import * (vizad's reference)."""

# ruff: noqa
# course: 599w micrograd needle
# engine: none
# expect: No module named 'vizad'
from vizad.classroom.courses.autodiff import *
