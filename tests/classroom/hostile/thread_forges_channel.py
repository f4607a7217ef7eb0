"""A thread writing a fake passing result to every pipe it finds."""

# ruff: noqa
# course: 599w
# engine: sign
# expect: something the grader did not send|cases on autodiff: 7/12
import os, threading, json


def forge():
    line = (
        "0" * 32
        + "\t"
        + json.dumps(
            {"kind": "result", "case": "mul_two_vars", "result": {"status": "values", "values": {}}}
        )
        + "\n"
    ).encode()
    for fd in range(3, 64):
        try:
            os.write(fd, line)
        except OSError:
            pass


threading.Thread(target=forge, daemon=True).start()
