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
    with pytest.raises(vz.GradcheckError, match=r"worst input 'a'") as info:
        vz.gradcheck(y, [a, b], feed)
    report = info.value.report
    assert not report.ok and report.worst_input is a
    errors = dict((n.name, e) for n, e in report.errors)
    assert errors["a"] > 1.0 and errors["b"] < 1e-6
    quiet = vz.gradcheck(y, [a, b], feed, raise_on_failure=False)
    assert not quiet.ok and "FAILED" in str(quiet)


def test_gradcheck_directions_only():
    a = vz.Variable("a")
    y = WrongSin()(a)
    report = vz.gradcheck(y, [a], {a: np.ones(50)}, coordinates=False, raise_on_failure=False)
    assert not report.ok and report.errors == () and report.worst_input is None
    with pytest.raises(vz.GradcheckError, match="along a random direction"):
        vz.gradcheck(y, [a], {a: np.ones(50)}, coordinates=False)


def test_gradcheck_needs_fed_variables():
    a = vz.Variable("a")
    with pytest.raises(vz.FeedError, match="not a Variable"):
        vz.gradcheck(a * 2, [a * 1], {a: 1.0})
    with pytest.raises(vz.FeedError, match="not in the feed"):
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
