"""The needle (dlsys homework 1) cases of :func:`vizad.grade`, written for vizad after the
kinds of checks the homework's tests make: each op's forward value and its ``gradient`` rule
alone (for a random ``out_grad``) at the shapes and axes the homework uses, batched and
broadcast matmuls included; the exact order of ``find_topo_sort`` (a post-order depth-first
search); and ``backward()`` through graphs that read a tensor several times. Every value is
compared with vizad's needle (:mod:`vizad.classroom.courses.needle`)."""

from __future__ import annotations

import numpy as np

from .case import Case
from .draws import generator

__all__ = ["CASES", "SUBMODULES"]

#: needle keeps its ops in ``ops`` and find_topo_sort in ``autograd``.
SUBMODULES = ("ops", "autograd")


def _arrays(name: str, shapes: list[tuple], positive: bool = False) -> list[np.ndarray]:
    rng = generator(name)
    low = 0.5 if positive else -2.0
    return [rng.uniform(low, 2.0, size=shape) for shape in shapes]


def _op_case(name: str, what: str, op, shapes: list[tuple], positive: bool = False) -> Case:
    """``op(nd, *tensors)``: its value, and its gradient rule alone for a random out_grad."""

    def graph(nd):
        xs = [nd.Tensor(a) for a in _arrays(name, shapes, positive)]
        return op(nd, *xs), xs, None

    def values(nd, graph):
        out, xs, _ = graph
        value = np.asarray(out.numpy())
        rng = generator(name, 1)
        out_grad = nd.Tensor(rng.standard_normal(value.shape))
        grads = out.op.gradient_as_tuple(out_grad, out)
        found = {"the value": value}
        for k, g in enumerate(grads):
            found[f"the gradient of input {k}"] = g.numpy()
        return found

    return Case(name, what, graph, values)


def _backward_case(name: str, what: str, build, shapes: list[tuple]) -> Case:
    """``build(nd, *tensors)`` gives a scalar y: y, and every input's grad after
    ``y.backward()``."""

    def graph(nd):
        xs = [nd.Tensor(a) for a in _arrays(name, shapes, positive=True)]
        return build(nd, *xs), xs, None

    def values(nd, graph):
        y, xs, _ = graph
        y.backward()
        found = {"y": y.numpy()}
        for k, x in enumerate(xs):
            found[f"the grad of input {k}"] = None if x.grad is None else x.grad.numpy()
        return found

    return Case(name, what, graph, values)


def _topo_case(name: str, what: str, build, shapes: list[tuple]) -> Case:
    """The values of ``find_topo_sort([y])``'s nodes, in its order (the homework compares
    the exact order)."""

    def graph(nd):
        xs = [nd.Tensor(a) for a in _arrays(name, shapes)]
        return build(nd, *xs), xs, None

    def values(nd, graph):
        order = nd.find_topo_sort([graph[0]])
        return {"find_topo_sort's order": [np.asarray(n.numpy()) for n in order]}

    return Case(name, what, graph, values)


def _sum(nd, x):
    return nd.summation(x)


CASES: list[Case] = [
    _op_case("add", "a + b, (5, 4)", lambda nd, a, b: nd.add(a, b), [(5, 4), (5, 4)]),
    _op_case("add_scalar", "a + 1.5", lambda nd, a: nd.add_scalar(a, 1.5), [(5, 4)]),
    _op_case("multiply", "a · b, (5, 4)", lambda nd, a, b: nd.multiply(a, b), [(5, 4), (5, 4)]),
    _op_case("mul_scalar", "a · 3", lambda nd, a: nd.mul_scalar(a, 3.0), [(5, 4)]),
    _op_case("divide", "a / b, (3, 5)", lambda nd, a, b: nd.divide(a, b), [(3, 5), (3, 5)], True),
    _op_case("divide_scalar", "a / 2.5", lambda nd, a: nd.divide_scalar(a, 2.5), [(3, 5)]),
    _op_case("power_scalar", "a ** 3", lambda nd, a: nd.power_scalar(a, 3), [(3, 5)]),
    _op_case("negate", "−a", lambda nd, a: nd.negate(a), [(5, 4)]),
    _op_case("log", "log a", lambda nd, a: nd.log(a), [(5, 4)], True),
    _op_case("exp", "exp a", lambda nd, a: nd.exp(a), [(5, 4)]),
    _op_case("relu", "relu a", lambda nd, a: nd.relu(a), [(5, 4)]),
    _op_case("reshape", "(5, 4) to (4, 5)", lambda nd, a: nd.reshape(a, (4, 5)), [(5, 4)]),
    _op_case(
        "transpose_last", "transpose(a): the last two axes of (3, 5, 4)",
        lambda nd, a: nd.transpose(a), [(3, 5, 4)],
    ),
    _op_case(
        "transpose_axes", "transpose(a, (0, 1)) of (3, 5, 4)",
        lambda nd, a: nd.transpose(a, axes=(0, 1)), [(3, 5, 4)],
    ),
    _op_case(
        "broadcast_column", "(3, 1) to (3, 3)",
        lambda nd, a: nd.broadcast_to(a, (3, 3)), [(3, 1)],
    ),
    _op_case(
        "broadcast_row", "(1, 3) to (3, 3)", lambda nd, a: nd.broadcast_to(a, (3, 3)), [(1, 3)],
    ),
    _op_case(
        "broadcast_new_axes", "(1,) to (3, 3, 3)",
        lambda nd, a: nd.broadcast_to(a, (3, 3, 3)), [(1,)],
    ),
    _op_case(
        "broadcast_scalar", "() to (3, 3, 3)", lambda nd, a: nd.broadcast_to(a, (3, 3, 3)), [()],
    ),
    _op_case(
        "broadcast_last", "(5, 4, 1) to (5, 4, 3)",
        lambda nd, a: nd.broadcast_to(a, (5, 4, 3)), [(5, 4, 1)],
    ),
    _op_case("summation_all", "summation of (5, 4), all axes", _sum, [(5, 4)]),
    _op_case(
        "summation_axis_1", "summation of (5, 4) over axes (1,)",
        lambda nd, a: nd.summation(a, axes=(1,)), [(5, 4)],
    ),
    _op_case(
        "summation_axis_0", "summation of (5, 4) over axes (0,)",
        lambda nd, a: nd.summation(a, axes=(0,)), [(5, 4)],
    ),
    _op_case(
        "summation_axes_01", "summation of (5, 4, 1) over axes (0, 1)",
        lambda nd, a: nd.summation(a, axes=(0, 1)), [(5, 4, 1)],
    ),
    _op_case(
        "summation_square", "summation of (4, 4) over axes (1,) (a transposed rule would pass "
        "a square matrix with an out_grad of ones)",
        lambda nd, a: nd.summation(a, axes=(1,)), [(4, 4)],
    ),
    _op_case("matmul", "(5, 4) @ (4, 5)", lambda nd, a, b: nd.matmul(a, b), [(5, 4), (4, 5)]),
    _op_case(
        "matmul_batched", "(6, 6, 5, 4) @ (6, 6, 4, 3)",
        lambda nd, a, b: nd.matmul(a, b), [(6, 6, 5, 4), (6, 6, 4, 3)],
    ),
    _op_case(
        "matmul_broadcast_b", "(6, 6, 5, 4) @ (4, 3): b's gradient summed over the batch",
        lambda nd, a, b: nd.matmul(a, b), [(6, 6, 5, 4), (4, 3)],
    ),
    _op_case(
        "matmul_broadcast_a", "(5, 4) @ (6, 6, 4, 3): a's gradient summed over the batch",
        lambda nd, a, b: nd.matmul(a, b), [(5, 4), (6, 6, 4, 3)],
    ),
    _topo_case(
        "topo_sort_chain", "find_topo_sort of a + a·b + b (inputs visited in order)",
        lambda nd, a, b: a + a * b + b, [(1, 1), (1, 1)],
    ),
    _topo_case(
        "topo_sort_matmul", "find_topo_sort of summation(relu(a @ b) · c + c)",
        lambda nd, a, b, c: nd.summation(nd.relu(a @ b) * c + c), [(2, 3), (3, 2), (2, 2)],
    ),
    _backward_case(
        "backward_shared", "backward() of summation((a @ b + c) · (a @ b)): a @ b read twice",
        lambda nd, a, b, c: nd.summation((a @ b + c) * (a @ b)), [(5, 4), (4, 3), (5, 3)],
    ),
    _backward_case(
        "backward_broadcast", "backward() of summation(broadcast_to(a, (3, 4)) · b / 2)",
        lambda nd, a, b: nd.summation(nd.broadcast_to(a, (3, 4)) * b / 2), [(1, 4), (3, 4)],
    ),
    _backward_case(
        "backward_mixed", "backward() of summation(log(a) · exp(b) + a ** 2 / b): a, b read "
        "twice",
        lambda nd, a, b: nd.summation(nd.log(a) * nd.exp(b) + a**2 / b), [(3, 3), (3, 3)],
    ),
]  # fmt: skip
