"""Fake result lines written to every fd at import, with a sign bug."""

# ruff: noqa
# course: 599w micrograd needle
# engine: sign
# expect: something the grader did not send
import os, json

line = ("f" * 32 + "\t" + json.dumps({"kind": "done"}) + "\n").encode()
for fd in range(3, 64):
    try:
        os.write(fd, line)
    except OSError:
        pass
