"""Exercise B's cases: the student's gradient rules (``AddOp``, ``SubOp``, ``MulOp``,
``LogOp``, ``SinOp``: the notebook's ``add``, ``sub``, ``mul``, ``log``, ``sin``) and their
``gradients()``, each rule alone and then the course notes' and the lecture's examples,
evaluated by the handout's ``ad.Executor``."""

from __future__ import annotations

import numpy as np

from ..case import Case
from . import SUBMODULES

__all__ = ["CASES", "SUBMODULES", "GIVEN"]

#: The handout's class the student's ops extend.
GIVEN = ("vizad.classroom.courses.autodiff:Op",)

#: The lecture's point, and a second one (each node's value is an array of two).
X1, X2 = np.array([2.0, 0.5]), np.array([5.0, -1.0])


def _case(name: str, what: str, build, wrt: tuple[str, ...], hints=None) -> Case:
    """``build(ops, x1, x2)`` gives y with the student's op objects ``ops`` (a dict:
    add, sub, mul, log, sin; and the placeholders "three" and "five", fed 3 and 5, as the
    notebook's constants); y and ∂y/∂x for x of ``wrt`` are compared."""

    def graph(nb):
        ops = {
            "add": nb.AddOp(), "sub": nb.SubOp(), "mul": nb.MulOp(), "log": nb.LogOp(),
            "sin": nb.SinOp(),
        }  # fmt: skip
        xs = {n: nb.ad.Variable(n) for n in ("x1", "x2", "three", "five")}
        ops |= {"three": xs["three"], "five": xs["five"]}
        y = build(ops, xs["x1"], xs["x2"])
        feed = dict(zip(xs.values(), (X1, X2, np.full(2, 3.0), np.full(2, 5.0))))
        return y, [xs[n] for n in wrt], feed

    def values(nb, graph):
        y, nodes, feed = graph
        grads = nb.gradients(y, nodes)
        out = nb.ad.Executor([y, *grads]).run(feed)
        return {"y": out[0], **{f"∂y/∂{n}": g for n, g in zip(wrt, out[1:])}}

    return Case(name, what, graph, values, hints=hints or {})


def _course_notes(ops, x1, x2):
    """(x1 + 3)(x1 + 5), the constants placeholders (as in the notebook)."""
    add, mul = ops["add"], ops["mul"]
    return mul(add(x1, ops["three"]), add(x1, ops["five"]))


def _lecture(ops, x1, x2):
    return ops["sub"](ops["add"](ops["log"](x1), ops["mul"](x1, x2)), ops["sin"](x2))


CASES: list[Case] = [
    _case("add_rule", "AddOp alone: y = x1 + x2", lambda o, a, b: o["add"](a, b), ("x1", "x2"),
          {"∂y/∂x1": "v̄ᵢ→ⱼ = v̄ⱼ for both inputs of a sum"}),
    _case("sub_rule", "SubOp alone: y = x1 − x2", lambda o, a, b: o["sub"](a, b), ("x1", "x2"),
          {"∂y/∂x2": "the second input's partial adjoint is −v̄ⱼ"}),
    _case("mul_rule", "MulOp alone: y = x1 · x2", lambda o, a, b: o["mul"](a, b), ("x1", "x2"),
          {"∂y/∂x1": "v̄ᵢ→ⱼ = v̄ⱼ times the other input", "∂y/∂x2": "v̄ⱼ times the other input"}),
    _case("log_rule", "LogOp alone: y = ln x1", lambda o, a, b: o["log"](a), ("x1",),
          {"∂y/∂x1": "∂ ln v/∂v = 1/v"}),
    _case("sin_rule", "SinOp alone: y = sin x2", lambda o, a, b: o["sin"](b), ("x2",),
          {"∂y/∂x2": "∂ sin v/∂v = cos v"}),
    _case("x1_read_twice", "y = x1 · x1 + x1: partial adjoints summed",
          lambda o, a, b: o["add"](o["mul"](a, a), a), ("x1",),
          {"∂y/∂x1": "2·x1 + 1: x1's adjoint is the sum of all three partial adjoints "
           "it receives (gradients() appends each to its list, then sums the list)"}),
    _case("course_notes", "(x1 + 3)(x1 + 5): ∂y/∂x1 = 2·x1 + 8", _course_notes, ("x1",),
          {"∂y/∂x1": "2·x1 + 8"}),
    _case("lecture", "ln x1 + x1·x2 − sin x2 at (2, 5): ∇y = (5.5, 1.716)", _lecture,
          ("x1", "x2"), {"∂y/∂x1": "v̄₁ = v̄₄ v₂ + v̄₃ / v₁ = 5.5 at (2, 5)",
                         "∂y/∂x2": "v̄₂ = v̄₅ cos v₂ + v̄₄ v₁ = 1.716 at (2, 5)"}),
]  # fmt: skip
