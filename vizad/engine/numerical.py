"""Checking gradients against central differences, without crying wolf.

The function checked is f(θ) = ⟨w, y(θ)⟩ for a cotangent w — by default a *random* one
(seeded, and kept in the report), like JAX's ``check_grads``: with w all ones, a wrong
transpose, a sum along the wrong axis of a square matrix or swapped tuple elements would go
unnoticed. w may be a tuple for a tuple-valued y.

Each derivative of f (along a coordinate, or along a random direction) is estimated by central
differences that adapt to the point:

- the step is relative to the size of the input entry, and shrinks (×1/10, down to 10⁻⁸ of
  it) until the estimate is stable or a value outside the function's domain is avoided;
- two steps h and 2h give a Richardson estimate (error O(h⁴)) and an *error estimate*: the
  difference between them (truncation) plus the rounding error of f at its size (``ε·|f|/h``);
  an entry passes when ``|analytic − numeric| ≤ atol + rtol·|numeric| + 3 × error``
  (that estimate), so large magnitudes and points near a domain edge do not raise false alarms; the
  rounding error is that of the terms of ⟨w, y⟩ (Σ|wᵢyᵢ|), not of their sum, which can cancel
  to almost nothing while each term carries its own rounding;
- a kink at the point itself (relu or heaviside at 0: the one-sided slopes disagree at every
  step size) is reported as *not differentiable here*, not as a failure; a kink within the
  step only shrinks the step.

Inputs are perturbed in float64 whatever their type, so a float32 graph is checked against
accurate differences, with float32 tolerances (rtol 2e-3) for its float32 gradient. A
function that computes in float32 all the same (a JAX function outside 64-bit mode) has its
rounding judged at float32's epsilon, so that steps below its resolution are not taken for
a derivative of 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from collections.abc import Callable, Iterable, Iterator, Mapping

import numpy as np

from vizad.errors import ArgumentError, ArgumentTypeError, FeedError, GradcheckError, ShapeError
from vizad.engine.executor import Executor
from vizad.engine.graph import as_node_list
from vizad.engine.node import Node
from vizad.engine.op import VARIABLE, constant
from vizad.engine.ops import make_tuple
from vizad.engine.reverse import gradients
from vizad.engine.text import format_difference, is_roundoff, roundoff_note, roundoff_tolerance
from vizad.engine.tree import inner, inner_abs, leaves, random_like, shape_of, tree_map

__all__ = [
    "numerical_gradient",
    "numerical_vjp",
    "central_vjp",
    "NumericVJP",
    "gradcheck",
    "GradcheckReport",
    "DirectionCheck",
    "NumericDerivative",
    "central_derivative",
    "value_node",
    "default_tolerances",
    "rounding_epsilon",
    "not_finite",
    "random_generator",
    "check_eps",
]

#: The first relative step, the number of times it is divided by 10, and float64's epsilon.
_FIRST_STEP, _LEVELS, _EPS = 1e-3, 6, float(np.finfo(np.float64).eps)


def value_node(value: Any) -> Node:
    """A constant node for a value; a make_tuple of constants for a tuple value.

    Examples:
        >>> from vizad.engine import numerical
        >>> vz.evaluate(numerical.value_node(np.array([1.0, 2.0])))
        array([1., 2.])
    """
    return (
        make_tuple(*(value_node(v) for v in value))
        if isinstance(value, tuple)
        else constant(np.asarray(value))
    )


def default_tolerances(*values: Any) -> tuple[float, float]:
    """(rtol, atol) fitting the least precise float type among ``values``: (1e-5, 1e-8) for
    float64, (2e-3, 1e-5) for float32 and float16.

    Examples:
        >>> from vizad.engine import numerical
        >>> numerical.default_tolerances(np.float64(1.0))
        (1e-05, 1e-08)
        >>> numerical.default_tolerances(np.float32(1.0), 2.0)
        (0.002, 1e-05)
    """
    for v in values:
        for leaf in leaves(v):
            dtype = np.asarray(leaf).dtype
            if dtype.kind == "f" and dtype.itemsize < 8:
                return 2e-3, 1e-5
    return 1e-5, 1e-8


def rounding_epsilon(value: Any) -> float:
    """The machine epsilon of the least precise float type among ``value``'s leaves (a
    function computed in float32 rounds its values to float32, whatever its inputs were);
    float64's when none is a float.

    Examples:
        >>> from vizad.engine import numerical
        >>> numerical.rounding_epsilon(np.float32(1.0)) == float(np.finfo(np.float32).eps)
        True
    """
    found = [
        float(np.finfo(np.asarray(leaf).dtype).eps)
        for leaf in leaves(value)
        if np.asarray(leaf).dtype.kind in "fc"
    ]
    return max(found, default=_EPS)


@dataclass(frozen=True)
class NumericDerivative:
    """g'(0) by central differences: the estimate, an estimate of its error, and whether g is
    differentiable at 0 ("ok"), has a kink there ("kink"), could not be resolved to a stable
    value at any step ("unresolved"), or is NaN or infinite at every step ("not finite": a
    check cannot pass there).

    Examples:
        >>> from vizad.engine import numerical
        >>> numerical.central_derivative(lambda t: abs(t)).status
        'kink'
    """

    value: float
    error: float
    status: str = "ok"


def central_derivative(
    g: Callable[[float], float],
    *,
    rtol: float = 1e-5,
    atol: float = 1e-8,
    first_step: float = _FIRST_STEP,
    magnitude: float = 0.0,
    epsilon: float = _EPS,
) -> NumericDerivative:
    """g'(0) by Richardson-extrapolated central differences with an error estimate, shrinking
    the step until the estimate is stable (see the module's docstring). ``magnitude`` is the
    size of the terms g sums (Σ|wᵢyᵢ| for g = ⟨w, y⟩): its rounding error when they cancel;
    ``epsilon`` the relative rounding of g's values (:func:`rounding_epsilon`: float32's
    for a function computed in float32, whose differences at a step below its resolution
    are 0, not a derivative).

    Examples:
        >>> from vizad.engine import numerical
        >>> d = numerical.central_derivative(lambda t: np.sin(1.0 + t))
        >>> d.status, bool(abs(d.value - np.cos(1.0)) < 1e-9)
        ('ok', True)
    """
    g0 = g(0.0)
    levels = []  # (estimate, error, kinked) per step size tried
    for k in range(_LEVELS):
        h = first_step * 10.0**-k
        fp, fm, fp2, fm2 = g(h), g(-h), g(2 * h), g(-2 * h)
        if not all(map(math.isfinite, (fp, fm, fp2, fm2))):
            continue  # outside the domain: a smaller step
        d1, d2 = (fp - fm) / (2 * h), (fp2 - fm2) / (4 * h)
        rounding = 4 * epsilon * max(abs(fp), abs(fm), abs(fp2), abs(fm2), abs(g0), magnitude) / h
        truncation = abs(d2 - d1) / 3
        # one-sided slopes: their difference is h·g'' for a smooth g, a constant jump at a kink
        jump1 = (fp - 2 * g0 + fm) / h
        jump2 = (fp2 - 2 * g0 + fm2) / (2 * h)
        kinked = abs(jump1) > 10 * rounding and abs(jump2 - 2 * jump1) > 0.5 * abs(jump1)
        estimate = d1 + (d1 - d2) / 3
        levels.append((estimate, truncation, rounding, kinked))
        # stop when the estimate is good enough, or when a smaller step would only add rounding
        if not kinked and (
            truncation + rounding <= 0.1 * (atol + rtol * abs(estimate)) or truncation <= rounding
        ):
            return NumericDerivative(estimate, truncation + rounding)
    if not levels:  # no step gave finite values: nothing to compare with
        return NumericDerivative(math.nan, math.inf, "not finite")
    if len(levels) >= 2 and levels[-1][3] and levels[-2][3]:
        return NumericDerivative(levels[-1][0], levels[-1][1] + levels[-1][2], "kink")
    estimate, truncation, rounding, _ = min(
        (lv for lv in levels if not lv[3]), key=lambda lv: lv[1] + lv[2], default=levels[-1]
    )
    settled = truncation <= max(rounding, 0.1 * (atol + rtol * abs(estimate)))
    return NumericDerivative(estimate, truncation + rounding, "ok" if settled else "unresolved")


class _Objective:
    """f(xs) = ⟨w, fn(xs)⟩ (Σ fn(xs) without w) for a function of a list of arrays, around
    ``point``, evaluated in float64."""

    def __init__(self, fn: Callable[[list[np.ndarray]], Any], point: list, cotangent: Any):
        self.fn, self.cotangent = fn, cotangent
        self.point = [np.array(p, dtype=np.float64) for p in point]
        #: The scale of each entry: steps are relative to it (never below 1e-2).
        self.scale = [np.maximum(np.abs(p), 1e-2) for p in self.point]

    @classmethod
    def of_graph(
        cls, y: Node, wrt: list[Node], feed: Mapping[Node, Any], cotangent: Any
    ) -> _Objective:
        """f(values of wrt) = ⟨w, y⟩, the rest of the feed held fixed."""
        for w in wrt:
            if w.op is not VARIABLE:
                raise FeedError(
                    f"central differences perturb fed inputs: {w.describe()} is not a "
                    "Variable; give the Variables fed in the feed dict"
                )
            if w not in feed:
                raise FeedError(f"Variable {w.name!r} is not in the feed dict")
        executor, base = Executor([y]), dict(feed)

        def run(values: list[np.ndarray]) -> Any:
            base.update(zip(wrt, values))
            return executor.run(base)[0]

        return cls(run, [feed[w] for w in wrt], cotangent)

    def __call__(self, values: list[np.ndarray]) -> float:
        with np.errstate(all="ignore"):  # probes outside the domain give NaN: a smaller step
            out = self.fn(values)
        if self.cotangent is None:
            return float(sum(np.sum(leaf, dtype=np.float64) for leaf in leaves(out)))
        return inner(self.cotangent, out)

    @cached_property
    def epsilon(self) -> float:
        """The relative rounding of the function's values (:func:`rounding_epsilon`)."""
        with np.errstate(all="ignore"):
            return rounding_epsilon(self.fn(self.point))

    @cached_property
    def magnitude(self) -> float:
        """Σ|wᵢ yᵢ| at the point (Σ|yᵢ| without w): the size of the terms f sums, whose
        rounding errors remain when the sum cancels (NaN outside the domain: 0)."""
        with np.errstate(all="ignore"):
            out = self.fn(self.point)
        w = tree_map(np.ones_like, out) if self.cotangent is None else self.cotangent
        size = inner_abs(w, out)
        return size if math.isfinite(size) else 0.0

    def along(self, direction: list[np.ndarray]) -> Callable[[float], float]:
        """t ↦ f(θ + t·direction)."""
        return lambda t: self([p + t * d for p, d in zip(self.point, direction)])

    def entries(self) -> Iterator[tuple[int, tuple[int, ...], list[np.ndarray], float]]:
        """(input k, index, the direction of that entry scaled to its size, the scale)."""
        for k, p in enumerate(self.point):
            for index in np.ndindex(p.shape):
                direction = [np.zeros_like(q) for q in self.point]
                direction[k][index] = self.scale[k][index]
                yield k, index, direction, float(self.scale[k][index])


def numerical_gradient(
    y: Node,
    wrt: Node | Iterable[Node],
    feed: Mapping[Node, Any],
    eps: float = _FIRST_STEP,
    cotangent: Any = None,
) -> list[np.ndarray]:
    """∂⟨cotangent, y⟩ / ∂w (∂ sum(y) / ∂w without one) for each Variable w of ``wrt``, entry
    by entry, by adaptive central differences; ``eps`` is the first relative step. An entry
    where y is not differentiable gets the central estimate (the mean of the one-sided
    slopes).

    Examples:
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> vz.numerical_gradient(y, [x1, x2], {x1: 2.0, x2: 5.0})
        [array(5.5), array(1.71633781)]
    """
    wrt = as_node_list(wrt, "numerical_gradient: wrt")
    return _entry_by_entry(_Objective.of_graph(y, wrt, feed, cotangent), eps).gradients


def numerical_vjp(
    fn: Callable[[list[np.ndarray]], Any],
    xs: list,
    cotangent: Any = None,
    eps: float = _FIRST_STEP,
) -> list[np.ndarray]:
    """∂⟨cotangent, fn(xs)⟩ / ∂xs[k] (∂ sum(fn(xs)) / ∂xs[k] without one) for each array xs[k],
    by the central differences of :func:`numerical_gradient`, for any function of a list of
    arrays.

    Examples:
        >>> from vizad.engine import numerical
        >>> numerical.numerical_vjp(lambda xs: xs[0] * xs[1], [np.array(2.0), np.array(5.0)])
        [array(5.), array(2.)]
    """
    return central_vjp(fn, xs, cotangent, eps).gradients


@dataclass(frozen=True)
class NumericVJP:
    """The central differences of :func:`central_vjp`: a gradient per input, and the entries
    where they are no measure of it, as gradcheck reports them: (input, index, "kink" or
    "unresolved").

    Examples:
        >>> from vizad.engine import numerical
        >>> result = numerical.central_vjp(lambda xs: np.abs(xs[0]), [np.array([0.0, 2.0])])
        >>> type(result).__name__, round(float(result.gradients[0][1]), 6), result.not_settled
        ('NumericVJP', 1.0, ((0, (0,), 'kink'),))
    """

    gradients: list[np.ndarray]
    not_settled: tuple[tuple[int, tuple, str], ...] = ()


def central_vjp(
    fn: Callable[[list[np.ndarray]], Any],
    xs: list,
    cotangent: Any = None,
    eps: float = _FIRST_STEP,
) -> NumericVJP:
    """:func:`numerical_vjp` with the entries at a kink or unsettled, which a check leaves out
    as gradcheck does (:func:`vizad.diagnose` checks a student's rules with it).

    Examples:
        >>> from vizad.engine import numerical
        >>> result = numerical.central_vjp(lambda xs: xs[0] ** 2, [np.array([1.0, 3.0])])
        >>> result.gradients, result.not_settled
        ([array([2., 6.])], ())
    """
    return _entry_by_entry(_Objective(fn, xs, cotangent), eps)


def _finite(value: Any) -> bool:
    """Whether every entry of every leaf of ``value`` is finite (integers always are)."""
    return all(
        np.asarray(leaf).dtype.kind not in "fc" or bool(np.all(np.isfinite(leaf)))
        for leaf in leaves(value)
    )


def check_eps(eps: Any, what: str) -> None:
    """An ArgumentError naming ``what`` unless ``eps`` (a first relative step) is in (0, 1).

    Examples:
        >>> from vizad.engine import numerical
        >>> numerical.check_eps(1e-3, "gradcheck: eps")
        >>> numerical.check_eps(2.0, "gradcheck: eps")
        Traceback (most recent call last):
            ...
        vizad.errors.ArgumentError: gradcheck: eps: eps (the first relative step) ...
    """
    if isinstance(eps, bool) or not (isinstance(eps, (int, float)) and 0 < eps < 1):
        raise ArgumentError(
            f"{what}: eps (the first relative step) must be in (0, 1), such as 1e-3; got "
            f"{eps!r:.40}"
        )


def random_generator(rng: Any, what: str) -> np.random.Generator:
    """``rng`` (a random seed: a non-negative int, or a numpy Generator) as a Generator, or
    an error naming ``what`` that says what to give.

    Examples:
        >>> from vizad.engine import numerical
        >>> rng = numerical.random_generator(0, "gradcheck: rng")
        >>> type(rng).__name__
        'Generator'
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, bool) or not isinstance(rng, (int, np.integer)):
        raise ArgumentTypeError(
            f"{what}: rng (the random seed) must be an int such as 0, or a "
            f"numpy.random.Generator; got {type(rng).__name__} {rng!r:.40}"
        )
    if rng < 0:
        raise ArgumentError(f"{what}: rng (the random seed) must be 0 or more, got {rng}")
    return np.random.default_rng(int(rng))


def not_finite(values: Iterable[tuple[str, Any]]) -> list[str]:
    """For each (words, value) pair whose value holds NaN or infinite entries, a sentence
    naming the first of them ("'x' is fed nan at [0] (1 of 3 entries NaN or infinite)"): the
    reasons a gradient check cannot compare anything there.

    Examples:
        >>> from vizad.engine import numerical
        >>> fed = [("'x' is fed", np.array([np.nan, 1.0, 2.0])), ("'w' is fed", 1.0)]
        >>> numerical.not_finite(fed)
        ["'x' is fed nan at [0] (1 of 3 entries NaN or infinite)"]
    """
    reasons = []
    for what, value in values:
        for k, leaf in enumerate(leaves(value)):
            array = np.asarray(leaf)
            if array.dtype.kind not in "fc" or np.all(np.isfinite(array)):
                continue
            bad = np.argwhere(~np.isfinite(array))
            index = tuple(int(i) for i in bad[0])
            part = f" (element {k} of the tuple)" if isinstance(value, tuple) else ""
            reasons.append(
                f"{what} {float(np.real(array[index]))} at {list(index)}{part} ({len(bad)} of "
                f"{array.size} entries NaN or infinite)"
            )
    return reasons


def _entry_by_entry(f: _Objective, eps: float) -> NumericVJP:
    """The gradient of f, one central derivative per entry of its inputs."""
    result = [np.zeros_like(p) for p in f.point]
    not_settled = []
    for k, index, direction, scale in f.entries():
        numeric = central_derivative(
            f.along(direction), first_step=eps, magnitude=f.magnitude, epsilon=f.epsilon
        )
        result[k][index] = numeric.value / scale
        if numeric.status != "ok":
            not_settled.append((k, index, numeric.status))
    return NumericVJP(result, tuple(not_settled))


@dataclass(frozen=True)
class DirectionCheck:
    """δᵀ∇f from reverse mode against central differences along one random direction δ
    (scaled entry by entry to the inputs' sizes).

    Examples:
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> report = vz.gradcheck(y, [x1, x2], {x1: 2.0, x2: 5.0}, directions=1)
        >>> check = report.directions[0]
        >>> type(check).__name__, check.status
        ('DirectionCheck', 'ok')
    """

    analytic: float
    numeric: float
    error: float
    #: The estimated error of the central difference itself.
    numeric_error: float = 0.0
    status: str = "ok"


@dataclass(frozen=True)
class GradcheckReport:
    """The outcome of :func:`gradcheck`.

    Examples:
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> report = vz.gradcheck(y, [x1, x2], {x1: 2.0, x2: 5.0})
        >>> type(report).__name__, report.ok, report.worst_error < 1e-6
        ('GradcheckReport', True, True)
    """

    ok: bool
    #: The input whose gradient is furthest from central differences, and that distance.
    worst_input: Node | None
    worst_error: float
    #: The largest absolute error of each input's gradient, per coordinate.
    errors: tuple[tuple[Node, float], ...]
    directions: tuple[DirectionCheck, ...]
    tolerance: str = field(default="")
    #: The cotangent w of f = ⟨w, y⟩ (random unless one was given).
    cotangent: Any = None
    #: Entries where y is not differentiable (a kink) or the differences did not settle:
    #: (input, index, "kink" or "unresolved"); reported, not failed. Entries whose central
    #: differences are NaN or infinite at every step ("not finite") fail.
    not_checked: tuple[tuple[Node, tuple, str], ...] = ()
    #: Why the gradient cannot be checked at this point: NaN or infinite values in the inputs,
    #: the output or the gradient (each a sentence). Not empty means not ok, as in PyTorch's
    #: gradcheck: a NaN compares as agreeing with nothing.
    not_finite: tuple[str, ...] = ()
    #: The reverse-mode gradient of each input, as computed (in its float type).
    gradients: tuple[Any, ...] = ()

    def __str__(self) -> str:
        """The report; an error within round-off of the gradient's size is said as such
        (:func:`vizad.engine.text.is_roundoff`), not written as a number whose digits
        change from machine to machine."""
        lines = [f"gradcheck {'passed' if self.ok else 'FAILED'} ({self.tolerance})"]
        for reason in self.not_finite:
            lines.append(f"  cannot check here: {reason}")
        tolerance = roundoff_tolerance(*self.gradients)
        by_input = dict(zip((node for node, _ in self.errors), self.gradients))
        for node, error in self.errors:
            gradient = by_input.get(node)
            if gradient is not None and is_roundoff(error, gradient, tolerance=tolerance):
                lines.append(
                    f"  {str(node):<12} agrees to round-off ({roundoff_note(tolerance=tolerance)})"
                )
            else:
                lines.append(f"  {str(node):<12} max abs error {error:.3g}")
        for d in self.directions:
            shown = format_difference(d.error, d.analytic, d.numeric, tolerance=tolerance)
            lines.append(
                f"  direction: reverse {d.analytic:.6g}, central {d.numeric:.6g}, error {shown}"
            )
        for node, index, why in self.not_checked:
            what = _NOT_CHECKED[why]
            lines.append(f"  {str(node)}{list(index)}: {what}")
        return "\n".join(lines)


_NOT_CHECKED = {
    "kink": "not differentiable here (a kink); not checked",
    "unresolved": "central differences did not settle; not checked",
    "not finite": "central differences are NaN or infinite; cannot check here (a failure)",
}


def gradcheck(
    y: Node,
    wrt: Node | Iterable[Node],
    feed: Mapping[Node, Any],
    *,
    eps: float = _FIRST_STEP,
    rtol: float | None = None,
    atol: float | None = None,
    directions: int = 3,
    coordinates: bool = True,
    rng: int | np.random.Generator = 0,
    cotangent: Any = None,
    raise_on_failure: bool = True,
) -> GradcheckReport:
    """Compare reverse mode with central differences of f = ⟨w, y⟩ along ``directions``
    random directions and, if ``coordinates``, entry by entry.

    ``cotangent`` is w; by default a random one drawn with the random seed ``rng`` (which
    also draws the directions) and returned in the
    report. ``rtol``/``atol`` default to the precision of the
    values (:func:`default_tolerances`); ``eps`` is the first relative step. An entry passes
    when ``|reverse − central| ≤ atol·(1 + max|∇f|) + rtol·|central| + 3 × error``, the error
    being the central difference's estimated error; entries at a kink are reported, not
    failed. Raises GradcheckError naming the worst input when anything fails (or returns the
    report, if not ``raise_on_failure``).

    Examples:
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> report = vz.gradcheck(y, [x1, x2], {x1: 2.0, x2: 5.0})
        >>> report.ok
        True
    """
    wrt = as_node_list(wrt, "gradcheck: wrt")
    check_eps(eps, "gradcheck")
    for w in wrt:
        if w in feed and np.iscomplexobj(feed[w]):
            raise ArgumentError(
                f"gradcheck: {w.short()} is complex; central differences here are for real "
                "inputs (check the real and imaginary parts as two real inputs)"
            )
    generator = random_generator(rng, "gradcheck")
    output = Executor([y]).run(feed)[0]
    if cotangent is None:
        cotangent = random_like(output, generator)
    elif shape_of(cotangent) != shape_of(output):
        raise ShapeError(
            f"gradcheck: the cotangent has shape {shape_of(cotangent)} but the output "
            f"{y.short()} has shape {shape_of(output)}; give a cotangent of that shape (or "
            "none: a random one)"
        )
    analytic = Executor(gradients(y, wrt, cotangent=value_node(cotangent))).run(feed)
    computed = tuple(analytic)  # in their own float types: what round-off means for them
    default_rtol, default_atol = default_tolerances(*(feed[w] for w in wrt if w in feed), *analytic)
    rtol = default_rtol if rtol is None else rtol
    atol = default_atol if atol is None else atol
    tolerance = f"rtol={rtol:g}, atol={atol:g}, first step {eps:g}"
    reasons = not_finite(
        [(f"{w.short()!r} is fed", feed.get(w)) for w in wrt]
        + [(f"the output {y.short()} is", output)]
        + [(f"the reverse-mode gradient of {w.short()!r} is", g) for w, g in zip(wrt, analytic)]
    )
    if reasons:  # NaN agrees with nothing: no comparison can pass here
        first = next((w for w, g in zip(wrt, analytic) if not _finite(g)), None)
        report = GradcheckReport(
            False,
            first,
            math.nan,
            tuple((w, math.nan) for w in wrt),
            (),
            tolerance,
            cotangent,
            (),
            tuple(reasons),
            computed,
        )
        if raise_on_failure:
            raise GradcheckError(
                f"gradients cannot be checked here: {'; '.join(reasons)}; check them at a "
                f"point where every value is finite\n{report}",
                report,
            )
        return report
    analytic = [np.asarray(g, dtype=np.float64) for g in analytic]
    f = _Objective.of_graph(y, wrt, feed, cotangent)
    ok = True

    checks = []
    for _ in range(directions):
        delta = [generator.standard_normal(p.shape) for p in f.point]
        norm = math.sqrt(sum(float(np.sum(d * d)) for d in delta)) or 1.0
        direction = [d / norm * s for d, s in zip(delta, f.scale)]
        numeric = central_derivative(
            f.along(direction),
            rtol=rtol,
            atol=atol,
            first_step=eps,
            magnitude=f.magnitude,
            epsilon=f.epsilon,
        )
        terms = [g * d for g, d in zip(analytic, direction)]
        exact = float(sum(np.sum(t) for t in terms))
        size = float(sum(np.sum(np.abs(t)) for t in terms))
        checks.append(
            DirectionCheck(
                exact, numeric.value, abs(exact - numeric.value), numeric.error, numeric.status
            )
        )
        if numeric.status == "ok":
            ok &= (
                abs(exact - numeric.value)
                <= atol * (1 + size) + rtol * abs(numeric.value) + 3 * numeric.error
            )
        ok &= numeric.status != "not finite"

    errors: list[tuple[Node, float]] = []
    skipped: list[tuple[Node, tuple[int, ...], str]] = []
    if coordinates:
        worst = [0.0] * len(wrt)
        largest = [float(np.max(np.abs(g), initial=0.0)) for g in analytic]
        for k, index, direction, scale in f.entries():
            numeric = central_derivative(
                f.along(direction),
                rtol=rtol,
                atol=atol,
                first_step=eps,
                magnitude=f.magnitude,
                epsilon=f.epsilon,
            )
            if numeric.status != "ok":
                skipped.append((wrt[k], index, numeric.status))
                ok &= numeric.status != "not finite"
                if numeric.status == "not finite":
                    worst[k] = math.nan
                continue
            value, noise = numeric.value / scale, numeric.error / scale
            error = abs(float(analytic[k][index]) - value)
            if not math.isnan(worst[k]):
                worst[k] = max(worst[k], error)
            ok &= error <= atol * (1 + largest[k]) + rtol * abs(value) + 3 * noise
        errors = list(zip(wrt, worst))
    # NaN (differences that were never finite) counts as the worst
    worst_input = max(
        errors, key=lambda e: math.inf if math.isnan(e[1]) else e[1], default=(None, 0.0)
    )
    report = GradcheckReport(
        bool(ok), worst_input[0], worst_input[1], tuple(errors), tuple(checks), tolerance,
        cotangent, tuple(skipped), (), computed,
    )  # fmt: skip
    if not ok and raise_on_failure:
        where = (
            f"worst input {str(worst_input[0])!r} with max abs error "
            + format_difference(
                worst_input[1],
                computed[wrt.index(worst_input[0])],
                tolerance=roundoff_tolerance(*computed),
            )
            if worst_input[0] is not None
            else "along a random direction"
        )
        raise GradcheckError(
            f"gradients disagree with central differences: {where}\n{report}", report
        )
    return report
