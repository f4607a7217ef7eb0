"""SIGSEGV to itself at import."""

# ruff: noqa
# course: 599w micrograd needle
# engine: honest
# expect: killed by SIGSEGV
import os, signal

os.kill(os.getpid(), signal.SIGSEGV)
