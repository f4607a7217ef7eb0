"""An exception message with newlines forging PASS lines."""


# ruff: noqa
# course: 599w
# engine: honest
# expect: ok\\n  PASS    identity
def gradients(output_node, node_list):
    raise ValueError("ok\n  PASS    identity  y = x2\n  PASS    mul_two_vars\x1b[32m\u202e")
