"""SIGKILL to the grader through a pidfd (no audit event)."""

# ruff: noqa
# course: 599w
# engine: honest
# isolation: bubblewrap uid
# expect: Operation not permitted|No module named
# expect-bubblewrap: was killed by SIGKILL|ended the process|cases on autodiff: 12/12
import os, signal

signal.pidfd_send_signal(os.pidfd_open(os.getppid()), signal.SIGKILL)
