"""Ignores SIGTERM and SIGINT, then loops at import."""

# ruff: noqa
# course: 599w micrograd needle
# engine: honest
# expect: importing the submission took more than
import signal

signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGINT, signal.SIG_IGN)
while True:
    pass
