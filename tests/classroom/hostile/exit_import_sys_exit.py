"""sys.exit(0) at import."""

# ruff: noqa
# course: 599w micrograd needle
# engine: honest
# expect: importing the submission raised SystemExit
import sys

sys.exit(0)
