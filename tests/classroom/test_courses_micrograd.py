"""vizad.classroom.courses.micrograd against micrograd's own expectations: its test file's two
graphs (values and gradients that micrograd checks against PyTorch), the lecture's example and
manual backpropagation, nn, and the drawing that replaces draw_dot. ``import micrograd.engine``
resolves to the compat module here, as in micrograd's own tests."""

from __future__ import annotations

import math
import random
import sys

import pytest

import vizad as vz
import vizad.classroom.courses.micrograd as compat

TOL = 1e-6


@pytest.fixture(autouse=True)
def micrograd_shim(monkeypatch):
    """``import micrograd``, ``micrograd.engine`` and ``micrograd.nn`` give the compat modules."""
    monkeypatch.setitem(sys.modules, "micrograd", compat)
    monkeypatch.setitem(sys.modules, "micrograd.engine", compat.engine)
    monkeypatch.setitem(sys.modules, "micrograd.nn", compat.nn)


def test_sanity_check():
    from micrograd.engine import Value

    x = Value(-4.0)
    z = 2 * x + 2 + x
    q = z.relu() + z * x
    h = (z * z).relu()
    y = h + q + q * x
    y.backward()
    # what PyTorch gives for the same function (micrograd's test compares with it)
    assert abs(y.data - -20.0) < TOL
    assert abs(x.grad - 46.0) < TOL


def test_more_ops():
    from micrograd.engine import Value

    def run(a0, b0, backward=True):
        a, b = Value(a0), Value(b0)
        c = a + b
        d = a * b + b**3
        c += c + 1
        c += 1 + c + (-a)
        d += d * 2 + (b + a).relu()
        d += 3 * d + (b - a).relu()
        e = c - d
        f = e**2
        g = f / 2.0
        g += 10.0 / f
        if backward:
            g.backward()
        return a, b, g

    a, b, g = run(-4.0, 2.0)
    assert abs(g.data - 24.70408163265306) < TOL
    assert abs(a.grad - 138.83381924198252) < TOL
    assert abs(b.grad - 645.5772594752186) < TOL
    h = 1e-6  # and against central differences
    assert a.grad == pytest.approx((run(-4 + h, 2, 0)[2].data - run(-4 - h, 2, 0)[2].data) / 2 / h)
    assert b.grad == pytest.approx((run(-4, 2 + h, 0)[2].data - run(-4, 2 - h, 0)[2].data) / 2 / h)


def lecture():
    from micrograd.engine import Value

    a = Value(2.0, label="a")
    b = Value(-3.0, label="b")
    c = Value(10.0, label="c")
    e = a * b
    e.label = "e"
    d = e + c
    d.label = "d"
    f = Value(-2.0, label="f")
    L = d * f
    L.label = "L"
    return a, b, c, e, d, f, L


def test_the_lecture_example_and_its_fields():
    a, b, c, e, d, f, L = lecture()
    assert L.data == -8.0 and L._op == "*" and L._prev == {d, f}
    assert a._op == "" and a._prev == set() and a.grad == 0.0
    assert repr(e) == "Value(data=-6.0, grad=0.0)" and str(e) == repr(e)
    assert (a**2)._op == "**2" and a.tanh()._op == "tanh" and a.relu()._op == "ReLU"
    L.backward()
    assert [v.grad for v in (a, b, c, e, d, f, L)] == [6.0, -4.0, -2.0, -2.0, -2.0, 4.0, 1.0]


def test_manual_backpropagation_node_by_node():
    a, b, c, e, d, f, L = lecture()
    L.grad = 1.0
    for node in (L, d, e, c, f, a, b):  # the lecture's order; leaves do nothing
        node._backward()
    assert [v.grad for v in (a, b, c, e, d, f)] == [6.0, -4.0, -2.0, -2.0, -2.0, 4.0]


def test_the_lecture_neuron_tanh_two_ways():
    from micrograd.engine import Value

    def neuron(expanded):
        x1, x2 = Value(2.0, label="x1"), Value(0.0, label="x2")
        w1, w2 = Value(-3.0, label="w1"), Value(1.0, label="w2")
        b = Value(6.8813735870195432, label="b")
        n = x1 * w1 + x2 * w2 + b
        if expanded:
            e = (2 * n).exp()
            o = (e - 1) / (e + 1)
        else:
            o = n.tanh()
        o.backward()
        return o, x1, w1, x2, w2

    for expanded in (False, True):
        o, x1, w1, x2, w2 = neuron(expanded)
        assert o.data == pytest.approx(math.sqrt(0.5), abs=1e-6)
        assert (x1.grad, w1.grad, x2.grad, w2.grad) == pytest.approx((-1.5, 1.0, 0.5, 0.0))


def test_gradients_accumulate_over_backward_calls():
    from micrograd.engine import Value

    a = Value(3.0)
    b = a + a  # a read twice: both partials are added
    b.backward()
    assert a.grad == 2.0
    b.backward()
    assert a.grad == 4.0  # as micrograd: grads add up until zero_grad


def test_nn_as_micrograd():
    from micrograd import nn
    from micrograd.engine import Value

    random.seed(1337)
    model = nn.MLP(2, [16, 16, 1])
    assert len(model.parameters()) == 2 * 16 + 16 + 16 * 16 + 16 + 16 + 1
    assert str(model.layers[0].neurons[0]) == "ReLUNeuron(2)"
    assert str(model.layers[-1].neurons[0]) == "LinearNeuron(16)"
    assert repr(model).startswith("MLP of [Layer of [ReLUNeuron(2), ")
    xs = [[random.uniform(-1, 1), random.uniform(-1, 1)] for _ in range(16)]
    ys = [1 if x0 * x1 > 0 else -1 for x0, x1 in xs]

    def loss():
        scores = [model(x) for x in xs]
        losses = [(1 + -y * s).relu() for y, s in zip(ys, scores)]
        return sum(losses, Value(0)) * (1.0 / len(losses))

    before = loss()
    model.zero_grad()
    assert all(p.grad == 0 for p in model.parameters())
    before.backward()
    # a finite-difference check of one weight's gradient
    w = model.layers[1].neurons[3].w[5]
    w0, h = w.data, 1e-6
    w.data = w0 + h
    up = loss().data
    w.data = w0 - h
    down = loss().data
    w.data = w0
    assert w.grad == pytest.approx((up - down) / (2 * h), rel=1e-5, abs=1e-9)
    for p in model.parameters():
        p.data -= 0.05 * p.grad
    assert loss().data < before.data


def test_draw_and_step_replace_draw_dot():
    a, b, c, e, d, f, L = lecture()
    source = vz.draw(L).source  # values and adjoints on the graph that ran
    bar = "\u0304"  # v̄: a letter and a combining macron
    for text in ("<B>a</B>", "<B>e</B>", "= a × b", "= -6", f"e{bar} = -2", f"a{bar} = 6"):
        assert text in source, text
    assert a.grad == 0.0  # drawing does not touch the grads
    stepper = vz.step(L)
    assert [s.label for s in stepper.trace.steps][:3] == ["L", "d", "e"]


def test_what_is_refused():
    from micrograd.engine import Value

    a = Value(2.0)
    with pytest.raises(vz.errors.NodeTypeError, match="only supporting int/float powers"):
        a ** Value(2.0)
    with pytest.raises(vz.errors.GraphError, match="vizad records the graph itself"):
        Value(1.0, (a,), "+")
    with pytest.raises(vz.errors.NodeTypeError, match="data must be a number"):
        Value("x")


def test_same_numbers_as_micrograd_itself_on_random_expressions():
    """Random expressions over micrograd 0.1.0's operators, run by micrograd itself and by
    the compat Value: the same data and the same grads of every leaf."""
    import importlib

    sys.modules.pop("micrograd", None)
    sys.modules.pop("micrograd.engine", None)
    real = importlib.import_module("micrograd.engine").Value
    from vizad.classroom.courses.micrograd.engine import Value as Compat

    assert real is not Compat and "site-packages" in sys.modules["micrograd.engine"].__file__
    rng = random.Random(7)
    for case in range(40):
        ops = [rng.randrange(8) for _ in range(12)]
        consts = [rng.choice([-2.0, -0.5, 0.5, 1.5, 3.0]) for _ in range(12)]
        picks = [(rng.randrange(100), rng.randrange(100)) for _ in range(12)]
        starts = [rng.uniform(-2, 2) for _ in range(3)]

        def run(Value):
            leaves = [Value(s) for s in starts]
            pool = list(leaves)
            for op, c, (i, j) in zip(ops, consts, picks):
                a, b = pool[i % len(pool)], pool[j % len(pool)]
                pool.append(
                    [
                        lambda: a + b,
                        lambda: a * b,
                        lambda: a - b,
                        lambda: a * c + b,
                        lambda: c - a,
                        lambda: a.relu() + b,
                        lambda: (a * a + 1) ** -1 * b,
                        lambda: c / (b * b + 1) - a,
                    ][op]()
                )
            out = sum(pool[-4:], Value(0.0))
            out.backward()
            return out.data, [x.grad for x in leaves]

        data, grads = run(real)
        compat_data, compat_grads = run(Compat)
        assert compat_data == pytest.approx(data, rel=1e-12, abs=1e-12), case
        assert compat_grads == pytest.approx(grads, rel=1e-9, abs=1e-12), case
