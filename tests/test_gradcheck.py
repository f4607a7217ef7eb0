"""Central differences and the gradient check."""

import math

import numpy as np
import pytest

import vizad as vz


def test_numerical_gradient_lecture_example():
    x1, x2 = vz.Variable("x1"), vz.Variable("x2")
    y = vz.log(x1) + x1 * x2 - vz.sin(x2)
    g1, g2 = vz.numerical_gradient(y, [x1, x2], {x1: 2.0, x2: 5.0})
    assert g1 == pytest.approx(5.5, rel=1e-8)
    assert g2 == pytest.approx(2 - math.cos(5), rel=1e-8)


def test_numerical_gradient_of_a_tensor_function_is_per_entry():
    W = vz.Variable("W")
    x = np.array([[1.0, 2.0]])
    y = vz.sum(vz.tanh(vz.matmul(vz.constant(x), W)))
    W_val = np.array([[0.1, -0.2, 0.3], [0.0, 0.5, -0.4]])
    (num,) = vz.numerical_gradient(y, [W], {W: W_val})
    (exact,) = vz.evaluate(vz.gradients(y, [W]), {W: W_val})
    assert num.shape == (2, 3)
    np.testing.assert_allclose(num, exact, rtol=1e-7)


def test_gradcheck_passes_on_a_correct_graph():
    x, w = vz.Variable("x"), vz.Variable("w")
    y = vz.sum(vz.log_softmax(x * w))
    report = vz.gradcheck(y, [x, w], {x: np.array([0.5, -1.0, 2.0]), w: np.array([1.0, 2.0, 3.0])})
    assert report.ok and len(report.directions) == 3 and len(report.errors) == 2
    assert report.worst_error < 1e-6
    assert "passed" in str(report)


class WrongSin(vz.Op):
    """sin with the sign of its derivative wrong: the bug gradcheck must catch."""

    name = "wrong_sin"

    def compute(self, x):
        return np.sin(x)

    def vjp(self, node, adjoint):
        return [-adjoint * vz.cos(node.inputs[0])]


def test_gradcheck_names_the_worst_input_and_raises():
    a, b = vz.Variable("a"), vz.Variable("b")
    y = WrongSin()(a) + b * b
    feed = {a: np.array([0.3, 0.1]), b: np.array([1.0, 2.0])}
    with pytest.raises(vz.errors.GradcheckError, match=r"worst input 'a'") as info:
        vz.gradcheck(y, [a, b], feed)
    report = info.value.report
    assert not report.ok and report.worst_input is a
    errors = dict((n.name, e) for n, e in report.errors)
    assert errors["a"] > 0.1 and errors["b"] < 1e-6
    # with w = 1 the error is the derivative's sign flip: 2 cos a, largest at a = 0.1
    ones = vz.gradcheck(y, [a, b], feed, cotangent=np.ones(2), raise_on_failure=False)
    assert dict((n.name, e) for n, e in ones.errors)["a"] == pytest.approx(
        2 * np.cos(0.1), rel=1e-6
    )
    quiet = vz.gradcheck(y, [a, b], feed, raise_on_failure=False)
    assert not quiet.ok and "FAILED" in str(quiet)


def test_gradcheck_directions_only():
    a = vz.Variable("a")
    y = WrongSin()(a)
    report = vz.gradcheck(y, [a], {a: np.ones(50)}, coordinates=False, raise_on_failure=False)
    assert not report.ok and report.errors == () and report.worst_input is None
    with pytest.raises(vz.errors.GradcheckError, match="along a random direction"):
        vz.gradcheck(y, [a], {a: np.ones(50)}, coordinates=False)


def test_gradcheck_needs_fed_variables():
    a = vz.Variable("a")
    with pytest.raises(vz.errors.FeedError, match="not a Variable"):
        vz.gradcheck(a * 2, [a * 1], {a: 1.0})
    with pytest.raises(vz.errors.FeedError, match="not in the feed"):
        vz.numerical_gradient(a * 2, [a], {})


def test_gradcheck_with_a_cotangent_checks_the_vjp_of_a_tuple_output():
    a, b = vz.Variable("a"), vz.Variable("b")
    t = vz.make_tuple(a * b, vz.sin(a))
    w = (np.array([1.0, -2.0]), np.array([0.5, 3.0]))
    feed = {a: np.array([0.3, 0.7]), b: np.array([1.5, -1.0])}
    report = vz.gradcheck(t, [a, b], feed, cotangent=w)
    assert report.ok
    ga, gb = vz.numerical_gradient(t, [a, b], feed, cotangent=w)
    np.testing.assert_allclose(ga, w[0] * feed[b] + w[1] * np.cos(feed[a]), rtol=1e-7)
    np.testing.assert_allclose(gb, w[0] * feed[a], rtol=1e-7)


# -- no false alarms, and what the defaults are ---------------------------------------------
@pytest.mark.parametrize(
    "build,value",
    [
        (lambda x: vz.sum(vz.exp(x)), [20.0, 1.0, 2.0, 3.0]),  # large magnitudes
        (lambda x: vz.sum(x**3), [1e4]),
        (lambda x: vz.sum(x * x), [1e8]),
        (lambda x: vz.sum(vz.log(x)), [1e-5, 1e-7]),  # near the domain's edge
        (lambda x: vz.sum(vz.sqrt(x)), [1e-6]),
        (lambda x: vz.log_softmax(x), [1e6, 0.0, 3.0]),
        (lambda x: vz.sum(vz.ops.heaviside(x) * x), [1e-8, -1e-8, 0.5]),  # a kink within the step
    ],
    ids=[
        "exp-20",
        "cube-1e4",
        "square-1e8",
        "log-1e-5",
        "sqrt-1e-6",
        "log_softmax-1e6",
        "kink-near",
    ],
)
def test_no_false_alarm(build, value):
    x = vz.Variable("x")
    y = build(x)
    feed = {x: np.array(value)}
    assert vz.gradcheck(y, [x], feed).ok
    assert vz.trace_reverse(y, [x], feed).check() == []


def test_a_kink_at_the_point_is_reported_not_failed():
    x = vz.Variable("x")
    report = vz.gradcheck(vz.sum(vz.relu(x)), [x], {x: np.array([0.0, 1e-9, -1e-9, 1.0])})
    assert report.ok
    assert [(index, why) for _, index, why in report.not_checked] == [((0,), "kink")]
    assert "x[0]: not differentiable here (a kink)" in str(report)


def test_the_default_cotangent_is_random_and_reported():
    """A transpose with the wrong permutation is invisible to w = 1 (sum(Aᵀ) = sum(A)) and
    found by the default random cotangent."""

    class WrongTranspose(vz.Op):
        name = "wrong_transpose"

        def compute(self, a):
            return a.T

        def vjp(self, node, adjoint):
            return [adjoint]  # should be adjointᵀ

    A = vz.Variable("A")
    y = WrongTranspose()(A)
    feed = {A: np.arange(4.0).reshape(2, 2)}
    assert vz.gradcheck(y, [A], feed, cotangent=np.ones((2, 2))).ok
    report = vz.gradcheck(y, [A], feed, raise_on_failure=False)
    assert not report.ok and report.cotangent.shape == (2, 2)
    again = vz.gradcheck(y, [A], feed, raise_on_failure=False)
    np.testing.assert_array_equal(report.cotangent, again.cotangent)  # seeded


def test_tuple_outputs_of_mixed_shapes_and_nested_tuples():
    x = vz.Variable("x")
    feed = {x: np.array([1.0, 2.0])}
    for y in (vz.make_tuple(x, vz.sum(x)), vz.make_tuple(vz.make_tuple(x * 2), vz.sum(x))):
        assert vz.gradcheck(y, [x], feed).ok
        assert vz.trace_reverse(vz.tuple_get(y, 0), [x], feed).check() == []
    g = vz.numerical_gradient(vz.make_tuple(vz.make_tuple(x * 2), vz.sum(x)), [x], feed)[0]
    np.testing.assert_allclose(g, [3.0, 3.0], rtol=1e-9)


def test_float32_graphs_get_float32_tolerances():
    x = vz.Variable("x")
    y = vz.sum(vz.tanh(x) * 3.0)
    report = vz.gradcheck(y, [x], {x: np.array([0.3, -1.2], np.float32)})
    assert report.ok and report.tolerance.startswith("rtol=0.002")
    assert vz.numerical.default_tolerances(np.float64(1.0)) == (1e-5, 1e-8)


def test_no_kink_is_seen_where_the_cotangent_cancels_the_output():
    """⟨w, y⟩ = x where y = (10⁶ sin x, x − 10⁶ sin x) and w = (1, 1): the sum cancels to
    almost nothing while each term carries the rounding error of 10⁶. Measured against the
    size of the sum, that noise looked like a kink (15 of 200 points at 10³, 52 at 10⁹)."""
    x = vz.Variable("x")
    for big in (1e3, 1e6, 1e9):
        s = vz.sin(x) * big
        y = vz.make_tuple(s, x - s)
        for x0 in np.linspace(0.1, 3.0, 60):
            report = vz.gradcheck(y, [x], {x: np.array(x0)}, cotangent=(1.0, 1.0), directions=0)
            assert report.ok and report.not_checked == (), (big, x0, str(report))
    # a real kink is still one, with or without cancelling terms
    report = vz.gradcheck(
        vz.make_tuple(vz.relu(x) + s, -s), [x], {x: np.array(0.0)}, cotangent=(1.0, 1.0)
    )
    assert [why for _, _, why in report.not_checked] == ["kink"]
