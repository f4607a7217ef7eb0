"""os._exit(0) in gradients(): each case ends the process."""

# ruff: noqa
# course: 599w
# engine: honest
# expect: ended the process with exit code 0 \(sys.exit or os._exit in the submission\) in this case
import os


def gradients(output_node, node_list):
    os._exit(0)
