"""Exercise C's cases: the student's ``Dual`` (sum, difference, product rules, numbers on the
left), ``log`` and ``sin`` on dual numbers, each rule alone and then the lecture's
y = ln x1 + x1·x2 − sin x2 at (2, 5) in three directions."""

from __future__ import annotations

from ..case import Case
from . import SUBMODULES

__all__ = ["CASES", "SUBMODULES", "GIVEN"]

GIVEN: tuple[str, ...] = ()


def _pair(nb):
    """a = 2 + 3ε, b = 5 − ε."""
    return (nb.Dual(2.0, 3.0), nb.Dual(5.0, -1.0)), [], None


def _rule(label: str, compute, formula: str) -> tuple:
    """values(nb, graph) of one rule: the value and the tangent of ``compute(nb, a, b)``;
    and the hint of its tangent."""

    def values(nb, graph):
        got = compute(nb, *graph[0])
        if not isinstance(got, nb.Dual):
            raise TypeError(f"{label} should give a Dual, got {type(got).__name__}")
        return {f"the value of {label}": got.value, f"the tangent of {label}": got.tangent}

    return values, {f"the tangent of {label}": formula}


def _case(name: str, what: str, label: str, compute, formula: str) -> Case:
    values, hints = _rule(label, compute, formula)
    return Case(name, what, _pair, values, hints=hints, diagnosed=False)


def _lecture(direction: tuple[float, float]):
    def graph(nb):
        return (nb.Dual(2.0, direction[0]), nb.Dual(5.0, direction[1])), [], None

    def values(nb, graph):
        x1, x2 = graph[0]
        y = nb.log(x1) + x1 * x2 - nb.sin(x2)
        return {"the value of y": y.value, "the tangent of y": y.tangent}

    return graph, values


CASES: list[Case] = [
    _case("sum_rule", "the sum rule, a + b", "a + b", lambda nb, a, b: a + b,
          "ȧ + ḃ = 3 + (−1)"),
    _case("difference_rule", "the difference, a − b", "a − b", lambda nb, a, b: a - b,
          "ȧ − ḃ = 3 − (−1)"),
    _case("product_rule", "the product rule, a × b", "a × b", lambda nb, a, b: a * b,
          "the product rule: ȧ b + a ḃ = 3·5 + 2·(−1)"),
    _case("number_on_the_left", "a number on the left, 4 × a + (4 + a)", "4 × a + (4 + a)",
          lambda nb, a, b: 4 * a + (4 + a), "4 ȧ + ȧ = 5·3: 4 + a and 4 × a need __radd__ "
          "and __rmul__"),
    _case("log_rule", "log's rule, log(a)", "log(a)", lambda nb, a, b: nb.log(a),
          "ȧ / a = 3 / 2"),
    _case("sin_rule", "sin's rule, sin(b)", "sin(b)", lambda nb, a, b: nb.sin(b),
          "ḃ cos b = −cos 5"),
    Case("dy_dx1", "the lecture's y at (2, 5) with ẋ1 = 1: ∂y/∂x1 = 5.5", *_lecture((1.0, 0.0)),
         hints={"the tangent of y": "v̇₇ = 5.5 for ẋ1 = 1, ẋ2 = 0"}, diagnosed=False),
    Case("dy_dx2", "the lecture's y at (2, 5) with ẋ2 = 1: ∂y/∂x2 = 1.716", *_lecture((0.0, 1.0)),
         hints={"the tangent of y": "v̇₇ = 2 − cos 5 = 1.716 for ẋ1 = 0, ẋ2 = 1"},
         diagnosed=False),
    Case("direction", "the lecture's y at (2, 5) in the direction (0.6, 0.8), as vz.jvp gives it",
         *_lecture((0.6, 0.8)), hints={"the tangent of y": "0.6·5.5 + 0.8·1.716"},
         diagnosed=False),
]  # fmt: skip
