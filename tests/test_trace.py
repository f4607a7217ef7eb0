"""Walkthroughs: the lecture's v̇ and v̄ tables, the course example, tensors, and checks."""

import math

import numpy as np
import pytest

import vizad as vz


@pytest.fixture
def lecture():
    x1, x2 = vz.Variable("x1"), vz.Variable("x2")
    y = vz.log(x1) + x1 * x2 - vz.sin(x2)
    return x1, x2, y, {x1: 2.0, x2: 5.0}


def test_forward_walkthrough_of_the_lecture(lecture):
    x1, x2, y, feed = lecture
    trace = vz.trace_forward(y, x1, feed)
    assert [s.label for s in trace.steps] == [f"v{chr(0x2080 + k)}" for k in range(1, 8)]
    assert [float(s.tangent) for s in trace.steps] == pytest.approx([1, 0, 0.5, 5, 0, 5.5, 5.5])
    assert [float(s.value) for s in trace.steps] == pytest.approx(
        [2, 5, math.log(2), 10, math.sin(5), math.log(2) + 10, math.log(2) + 10 - math.sin(5)]
    )
    assert trace.tangent(y) == pytest.approx(5.5) and trace.tangent(x2) == 0
    v4 = trace.steps[3]
    assert v4.definition == r"v_{1} \times v_{2}" and v4.node.inputs == (x1, x2)
    assert [t.input_symbol for t in v4.terms] == ["v_{1}", "v_{2}"]
    assert [float(t.local) for t in v4.terms] == [5.0, 2.0]
    lines = trace.derivation().lines
    assert lines[3] == (
        r"\dot{v}_{4} = \dot{v}_{1} v_{2} + \dot{v}_{2} v_{1} = "
        r"1 \times 5 + 0 \times 2 = 5"
    )
    text = str(trace.derivation()).splitlines()
    assert text[2] == "v̇₃ = v̇₁/v₁ = 1 × 0.5 = 0.5"
    assert text[4] == "v̇₅ = v̇₂ cos v₂ = 0 × 0.284 = 0"
    assert text[6] == "v̇₇ = v̇₆ - v̇₅ = 5.5 - 0 = 5.5"
    assert trace.steps[0].seeded and not trace.steps[1].seeded


def test_forward_default_seed_is_the_first_variable(lecture):
    x1, x2, y, feed = lecture
    assert vz.trace_forward(y, feed=feed).tangent(y) == pytest.approx(5.5)
    assert vz.trace_forward(y, x2, feed).tangent(y) == pytest.approx(2 - math.cos(5))


def test_reverse_walkthrough_of_the_lecture(lecture):
    x1, x2, y, feed = lecture
    trace = vz.trace_reverse(y, [x1, x2], feed)
    assert [s.label for s in trace.steps] == [f"v{chr(0x2080 + k)}" for k in range(7, 0, -1)]
    assert [float(s.adjoint) for s in trace.steps] == pytest.approx(
        [1, 1, -1, 1, 1, 2 - math.cos(5), 5.5]
    )
    v2, v1 = trace.step_of(x2), trace.step_of(x1)
    assert [(c.consumer_label, round(float(c.partial), 3)) for c in v2.contributions] == [
        ("v₅", -0.284),
        ("v₄", 2.0),
    ]
    assert [(c.consumer_label, float(c.partial)) for c in v1.contributions] == [
        ("v₄", 5.0),
        ("v₃", 0.5),
    ]
    from_v5 = v2.contributions[0]
    assert from_v5.local_latex == r"\cos v_{2}" and from_v5.local == pytest.approx(math.cos(5))
    assert from_v5.partial_latex == r"\bar{v}_{5} \cos v_{2}"
    assert v1.contributions[1].local == pytest.approx(0.5)
    assert trace.adjoint(x1) == pytest.approx(5.5)
    assert trace.gradients == pytest.approx([5.5, 2 - math.cos(5)])
    lines = trace.derivation().lines
    assert lines[5] == (
        r"\bar{v}_{2} = \bar{v}_{5} \frac{\partial v_{5}}{\partial v_{2}} + "
        r"\bar{v}_{4} \frac{\partial v_{4}}{\partial v_{2}} = "
        r"\bar{v}_{5} \cos v_{2} + \bar{v}_{4} v_{1} = -0.284 + 2 = 1.716"
    )
    assert lines[6].endswith(r"= \bar{v}_{4} v_{2} + \frac{\bar{v}_{3}}{v_{1}} = 5 + 0.5 = 5.5")
    assert lines[0] == r"\bar{v}_{7} = \frac{\partial y}{\partial v_{7}} = 1"
    assert "= -0.3 + 2 = 1.7" in trace.derivation(decimals=1).lines[5]


def test_values_are_read_from_the_adjoint_graph(lecture):
    """Each contribution and sum is linked to the adjoint node that computes it."""
    x1, x2, y, feed = lecture
    trace = vz.trace_reverse(y, [x1, x2], feed)
    for step in trace.steps:
        assert step.adjoint_node.origin is trace.record
        assert vz.evaluate(step.adjoint_node, feed) == pytest.approx(step.adjoint)
        for c in step.contributions:
            assert vz.evaluate(c.partial_node, feed) == pytest.approx(c.partial)
            assert c.partial_node.origin is trace.record
    v2 = trace.step_of(x2)
    assert v2.adjoint_node.op.name == "add_n"
    assert set(v2.adjoint_node.inputs) == {c.partial_node for c in v2.contributions}
    roles = trace.roles()
    assert [r.kind for r in roles[trace.steps[0].adjoint_node]] == ["seed"]
    kinds = {r.kind for rs in roles.values() for r in rs}
    assert kinds == {"seed", "adjoint", "partial", "local"}
    backprop = trace.backprop()
    assert list(backprop) == [x1, x2] + [s.node for s in reversed(trace.steps[:5])]
    assert backprop[x2] == pytest.approx(2 - math.cos(5))


def test_course_example():
    x1 = vz.Variable("x1")
    x2, x3 = x1 + 3, x1 + 5
    y = x2 * x3
    trace = vz.trace_reverse(y, [x1, x2, x3], {x1: 2.0})
    assert [s.label for s in trace.steps] == ["v₄", "v₃", "v₂", "v₁"]
    assert trace.steps[1].definition == "v_{1} + 5"
    assert [float(s.adjoint) for s in trace.steps] == [1, 5, 7, 12]  # x3, x2, 2·x1 + 8
    assert [c.consumer_label for c in trace.step_of(x1).contributions] == ["v₃", "v₂"]
    assert trace.derivation().lines[3].endswith(r"= \bar{v}_{3} + \bar{v}_{2} = 5 + 7 = 12")
    forward = vz.trace_forward(y, x1, {x1: 2.0})
    assert [float(s.tangent) for s in forward.steps] == [1, 1, 1, 12]


def test_tensor_example_xbar_is_zbar_w_transposed():
    X, W = vz.Variable("X"), vz.Variable("W")
    Z = X @ W
    v = vz.sum(vz.tanh(Z))
    rng = np.random.default_rng(0)
    feed = {X: rng.standard_normal((2, 3)), W: rng.standard_normal((3, 4))}
    trace = vz.trace_reverse(v, [X, W], feed)
    step = trace.step_of(X)
    assert step.shape == (2, 3) and trace.step_of(Z).shape == (2, 4)
    (c,) = step.contributions
    assert c.consumer is Z and c.local is None
    assert c.partial_latex == r"\bar{v}_{3} v_{2}^{T}"  # X̄ = Z̄ Wᵀ
    Zbar = trace.adjoint(Z)
    np.testing.assert_allclose(c.partial, Zbar @ feed[W].T)
    assert np.shape(c.partial) == (2, 3)
    assert (
        r"\bar{v}_{1} = \bar{v}_{3} \frac{\partial v_{3}}{\partial v_{1}} = "
        r"\bar{v}_{3} v_{2}^{T} = \begin{bmatrix}" in trace.derivation().lines[-1]
    )


def test_broadcasting_shows_the_sum_to_shape_step():
    x, b = vz.Variable("x"), vz.Variable("b")
    y = vz.sum(x * b)
    feed = {x: np.arange(6.0).reshape(2, 3), b: np.array([1.0, 2.0, 3.0])}
    trace = vz.trace_reverse(y, [x, b], feed)
    (c,) = trace.step_of(b).contributions
    assert c.reduced and c.partial_node.op.name == "sum_to_shape"
    assert np.shape(c.unreduced) == (2, 3) and np.shape(c.partial) == (3,)
    np.testing.assert_allclose(c.partial, feed[x].sum(axis=0))
    (cx,) = trace.step_of(x).contributions
    assert not cx.reduced  # x has the output's shape: nothing to sum
    line = trace.derivation().lines[trace.step_of(b).index]
    assert r"= \textstyle\sum_{\to (3,)}\left(\bar{v}_{3} v_{1}\right) = " in line
    assert "unreduced" in {r.kind for rs in trace.roles().values() for r in rs}
    # scalars fed where the lecture's example is: no sum-to-shape steps at all
    x1, x2 = vz.Variable("x1"), vz.Variable("x2")
    t = vz.trace_reverse(x1 * x2 + x1, [x1, x2], {x1: 2.0, x2: 3.0})
    assert not any(c.reduced for s in t.steps for c in s.contributions)


class WrongSquare(vz.Op):
    name = "wrong_square"

    def compute(self, x):
        return x * x

    def vjp(self, node, adjoint):
        return [adjoint * node.inputs[0]]  # forgot the factor 2


def test_check_finds_a_wrong_vjp_at_its_node(lecture):
    x1, x2, _, feed = lecture
    product = x1 * x2
    square = WrongSquare()(product)
    y = vz.log(x1) + square - vz.sin(x2)
    trace = vz.trace_reverse(y, [x1, x2], feed)
    (failure,) = trace.check()
    assert failure.node is square and failure.op == "wrong_square" and failure.rule == "vjp"
    # marked where the wrong partial adjoint v̄₍product₎→₍square₎ shows: the step of its input
    assert failure.label == trace.label(product)
    assert failure.step == trace.step_of(product).index + 1
    assert "should be" in failure.message
    assert failure.error > 1.0  # Jᵀw is off by v₄·w: half of what it should be
    assert "wrong_square" in str(failure)
    # the custom op has no jvp: forward mode says so, clearly
    with pytest.raises(NotImplementedError, match="wrong_square"):
        vz.trace_forward(y, feed=feed)


class UnreducedRowSum(vz.Op):
    name = "row_sum"

    def compute(self, x):
        return x.sum(axis=1)

    def vjp(self, node, adjoint):
        return [adjoint]  # forgot to broadcast it back to the input's shape


def test_a_tolerant_trace_shows_a_wrong_shaped_adjoint_at_its_step():
    from vizad.trace.build import trace_reverse_tolerant

    x, w = vz.Variable("x"), vz.Variable("w")
    rows = UnreducedRowSum()(x)
    y = vz.sum(rows * w)
    feed = {x: np.arange(6.0).reshape(2, 3), w: np.array([1.0, -2.0])}
    with pytest.raises(vz.errors.ShapeError, match="has shape \\(2,\\) but x has shape"):
        vz.trace_reverse(y, [x, w], feed)  # the default path raises, as it did
    trace = trace_reverse_tolerant(y, [x, w], feed)
    (fault,) = trace.record.faults
    assert fault.node is rows and fault.index == 0 and fault.shape == (2,)
    (failure,) = trace.check()
    assert failure.step == trace.step_of(x).index + 1 and failure.op == "row_sum"
    assert "gives v̄₁→₃ of shape (2,) for v₁ of shape (2, 3)" in failure.message, failure
    # zeros stand in for the wrong partial adjoint; the rest of the pass is the real one
    assert np.array_equal(trace.adjoint(x), np.zeros((2, 3)))
    assert np.array_equal(trace.adjoint(w), np.array([3.0, 12.0]))
    assert vz.trace_reverse(vz.sum(x * 2), [x], feed).record.faults == ()


def test_check_is_empty_for_a_correct_graph(lecture):
    x1, x2, y, feed = lecture
    assert vz.trace_reverse(y, [x1, x2], feed).check() == []
    assert vz.trace_forward(y, feed=feed).check() == []
    X, W, b = vz.Variable("X"), vz.Variable("W"), vz.Variable("b")
    loss = vz.mean(vz.log_softmax(vz.relu(X @ W + b) * 2.0))
    rng = np.random.default_rng(3)
    feed = {
        X: rng.standard_normal((4, 3)),
        W: rng.standard_normal((3, 5)),
        b: rng.standard_normal(5),
    }
    assert vz.trace_reverse(loss, [X, W, b], feed).check() == []


class WrongJvp(vz.Op):
    name = "wrong_jvp"

    def compute(self, x):
        return np.sin(x)

    def vjp(self, node, adjoint):
        return [adjoint * vz.cos(node.inputs[0])]

    def jvp(self, node, tangents):
        return tangents[0] * vz.sin(node.inputs[0])


def test_check_finds_a_wrong_jvp():
    x = vz.Variable("x")
    y = WrongJvp()(x) * 2
    (failure,) = vz.trace_forward(y, feed={x: 0.7}).check()
    assert failure.rule == "jvp" and failure.op == "wrong_jvp"


def test_missing_variable_is_a_clear_error(lecture):
    x1, x2, y, _ = lecture
    with pytest.raises(vz.errors.FeedError, match="Variable 'x2'"):
        vz.trace_reverse(y, [x1, x2], {x1: 2.0})
    with pytest.raises(vz.errors.FeedError, match="Variable 'x2'"):
        vz.trace_forward(y, feed={x1: 2.0})


def test_text_repr_is_short_and_deterministic(lecture):
    def build():
        x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        return repr(vz.trace_reverse(y, [x1, x2], {x1: 2.0, x2: 5.0}))

    first, second = build(), build()
    assert first == second and "0x" not in first
    assert first.splitlines()[0] == "Reverse trace of v₇ w.r.t. x1, x2: 7 steps"
    assert "v̄₂→₅ = -0.284, v̄₂→₄ = 2" in first
    assert len(first.splitlines()) == 9


def test_html_escapes_user_text():
    evil = vz.Variable("<img src=x onerror=alert(1)>")
    trace = vz.trace_reverse(evil * 2, [evil], {evil: 1.0})
    html = trace._repr_html_()
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert trace.steps[-1].definition == r"\mathrm{<img\ src=x\ onerror=alert(1)>}"
    latex = trace.derivation()._repr_latex_()
    assert latex.startswith("$$\\begin{aligned}")


def test_gradient_of_gradient_and_tuple_traces():
    x = vz.Variable("x")
    (g,) = vz.gradients(x * x * x, [x])
    trace = vz.trace_reverse(g, [x], {x: 2.0})
    assert trace.adjoint(x) == pytest.approx(12.0)
    a, b = vz.Variable("a"), vz.Variable("b")
    t = vz.make_tuple(a * b, a + b)
    y = vz.tuple_get(t, 0) * vz.tuple_get(t, 1)
    tt = vz.trace_reverse(y, [a, b], {a: 2.0, b: 3.0})
    assert [float(v) for v in tt.adjoint(t)] == [5.0, 6.0]
    assert "(5, 6)" in repr(tt)
    assert tt.check() == []


def test_step_records_are_immutable(lecture):
    x1, x2, y, feed = lecture
    step = vz.trace_reverse(y, [x1, x2], feed).steps[0]
    with pytest.raises(AttributeError):
        step.adjoint = 2
    assert set(vz.trace.ReverseStep._fields) >= {
        "node",
        "label",
        "value",
        "contributions",
        "adjoint",
    }
    assert set(vz.trace.Contribution._fields) >= {"consumer", "local", "local_latex", "partial"}
    with pytest.raises(AttributeError):
        vz.trace_reverse(y, [x1, x2], feed).steps[-1].contributions[0].partial = 2
    assert set(vz.trace.ForwardStep._fields) >= {"node", "label", "value", "tangent"}


def test_steps_are_numbered_from_one_everywhere(lecture):
    x1, x2, y, feed = lecture
    trace = vz.trace_reverse(y, [x1, x2], feed)
    assert trace[1] is trace.steps[0] and trace[7] is trace.steps[6] and trace[-1] is trace[7]
    assert trace[6].label == "v₂" and trace.index(6) == 5
    with pytest.raises(LookupError, match="the first step is 1"):
        trace[0]
    with pytest.raises(vz.errors.StepNotFoundError, match="numbered 1 … 7"):
        trace[8]
    header, rows = trace.table()
    assert [r[0] for r in rows] == [str(k) for k in range(1, 8)]
    assert "step 6 of 7: v₂" in vz.draw(trace, "adjoint", step=6).source


def test_steps_are_a_sequence_made_as_they_are_read(lecture):
    x1, x2, y, feed = lecture
    trace = vz.trace_reverse(y, [x1, x2], feed)
    steps = trace.steps
    assert len(steps) == 7 and steps[-1] is steps[6] and steps[0] is steps[0]
    assert steps == tuple(steps) and list(steps[1:3]) == [steps[1], steps[2]]
    assert [s.index for s in steps] == list(range(7)) and steps.nodes[6] is steps[6].node
    assert trace.step_of(x1) is steps[6] and trace[1] is steps[0]
    with pytest.raises(IndexError):
        steps[7]
    forward = vz.trace_forward(y, x1, feed)
    assert [s.label for s in forward.steps] == [f"v{k}" for k in "₁₂₃₄₅₆₇"]


def test_a_reduced_partial_adjoint_is_named_by_its_reduced_formula():
    # logits = X W + b: the bias's partial adjoint is Σ(v̄₆) summed over the rows, not v̄₆
    X, W, b = vz.Variable("X"), vz.Variable("W"), vz.Variable("b")
    loss = vz.sum(vz.tanh(X @ W + b))
    feed = {X: np.arange(6.0).reshape(3, 2) / 6, W: np.eye(2), b: np.array([0.1, -0.2])}
    trace = vz.trace_reverse(loss, [W, b], feed)
    step = trace.step_of(b)
    (c,) = step.contributions
    consumer = trace.label(c.consumer)
    assert c.reduced and np.shape(c.partial) == (2,) and np.shape(c.unreduced) == (3, 2)
    bar = rf"\bar{{v}}_{{{consumer[1:].translate(str.maketrans('₀₁₂₃₄₅₆₇₈₉', '0123456789'))}}}"
    assert c.partial_latex == rf"\textstyle\sum_{{\to (2,)}}\left({bar}\right)"
    assert vz.text.latex_to_text(c.partial_latex) == f"Σ_(→ (2,))(v̄{consumer[1:]})"
    # the derivation line and the stepper's panel read the same formula, summed once
    line = trace.derivation().lines[step.index]
    assert line.count(r"\sum_{\to (2,)}") == 1
    from vizad.trace.panel import panel_text, step_panel

    panel = panel_text(step_panel(trace, step.index))
    assert f"Σ_(→ (2,))(v̄{consumer[1:]})" in panel
