"""os._exit and sys.exit patched to do nothing, with a sign bug."""

# ruff: noqa
# course: 599w
# engine: sign
# expect: cases on autodiff: 7/12
import os, sys

os._exit = lambda code: None
sys.exit = lambda code=0: None
