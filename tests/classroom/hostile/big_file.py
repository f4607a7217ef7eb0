"""Writes a 100 MB file in its copy."""

# ruff: noqa
# course: 599w micrograd needle
# engine: honest
# expect: File too large|EFBIG|OSError
open("big.bin", "wb").write(b"0" * 100_000_000)
