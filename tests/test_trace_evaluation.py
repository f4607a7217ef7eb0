"""How a walkthrough evaluates the graph extension it reads: only what it reads, in creation
order, outside the extension's build (so user code runs as it does in an Executor), and the
records it makes keep the API of named tuples."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

import vizad as vz


class _PowerOfInput(vz.extend.ElementwiseOp):
    """x ** k with k an input: its partial for k (log x · x^k) is not read when k is a
    constant, and is not real for x < 0."""

    name = "power_of_input"

    def compute(self, a, k):
        return np.power(a, k)

    def partials(self, node):
        x, k = node.inputs
        return [k * _PowerOfInput()(x, k - 1.0), vz.log(x) * node]


class _Undifferentiable(vz.Op):
    name = "undifferentiable"

    def compute(self, a):
        raise TypeError("index inputs are not differentiable")


class _ScaleBy(vz.extend.ElementwiseOp):
    name = "scale_by"

    def compute(self, a, n):
        return a * n

    def partials(self, node):
        a, n = node.inputs
        return [n, _Undifferentiable()(a)]


class _UsesVizad(vz.Op):
    """An op whose compute evaluates a vizad graph of its own, and whose vjp differentiates
    its definition with vz.gradients."""

    name = "uses_vizad"

    def compute(self, a):
        c = vz.Variable("c")
        return vz.evaluate(vz.log(1.0 + vz.exp(c)), {c: a})

    def vjp(self, node, adjoint):
        (x,) = node.inputs
        (d,) = vz.gradients(vz.log(1.0 + vz.exp(x)), [x])
        return [adjoint * d]


def test_only_what_the_walkthrough_reads_is_evaluated():
    x = vz.Variable("x")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # log(-3) would warn if the unread partial were run
        trace = vz.trace_reverse(_PowerOfInput()(x, 2.0), [x], {x: -3.0})
    assert trace.gradients[0] == pytest.approx(-6.0)
    trace = vz.trace_reverse(_ScaleBy()(x, 3.0), [x], {x: 2.0})  # its other partial raises
    assert trace.gradients[0] == pytest.approx(3.0)


def test_user_ops_that_use_vizad_inside_compute_and_vjp():
    x = vz.Variable("x")
    y = _UsesVizad()(x) * 2.0
    expected = 2.0 / (1.0 + np.exp(-0.3))  # 2 σ(x)
    assert vz.evaluate(vz.gradients(y, [x])[0], {x: 0.3}) == pytest.approx(expected)
    trace = vz.trace_reverse(y, [x], {x: 0.3})
    assert trace.gradients[0] == pytest.approx(expected)
    assert [s.label for s in trace.steps] == ["v₃", "v₂", "v₁"]


def _random_graph(seed: int):
    """12 random ops over a scalar, a vector and a matrix (constant-folded pieces appear in
    their extensions: a seed of ones times a constant, negated …)."""
    rng = np.random.default_rng(seed)
    a, b, w = vz.Variable("a"), vz.Variable("b", shape=(3,)), vz.Variable("W", shape=(2, 3))
    pool = [a, b, w]
    for _ in range(12):
        u, v = (pool[int(k)] for k in rng.integers(len(pool), size=2))
        pool.append(
            [
                lambda: u * v,
                lambda: u + v,
                lambda: vz.sin(u),
                lambda: vz.tanh(u) - v,
                lambda: u / (v * v + 1.0),
                lambda: vz.relu(u) * u,
                lambda: vz.sum(u * u),
                lambda: vz.exp(u * 0.1) ** 2,
            ][int(rng.integers(8))]()
        )
    y = vz.sum(pool[-1]) + vz.sum(pool[-2]) * vz.sum(pool[-3])
    feed = {a: 0.7, b: np.array([0.1, -0.5, 0.9]), w: np.arange(6.0).reshape(2, 3) / 7 - 0.3}
    return (a, b, w), y, feed


def test_the_extension_holds_every_node_its_nodes_read():
    """Constant-folded (eager) nodes of the extension are listed too, however deep: the
    extended drawing draws every box a result is computed from."""
    folded = 0
    for seed in range(25):
        (a, b, w), y, feed = _random_graph(seed)
        for trace in (
            vz.trace_reverse(y, [a, b, w], feed),
            vz.trace_forward(y, feed=feed, tangents={b: np.ones(3)}),
        ):
            known = set(trace.graph) | set(trace.extension)
            for node in trace.extension:
                assert all(i in known for i in node.inputs), (seed, trace.mode, node)
            folded += sum(isinstance(n, vz.extend.EagerNode) for n in trace.extension)
    assert folded > 0  # the case is exercised


def test_a_tangent_given_as_a_node_of_the_wrong_shape_is_caught():
    x, s = vz.Variable("x"), vz.Variable("s")
    y = vz.sin(x) * 2.0
    with pytest.raises(vz.errors.ShapeError, match=r"the tangent of x, has shape \(2, 3\)"):
        vz.evaluate(vz.jvp(y, {x: s}), {x: np.ones(3), s: np.ones((2, 3))})


def test_contributions_keep_the_named_tuple_api():
    x1, x2 = vz.Variable("x1"), vz.Variable("x2")
    y = vz.log(x1) + x1 * x2 - vz.sin(x2)
    trace = vz.trace_reverse(y, [x1, x2], {x1: 2.0, x2: 5.0})
    c = trace.step_of(x2).contributions[0]
    fields = c._asdict()
    assert list(fields) == list(vz.trace.Contribution._fields)
    assert tuple(c) == tuple(fields.values()) and len(c) == 12
    assert fields["consumer_label"] == c.consumer_label and c.partial_latex is not None
    assert copy.deepcopy(c) == c and copy.copy(c) == c
    made = vz.trace.Contribution(
        consumer=x1, consumer_label="v5", consumer_symbol="v_{5}", index=0, local=1.0,
        local_latex="1", partial=2.0, partial_latex=r"\bar{v}_{5}", partial_node=x1,
    )  # fmt: skip
    assert made.consumer_label == "v5" and made._replace(index=1).index == 1
    with pytest.raises(TypeError, match="consumer_label is missing"):
        vz.trace.Contribution(x1)
    # every field lands in its own slot, positionally and by keyword
    values = [f"field {k}" for k in range(12)]
    by_position = vz.trace.Contribution(*values)
    assert (
        list(by_position) == values
        and tuple(by_position._asdict()) == vz.trace.Contribution._fields
    )
    assert vz.trace.Contribution(**dict(zip(vz.trace.Contribution._fields, values))) == by_position
    assert trace.steps + () == tuple(trace.steps) and () + trace.steps == tuple(trace.steps)


def test_submodules_stay_attributes_of_the_package():
    assert vz.trace.trace_reverse is vz.trace_reverse
    assert vz.expr.parse_expression is vz.expr.parse_expression


def test_partial_adjoints_are_built_before_their_reductions():
    """The creation order (node ids, hence the order of boxes in drawings) of an elementwise
    rule: every product v̄ⱼ ∂vⱼ/∂vᵢ first, then the sum-to-shape steps."""
    v, s = vz.Variable("v", shape=(3,)), vz.Variable("s", shape=())
    y = s * v  # the first input is broadcast
    record = vz.extend.build_adjoints(y, [v, s])
    (pv,), (ps,) = record.partials(v), record.partials(s)
    assert pv.unreduced is None and ps.unreduced is not None
    assert ps.unreduced.id < pv.node.id < ps.node.id
    assert ps.node.op.name == "sum_to_shape"
