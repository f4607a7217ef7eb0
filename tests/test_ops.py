"""Every registered op: reverse and forward mode against central differences, the dot-product
test ⟨J v, w⟩ = ⟨v, Jᵀ w⟩, and second order (gradients of gradients)."""

import numpy as np
import pytest

import vizad as vz
from opcases import (
    EXTRA_CASES,
    LEAVES,
    add_scaled,
    all_cases,
    central_gradient,
    inner,
    random_like,
    sample_inputs,
    seed_node,
)

EPS = 1e-6
CASES = all_cases()


def _variables(case, declared):
    return [vz.Variable(f"x{k}", shape=s if declared else None) for k, s in enumerate(case.shapes)]


def test_every_op_has_cases():
    covered = {name for name, _ in CASES}
    missing = set(vz.extend.registry()) - LEAVES - covered
    assert not missing, f"registered ops without test cases: {sorted(missing)}"


@pytest.mark.parametrize("declared", [False, True], ids=["any-shape", "declared-shape"])
@pytest.mark.parametrize("name,case", CASES, ids=[str(c) for _, c in CASES])
def test_reverse_and_forward_against_central_differences(name, case, declared):
    xs = _variables(case, declared)
    y = case.build(*xs)
    assert name in {n.op.name for n in vz.topo_sort(y)}
    point = sample_inputs(case, seed=len(case.name))
    feed = dict(zip(xs, point))
    run = vz.Executor([y])
    y_value = run.run(feed)[0]
    rng = np.random.default_rng(1)
    w = random_like(y_value, rng)  # a cotangent for the output
    v = [rng.standard_normal(p.shape) for p in point]  # a tangent for the inputs

    def f(values):
        return run.run(dict(zip(xs, values)))[0]

    # reverse mode: Jᵀ w against central differences of ⟨w, y(x)⟩, entry by entry
    grads = vz.evaluate(vz.gradients(y, xs, cotangent=seed_node(w)), feed)
    numeric = central_gradient(lambda values: inner(w, f(values)), point, EPS)
    for k, (x, g, n) in enumerate(zip(point, grads, numeric)):
        assert np.shape(g) == np.shape(x), f"adjoint of input {k} has the wrong shape"
        np.testing.assert_allclose(g, n, rtol=1e-5, atol=1e-6)

    # forward mode: J v against central differences along v
    tangent = vz.evaluate(vz.jvp(y, dict(zip(xs, v))), feed)
    up = f([p + EPS * d for p, d in zip(point, v)])
    down = f([p - EPS * d for p, d in zip(point, v)])
    numeric_jv = add_scaled(up, down, -1.0)
    assert inner(w, tangent) == pytest.approx(inner(w, numeric_jv) / (2 * EPS), rel=1e-5, abs=1e-6)

    # the dot-product test: ⟨J v, w⟩ = ⟨v, Jᵀ w⟩
    assert inner(tangent, w) == pytest.approx(inner(v, grads), rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("name,case", CASES, ids=[str(c) for _, c in CASES])
def test_second_order_against_central_differences(name, case):
    """The gradient of ⟨∇⟨w, y⟩, u⟩ (a Hessian-vector product) against central differences
    of the first gradient: the adjoint graphs are differentiable too."""
    xs = _variables(case, declared=False)
    y = case.build(*xs)
    point = sample_inputs(case, seed=7)
    rng = np.random.default_rng(2)
    w = random_like(vz.evaluate(y, dict(zip(xs, point))), rng)
    first = vz.gradients(y, xs, cotangent=seed_node(w))
    u = [rng.standard_normal(p.shape) for p in point]
    objective = vz.ops.add_n(*(vz.sum(g * vz.constant(d)) for g, d in zip(first, u)))
    second = vz.evaluate(vz.gradients(objective, xs), dict(zip(xs, point)))
    run = vz.Executor(first)

    def g_dot_u(values):
        return inner(run.run(dict(zip(xs, values))), u)

    for h, n in zip(second, central_gradient(g_dot_u, point, EPS)):
        np.testing.assert_allclose(h, n, rtol=1e-4, atol=1e-5)


def test_extra_cases_name_registered_ops():
    assert set(EXTRA_CASES) <= set(vz.extend.registry())
