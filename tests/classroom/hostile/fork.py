"""os.fork."""

# ruff: noqa
# course: 599w
# engine: honest
# expect: refuses os.fork
import os

os.fork()
