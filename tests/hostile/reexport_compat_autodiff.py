"""from vizad.compat.autodiff import * (vizad's reference)."""

# ruff: noqa
# course: 599w
# engine: none
# expect: hides vizad's reference engines
from vizad.compat.autodiff import *
