"""while True in gradients()."""


# ruff: noqa
# course: 599w
# engine: honest
# expect: took more than|were used up
def gradients(output_node, node_list):
    while True:
        pass
