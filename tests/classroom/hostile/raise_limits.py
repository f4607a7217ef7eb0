"""Raises its own resource limits."""

# ruff: noqa
# course: 599w micrograd needle
# engine: honest
# expect: refuses resource.setrlimit
# expect-bubblewrap: not allowed to raise
import resource

resource.setrlimit(resource.RLIMIT_CPU, (10**6, 10**6))
