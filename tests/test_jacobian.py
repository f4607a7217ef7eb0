"""vz.jacobian in both modes and vz.hvp in all four orders, against central differences and
against each other, and the cost each mode builds."""

from __future__ import annotations

import numpy as np
import pytest

import vizad as vz
from vizad.engine.derivatives import HVP_MODES

RNG = np.random.default_rng(3)
A = RNG.standard_normal((2, 3))
POINT = RNG.standard_normal(3)


def _numeric_jacobian(f, x0, h=1e-6):
    out = np.asarray(f(x0))
    J = np.zeros(out.shape + x0.shape)
    for k in range(x0.size):
        step = np.zeros_like(x0)
        step.flat[k] = h
        J[(...,) + np.unravel_index(k, x0.shape)] = (f(x0 + step) - f(x0 - step)) / (2 * h)
    return J


CASES = {
    "sin(Ax)": (lambda x: vz.sin(A @ x), lambda v: np.sin(A @ v), (3,)),
    "tanh(x) x (matrix x)": (lambda x: vz.tanh(x) * x, lambda v: np.tanh(v) * v, (2, 2)),
    "log_softmax(x)": (vz.log_softmax, lambda v: v - np.log(np.sum(np.exp(v))), (4,)),
    "sum(x³) (scalar y)": (lambda x: vz.sum(x**3), lambda v: np.sum(v**3), (3,)),
}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_jacobian_against_central_differences(case, mode):
    build, numpy_f, shape = CASES[case]
    x = vz.Variable("x", shape=shape)
    x0 = RNG.standard_normal(shape)
    J = vz.evaluate(vz.jacobian(build(x), x, mode), {x: x0})
    np.testing.assert_allclose(J, _numeric_jacobian(numpy_f, x0), rtol=1e-6, atol=1e-8)


def test_the_two_modes_agree_and_cost_what_they_should():
    x = vz.Variable("x", shape=(3,))
    y = vz.sin(A @ x)  # R³ → R²
    rev, fwd = vz.jacobian(y, x, "reverse"), vz.jacobian(y, x, "forward")
    np.testing.assert_allclose(vz.evaluate(rev, {x: POINT}), vz.evaluate(fwd, {x: POINT}))
    # m = 2 reverse passes, n = 3 forward passes: one extension record per pass
    records = lambda j: {id(n.origin) for n in vz.topo_sort(j) if n.origin is not None}  # noqa: E731
    assert len(records(rev)) == 2 and len(records(fwd)) == 3


def test_jvp_vjp_duality():
    """⟨u, J v⟩ = ⟨Jᵀ u, v⟩, with J v by forward mode and Jᵀ u by reverse mode."""
    x = vz.Variable("x", shape=(3,))
    y = vz.sin(A @ x) * 2.0
    u, v = RNG.standard_normal(2), RNG.standard_normal(3)
    jv = vz.evaluate(vz.jvp(y, {x: v}), {x: POINT})
    (jtu,) = vz.evaluate(vz.gradients(y, [x], cotangent=u), {x: POINT})
    assert float(u @ jv) == pytest.approx(float(jtu @ v), rel=1e-12)


@pytest.mark.parametrize("mode", HVP_MODES)
def test_hvp_in_every_order(mode):
    x = vz.Variable("x", shape=(3,))
    y = vz.sum(vz.exp(x) * x) + vz.sum(vz.sin(A @ x))
    v = RNG.standard_normal(3)
    hv = vz.evaluate(vz.hvp(y, x, v, mode), {x: POINT})

    def grad(p):
        return (np.exp(p) * (1 + p)) + A.T @ np.cos(A @ p)

    H = _numeric_jacobian(grad, POINT)
    np.testing.assert_allclose(hv, H @ v, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(hv, vz.evaluate(vz.hvp(y, x, v), {x: POINT}), rtol=1e-12)


def test_clear_errors():
    x = vz.Variable("x")
    with pytest.raises(vz.errors.ShapeError, match="must be known when the graph is built"):
        vz.jacobian(vz.sin(x), x)
    with pytest.raises(vz.errors.ArgumentError, match="mode must be 'reverse' or 'forward'"):
        vz.jacobian(vz.sin(x), x, "sideways")
    with pytest.raises(vz.errors.ArgumentError, match="forward-over-reverse"):
        vz.hvp(vz.sin(x), x, 1.0, "backwards")
    s = vz.Variable("s", shape=(2,))
    with pytest.raises(vz.errors.ShapeError, match="y must be a scalar"):
        vz.hvp(vz.sin(s), s, np.ones(2))
