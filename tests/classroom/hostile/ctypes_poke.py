"""ctypes to read memory."""

# ruff: noqa
# course: 599w micrograd needle
# engine: honest
# expect: refuses ctypes
# expect-bubblewrap: killed by SIGSEGV
import ctypes

ctypes.string_at(0)
