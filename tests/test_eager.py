"""The eager front end: vz.tensor nodes compute as they are built, over the same graph."""

from __future__ import annotations

import numpy as np
import pytest

import vizad as vz
from vizad.engine.eager import EagerNode


def lecture(x1, x2):
    return vz.log(x1) + x1 * x2 - vz.sin(x2)


def test_values_at_once_and_the_same_graph_as_symbolic():
    x1, x2 = vz.tensor(2.0, name="x1"), vz.tensor(5.0, name="x2")
    y = lecture(x1, x2)
    assert isinstance(y, EagerNode)
    assert y.value == pytest.approx(np.log(2) + 10 - np.sin(5))
    s1, s2 = vz.Variable("x1"), vz.Variable("x2")
    symbolic = lecture(s1, s2)
    assert [n.op.name for n in vz.topo_sort(y)] == [n.op.name for n in vz.topo_sort(symbolic)]
    assert y.item() == pytest.approx(vz.evaluate(symbolic, {s1: 2.0, s2: 5.0}))


def test_backward_fills_grad_like_gradients():
    x1, x2 = vz.tensor(2.0, name="x1"), vz.tensor(5.0, name="x2")
    y = lecture(x1, x2)
    y.backward()
    assert x1.grad.value == pytest.approx(5.5)  # x2 + 1/x1
    assert x2.grad.value == pytest.approx(2 - np.cos(5))  # x1 − cos x2
    # the gradient is an ordinary adjoint node of the extended graph, eager too
    record = x1.grad.origin
    assert isinstance(record, vz.extend.Adjoints) and record.output is y
    assert isinstance(x1.grad, EagerNode)


def test_backward_accumulates_and_gradients_of_gradients():
    x1, x2 = vz.tensor(2.0, name="x1"), vz.tensor(5.0, name="x2")
    y = lecture(x1, x2)
    y.backward()
    g1 = x1.grad
    x1.grad = x2.grad = None
    g1.backward()  # d(x2 + 1/x1): −1/x1², 1
    assert x1.grad.value == pytest.approx(-0.25)
    assert x2.grad.value == pytest.approx(1.0)
    y.backward()
    y.backward()  # accumulates, as PyTorch does
    assert x2.grad.value == pytest.approx(1.0 + 2 * (2 - np.cos(5)))


def test_tensors_against_central_differences():
    rng = np.random.default_rng(0)
    a0, b0 = rng.normal(size=(3, 4)), rng.normal(size=(4,))

    def f(a, b):
        return vz.sum(vz.tanh(a @ vz.reshape(b, (4, 1))) * 2.0 + vz.exp(a * b) / 3.0)

    a, b = vz.tensor(a0, name="A"), vz.tensor(b0, name="b")
    f(a, b).backward()
    for leaf, x0, other in ((a, a0, b0), (b, b0, a0)):
        numeric = np.zeros_like(x0)
        for k in range(x0.size):
            step = np.zeros_like(x0)
            step.flat[k] = 1e-6
            args = [x0 + step, other] if leaf is a else [other, x0 + step]
            up = f(*(vz.tensor(v) for v in args)).item()
            args = [x0 - step, other] if leaf is a else [other, x0 - step]
            down = f(*(vz.tensor(v) for v in args)).item()
            numeric.flat[k] = (up - down) / 2e-6
        np.testing.assert_allclose(leaf.grad.value, numeric, rtol=1e-6, atol=1e-8)


def test_traces_draw_and_step_without_a_feed():
    x1, x2 = vz.tensor(2.0, name="x1"), vz.tensor(5.0, name="x2")
    y = lecture(x1, x2)
    trace = vz.trace_reverse(y)
    assert trace.wrt == (x1, x2)
    s1, s2 = vz.Variable("x1"), vz.Variable("x2")
    symbolic = vz.trace_reverse(lecture(s1, s2), [s1, s2], {s1: 2.0, s2: 5.0})
    assert [float(trace.result(s)) for s in trace.steps] == pytest.approx(
        [float(symbolic.result(s)) for s in symbolic.steps]
    )
    # leaves and named nodes go by their names (x₁, x̄₁→v₄); others are numbered
    assert "x̄₁→v₃ = 0.5" in str(trace) and "v̄₁→₃ = 0.5" in str(symbolic)
    forward = vz.trace_forward(y, tangents={x1: 1.0})
    assert forward.tangent(y) == pytest.approx(5.5)
    assert "x̄₂ = 1.716" in vz.draw(trace, "backprop").source
    stepper = vz.step(y)
    assert len(stepper.trace.steps) == 7


def test_stored_values_are_reused_not_recomputed():
    calls = []

    class Counted(vz.Op):
        name = "counted"
        arity = 1

        def compute(self, x):
            calls.append(1)
            return x * 2.0

        def vjp(self, node, adjoint):
            return [adjoint * 2.0]

    counted = Counted()
    x = vz.tensor(3.0, name="x")
    y = vz.sin(counted(x))
    assert len(calls) == 1
    vz.trace_reverse(y)
    vz.evaluate(y)
    y.backward()
    assert len(calls) == 1
    assert x.grad.value == pytest.approx(2 * np.cos(6.0))


def test_python_control_flow_records_what_ran():
    x = vz.tensor(0.5, name="x")
    y = x
    for _ in range(3):
        y = vz.sin(y) if y.item() > 0 else vz.cos(y)
    assert [n.op.name for n in vz.topo_sort(y)] == ["variable", "sin", "sin", "sin"]


def test_mixed_with_symbolic_nodes():
    w = vz.tensor(3.0, name="w")
    x = vz.Variable("x")
    y = w * x + vz.sin(w)
    assert type(y) is vz.extend.Node  # a symbolic node: x has no value
    assert vz.evaluate(y, {x: 2.0}) == pytest.approx(6 + np.sin(3))
    gw, gx = vz.evaluate(vz.gradients(y, [w, x]), {x: 2.0})
    assert gw == pytest.approx(2 + np.cos(3)) and gx == pytest.approx(3)


def test_constants_and_dtypes():
    c = vz.tensor(np.array([1, 2, 3], dtype=np.float32), requires_grad=False)
    assert c.op is vz.extend.CONSTANT and not c.requires_grad
    x = vz.tensor(np.ones(3, dtype=np.float32), name="x")
    y = vz.sum(x * c * 2.0)
    assert y.value.dtype == np.float32
    y.backward()
    assert x.grad.value.dtype == np.float32
    np.testing.assert_array_equal(x.grad.value, [2, 4, 6])
    assert vz.tensor(1, dtype=float).dtype == np.float64


@pytest.mark.parametrize(
    "value, kwargs, message",
    [
        (2, {}, "only floating-point values can require gradients, got dtype int64"),
        ("a", {}, "expected a number or numeric array"),
        ([[1.0], [2.0, 3.0]], {}, "cannot make a numeric array"),
        (1.0, {"name": 5}, "name must be a str"),
        (1.0, {"dtype": "no-such-type"}, "cannot convert the value to dtype"),
    ],
)
def test_bad_leaves(value, kwargs, message):
    with pytest.raises(vz.VizadError, match=message):
        vz.tensor(value, **kwargs)


def test_errors_name_the_node_op_and_shapes():
    a, b = vz.tensor(np.ones((2, 3)), name="a"), vz.tensor(np.ones((4, 5)), name="b")
    with pytest.raises(vz.errors.ShapeError, match=r"matmul\(a, b\).*\(2, 3\).*\(4, 5\)"):
        a @ b
    x = vz.tensor(np.ones(3), requires_grad=False)
    with pytest.raises(vz.errors.GraphError, match="does not depend on any leaf"):
        vz.sum(x).backward()
    with pytest.raises(vz.errors.NodeTypeError, match="one-element"):
        vz.tensor(np.ones(3)).item()


def test_named_nodes_keep_their_number_in_the_stepper_tooltip():
    from vizad.view.widget.data import walkthrough_data

    a, b = vz.tensor(2.0, name="a"), vz.tensor(-3.0, name="b")
    y = vz.sin(vz.ops.mul(a, b, name="e"))
    tips = walkthrough_data(vz.trace_reverse(y))["frames"]["forward"]["tips"]
    assert tips["v3"]["head"] == "e\n= a × b\n(v₃)"
    assert tips["v4"]["head"] == "v₄\n= sin e"  # unnamed: its number is its name


def test_the_title_names_at_most_six_inputs():
    xs = [vz.tensor(float(k)) for k in range(9)]
    y = xs[0]
    for x in xs[1:]:
        y = y * x + 1.0
    title = repr(vz.trace_reverse(y)).splitlines()[0]
    assert title.endswith("w.r.t. v₁, v₂, v₃, v₄, v₅, v₆ and 3 more: 25 steps"), title


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_relu_and_its_step_of_a_scalar_are_numpys(dtype):
    # float scalars take a short path past numpy's ufuncs: it must give numpy's results
    values = [-1.0, -0.0, 0.0, 2.5, np.nan, -np.nan, np.inf, -np.inf, 1e-45, -1e-300, 6e4]
    for v in values:
        x = dtype(v)
        got, expected = vz.relu.compute(x), np.maximum(x, 0)
        assert type(got) is type(expected) and np.array_equal(got, expected, equal_nan=True)
        if expected != 0:
            assert np.signbit(got) == np.signbit(expected), (v, got, expected)
        got, expected = vz.ops.heaviside.compute(x), np.greater(x, 0).astype(dtype)
        assert type(got) is type(expected) and got == expected and not np.signbit(got)
    # and an eager chain over scalars gives the values and gradients of arrays
    a, b = vz.tensor(np.float32(-0.75)), vz.tensor(np.float32(1.5))
    y = vz.relu(a * b + 2.0) * vz.relu(b - 3.0 * a)
    y.backward()
    x1, x2 = np.float32(-0.75), np.float32(1.5)
    assert y.value == np.maximum(x1 * x2 + 2.0, 0) * np.maximum(x2 - 3.0 * x1, 0)
    assert a.grad.value.dtype == np.float32
    assert a.grad.value == pytest.approx(1.5 * 3.75 + 0.875 * -3.0)


@pytest.mark.parametrize("shape", [(), (2, 2), (3,), (5, 4)])
@pytest.mark.parametrize("output_alive", [True, False])
def test_a_gradient_prints_its_numbers_while_its_output_lives_and_after(shape, output_alive):
    """``print(x.grad)`` raised KeyError('value') while the differentiated output was still
    referenced (its adjoint node can then be built: ``str`` read the constant's value from the
    adjoint node's attributes); once the output was collected it printed. It prints the
    gradient's numbers either way, without building the adjoint node."""
    import gc

    values = np.arange(1.0, 1.0 + np.prod(shape, dtype=int)).reshape(shape)
    x = vz.tensor(values, requires_grad=True)
    y = vz.sum(x * x)
    y.backward()
    if not output_alive:
        del y
        gc.collect()
    expected = np.array2string(2 * x.value, precision=4, threshold=6, edgeitems=2, separator=", ")
    assert str(x.grad) == expected.replace("\n", "")
    assert repr(x.grad) == f"<gradient = {str(x.grad)}>"
    assert f"{x.grad}" == str(x.grad)
    if output_alive:  # used as a node, it is still the adjoint node (built now)
        assert x.grad.op.name == "add_n" and str(x.grad.node()).startswith("add_n(mul(")
