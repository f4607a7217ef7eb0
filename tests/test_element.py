"""trace.element(node, index): the walkthrough of one element of an adjoint (issue 48).

For every op whose adjoint rule it follows, at random shapes (size-1 and broadcast axes
too): the element's value is ``trace.adjoint(node)[index]`` bit for bit; its terms are the
numbers an independent element-by-element computation gives (as a multiset, compared
exactly); added in order they give the value bit for bit (numpy's sums: one after the other
or pairwise), but for a matmul, whose BLAS adds with fused multiply-adds (there within
round-off, and the walkthrough says so); and the engine's own ops run again on the terms
alone give the value bit for bit (``replayed``, what check() checks)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import vizad as vz
from vizad.errors import ElementIndexError, StepNotFoundError


def bits(x) -> bytes:
    x = np.asarray(x)
    return x.dtype.str.encode() + x.tobytes()


def same_multiset(got, want) -> bool:
    """Exactly the same numbers, each as many times (order aside)."""
    return sorted(map(bits, got)) == sorted(map(bits, want))


def mlp(rng, n=5, d=3, h=4):
    """A 2-layer MLP: Z = X W₁ + b₁, H = tanh Z, loss = mean((H W₂ + b₂)²)."""
    X = vz.Variable("X", shape=(n, d))
    W1, b1 = vz.Variable("W1", shape=(d, h)), vz.Variable("b1", shape=(h,))
    W2, b2 = vz.Variable("W2", shape=(h, 2)), vz.Variable("b2", shape=(2,))
    Z = vz.matmul(X, W1) + b1
    H = vz.tanh(Z)
    out = vz.matmul(H, W2) + b2
    loss = vz.mean(out * out)
    feed = {
        X: rng.standard_normal((n, d)),
        W1: rng.standard_normal((d, h)),
        b1: rng.standard_normal(h),
        W2: rng.standard_normal((h, 2)),
        b2: rng.standard_normal(2),
    }
    trace = vz.trace_reverse(loss, [X, W1, b1, W2, b2], feed)
    return trace, dict(X=X, W1=W1, b1=b1, W2=W2, b2=b2, Z=Z, H=H, out=out, loss=loss)


def assert_exact(element, trace, node, index):
    """The value is the adjoint's element; the replay is the value; the terms in order are
    the value (but for a matmul's BLAS: within round-off)."""
    assert bits(element.value) == bits(np.asarray(trace.adjoint(node))[index])
    assert bits(element.replayed) == bits(element.value), element.summary()
    assert element.check() == []
    if any(p.how == "products" for p in element.parts):
        scale = sum(abs(float(t.value)) for t in element.terms) or 1.0
        tol = 4 * len(element.terms) * np.finfo(np.asarray(element.value).dtype).eps * scale
        assert abs(float(element.in_order) - float(element.value)) <= tol
    else:
        assert bits(element.in_order) == bits(element.value), element.summary()
        assert element.exact_in_order


# -- phase 1: the MLP's b̄, X̄, W̄ ---------------------------------------------------------
def test_b_bar_of_a_2_layer_mlp_is_the_sum_over_the_batch():
    trace, v = mlp(np.random.default_rng(0))
    Zbar = np.asarray(trace.adjoint(v["Z"]))
    for j in range(4):
        element = trace.element(v["b1"], j)
        assert_exact(element, trace, v["b1"], (j,))
        z = trace.label(v["Z"])
        assert [t.label for t in element.terms] == [f"{z[0]}̄{z[1:]}[{i}, {j}]" for i in range(5)]
        assert same_multiset([t.value for t in element.terms], list(Zbar[:, j]))
        # in the order listed: one after the other over the batch, bit for bit
        total = Zbar[0, j]
        for i in range(1, 5):
            total = total + Zbar[i, j]
        assert bits(total) == bits(element.value)
        assert [t.opens for t in element.terms] == [(v["Z"], (i, j)) for i in range(5)]
        assert {t.consumer for t in element.terms} == {v["Z"]}
        assert element.parts[0].how == "sum"


def test_x_bar_of_a_matmul_is_a_row_of_z_bar_times_a_row_of_w():
    trace, v = mlp(np.random.default_rng(1))
    Zbar, W1 = np.asarray(trace.adjoint(v["Z"])), trace.values[v["W1"]]
    for i, j in itertools.product(range(5), range(3)):
        element = trace.element(v["X"], (i, j))
        assert_exact(element, trace, v["X"], (i, j))
        want = [Zbar[i, k] * W1[j, k] for k in range(4)]
        assert same_multiset([t.value for t in element.terms], want)
        assert [t.value for t in element.terms] == want  # k in order
        # the consumer is the matmul XW₁ (its adjoint: Z̄ passed on by the add)
        xw = v["Z"].inputs[0]
        m, w = trace.label(xw), trace.label(v["W1"])
        assert element.terms[2].label == f"{m[0]}̄{m[1:]}[{i}, 2] · {w}[{j}, 2]"
        assert element.terms[2].reads == ((trace.record.adjoint(xw), (i, 2)), (v["W1"], (j, 2)))
        assert element.terms[2].opens == (xw, (i, 2))
        assert element.parts[0].how == "products"


def test_w_bar_of_a_matmul_reads_a_column_of_x_and_of_z_bar():
    trace, v = mlp(np.random.default_rng(2))
    Zbar, X = np.asarray(trace.adjoint(v["Z"])), trace.values[v["X"]]
    for j, k in itertools.product(range(3), range(4)):
        element = trace.element(v["W1"], (j, k))
        assert_exact(element, trace, v["W1"], (j, k))
        assert same_multiset(
            [t.value for t in element.terms], [X[i, j] * Zbar[i, k] for i in range(5)]
        )


def test_terms_open_down_to_the_seed():
    trace, v = mlp(np.random.default_rng(3))
    element = trace.element(v["b1"], 2)
    seen = [element.name.text]
    while not element.is_seed:
        term = element.terms[0]
        assert term.opens is not None
        deeper = term.open()
        node, index = term.opens
        assert bits(deeper.value) == bits(np.asarray(trace.adjoint(node))[index])
        element = deeper
        seen.append(element.name.text)
        assert len(seen) < 20
    assert element.node is trace.output and element.terms == () and float(element.value) == 1.0
    assert element.exactness() == "the seed: ∂y/∂y"
    # b̄₁ → Z̄ → H̄ → out̄ → (out·out)̄ → the mean's output: the seed
    assert len(seen) >= 5


def test_a_node_used_twice_sums_its_partial_adjoints_in_the_engines_order():
    x = vz.Variable("x", shape=(3,))
    y = vz.sum(x * x + vz.sin(x) * 2.0)
    trace = vz.trace_reverse(y, [x], {x: np.array([0.5, -1.0, 2.0])})
    for i in range(3):
        element = trace.element(x, i)
        assert_exact(element, trace, x, (i,))
        assert len(element.parts) == 3  # x·x twice (both operands), sin once
        assert len(element.terms) == 3
        assert sorted(element.add_order) == [0, 1, 2]


def test_the_walkthrough_steps_and_exports_like_any_other(tmp_path):
    trace, v = mlp(np.random.default_rng(4))
    element = trace.element(v["b1"], 1)
    stepper = vz.step(element)
    assert stepper.n_steps == 5
    stepper.step = 5
    assert stepper.current.term is element.terms[-1]
    assert bits(stepper.current.adjoint) == bits(element.value)
    panel = stepper.data["steps"][4]["panel"]
    assert stepper.data["contributionsHead"] == ["term", "consumer vⱼ", "value", "sum so far"]
    assert len(panel["rows"]) == 5
    assert panel["head"].startswith("Step 5 of 5: ")
    assert "bit for bit" in panel["note"]
    first = stepper.data["steps"][0]["panel"]
    assert len(first["rows"]) == 1 and "so far" in first["sum"]
    from vizad.view.widget.page import page_data

    page = page_data(vz.export_html(element, tmp_path / "element.html").read_text("utf-8"))
    assert page["contributionsHead"] == ["term", "consumer vⱼ", "value", "sum so far"]
    assert [s["label"] for s in page["steps"]] == [s.label for s in element.steps]
    assert page["steps"][4]["panel"] == panel
    quiz = vz.step(element, quiz=True)
    prompts = [q.prompt for asked in quiz.questions for q in asked]
    assert prompts[-1] == element.name.text


def test_tables_and_derivation_list_the_terms():
    trace, v = mlp(np.random.default_rng(5))
    element = trace.element(v["X"], (0, 0))
    header, rows = element.table()
    assert header == ["step", "term", "consumer vⱼ", "value", "sum so far"]
    assert [r[1] for r in rows] == [t.label for t in element.terms]
    lines = element.derivation().lines
    assert len(lines) == 4 and lines[-1].count(r"\cdot") == 4
    assert element.line_text().startswith(element.name.text + " = ")
    assert element.to_latex().startswith(r"\begin{tabular}")


@pytest.mark.parametrize(
    "index, words",
    [((5, 0), "of shape (4,)"), ((1, 1), "of shape (4,)"), (4, "of shape (4,)"),
     (1.0, "an int or a tuple of ints"), ("0", "an int or a tuple of ints"),
     (True, "an int or a tuple of ints")],
)  # fmt: skip
def test_a_bad_index_names_the_node_the_shape_and_the_index(index, words):
    trace, v = mlp(np.random.default_rng(6))
    with pytest.raises(ElementIndexError) as error:
        trace.element(v["b1"], index)
    message = str(error.value)
    assert words in message and trace.label(v["b1"]) in message
    assert repr(index)[:10] in message


def test_negative_indices_count_from_the_end_as_in_numpy():
    trace, v = mlp(np.random.default_rng(7))
    element = trace.element(v["X"], (-1, -2))
    assert element.element_index == (4, 1)
    assert bits(element.value) == bits(trace.adjoint(v["X"])[-1, -2])


def test_a_node_without_a_step_is_refused():
    trace, v = mlp(np.random.default_rng(8))
    with pytest.raises(StepNotFoundError):
        trace.element(vz.Variable("other", shape=(2,)), 0)
