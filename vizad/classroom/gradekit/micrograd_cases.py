"""The micrograd cases of :func:`vizad.grade`, written for vizad after the kinds of
comparisons micrograd's own tests make (expressions of ``Value``s whose data and grads after
``backward()`` are compared with another engine's): each op alone, values read twice
(``a + a``, ``a * a``) or by many nodes, long expressions mixing every op with numbers on
either side, and a neuron. Every number is compared with vizad's micrograd
(:mod:`vizad.classroom.courses.micrograd`). ``tanh`` and ``exp`` are the lecture's, not the
repository's: a Value without them has not implemented the cases that need them (they count,
and score nothing)."""

from __future__ import annotations

from .case import Case
from .draws import near

__all__ = ["CASES", "SUBMODULES"]

SUBMODULES = ("engine",)


def _case(name: str, what: str, build, inputs: tuple[float, ...], optional=()) -> Case:
    """``build(*values)`` gives y from Values of data ``inputs`` (near them with a run's seed:
    draws): y's data and every input's grad after ``y.backward()``."""

    def graph(mg):
        xs = [mg.Value(v) for v in near(name, inputs)]
        return build(*xs), xs, None

    def values(mg, graph):
        y, xs, _ = graph
        y.backward()
        return {"y.data": y.data, **{f"the grad of input {k}": x.grad for k, x in enumerate(xs)}}

    return Case(name, what, graph, values, optional)


def _chain(x, y):
    """Reuse and relu on both sides of zero, numbers on the left and the right."""
    z = 3 * x - y + 1.5
    w = (z * y).relu() + (x - 2 * z).relu() + z * x
    return w * z + 0.5 * w - x / 4


def _all_ops(a, b):
    """Division, powers, negation, += and relu of differences."""
    c = a * b - b**2
    c += c / 2 + 1
    d = (a + b).relu() * c - (b - a).relu() / 3
    d += -d * 0.25 + c**2
    e = d / c + a**-1
    return e**2 - 1 / e


def _neuron(x1, x2, w1, w2, b):
    """The lecture's neuron: tanh(x1·w1 + x2·w2 + b)."""
    return (x1 * w1 + x2 * w2 + b).tanh()


def _tanh_by_exp(x):
    """tanh written with exp, as the lecture does: (e^{2x} − 1) / (e^{2x} + 1)."""
    e = (2 * x).exp()
    return (e - 1) / (e + 1)


CASES: list[Case] = [
    _case("add", "a + b", lambda a, b: a + b, (1.5, -2.0)),
    _case("mul", "a · b", lambda a, b: a * b, (1.5, -2.0)),
    _case("pow", "a ** 3 + b ** -2", lambda a, b: a**3 + b**-2, (1.5, -2.0)),
    _case("relu", "relu(a) + relu(b), b < 0", lambda a, b: a.relu() + b.relu(), (1.5, -2.0)),
    _case("neg_sub_div", "−a − b / a + 2 − a", lambda a, b: -a - b / a + 2 - a, (1.5, -2.0)),
    _case(
        "numbers_on_the_left", "2 + a, 3 · a, 1 − a, 4 / a",
        lambda a: (2 + a) * (3 * a) + (1 - a) / (4 / a), (1.5,),
    ),
    _case("add_same", "a + a: one child read twice", lambda a: (a + a) * 3, (-2.0,)),
    _case("mul_same", "a · a: one child read twice", lambda a: a * a + 1, (1.7,)),
    _case("reused", "a value read by many nodes, relu on both sides of 0", _chain, (-3.0, 2.5)),
    _case("all_ops", "division, powers, += and relu of differences", _all_ops, (-4.0, 2.0)),
    _case("tanh", "tanh(a · b)", lambda a, b: (a * b).tanh(), (0.7, -0.4), ("tanh",)),
    _case("exp", "exp(a) · b", lambda a, b: a.exp() * b, (0.7, -0.4), ("exp",)),
    _case(
        "neuron", "tanh(x1·w1 + x2·w2 + b), the lecture's neuron", _neuron,
        (2.0, 0.0, -3.0, 1.0, 6.8813735870195432), ("tanh",),
    ),
    _case("tanh_by_exp", "tanh written with exp, / and −", _tanh_by_exp, (0.8814,), ("exp",)),
]  # fmt: skip
