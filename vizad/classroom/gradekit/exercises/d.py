"""Exercise D's cases: the student's ``Softplus`` op (a ``vz.Op`` with its own ``vjp``) in
the notebook's graphs, differentiated by ``vz.gradients`` and evaluated by ``vz.evaluate``."""

from __future__ import annotations

import numpy as np

from ..case import Case
from . import SUBMODULES

__all__ = ["CASES", "SUBMODULES", "GIVEN"]

#: The handout's class the student's op extends.
GIVEN = ("vizad.engine.op:Op",)

_RULE = "softplus′(x) = σ(x) = 1/(1 + e^{−x}): the adjoint of the input is the adjoint times σ(x)"


def _case(name: str, what: str, build) -> Case:
    def graph(nb):
        x = nb.vz.Variable("x")
        return build(nb, x), [x], {x: np.array([-1.0, 0.5, 2.0])}

    def values(nb, graph):
        y, (x,), feed = graph
        (g,) = nb.vz.gradients(y, [x])
        value, grad = nb.vz.evaluate([y, g], feed)
        return {"y": value, "∂y/∂x": grad}

    return Case(name, what, graph, values, hints={"∂y/∂x": _RULE})


CASES: list[Case] = [
    _case("softplus_times_3", "y = sum(softplus(x) · 3) at x = (−1, 0.5, 2)",
          lambda nb, x: nb.vz.sum(nb.Softplus()(x) * 3.0)),
    _case("softplus_times_x", "y = sum(softplus(x) · x): x read twice",
          lambda nb, x: nb.vz.sum(nb.Softplus()(x) * x)),
]  # fmt: skip
