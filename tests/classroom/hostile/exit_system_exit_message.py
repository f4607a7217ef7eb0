"""SystemExit('all good') in a rule."""


# ruff: noqa
# course: 599w
# engine: honest
# expect: raised SystemExit: all good
def gradients(output_node, node_list):
    raise SystemExit("all good")
