"""The CSE 599W assignment-1 cases of :func:`vizad.grade` (written for vizad, after the kinds
of graphs the assignment's tests build): each builds a graph with the student's ``Variable``,
operators and ops, runs ``gradients()`` and ``Executor.run`` on numpy arrays, and compares the
value and every gradient with vizad's skeleton (:mod:`vizad.classroom.courses.autodiff`). One more
case checks ``find_topo_sort``: every node once, each after its inputs."""

from __future__ import annotations

from .case import Case
from .draws import generator

__all__ = ["CASES", "SUBMODULES"]

#: Where the module keeps its names besides its top level (none: the skeleton is one file).
SUBMODULES: tuple[str, ...] = ()


def _case(name: str, what: str, build, inputs: dict, wrt: tuple[str, ...]) -> Case:
    """A case: ``build(ad, **variables)`` gives y; the inputs' values are drawn from a
    generator seeded by the case's name (the run's seed: draws); y and
    ∂y/∂w for each w of ``wrt`` are compared."""

    def graph(ad):
        xs = {n: ad.Variable(n) for n in inputs}
        y = build(ad, **xs)
        rng = generator(name)
        feed = {xs[n]: rng.uniform(-2.0, 2.0, size=shape) for n, shape in inputs.items()}
        return y, [xs[n] for n in wrt], feed

    def values(ad, graph):
        y, nodes, feed = graph
        grads = ad.gradients(y, nodes)
        out = ad.Executor([y, *grads]).run(feed_dict=feed)
        return {"y": out[0], **{f"∂y/∂{n}": g for n, g in zip(wrt, out[1:])}}

    return Case(name, what, graph, values)


def _grad_of_grad() -> Case:
    """Second derivatives: gradients() of a gradient node."""
    name = "grad_of_grad"

    def graph(ad):
        x2, x3 = ad.Variable("x2"), ad.Variable("x3")
        y = x2 * x2 + x2 * x3
        rng = generator(name)
        return y, [x2, x3], {x2: rng.uniform(-2, 2, 3), x3: rng.uniform(-2, 2, 3)}

    def values(ad, graph):
        y, (x2, x3), feed = graph
        g2, g3 = ad.gradients(y, [x2, x3])
        g22, g23 = ad.gradients(g2, [x2, x3])
        out = ad.Executor([y, g2, g3, g22, g23]).run(feed_dict=feed)
        keys = ["y", "∂y/∂x2", "∂y/∂x3", "∂²y/∂x2²", "∂²y/∂x2∂x3"]
        return dict(zip(keys, out))

    return Case(name, "y = x2·x2 + x2·x3, and gradients() of ∂y/∂x2", graph, values)


def _topo_sort() -> Case:
    """find_topo_sort: every node of the graph once, each after its inputs."""

    def graph(ad):
        x1, x2 = ad.Variable("x1"), ad.Variable("x2")
        y = (x1 * x2 + x1) * (x2 + 3) + x1
        rng = generator("topo_sort")
        return y, [x1, x2], {x1: rng.uniform(-2, 2, 3), x2: rng.uniform(-2, 2, 3)}

    def values(ad, graph):
        y = graph[0]
        order = list(ad.find_topo_sort([y]))
        seen, wanted, stack = set(), set(), [y]
        while stack:
            node = stack.pop()
            if id(node) not in wanted:
                wanted.add(id(node))
                stack.extend(node.inputs)
        ok = len(order) == len(wanted) and {id(n) for n in order} == wanted
        for node in order:
            ok = ok and all(id(x) in seen for x in node.inputs)
            seen.add(id(node))
        return {"find_topo_sort lists every node once, each after its inputs": float(ok)}

    what = "find_topo_sort([y]) of a graph that reads x1 three times"
    return Case("topo_sort", what, graph, values)


CASES: list[Case] = [
    _case("identity", "y = x2", lambda ad, x2: x2, {"x2": (3,)}, ("x2",)),
    _case("add_by_const", "y = 5 + x2", lambda ad, x2: 5 + x2, {"x2": (3,)}, ("x2",)),
    _case("mul_by_const", "y = 5 · x2", lambda ad, x2: 5 * x2, {"x2": (3,)}, ("x2",)),
    _case(
        "add_two_vars", "y = x2 + x3", lambda ad, x2, x3: x2 + x3,
        {"x2": (3,), "x3": (3,)}, ("x2", "x3"),
    ),
    _case(
        "mul_two_vars", "y = x2 · x3", lambda ad, x2, x3: x2 * x3,
        {"x2": (3,), "x3": (3,)}, ("x2", "x3"),
    ),
    _case(
        "add_mul_mix_1", "y = x1 + x2·x3·x1 (x1 read twice)",
        lambda ad, x1, x2, x3: x1 + x2 * x3 * x1,
        {"x1": (3,), "x2": (3,), "x3": (3,)}, ("x1", "x2", "x3"),
    ),
    _case(
        "add_mul_mix_2", "y = x1 + x2·x3·x4",
        lambda ad, x1, x2, x3, x4: x1 + x2 * x3 * x4,
        {"x1": (3,), "x2": (3,), "x3": (3,), "x4": (3,)}, ("x1", "x2", "x3", "x4"),
    ),
    _case(
        "add_mul_mix_3", "z = x2·x2 + x2 + x3 + 3, y = z·z + x3 (z and x2 read several times)",
        lambda ad, x2, x3: (lambda z: z * z + x3)(x2 * x2 + x2 + x3 + 3),
        {"x2": (3,), "x3": (3,)}, ("x2", "x3"),
    ),
    _grad_of_grad(),
    _case(
        "matmul_two_vars", "y = x2 x3, a (3, 2) by a (2, 3) matrix",
        lambda ad, x2, x3: ad.matmul_op(x2, x3),
        {"x2": (3, 2), "x3": (2, 3)}, ("x2", "x3"),
    ),
    _case(
        "matmul_transposed", "y = x2ᵀ x3ᵀ (matmul_op's trans_A and trans_B), then · 2",
        lambda ad, x2, x3: ad.matmul_op(x2, x3, True, True) * 2,
        {"x2": (2, 3), "x3": (4, 2)}, ("x2", "x3"),
    ),
    _topo_sort(),
]  # fmt: skip
