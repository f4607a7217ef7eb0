"""Students' own micrograd Values and needle Tensors drawn, traced and stepped: vz.draw,
vz.trace_reverse and vz.step read them through vizad.classroom.courses.foreign_eager, with their
labels and op names, their own compute and rules (a wrong rule is a red step), the micrograd default
being the backprop view of draw_dot."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import vizad as vz
from engines import load, softsign_op


def lecture(mg):
    """micrograd's lecture example: L = (a·b + c)·f."""
    a, b, c = mg.Value(2.0, label="a"), mg.Value(-3.0, label="b"), mg.Value(10.0, label="c")
    e = a * b
    e.label = "e"
    d = e + c
    d.label = "d"
    f = mg.Value(-2.0, label="f")
    L = d * f
    L.label = "L"
    return L, (a, b, c, d, e, f)


def test_a_students_micrograd_graph_is_drawn_as_draw_dot_draws_it():
    mg = load("minigrad", "mg_drawn", mode="importlib")
    L, (a, b, c, d, e, f) = lecture(mg)
    L.backward()
    source = vz.draw(L).source
    assert "backprop" in source  # data and grad of every node, as draw_dot shows them
    for name, data, grad in [("a", 2, 6), ("b", -3, -4), ("c", 10, -2), ("f", -2, 4)]:
        assert f"<B>{name}</B><BR/>= {data}<BR/>{name}̄ = {grad}" in source
    bar = "\u0304"  # the combining macron of the lecture's adjoints
    assert f"<B>e</B><BR/>= a · b<BR/>= -6<BR/>e{bar} = -2" in source
    assert f"<B>L</B><BR/>= d · f<BR/>= -8<BR/>L{bar} = 1" in source
    assert [v.grad for v in (a, b, c, d, e, f)] == [6.0, -4.0, -2.0, -2.0, -2.0, 4.0]  # theirs


def test_a_students_micrograd_graph_is_traced_and_stepped_with_their_rules():
    mg = load("minigrad", "mg_traced", mode="importlib")
    L, (a, b, *_) = lecture(mg)
    trace = vz.trace_reverse(L, [a, b])
    adjoints = {s.label: float(s.adjoint) for s in trace.steps}
    assert adjoints == {"L": 1.0, "d": -2.0, "e": -2.0, "a": 6.0, "b": -4.0}
    assert trace.check() == []
    assert vz.step(L, a, mode="forward").trace.mode == "forward"  # one Value as wrt
    # a wrong rule of theirs is a red step
    twice = "self.grad += 2 * other.data * out.grad"
    bad = load(
        "minigrad",
        "mg_traced_bad",
        ("self.grad += other.data * out.grad  # MUL-SELF", twice),
        mode="importlib",
    )
    L, (a, b, *_) = lecture(bad)
    failures = vz.step(L, [a, b]).failures.values()
    bar = "\u0304"
    assert any(f"a{bar}→e = 24, should be 12" in f for f in failures), failures
    assert any(f"d{bar}→L = -4, should be -2" in f for f in failures), failures


def test_a_value_updated_by_training_is_read_again():
    mg = load("minigrad", "mg_trained", mode="importlib")
    w = mg.Value(0.5, label="w")
    for target in (1.0, 2.0):
        loss = (w * 3 - target) ** 2
        loss.label = "loss"
        trace = vz.trace_reverse(loss, [w])
        assert float(trace.steps[-1].adjoint) == pytest.approx(6 * (3 * w.data - target))
        w.data -= 0.01 * float(trace.steps[-1].adjoint)


def test_an_op_vizad_does_not_know_is_drawn_from_the_students_data_and_rule():
    mg = load("minigrad", "mg_softsign", mode="importlib")

    softsign = softsign_op(mg)
    a = mg.Value(0.5, label="a")
    y = softsign(a) * 2
    trace = vz.trace_reverse(y, [a])
    assert "softsign" in trace.steps[1].definition
    assert float(trace.steps[-1].adjoint) == pytest.approx(2 / 1.5**2)
    assert "softsign" in vz.draw(y).source


def test_karpathys_micrograd_itself_is_drawn():
    sys.modules.pop("micrograd", None)
    sys.modules.pop("micrograd.engine", None)
    from micrograd.engine import Value  # the PyPI release (its children are a set)

    x = Value(-4.0)
    z = 2 * x + 2 + x
    y = (z * z).relu() + z * x
    trace = vz.trace_reverse(y, [x])
    y.backward()
    assert float(trace.steps[-1].adjoint) == pytest.approx(x.grad)
    assert "ReLU" in vz.draw(y, "forward").source


def needle_loss(nd):
    """notebook 12's needle example: ReLU at 0 in the first row."""
    X = nd.Tensor(np.array([[1.0, 2.0], [3.0, -1.0]]))
    W = nd.Tensor(np.array([[0.5], [-0.25]]))
    return nd.summation(nd.relu(X @ W) ** 2) / 2, X, W


def test_a_students_needle_graph_is_drawn_and_traced_with_needles_op_names():
    nd = load("needlish", "nd_drawn", mode="main")
    loss, X, W = needle_loss(nd)
    source = vz.draw(loss).source
    for name in ("MatMul", "ReLU", "PowerScalar", "Summation", "DivScalar"):
        assert name in source
    trace = vz.trace_reverse(loss, [X, W])
    loss.backward()
    (w_step,) = [s for s in trace.steps if s.node is vz.adapters.adopt(W)]
    np.testing.assert_allclose(w_step.adjoint, W.grad.numpy())  # the student's own backward
    np.testing.assert_allclose(w_step.adjoint.ravel(), [5.25, -1.75])
    assert trace.check() == []  # ReLU's kink at 0 is no failure
    assert vz.step(loss, [W]).failures == {}


def test_a_wrong_needle_rule_is_a_red_step():
    nd = load(
        "needlish",
        "nd_red",
        ("grad_a = matmul(out_grad, transpose(b))  # MATMUL-A", "grad_a = matmul(out_grad, b)"),
        mode="importlib",
    )
    rng = np.random.default_rng(0)
    a, b = nd.Tensor(rng.normal(size=(3, 3))), nd.Tensor(rng.normal(size=(3, 3)))
    y = nd.summation((a @ b) ** 2)
    (failure,) = vz.step(y, [a, b]).failures.values()
    assert "the vjp of op 'MatMul' disagrees with central differences" in failure
    report = vz.diagnose(y, [a, b])
    assert list(report.step().failures.values()) == [failure]  # the report's own stepper
