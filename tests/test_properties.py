"""Property-based tests: random expression graphs, where reverse mode, forward mode and
central differences must agree, and the walkthrough must reproduce the engine's gradients."""

import math

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import vizad as vz

UNARY = [vz.sin, vz.cos, vz.tanh, vz.sigmoid, vz.exp, lambda a: a * a, vz.ops.neg]
BINARY = [
    vz.ops.add,
    vz.ops.sub,
    vz.ops.mul,
    lambda a, b: a * vz.sigmoid(b),
    lambda a, b: a / (1.5 + vz.tanh(b)),
]


@st.composite
def graphs(draw):
    """A random scalar graph over 1-3 inputs, with reused nodes and shared subexpressions."""
    n_inputs = draw(st.integers(1, 3))
    xs = [vz.Variable(f"x{k}") for k in range(n_inputs)]
    nodes = list(xs)
    for _ in range(draw(st.integers(1, 12))):
        if draw(st.booleans()):
            op = draw(st.sampled_from(UNARY))
            nodes.append(op(draw(st.sampled_from(nodes))))
        else:
            op = draw(st.sampled_from(BINARY))
            nodes.append(op(draw(st.sampled_from(nodes)), draw(st.sampled_from(nodes))))
    point = draw(st.lists(st.floats(-1.5, 1.5), min_size=n_inputs, max_size=n_inputs))
    return nodes[-1], xs, dict(zip(xs, point))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs())
def test_reverse_forward_and_central_differences_agree(case):
    y, xs, feed = case
    with np.errstate(all="ignore"):
        value = float(vz.evaluate(y, feed))
        if not math.isfinite(value) or abs(value) > 1e6:
            return
        reverse = [float(g) for g in vz.evaluate(vz.gradients(y, xs), feed)]
        forward = [float(vz.evaluate(vz.jvp(y, {x: 1.0}), feed)) for x in xs]
        central = [float(g) for g in vz.numerical_gradient(y, xs, feed, eps=1e-6)]
    for r, f, c in zip(reverse, forward, central):
        assert math.isclose(r, f, rel_tol=1e-9, abs_tol=1e-9)
        assert math.isclose(r, c, rel_tol=1e-4, abs_tol=1e-5)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs())
def test_walkthrough_sums_its_contributions(case):
    y, xs, feed = case
    with np.errstate(all="ignore"):
        if not math.isfinite(float(vz.evaluate(y, feed))):
            return
        trace = vz.trace_reverse(y, xs, feed)
        engine = [float(g) for g in vz.evaluate(vz.gradients(y, xs), feed)]
    assert [float(g) for g in trace.gradients] == engine
    for step in trace.steps:
        if step.contributions:
            total = sum(float(c.partial) for c in step.contributions)
            assert math.isclose(total, float(step.adjoint), rel_tol=1e-12, abs_tol=1e-12)
    assert len(trace.derivation()) == len(trace.steps)
