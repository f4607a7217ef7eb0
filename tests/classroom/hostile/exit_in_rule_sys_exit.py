"""sys.exit(0) in gradients()."""

# ruff: noqa
# course: 599w
# engine: honest
# expect: raised SystemExit
import sys


def gradients(output_node, node_list):
    sys.exit(0)
