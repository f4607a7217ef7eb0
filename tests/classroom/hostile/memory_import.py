"""Allocates 100 GB at import."""

# ruff: noqa
# course: 599w micrograd needle
# engine: honest
# expect: MemoryError
hog = bytearray(10**11)
