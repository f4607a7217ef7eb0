"""SIGKILL to itself in a rule."""

# ruff: noqa
# course: 599w
# engine: honest
# expect: killed by SIGKILL
import os, signal


def gradients(output_node, node_list):
    os.kill(os.getpid(), signal.SIGKILL)
