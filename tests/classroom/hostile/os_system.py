"""os.system."""

# ruff: noqa
# course: 599w
# engine: honest
# expect: refuses os.system
# expect-bubblewrap: cases on autodiff: 12/12
import os

os.system("touch " + OUTSIDE)
