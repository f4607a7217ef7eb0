"""A 5 MB exception message (and 5 MB on stderr)."""

# ruff: noqa
# course: 599w
# engine: honest
# expect: more characters
import sys

sys.stderr.write("E" * 5_000_000)


def gradients(output_node, node_list):
    raise ValueError("x" * 5_000_000)
