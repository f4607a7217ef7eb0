"""numpy.asarray patched to return zeros, with a sign bug."""

# ruff: noqa
# course: 599w
# engine: sign
# expect: FAIL
import numpy

numpy.asarray = lambda *a, **k: numpy.zeros(3)
