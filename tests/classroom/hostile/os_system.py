"""os.system."""

# ruff: noqa
# course: 599w
# engine: honest
# expect: refuses os.system
import os

os.system("touch " + OUTSIDE)
