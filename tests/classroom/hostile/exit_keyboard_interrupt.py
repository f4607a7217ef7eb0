"""KeyboardInterrupt in a rule."""


# ruff: noqa
# course: 599w
# engine: honest
# expect: raised KeyboardInterrupt
def gradients(output_node, node_list):
    raise KeyboardInterrupt
