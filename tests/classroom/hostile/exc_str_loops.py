"""An exception whose __str__ loops forever."""


# ruff: noqa
# course: 599w
# engine: honest
# expect: took more than
class Loop(Exception):
    def __str__(self):
        while True:
            pass


def gradients(output_node, node_list):
    raise Loop()
