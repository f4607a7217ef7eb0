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
import math

import numpy as np
import pytest

import vizad as vz
from vizad.engine import ops
from vizad.errors import ElementIndexError, RuleNotDefinedError, StepNotFoundError


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
    if any(t.kind == "product" for t in element.terms):
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


# -- phase 2: every op, at random shapes ----------------------------------------------------
def some_indices(shape, rng, limit=24):
    """Every index of ``shape``, or ``limit`` of them at random (the first and last too)."""
    every = list(np.ndindex(*shape))
    if len(every) <= limit:
        return every
    picked = rng.choice(len(every), size=limit - 2, replace=False)
    return [every[0], every[-1], *(every[k] for k in sorted(picked))]


def weighted_sum(y, rng):
    """Σ c ⊙ sin(y) with a random c: every adjoint entry differs (no sum of equal terms)."""
    c = vz.constant(rng.uniform(0.5, 2.0, size=y.shape))
    return vz.sum(vz.sin(y) * c)


def broadcast_pair(rng):
    """Two shapes that broadcast: size-1 axes and missing leading axes, either side."""
    ndim = int(rng.integers(1, 4))
    out = tuple(int(d) for d in rng.integers(1, 5, size=ndim))
    a = tuple(d if rng.random() < 0.6 else 1 for d in out)
    b = tuple(d if rng.random() < 0.6 else 1 for d in out)
    a = a[int(rng.integers(0, ndim)) :] if rng.random() < 0.4 else a
    return a, b, out


def sources(index, small, big):
    """The positions of a value of shape ``big`` that numpy's broadcasting reads from element
    ``index`` of a value of shape ``small`` (computed from broadcast_to of positions, not
    from vizad's rule)."""
    ids = np.broadcast_to(np.arange(math.prod(small)).reshape(small), big)
    target = np.ravel_multi_index(index, small) if small else 0
    return [m for m in np.ndindex(*big) if ids[m] == target]


def check_every_element(trace, node, rng, expected=None):
    """Every (sampled) element of v̄ of ``node``: exact; terms as ``expected(index)`` gives."""
    for index in some_indices(np.shape(trace.adjoint(node)), rng):
        element = trace.element(node, index)
        assert_exact(element, trace, node, index)
        if expected is not None:
            want = expected(index)
            assert same_multiset([t.value for t in element.terms], want), (index, element.summary())


SEEDS = range(6)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_broadcasting_binary_ops_sum_their_adjoints_to_shape(op, seed):
    rng = np.random.default_rng(seed)
    sa, sb, _ = broadcast_pair(rng)
    a, b = vz.Variable("a", shape=sa), vz.Variable("b", shape=sb)
    fa, fb = rng.uniform(0.5, 2.0, sa), rng.uniform(0.5, 2.0, sb)
    z = {"add": a + b, "sub": a - b, "mul": a * b, "div": a / b}[op]
    trace = vz.trace_reverse(weighted_sum(z, rng), [a, b], {a: fa, b: fb})
    G = np.asarray(trace.adjoint(z))
    big = G.shape
    A, B = np.broadcast_to(fa, big), np.broadcast_to(fb, big)
    local = {  # ∂z/∂a, ∂z/∂b at each element of z, as numpy computes them
        "add": (lambda m: None, lambda m: None),
        "sub": (lambda m: None, lambda m: "neg"),
        "mul": (lambda m: B[m], lambda m: A[m]),
        "div": (lambda m: np.float64(1.0) / B[m], lambda m: -(A[m] / B[m] / B[m])),
    }[op]

    def terms_of(shape, k):
        def expected(index):
            out = []
            for m in sources(index, shape, big):
                factor = local[k](m)
                out.append(G[m] if factor is None else -G[m] if factor == "neg" else G[m] * factor)
            return out

        return expected

    check_every_element(trace, a, rng, terms_of(sa, 0) if op != "div" else None)
    check_every_element(trace, b, rng, terms_of(sb, 1) if op != "div" else None)


def test_div_terms_are_the_adjoint_times_the_local_partials():
    # a / b: ā = v̄ · (1/b), b̄ = v̄ · (−(a/b)/b), summed over the broadcast rows
    rng = np.random.default_rng(11)
    a, b = vz.Variable("a", shape=(3, 2)), vz.Variable("b", shape=(2,))
    fa, fb = rng.uniform(0.5, 2.0, (3, 2)), rng.uniform(0.5, 2.0, 2)
    z = a / b
    trace = vz.trace_reverse(weighted_sum(z, rng), [a, b], {a: fa, b: fb})
    G, Z = np.asarray(trace.adjoint(z)), trace.values[z]
    for j in range(2):
        element = trace.element(b, j)
        assert_exact(element, trace, b, (j,))
        want = [G[i, j] * -(Z[i, j] / fb[j]) for i in range(3)]
        assert same_multiset([t.value for t in element.terms], want)
        element = trace.element(a, (1, j))
        assert same_multiset([t.value for t in element.terms], [G[1, j] * (1.0 / fb[j])])


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("how", ["sum", "mean"])
def test_sum_and_mean_over_axes_spread_their_adjoint_back(how, seed):
    rng = np.random.default_rng(seed)
    shape = tuple(int(d) for d in rng.integers(1, 5, size=int(rng.integers(1, 4))))
    axes = tuple(k for k in range(len(shape)) if rng.random() < 0.5) or None
    keep = bool(rng.random() < 0.5)
    x = vz.Variable("x", shape=shape)
    y = (vz.sum if how == "sum" else vz.mean)(x, axis=axes, keepdims=keep)
    trace = vz.trace_reverse(weighted_sum(y, rng), [x], {x: rng.standard_normal(shape)})
    G = np.asarray(trace.adjoint(y))
    summed = range(len(shape)) if axes is None else axes
    n = math.prod(shape[k] for k in summed)

    def expected(index):
        kept = (
            tuple(0 if k in summed else i for k, i in enumerate(index))
            if keep
            else tuple(i for k, i in enumerate(index) if k not in summed)
        )
        return [G[kept] if how == "sum" else G[kept] / np.float64(n)]

    check_every_element(trace, x, rng, expected)


@pytest.mark.parametrize("seed", SEEDS)
def test_reshape_transpose_and_broadcast_to_move_elements(seed):
    rng = np.random.default_rng(seed)
    shape = tuple(int(d) for d in rng.integers(1, 4, size=3))
    x = vz.Variable("x", shape=shape)
    perm = tuple(int(k) for k in rng.permutation(3))
    t = vz.transpose(x, perm)
    r = vz.reshape(t, (-1,))
    big = (2, *shape)
    w = vz.Variable("w", shape=(1, shape[1], 1))
    bw = ops.broadcast_to(w, big)
    y = weighted_sum(r, rng) + weighted_sum(bw, rng)
    trace = vz.trace_reverse(
        y, [x, w], {x: rng.standard_normal(shape), w: rng.standard_normal((1, shape[1], 1))}
    )
    R = np.asarray(trace.adjoint(r))
    T_shape = tuple(shape[p] for p in perm)

    def x_terms(index):  # x[i] sits at t[j] with i = j[perm]; t[j] at r[ravel(j)]
        j = tuple(index[p] for p in perm)
        return [R[np.ravel_multi_index(j, T_shape)]]

    check_every_element(trace, x, rng, x_terms)
    B = np.asarray(trace.adjoint(bw))
    check_every_element(
        trace, w, rng, lambda index: [B[m] for m in sources(index, (1, shape[1], 1), big)]
    )


def matmul_case(rng, sa, sb, ta=False, tb=False):
    A, B = vz.Variable("A", shape=sa), vz.Variable("B", shape=sb)
    fa, fb = rng.standard_normal(sa), rng.standard_normal(sb)
    C = vz.matmul(A, B, trans_a=ta, trans_b=tb)
    trace = vz.trace_reverse(weighted_sum(C, rng), [A, B], {A: fa, B: fb})
    return trace, A, B, C, fa, fb


def products(index, fa, fb, G, ta, tb, which):
    """The products Ā[index] (which=0) or B̄[index] (which=1) adds, from C = op(A) op(B)
    computed element by element: every (C element, k) whose A (B) element is ``index``."""
    opa = np.swapaxes(fa, -1, -2) if ta and fa.ndim > 1 else fa
    opb = np.swapaxes(fb, -1, -2) if tb and fb.ndim > 1 else fb
    a2 = opa[None, :] if opa.ndim == 1 else opa
    b2 = opb[:, None] if opb.ndim == 1 else opb
    batch = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
    A2, B2 = np.broadcast_to(a2, batch + a2.shape[-2:]), np.broadcast_to(b2, batch + b2.shape[-2:])
    # where each element of op(A) (op(B)) comes from in A (B), as positions
    pa = np.arange(fa.size).reshape(fa.shape)
    pb = np.arange(fb.size).reshape(fb.shape)
    pa = np.swapaxes(pa, -1, -2) if ta and fa.ndim > 1 else pa
    pb = np.swapaxes(pb, -1, -2) if tb and fb.ndim > 1 else pb
    PA = np.broadcast_to(pa[None, :] if pa.ndim == 1 else pa, A2.shape)
    PB = np.broadcast_to(pb[:, None] if pb.ndim == 1 else pb, B2.shape)
    G2 = np.asarray(G).reshape(batch + (A2.shape[-2], B2.shape[-1]))
    target = np.ravel_multi_index(index, (fa if which == 0 else fb).shape)
    out = []
    for bi in np.ndindex(*batch):
        for i in range(A2.shape[-2]):
            for j in range(B2.shape[-1]):
                for k in range(A2.shape[-1]):
                    if which == 0 and PA[bi + (i, k)] == target:
                        out.append(G2[bi + (i, j)] * B2[bi + (k, j)])
                    if which == 1 and PB[bi + (k, j)] == target:
                        out.append(A2[bi + (i, k)] * G2[bi + (i, j)])
    return out


MATMULS = [
    ((3, 4), (4, 2), False, False),
    ((4, 3), (4, 2), True, False),
    ((3, 4), (2, 4), False, True),
    ((4, 3), (2, 4), True, True),
    ((4,), (4, 3), False, False),
    ((3, 4), (4,), False, False),
    ((4,), (4,), False, False),
    ((2, 3, 4), (4, 2), False, False),
    ((3, 4), (2, 4, 1), False, False),
    ((2, 1, 3, 4), (3, 4, 2), False, False),
    ((2, 4, 3), (1, 2, 4), True, True),
    ((1, 1), (1, 1), False, False),
]


@pytest.mark.parametrize("sa, sb, ta, tb", MATMULS)
def test_matmul_both_operands_are_sums_of_products(sa, sb, ta, tb):
    rng = np.random.default_rng(len(sa) * 7 + len(sb) + 2 * ta + tb)
    trace, A, B, C, fa, fb = matmul_case(rng, sa, sb, ta, tb)
    G = trace.adjoint(C)
    check_every_element(trace, A, rng, lambda i: products(i, fa, fb, G, ta, tb, 0))
    check_every_element(trace, B, rng, lambda i: products(i, fa, fb, G, ta, tb, 1))


@pytest.mark.parametrize("name", ["exp", "sin", "cos", "tanh", "sigmoid", "relu", "log", "sqrt"])
def test_elementwise_ops_give_one_term_the_adjoint_times_the_local_partial(name):
    rng = np.random.default_rng(5)
    x = vz.Variable("x", shape=(3, 1, 2))
    y = getattr(vz, name)(x)
    trace = vz.trace_reverse(weighted_sum(y, rng), [x], {x: rng.uniform(0.2, 2.0, (3, 1, 2))})
    G = np.asarray(trace.adjoint(y))
    (c,) = trace.step_of(x).contributions
    local = np.broadcast_to(np.asarray(c.local, dtype=float), (3, 1, 2))
    check_every_element(trace, x, rng, lambda i: [G[i] * local[i]])


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_log_softmax_is_the_adjoint_minus_softmax_times_its_sum(axis):
    rng = np.random.default_rng(axis + 3)
    x = vz.Variable("x", shape=(3, 4))
    y = vz.log_softmax(x, axis=axis)
    trace = vz.trace_reverse(weighted_sum(y, rng), [x], {x: rng.standard_normal((3, 4))})
    G, Y = np.asarray(trace.adjoint(y)), trace.values[y]
    rest = -(np.exp(Y) * np.sum(G, axis=axis, keepdims=True))
    check_every_element(trace, x, rng, lambda i: [G[i], rest[i]])
    assert trace.element(x, (1, 2)).terms[1].label.startswith("-(")


def test_power_and_float32_keep_their_bits():
    rng = np.random.default_rng(9)
    x = vz.Variable("x", shape=(4, 3))
    b = vz.Variable("b", shape=(3,))
    z = ops.power(x + b, 3.0)
    fx, fb = (
        rng.standard_normal((4, 3)).astype(np.float32),
        rng.standard_normal(3).astype(np.float32),
    )
    trace = vz.trace_reverse(vz.sum(z), [x, b], {x: fx, b: fb})
    for node in (x, b):
        check_every_element(trace, node, rng)
    assert np.asarray(trace.element(b, 0).value).dtype == np.float32


def test_a_long_sum_along_the_last_axis_is_numpys_pairwise_order():
    # b of shape (M, 1) broadcast over 40 columns: numpy sums each row pairwise, in 8 running
    # sums; the terms added one after the other would differ in the last bits
    rng = np.random.default_rng(12)
    x, b = vz.Variable("x", shape=(3, 40)), vz.Variable("b", shape=(3, 1))
    y = x + b
    trace = vz.trace_reverse(
        weighted_sum(y, rng),
        [x, b],
        {x: rng.standard_normal((3, 40)), b: rng.standard_normal((3, 1))},
    )
    orders = set()
    for i in range(3):
        element = trace.element(b, (i, 0))
        assert_exact(element, trace, b, (i, 0))
        orders.add(element.parts[0].order)
    assert "numpy's pairwise order (8 running sums)" in orders


def test_a_matmuls_terms_in_order_can_differ_from_blas_and_it_says_by_how_much():
    rng = np.random.default_rng(13)
    differing = []
    for _ in range(20):
        trace, A, B, C, fa, fb = matmul_case(rng, (3, 2), (2, 3))
        for index in np.ndindex(3, 2):
            element = trace.element(A, index)
            assert_exact(element, trace, A, index)
            if not element.exact_in_order:
                differing.append(element)
    assert differing  # two products: BLAS fuses one multiply-add (a·b + round(c·d))
    words = differing[0].exactness()
    assert "fused multiply-adds" in words and repr(float(differing[0].value)) in words


# -- the course APIs --------------------------------------------------------------------------
def test_needle_ops_broadcast_summation_matmul_reshape_transpose():
    import vizad.classroom.courses.needle as ndl

    rng = np.random.default_rng(14)
    x = ndl.Tensor(rng.standard_normal((2, 3, 4)))
    w = ndl.Tensor(rng.standard_normal((4, 5)))
    b = ndl.Tensor(rng.standard_normal((1, 5)))
    xr = ndl.reshape(x, (6, 4))
    z = xr @ w + ndl.broadcast_to(b, (6, 5))
    h = ndl.transpose(ndl.exp(ndl.mul_scalar(z, 0.1)), (0, 1))
    y = ndl.summation(ndl.summation(h * h, axes=(1,)))
    trace = vz.trace_reverse(y, [x, w, b])
    for node in (x, w, b):
        check_every_element(trace, node, rng)
    # b̄[0, j] is the sum over the 6 rows of z̄
    Zbar = np.asarray(trace.adjoint(z))
    element = trace.element(b, (0, 3))
    assert same_multiset([t.value for t in element.terms], list(Zbar[:, 3]))
    # x̄[1, 2, k] is the reshaped x's [5, k], itself a row of z̄ times a row of w
    element = trace.element(x, (1, 2, 1))
    assert [t.opens for t in element.terms] == [(xr, (5, 1))]
    element = element.terms[0].open()
    assert len(element.terms) == 5 and element.parts[0].how == "products"


def test_599w_matmul_with_trans_flags():
    from vizad.classroom.courses import autodiff as ad
    from vizad.classroom.courses.foreign import adopt

    rng = np.random.default_rng(15)
    for ta, tb in itertools.product((False, True), repeat=2):
        a, b = ad.Variable("a"), ad.Variable("b")
        y = ad.matmul_op(a, b, ta, tb)
        loss = ad.mul_op(y, y)
        fa = rng.standard_normal((3, 2) if ta else (2, 3))
        fb = rng.standard_normal((4, 3) if tb else (3, 4))
        trace = vz.trace_reverse(loss, [a, b], {a: fa, b: fb})
        A, B, Y = adopt(a), adopt(b), adopt(y)
        G = trace.adjoint(Y)
        check_every_element(trace, A, rng, lambda i: products(i, fa, fb, G, ta, tb, 0))
        check_every_element(trace, B, rng, lambda i: products(i, fa, fb, G, ta, tb, 1))


# -- what has no rule ----------------------------------------------------------------------
def test_an_imported_op_without_a_rule_is_not_available_naming_node_and_op():
    torch = pytest.importorskip("torch")

    def f(w, x):
        return torch.special.erfcx(x @ w).sum()

    imported = vz.from_torch(
        f, torch.randn(3, 2, dtype=torch.float64), torch.randn(4, 3, dtype=torch.float64)
    )
    trace = vz.trace_reverse(imported.output, imported.inputs, imported.feed)
    w = imported.inputs[0]
    check_every_element(trace, w, np.random.default_rng(0))  # the matmul: vizad's own rule
    mm = trace.step_of(w).contributions[0].consumer
    with pytest.raises(RuleNotDefinedError) as error:
        trace.element(mm, (0, 0))
    message = str(error.value)
    assert "not available for op 'vjp of special_erfcx'" in message
    assert trace.names.bar(mm).text + "[0, 0]" in message and "from consumer" in message


def test_a_recorded_backward_pass_has_no_element_rules():
    torch = pytest.importorskip("torch")
    w = torch.randn(3, 2, dtype=torch.float64, requires_grad=True)
    loss = (torch.randn(4, 3, dtype=torch.float64) @ w).tanh().sum()
    trace = vz.torch_backward(loss, inputs={"w": w})
    node = trace.steps[-1].node
    with pytest.raises(RuleNotDefinedError, match="not available for op 'MmBackward0'"):
        trace.element(node, (0, 0))


def test_tuple_values_are_followed_to_where_the_tuple_was_made():
    a, b = vz.Variable("a", shape=(2,)), vz.Variable("b", shape=(2,))
    t = vz.make_tuple(a * 2.0, b)
    y = vz.sum(vz.tuple_get(t, 0) * vz.tuple_get(t, 1))
    trace = vz.trace_reverse(y, [a, b], {a: np.array([1.0, 2.0]), b: np.array([3.0, 4.0])})
    for node in (a, b):
        check_every_element(trace, node, np.random.default_rng(0))
    assert float(trace.element(b, 1).value) == 4.0
    with pytest.raises(ElementIndexError, match="tuple value"):
        trace.element(t, 0)


# -- phase 3: the tutorial's section, its quiz and its exercise ---------------------------------
def _tutorial_namespace(replace=None):
    """The tensors tutorial's code cells run in one namespace (drawings and steppers left
    out), ``replace`` applied to their sources; the skipped cells (a student's answer)
    returned as sources, to run in that namespace."""
    import nbformat
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "notebooks" / "07_tensors.ipynb"
    nb = nbformat.read(path, as_version=4)
    namespace: dict = {}
    skipped = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        source = cell.source
        for old, new in (replace or {}).items():
            source = source.replace(old, new)
        if "skip-execution" in cell.metadata.get("tags", []):
            skipped.append(source)
        elif "vz.draw(" not in source and "vz.step(" not in source:
            exec(compile(source, str(path), "exec"), namespace)
    return namespace, skipped


def _outcomes(source: str, namespace: dict) -> list:
    """Run a check cell's source in ``namespace``; what its checks gave."""
    call = "vz.exercises.Checks().run("
    exec(compile(source.replace(call, "outcomes = " + call), "cell", "exec"), namespace)
    return [o.ok for o in namespace["outcomes"]]


def test_the_tutorials_quiz_and_exercise_check_what_they_say():
    namespace, skipped = _tutorial_namespace()
    quiz = next(s for s in skipped if "b̄₁[5]" in s)
    exercise = next(s for s in skipped if "fixed = " in s)
    right = float(namespace["mlp"].element(namespace["b1"], 5).value)
    for answer, ok in ((None, False), (round(right, 4), True), (round(right, 4) + 0.5, False)):
        typed = quiz.replace("answer = None", f"answer = {answer!r}")
        assert _outcomes(typed, namespace) == [ok]
    # the exercise as given (the student's axis): its checks fail; with axis 1 they pass
    assert _outcomes(exercise, namespace) == [False, False, False]
    solved = exercise.replace("axis=0), (4, 1))]  # fix this rule", "axis=1), (4, 1))]")
    assert solved != exercise
    assert _outcomes(solved, namespace) == [True, True, True]


# -- phase 4: a click on a heatmap cell of v̄ᵢ shows its element walkthrough ---------------------
def test_the_panels_heatmap_cells_carry_their_element_walkthroughs():
    from vizad.trace.panel import ELEMENT_BUDGET, ELEMENT_TERMS, step_panel

    trace = vz.examples.mlp()
    b1 = next(w for w in trace.wrt if w.name == "b1")
    k = trace.step_of(b1).index
    panel = step_panel(trace, k)
    cells = panel["elements"]
    assert len(cells) == len(panel["total"]["heat"]["cells"]) == 16
    element = trace.element(b1, 2)
    assert cells[2]["line"] == element.line_text(trace.decimals)
    assert [label for label, _ in cells[2]["terms"]] == [t.label for t in element.terms]
    assert cells[2]["more"] == 0 and "bit for bit" in cells[2]["note"]
    assert step_panel(trace, k) == panel  # the same however often it is made
    # a matmul's element of W̄₁ (4×16): 8 products, all listed
    w1 = next(w for w in trace.wrt if w.name == "W1")
    assert len(step_panel(trace, trace.step_of(w1).index)["elements"][0]["terms"]) == 8
    # what the budget gives: one cell per element, at most ELEMENT_BUDGET in all
    given = [len(step_panel(trace, j).get("elements") or ()) for j in range(len(trace.steps))]
    assert 0 < sum(given) <= ELEMENT_BUDGET and ELEMENT_TERMS == 8


def test_cells_past_the_budget_or_without_rules_carry_none():
    from vizad.trace.panel import step_panel

    x = vz.Variable("x", shape=(12, 24))
    y = vz.sum(vz.tanh(x))
    trace = vz.trace_reverse(y, [x], {x: np.ones((12, 24))})
    assert "elements" not in step_panel(trace, trace.step_of(x).index)  # 288 cells: too many
    torch = pytest.importorskip("torch")
    w = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    recorded = vz.torch_backward((torch.randn(2, 3, dtype=torch.float64) @ w).tanh().sum())
    assert all("elements" not in step_panel(recorded, j) for j in range(len(recorded.steps)))


def test_a_step_whose_cells_have_too_many_terms_carries_none():
    # b̄ sums 600 rows for each of its 16 cells: 9,600 terms, past ELEMENT_STEP_TERMS
    from vizad.trace.panel import ELEMENT_STEP_TERMS, step_panel

    rng = np.random.default_rng(16)
    X, b = vz.Variable("X", shape=(600, 16)), vz.Variable("b", shape=(16,))
    trace = vz.trace_reverse(
        vz.sum(vz.tanh(X + b)), [b], {X: rng.standard_normal((600, 16)), b: np.zeros(16)}
    )
    assert 600 * 16 > ELEMENT_STEP_TERMS
    assert "elements" not in step_panel(trace, trace.step_of(b).index)
    assert len(trace.element(b, 3).terms) == 600  # (the walkthrough itself, asked for, has them)
