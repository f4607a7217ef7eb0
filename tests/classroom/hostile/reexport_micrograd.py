"""micrograd's Value re-exported from site-packages."""

# ruff: noqa
# course: micrograd
# engine: none
# expect: hides vizad's reference engines and installed course packages
from micrograd.engine import Value
