"""os.system."""

# ruff: noqa
# course: 599w micrograd needle
# engine: honest
# expect: refuses os.system
# expect-bubblewrap: cases on \w+: (?P<full>\d+)/(?P=full)
import os

os.system("touch " + OUTSIDE)
