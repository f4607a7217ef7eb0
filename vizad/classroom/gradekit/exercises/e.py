"""Exercise E's cases: the student's 599W ops (``add_byconst_op``, ``mul_byconst_op``,
``matmul_op`` with each pair of transpose flags, ``oneslike_op``, ``zeroslike_op``: the
notebook's objects of its classes), its ``Executor`` class, and gradients of gradients
(``second_derivative``, ``hessian_vector_product``), each graph differentiated by the
notebook's ``gradients()`` and evaluated by the student's ``Executor``."""

from __future__ import annotations

import numpy as np

from ..case import Case
from . import SUBMODULES

__all__ = ["CASES", "SUBMODULES", "GIVEN"]

#: The handout's class the student's ops extend.
GIVEN = ("vizad.classroom.courses.autodiff:Op",)

#: Inputs: x2 and x3 by shape (fixed, as the notebook's text works them through).
_VALUES = {
    (3,): np.array([-1.0, 0.5, 2.0]),
    (3, 2): np.array([[1.0, -2.0], [0.5, 3.0], [-1.5, 2.0]]),
    (2, 3): np.array([[2.0, 0.0, -1.0], [1.0, 3.0, 0.5]]),
    (4, 2): np.array([[1.0, 2.0], [-1.0, 0.5], [0.0, 3.0], [2.0, -2.0]]),
    (2, 4): np.array([[1.0, -1.0, 0.0, 2.0], [2.0, 0.5, 3.0, -2.0]]),
}
_MATMUL = (
    "for Y = op(A) op(B): Ā = Ȳ op(B)ᵀ and B̄ = op(A)ᵀ Ȳ, transposed back where the input "
    "was transposed (trans_A: Ā = op(B) Ȳᵀ; trans_B: B̄ = Ȳᵀ op(A)); each gradient has its "
    "input's shape"
)


def _case(name, what, build, shapes, hints, diagnosed=True) -> Case:
    """``build(nb, x2, x3)`` gives y; y and ∂y/∂x2 (and ∂y/∂x3 when x3 has a shape) are
    compared, run by the student's Executor."""

    def graph(nb):
        xs = [nb.ad.Variable(n) for n in ("x2", "x3")[: len(shapes)]]
        y = build(nb, *xs)
        return y, xs, {x: _VALUES[s] for x, s in zip(xs, shapes)}

    def values(nb, graph):
        y, xs, feed = graph
        grads = nb.gradients(y, xs)
        out = nb.Executor([y, *grads]).run(feed_dict=feed)
        names = ("∂y/∂x2", "∂y/∂x3")
        return {"y": out[0], **dict(zip(names, out[1:]))}

    return Case(name, what, graph, values, hints=hints, diagnosed=diagnosed)


def _ones_graph(nb):
    x2 = nb.ad.Variable("x2")
    return x2, [x2], {x2: _VALUES[(3,)]}


def _ones(nb, graph):
    x2, _, feed = graph
    ones, zeros = nb.oneslike_op(x2), nb.zeroslike_op(x2)
    y = nb.mul_byconst_op(ones, 2.0) + x2 * zeros  # the handout's + and *
    (g,) = nb.gradients(y, [x2])
    out = nb.Executor([ones, zeros, g]).run(feed_dict=feed)
    return dict(
        zip(("oneslike(x2)", "zeroslike(x2)", "∂(2·oneslike(x2) + x2·zeroslike(x2))/∂x2"), out)
    )


def _executor_graph(nb):
    x1, x2 = nb.ad.Variable("x1"), nb.ad.Variable("x2")
    y = x1 * x2 + x1
    return y, [x1, x2], {x1: _VALUES[(3,)], x2: _VALUES[(3,)][::-1].copy()}


def _executor(nb, graph):
    y, (x1, x2), feed = graph
    z = nb.mul_byconst_op(y, 2.0)
    executor = nb.Executor([y, z, x1])
    first = executor.run(feed_dict=feed)
    second = executor.run(feed_dict={x1: feed[x2], x2: feed[x1]})  # run again, new values
    return {
        "y": first[0],
        "2y": first[1],
        "x1 (fed)": first[2],
        "y for a second feed_dict": second[0],
    }


def _second(nb):
    x = nb.ad.Variable("x")
    return x * x * x, [x], {x: _VALUES[(3,)]}


def _second_values(nb, graph):
    y, (x,), feed = graph
    (d2y,) = nb.Executor([nb.second_derivative(y, x)]).run(feed_dict=feed)
    return {"∂²y/∂x²": d2y}


def _hvp(nb):
    ad = nb.ad
    x, A, v = ad.Variable("x"), ad.Variable("A"), ad.Variable("v")
    y = nb.matmul_op(nb.matmul_op(x, A, True, False), x)  # xᵀ A x
    feed = {
        x: np.array([[1.0], [2.0], [-1.0]]),
        A: np.arange(9.0).reshape(3, 3),
        v: np.array([[0.5], [-1.0], [2.0]]),
    }
    return y, [x], feed, v


def _hvp_graph(nb):
    y, wrt, feed, _ = _hvp(nb)
    return y, wrt, feed


def _hvp_values(nb, graph):
    y, (x,), feed = graph
    (v,) = [n for n in feed if n.name == "v"]
    (hv,) = nb.Executor([nb.hessian_vector_product(y, x, v)]).run(feed_dict=feed)
    return {"H v": hv}


CASES: list[Case] = [
    _case("add_by_const", "y = add_byconst_op(x2, 5)", lambda nb, a: nb.add_byconst_op(a, 5.0),
          [(3,)], {"y": "x2 + const_attr", "∂y/∂x2": "v̄ᵢ→ⱼ = v̄ⱼ: an added constant"}),
    _case("mul_by_const", "y = mul_byconst_op(x2, 5)", lambda nb, a: nb.mul_byconst_op(a, 5.0),
          [(3,)], {"y": "x2 · const_attr", "∂y/∂x2": "v̄ᵢ→ⱼ = const_attr · v̄ⱼ"}),
    _case("matmul", "y = matmul_op(x2, x3), a (3, 2) by a (2, 3) matrix",
          lambda nb, a, b: nb.matmul_op(a, b), [(3, 2), (2, 3)],
          {"∂y/∂x2": _MATMUL, "∂y/∂x3": _MATMUL}),
    _case("matmul_trans_A", "y = matmul_op(x2, x3, trans_A=True): x2ᵀ x3",
          lambda nb, a, b: nb.matmul_op(a, b, True, False), [(2, 3), (2, 4)],
          {"y": "trans_A: x2 is transposed before the product", "∂y/∂x2": _MATMUL,
           "∂y/∂x3": _MATMUL}),
    _case("matmul_trans_B", "y = matmul_op(x2, x3, trans_B=True): x2 x3ᵀ",
          lambda nb, a, b: nb.matmul_op(a, b, False, True), [(3, 2), (4, 2)],
          {"y": "trans_B: x3 is transposed before the product", "∂y/∂x2": _MATMUL,
           "∂y/∂x3": _MATMUL}),
    _case("matmul_trans_both", "y = matmul_op(x2, x3, True, True): x2ᵀ x3ᵀ",
          lambda nb, a, b: nb.matmul_op(a, b, True, True), [(2, 3), (4, 2)],
          {"∂y/∂x2": _MATMUL, "∂y/∂x3": _MATMUL}),
    Case("ones_and_zeros", "oneslike_op and zeroslike_op: values, and a gradient through them",
         _ones_graph, _ones, diagnosed=False,
         hints={"∂(2·oneslike(x2) + x2·zeroslike(x2))/∂x2": (
             "oneslike and zeroslike do not change with their input's values: their "
             "gradient is zeroslike_op(input)")}),
    Case("executor", "Executor([y, 2y, x1]).run(feed_dict), twice with new values",
         _executor_graph, _executor, diagnosed=False,
         hints={"raised KeyError": (
             "run() computes every node of find_topo_sort(self.eval_node_list) that "
             "feed_dict does not give, from its inputs' values, in that order"),
             "y for a second feed_dict": "run() must compute afresh for each feed_dict"}),
    Case("second_derivative", "second_derivative(x·x·x, x) = 6x", _second, _second_values,
         hints={"∂²y/∂x²": "gradients() of the node ∂y/∂x = 3x² (it is a node of the same "
                "graph) gives 6x"}),
    Case("hessian_vector_product", "hessian_vector_product(xᵀAx, x, v) = (A + Aᵀ) v",
         _hvp_graph, _hvp_values,
         hints={"H v": "∇y = (A + Aᵀ) x; gradients() of the node ∇y · v (gradients() sums "
                "it) gives (A + Aᵀ) v"}),
]  # fmt: skip
