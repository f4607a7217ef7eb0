"""A 1e11-element numpy array in a rule."""

# ruff: noqa
# course: 599w
# engine: honest
# expect: MemoryError
import numpy as np


def gradients(output_node, node_list):
    return [np.ones((10**6, 10**5))]
