"""Writes 640 MB into its own copy, 8 MB a file."""

# ruff: noqa
# course: micrograd
# engine: honest
# expect: No space left|File too large|MemoryError|took more than|cases on engine: 14/14
block = b"x" * (8 * 1024 * 1024)
for k in range(80):
    try:
        with open(f"fill_{k}.bin", "wb") as f:
            f.write(block)
    except OSError:
        raise
