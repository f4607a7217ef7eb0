"""A shell started by _posixsubprocess.fork_exec (which raises no audit event), in a session
of its own, that outlives the submission unless the grader kills it."""

# ruff: noqa
# course: 599w micrograd needle
# engine: honest
# isolation: bubblewrap uid
# expect: cases on \w+: (?P<full>\d+)/(?P=full)|No module named
import os, _posixsubprocess

r, w = os.pipe()
_posixsubprocess.fork_exec(
    [b"/bin/sh", b"-c", b"sleep 90"],
    [b"/bin/sh"],
    True,
    (),
    None,
    None,
    -1,
    -1,
    -1,
    -1,
    -1,
    -1,
    r,
    w,
    True,
    True,
    -1,
    None,
    None,
    None,
    -1,
    None,
    False,
)
