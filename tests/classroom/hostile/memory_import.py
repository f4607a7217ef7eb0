"""Allocates 100 GB at import."""

# ruff: noqa
# course: 599w
# engine: honest
# expect: MemoryError
hog = bytearray(10**11)
