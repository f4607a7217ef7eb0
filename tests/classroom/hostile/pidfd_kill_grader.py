"""SIGKILL to the grader through a pidfd (no audit event)."""

# ruff: noqa
# course: 599w micrograd needle
# engine: honest
# isolation: bubblewrap uid
# expect: Operation not permitted|No module named
# expect-bubblewrap: was killed by SIGKILL|ended the process|cases on \w+: (?P<full>\d+)/(?P=full)
import os, signal

signal.pidfd_send_signal(os.pidfd_open(os.getppid()), signal.SIGKILL)
