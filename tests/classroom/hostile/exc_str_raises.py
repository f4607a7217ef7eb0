"""An exception whose __str__ raises."""


# ruff: noqa
# course: 599w
# engine: honest
# expect: its message could not be read
class Odd(Exception):
    def __str__(self):
        raise ValueError("no")


def gradients(output_node, node_list):
    raise Odd()
