"""from vizad.classroom.courses.autodiff import * (vizad's reference)."""

# ruff: noqa
# course: 599w
# engine: none
# expect: hides vizad's reference engines
from vizad.classroom.courses.autodiff import *
