"""Every case claimed "skipped" on every open descriptor (the child deciding statuses)."""

# ruff: noqa
# course: micrograd
# engine: none
# expect: did not send|could not read|cases on engine: 0/14
import json, os

names = [
    "add",
    "mul",
    "pow",
    "relu",
    "neg_sub_div",
    "numbers_on_the_left",
    "add_same",
    "mul_same",
    "reused",
    "all_ops",
    "tanh",
    "exp",
    "neuron",
    "tanh_by_exp",
]
lines = [{"kind": "ready", "notes": []}]
for n in names:
    lines += [
        {"kind": "start", "case": n},
        {"kind": "result", "case": n, "result": {"status": "skipped"}},
    ]
lines.append({"kind": "done"})
data = "".join(json.dumps(m) + "\n" for m in lines).encode()
for fd in range(3, 64):
    try:
        os.write(fd, data)
    except OSError:
        pass
