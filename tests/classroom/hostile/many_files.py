"""Opens 1000 files in its copy."""

# ruff: noqa
# course: 599w micrograd needle
# engine: honest
# expect: Too many open files
files = [open(f"f{k}.txt", "w") for k in range(1000)]
