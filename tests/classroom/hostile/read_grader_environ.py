"""The grader's environment, command line and memory read through /proc, and shown."""

# ruff: noqa
# course: 599w micrograd needle
# engine: none
# expect: grader's environment: .*
found = []
for name in ("environ", "cmdline", "mem"):
    try:
        with open(f"/proc/{__import__('os').getppid()}/{name}", "rb") as f:
            found.append(f.read(4000))
    except OSError as exc:
        found.append(repr(exc).encode())
raise RuntimeError("grader's environment: " + repr(found))
