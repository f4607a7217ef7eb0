"""Exercise A's cases: the student's ``find_topo_sort`` and ``run`` (evaluation in that
order) on graphs of the 599W API (the notebook's ``ad``)."""

from __future__ import annotations

import numpy as np

from ..case import Case
from . import ARRAY, SUBMODULES, order_faults

__all__ = ["CASES", "SUBMODULES", "GIVEN"]

#: The handout's classes a student's class may extend (none here: A writes functions).
GIVEN: tuple[str, ...] = ()

_KEYERROR = (
    "run() needed the value of a node before computing it: run() evaluates in the order of "
    "your own find_topo_sort (part 1), so that order lists a node before one of its inputs, "
    "or leaves an input out"
)


def _example(nb):
    x1, x2 = nb.ad.Variable("x1"), nb.ad.Variable("x2")
    y = x2 * x1 + x1
    return y, [x2, x1, y.inputs[0], y], None


def _example_order(nb, graph):
    y, nodes, _ = graph
    order = list(nb.find_topo_sort([y]))
    position = {id(n): k for k, n in enumerate(order)}
    return {
        "the place of x2, x1, (x2*x1), ((x2*x1)+x1) in find_topo_sort([y])": ARRAY(
            *(position.get(id(n), -1) for n in nodes)
        )
    }


def _bigger(nb):
    ad = nb.ad
    x1, x2, x3 = ad.Variable("x1"), ad.Variable("x2"), ad.Variable("x3")
    y = x2 * x1 + x1
    z = (x1 + x2) * (x1 * x3) + ad.matmul_op(x2, x3) * 2
    return (z, y), [x1, x2, x3], None


def _bigger_order(nb, graph):
    outputs = graph[0]
    return order_faults(nb.find_topo_sort(list(outputs)), outputs)


def _course_example(nb):
    x = nb.ad.Variable("x1")
    return (x + 3) * (x + 5), [x], {x: np.ones(3)}


def _matmul(nb):
    A, B = nb.ad.Variable("A"), nb.ad.Variable("B")
    z = nb.ad.matmul_op(A, B, True, False) * 2 + 1
    return z, [A, B], {A: np.arange(6.0).reshape(3, 2), B: np.ones((3, 4))}


def _value(nb, graph):
    y, _, feed = graph
    (value,) = nb.run([y], feed)
    return {"the value": value}


CASES: list[Case] = [
    Case(
        "order_of_the_example", "find_topo_sort([y]) for y = x2*x1 + x1", _example,
        _example_order, diagnosed=False,
        hints={"the place of x2, x1, (x2*x1), ((x2*x1)+x1) in find_topo_sort([y])": (
            "a post-order depth-first search gives [x2, x1, (x2*x1), ((x2*x1)+x1)]: a "
            "node's inputs first, in order, each once, then the node"
        )},
    ),
    Case(
        "each_node_once", "find_topo_sort([z, y]): each node once, after its inputs",
        _bigger, _bigger_order, diagnosed=False,
        hints={
            "nodes listed twice": "keep a visited set: a node read twice is listed once",
            "nodes of the graph missing": "visit every input of every node, recursively",
            "nodes listed before one of their inputs": (
                "append a node after visiting its inputs (post-order), not before"
            ),
        },
    ),
    Case(
        "run_the_course_example", "run([(x1+3)(x1+5)]) at x1 = 1: 24", _course_example,
        _value, diagnosed=False, hints={"raised KeyError": _KEYERROR},
    ),
    Case(
        "run_matmul_and_constants", "run([AᵀB·2 + 1]): matmul_op with trans_A, constants",
        _matmul, _value, diagnosed=False, hints={"raised KeyError": _KEYERROR},
    ),
]  # fmt: skip
