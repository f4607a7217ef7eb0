"""vz.compare: two reverse traces of one function matched node for node, with where their
adjoints differ and by how much."""

import numpy as np
import pytest

import vizad as vz
from vizad.errors import ArgumentTypeError
from vizad.extend import ElementwiseOp


def _lecture(square=None):
    x1, x2 = vz.Variable("x1"), vz.Variable("x2")
    first = square(x1) if square is not None else x1 * x1
    y = vz.log(x1) + first * x2 - vz.sin(x2)
    return vz.trace_reverse(y, [x1, x2], {x1: 2.0, x2: 5.0})


class HalfSquare(ElementwiseOp):
    """x², whose stated partial derivative forgets the factor 2."""

    def compute(self, x):
        return x * x

    def partials(self, node):
        return [node.inputs[0]]


def test_two_traces_of_one_function_agree_node_for_node():
    comparison = vz.compare(_lecture(), _lecture())
    assert comparison.ok and len(comparison.matches) == 8
    assert comparison.only_a == [] and comparison.only_b == []
    assert comparison.names == ("vizad (a)", "vizad (b)")
    assert "every matched adjoint agrees" in comparison.summary()


def test_a_wrong_rule_is_found_where_the_adjoints_first_differ():
    comparison = vz.compare(_lecture(), _lecture(HalfSquare()), labels=("right", "wrong"))
    assert not comparison.ok
    (differs,) = comparison.differ  # x1 alone: the square's partial adjoint is halved
    assert differs.a.name == "x1" and differs.difference == pytest.approx(10.0)
    assert differs.via is not None and differs.via.op.name == "mul"  # x1 * x1 in "right"
    assert "most at v₁ (by 10, through the partial adjoint from v₃ (mul))" in comparison.summary()
    source = comparison.draw().source
    assert "Δ = 10 vs v₁ of wrong, via v₃" in source and "#c0392b" in source  # the red box
    assert comparison.draw("adjoint").source.count("Δ = ") == 1


def test_the_table_escapes_names():
    x = vz.Variable("x")
    y = vz.sin(x, name="<b>s</b>") * x  # a named node goes by its name
    trace = vz.trace_reverse(y, [x], {x: 1.0})
    html = vz.compare(trace, trace)._repr_html_()
    assert "&lt;b&gt;s&lt;/b&gt; (sin)" in html and "<b>s" not in html


def test_only_reverse_traces_are_compared():
    with pytest.raises(ArgumentTypeError, match="reverse trace"):
        vz.compare(_lecture(), vz.Variable("x"))


def test_pytorchs_backward_against_vizads_of_the_imported_function():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(4, 3), torch.nn.Tanh(), torch.nn.Linear(3, 2)
    ).double()
    x = torch.randn(5, 4, dtype=torch.float64)
    labels = torch.tensor([0, 1, 0, 1, 1])
    theirs = vz.torch_backward(torch.nn.functional.cross_entropy(model(x), labels), model)

    def loss(x, labels):
        return torch.nn.functional.cross_entropy(model(x), labels)

    imported = vz.from_torch(loss, x, labels)
    ours = vz.trace_reverse(imported.output, imported.inputs, imported.feed)
    comparison = vz.compare(theirs, ours)
    assert comparison.names == ("PyTorch", "vizad")
    assert comparison.ok, comparison.summary()
    ops = {(m.a.op.name, m.b.op.name) for m in comparison.matches}
    assert ("addmm", "add") in ops and ("tanh", "tanh") in ops  # addmm = add of a matmul
    assert "PyTorch vs vizad" in comparison._repr_html_()


def test_pytorch_and_jax_differ_at_the_kink_of_abs():
    torch = pytest.importorskip("torch")
    jnp = pytest.importorskip("jax.numpy")
    x = torch.tensor([0.0, 1.0], dtype=torch.float64, requires_grad=True)
    theirs = vz.torch_backward((torch.abs(x) * 3.0).sum(), {"x": x})
    jaxs = vz.jax_backward(lambda x: jnp.sum(jnp.abs(x) * 3.0), np.array([0.0, 1.0]))
    comparison = vz.compare(theirs, jaxs)
    (differs,) = comparison.differ
    assert differs.a.name == "x" and differs.via.op.name == "abs"
    np.testing.assert_array_equal(differs.adjoint_a, [0.0, 3.0])  # PyTorch: abs'(0) = 0
    np.testing.assert_array_equal(differs.adjoint_b, [3.0, 3.0])  # JAX: abs'(0) = 1


def test_tuple_adjoints_are_compared_element_by_element():
    from vizad.view.comparison import _difference
    from vizad.engine.tree import Unrecorded

    missing = Unrecorded("no gradient", (2,))
    same = _difference((np.ones(2), missing), (np.ones(2), missing), 1e-6, 1e-9)
    assert same == (0.0, True)  # not "differs by nan" with a largest difference of 0
    d, agree = _difference((np.ones(2), np.zeros(2)), (np.ones(2), np.full(2, 0.5)), 1e-6, 1e-9)
    assert d == 0.5 and not agree
    assert np.isnan(_difference((np.ones(2),), np.ones(2), 1e-6, 1e-9)[0])


def test_a_boolean_node_is_never_matched_to_a_float_one():
    jnp = pytest.importorskip("jax.numpy")

    def f(x):
        mask = x > 0
        return jnp.sum(jnp.where(mask, x * 2.0, -x) * (x * 3.0))

    x = np.array([1.0, -2.0, 3.0])
    imported = vz.from_jax(f, x)
    ours = vz.trace_reverse(imported.output, imported.inputs, imported.feed)
    comparison = vz.compare(vz.jax_backward(f, x), ours, labels=("JAX", "vizad"))
    assert comparison.ok, comparison.summary()
    for m in comparison.matches:
        kinds = {
            np.asarray(t.values[n]).dtype.kind == "b"
            for t, n in ((comparison.a, m.a), (comparison.b, m.b))
            if n in t.values and not isinstance(t.values[n], tuple)
        }
        assert len(kinds) <= 1, (m.a.op.name, m.b.op.name)


def test_nan_matches_nan_and_float32_roundoff_agrees():
    """No false alarm (issue 47): NaN against NaN and the same infinity are the same number,
    float32 adjoints that differ by float32's round-off agree; NaN against a number, and
    float64 adjoints that far apart, still differ."""
    from vizad.view.comparison import _difference

    nan, inf = float("nan"), float("inf")
    assert _difference(np.array([nan, 1.0, -inf]), np.array([nan, 1.0, -inf]), 1e-6, 1e-9) == (
        0.0,
        True,
    )
    d, agree = _difference(np.array([nan, 1.0]), np.array([0.5, 1.0]), 1e-6, 1e-9)
    assert np.isnan(d) and not agree
    assert _difference(np.array([inf]), np.array([-inf]), 1e-6, 1e-9)[1] is False
    a32 = np.array([1.0, 0.01], dtype=np.float32)
    b32 = a32 + np.array([0.0, 1e-7], dtype=np.float32)
    d, agree = _difference(a32, b32, 1e-6, 1e-9)
    assert 0 < d < 2e-7 and agree  # 1e-7 at 0.01: 1e-5 relative, float32's round-off
    d, agree = _difference(a32.astype(np.float64), b32.astype(np.float64), 1e-6, 1e-9)
    assert not agree  # float64 has no such round-off
    # a whole comparison: ln of a negative number in both traces is NaN in both
    x1, x2 = vz.Variable("x1"), vz.Variable("x2")
    y = vz.log(x1) * x2
    with np.errstate(invalid="ignore"):  # numpy's warning of ln(-1)
        trace = vz.trace_reverse(y, [x1, x2], {x1: -1.0, x2: 3.0})
    assert np.isnan(trace.adjoint(x2))
    assert vz.compare(trace, trace).ok, vz.compare(trace, trace).summary()
