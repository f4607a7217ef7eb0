"""micrograd's Value re-exported from site-packages."""

# ruff: noqa
# course: micrograd
# engine: none
# expect: No module named 'micrograd'
from micrograd.engine import Value
