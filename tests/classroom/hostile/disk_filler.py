"""Writes 160 MB into its own copy, 8 MB a file (a jail holds 64 MB; elsewhere it is said)."""

# ruff: noqa
# course: micrograd
# engine: honest
# expect: wrote 160 MB into its copy
# expect-bubblewrap: No space left
block = b"x" * (8 * 1024 * 1024)
for k in range(20):
    try:
        with open(f"fill_{k}.bin", "wb") as f:
            f.write(block)
    except OSError:
        raise
