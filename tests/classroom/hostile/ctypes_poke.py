"""ctypes to read memory."""

# ruff: noqa
# course: 599w
# engine: honest
# expect: refuses ctypes
import ctypes

ctypes.string_at(0)
