"""os.fork."""

# ruff: noqa
# course: 599w
# engine: honest
# expect: refuses os.fork
# expect-bubblewrap: did not send|cases on autodiff: 12/12
import os

os.fork()
