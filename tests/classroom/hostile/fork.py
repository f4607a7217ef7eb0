"""os.fork."""

# ruff: noqa
# course: 599w micrograd needle
# engine: honest
# expect: refuses os.fork
# expect-bubblewrap: did not send|cases on \w+: (?P<full>\d+)/(?P=full)
import os

os.fork()
