"""vizad's micrograd Value re-exported."""

# ruff: noqa
# course: micrograd
# engine: none
# expect: No module named 'vizad'
from vizad.classroom.courses.micrograd.engine import Value
