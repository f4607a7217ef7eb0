"""Checking gradients against central differences.

Central differences (f(θ+εδ) − f(θ−εδ)) / 2ε have error O(ε²), against O(ε) for one-sided ones.
Along a random unit direction δ they check δᵀ∇f in two evaluations however many inputs there
are; per coordinate they check every entry of the gradient and name the worst one.

The function checked is ⟨w, y⟩ for a ``cotangent`` w (default: all ones, i.e. sum(y)), which is
what ``gradients(y, wrt, seed=w)`` differentiates; w may be a tuple for a tuple-valued y.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

import numpy as np

from .errors import FeedError, GradcheckError
from .executor import Executor
from .graph import as_node_list
from .node import Node, constant
from .ops import VARIABLE, make_tuple
from .reverse import gradients

__all__ = ["numerical_gradient", "gradcheck", "GradcheckReport", "DirectionCheck", "inner",
           "random_like", "value_node"]


def inner(a: Any, b: Any) -> float:
    """⟨a, b⟩ summed over every entry; tuple (or list) values element by element."""
    if isinstance(a, (tuple, list)):
        return sum(inner(x, z) for x, z in zip(a, b))
    return float(np.sum(np.asarray(a) * np.asarray(b)))


def random_like(value: Any, rng: np.random.Generator) -> Any:
    """Standard normal values shaped like ``value`` (a tuple for a tuple value)."""
    if isinstance(value, tuple):
        return tuple(random_like(v, rng) for v in value)
    return rng.standard_normal(np.shape(value))


def value_node(value: Any) -> Node:
    """A constant node for a value; a make_tuple of constants for a tuple value."""
    return make_tuple(*(value_node(v) for v in value)) if isinstance(value, tuple) \
        else constant(value)


def _objective(y: Node, wrt: list[Node], feed: Mapping[Node, Any], cotangent: Any = None):
    """f(values of wrt) = ⟨cotangent, y⟩ (the sum of y without one), the rest of the feed
    held fixed."""
    for w in wrt:
        if w.op is not VARIABLE:
            raise FeedError(f"central differences perturb fed inputs: {w._describe()} is not a "
                            "Variable")
        if w not in feed:
            raise FeedError(f"Variable {w.name!r} is not in the feed dict")
    executor = Executor([y])
    base = dict(feed)
    point = [np.array(feed[w], dtype=np.float64) for w in wrt]

    def f(values: list[np.ndarray]) -> float:
        base.update(zip(wrt, values))
        out = executor.run(base)[0]
        return float(np.sum(out)) if cotangent is None else inner(cotangent, out)

    return f, point


def numerical_gradient(y: Node, wrt: Node | Iterable[Node], feed: Mapping[Node, Any],
                       eps: float = 1e-6, cotangent: Any = None) -> list[np.ndarray]:
    """∂⟨cotangent, y⟩ / ∂w (∂ sum(y) / ∂w without one) for each Variable w of ``wrt``, by
    central differences, entry by entry."""
    wrt = as_node_list(wrt, "numerical_gradient: wrt")
    f, point = _objective(y, wrt, feed, cotangent)
    result = []
    for k, value in enumerate(point):
        grad = np.zeros_like(value)
        for index in np.ndindex(value.shape):
            shifted = [v.copy() for v in point]
            shifted[k][index] = value[index] + eps
            up = f(shifted)
            shifted[k][index] = value[index] - eps
            grad[index] = (up - f(shifted)) / (2 * eps)
        result.append(grad)
    return result


@dataclass(frozen=True)
class DirectionCheck:
    """δᵀ∇f from reverse mode against (f(θ+εδ) − f(θ−εδ)) / 2ε along one unit direction δ."""
    analytic: float
    numeric: float
    error: float


@dataclass(frozen=True)
class GradcheckReport:
    """The outcome of :func:`gradcheck`."""
    ok: bool
    #: The input whose gradient is furthest from central differences, and that distance.
    worst_input: Node | None
    worst_error: float
    #: The largest absolute error of each input's gradient, per coordinate.
    errors: tuple[tuple[Node, float], ...]
    directions: tuple[DirectionCheck, ...]
    tolerance: str = field(default="")

    def __str__(self) -> str:
        lines = [f"gradcheck {'passed' if self.ok else 'FAILED'} ({self.tolerance})"]
        for node, error in self.errors:
            lines.append(f"  {str(node):<12} max abs error {error:.3g}")
        for d in self.directions:
            lines.append(f"  direction: reverse {d.analytic:.6g}, central {d.numeric:.6g}, "
                         f"error {d.error:.3g}")
        return "\n".join(lines)


def gradcheck(y: Node, wrt: Node | Iterable[Node], feed: Mapping[Node, Any], *,
              eps: float = 1e-6, rtol: float = 1e-5, atol: float = 1e-6,
              directions: int = 3, coordinates: bool = True, seed: int = 0,
              cotangent: Any = None, raise_on_failure: bool = True) -> GradcheckReport:
    """Compare reverse mode with central differences, along ``directions`` random unit
    directions δ (δᵀ∇f ≈ (f(θ+εδ) − f(θ−εδ)) / 2ε) and, if ``coordinates``, entry by entry.
    f is ⟨cotangent, y⟩ (sum(y) by default); ``seed`` seeds the random directions.

    An entry passes when |reverse − central| ≤ atol + rtol·|central|. Raises GradcheckError
    naming the worst input when anything fails (or returns the report, if not
    ``raise_on_failure``).
    """
    wrt = as_node_list(wrt, "gradcheck: wrt")
    f, point = _objective(y, wrt, feed, cotangent)
    w = None if cotangent is None else value_node(cotangent)
    analytic = [np.asarray(g, dtype=np.float64)
                for g in Executor(gradients(y, wrt, seed=w)).run(feed)]
    ok = True

    def close(a, n):
        return np.abs(a - n) <= atol + rtol * np.abs(n)

    checks = []
    rng = np.random.default_rng(seed)
    for _ in range(directions):
        delta = [rng.standard_normal(v.shape) for v in point]
        norm = np.sqrt(sum(float(np.sum(d * d)) for d in delta)) or 1.0
        delta = [d / norm for d in delta]
        numeric = (f([v + eps * d for v, d in zip(point, delta)]) -
                   f([v - eps * d for v, d in zip(point, delta)])) / (2 * eps)
        exact = sum(float(np.sum(g * d)) for g, d in zip(analytic, delta))
        checks.append(DirectionCheck(exact, numeric, abs(exact - numeric)))
        ok &= bool(close(exact, numeric))

    errors = []
    if coordinates:
        for node, a, n in zip(wrt, analytic, numerical_gradient(y, wrt, feed, eps, cotangent)):
            errors.append((node, float(np.max(np.abs(a - n), initial=0.0))))
            ok &= bool(np.all(close(a, n)))
    worst = max(errors, key=lambda e: e[1], default=(None, 0.0))
    report = GradcheckReport(ok, worst[0], worst[1], tuple(errors), tuple(checks),
                             f"rtol={rtol:g}, atol={atol:g}, eps={eps:g}")
    if not ok and raise_on_failure:
        where = f"worst input {str(worst[0])!r} with max abs error {worst[1]:.3g}" \
            if worst[0] is not None else "along a random direction"
        raise GradcheckError(f"gradients disagree with central differences: {where}\n{report}",
                             report)
    return report
