"""trace.check() on correct imported code reports nothing: a multi-output op's unused outputs
take no cotangent (layer norm's mean and rstd), stop-gradient ops are skipped with the reason,
a NaN or infinite input computed from constants (logsumexp's -inf) is held fixed."""

import numpy as np
import pytest

import vizad as vz


def test_layer_norm_unused_outputs_take_no_cotangent():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    norm = torch.nn.LayerNorm(4).double()
    imported = vz.from_torch(lambda x: (norm(x) ** 3).sum(), torch.randn(3, 4, dtype=torch.float64))
    trace = vz.trace_reverse(imported.output, imported.inputs, imported.feed)
    assert any(n.op.name.startswith("native_layer_norm") for n in trace.graph)
    assert trace.check() == []


def test_stop_gradient_is_skipped_with_the_reason_and_minus_inf_is_held_fixed():
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")

    def f(x, w):
        logits = x @ w
        return jnp.sum(jax.nn.logsumexp(logits, axis=-1)) + jnp.sum(jax.nn.softmax(logits))

    rng = np.random.default_rng(0)
    imported = vz.from_jax(f, rng.standard_normal((2, 3)), rng.standard_normal((3, 4)))
    trace = vz.trace_reverse(imported.output, imported.inputs, imported.feed)
    assert trace.check() == []
    skipped = trace.not_checked()
    assert skipped and all(s.op == "stop_gradient" for s in skipped)
    assert "passes no gradient by definition" in str(skipped[0])
    # a NaN that comes from a differentiated input is not checked, and said so (no failure)
    bad = vz.from_jax(lambda x: jnp.sum(jnp.log(x)), np.array([1.0, -1.0]))
    with np.errstate(all="ignore"):
        nan = vz.trace_reverse(bad.output, bad.inputs, bad.feed)
        assert nan.check() == []
    skipped = [s for s in nan.not_checked() if "non-finite values" in s.reason]
    assert any("produced here" in s.reason for s in skipped)


# -- issue 47 item 4: correct code is quiet, a planted wrong rule is still caught ------------


def _trace(imported):
    return vz.trace_reverse(imported.output, imported.inputs, imported.feed)


def _quiet(trace):
    """No failure, and nothing left unchecked but what cannot be: stop-gradient ops and
    complex values."""
    assert trace.check() == []
    return [s for s in trace.not_checked() if "stop-gradient" not in s.reason]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("how", ["masked_fill", "sdpa", "multihead", "padding"])
def test_minus_inf_attention_masks_in_pytorch_are_checked_and_pass(dtype, how):
    """Before: the softmax and the masking steps were "not checked: non-finite values"; the
    infinite entries are now held, the finite ones moved, and the whole step checked."""
    torch = pytest.importorskip("torch")
    functional = pytest.importorskip("torch.nn.functional")
    torch.manual_seed(0)
    dt = getattr(torch, dtype)
    x = torch.randn(4, 8, dtype=dt)
    if how == "masked_fill":

        def f(x, w):
            s = (x @ w) @ x.T
            mask = torch.triu(torch.ones(4, 4, dtype=torch.bool), 1)
            return (torch.softmax(s.masked_fill(mask, float("-inf")), -1) @ x).sum()

        imported = vz.from_torch(f, x, torch.randn(8, 8, dtype=dt) * 0.3)
    elif how == "sdpa":
        q = x.reshape(1, 2, 4, 4)

        def f(q, k, v):
            return functional.scaled_dot_product_attention(q, k, v, is_causal=True).pow(2).sum()

        imported = vz.from_torch(f, q, q + 0.1, q - 0.2)
    elif how == "padding":
        pad = torch.tensor([[False, False, False, True], [False, False, True, True]])

        def f(x, w):
            s = (x @ w) @ x.transpose(1, 2)
            s = s.masked_fill(pad[:, None, :], float("-inf"))
            return (torch.softmax(s, -1) @ x).pow(2).sum()

        imported = vz.from_torch(f, x.reshape(2, 4, 4), torch.randn(4, 4, dtype=dt) * 0.3)
    else:
        attention = torch.nn.MultiheadAttention(8, 2, batch_first=True).to(dt)
        mask = torch.triu(torch.full((4, 4), float("-inf"), dtype=dt), 1)
        imported = vz.from_torch(
            lambda x: attention(x, x, x, attn_mask=mask)[0].pow(2).sum(), x[None]
        )
    trace = _trace(imported)
    assert any(np.isneginf(np.asarray(v)).any() for v in trace.values.values()
               if isinstance(v, np.ndarray))  # fmt: skip
    assert _quiet(trace) == []


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_minus_inf_mask_in_jax_is_checked_and_passes(dtype):
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")

    def f(x, w):
        s = (x @ w) @ x.T
        s = jnp.where(jnp.tril(jnp.ones((4, 4), bool)), s, -jnp.inf)
        return jnp.sum(jax.nn.softmax(s, axis=-1) @ x)

    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((4, 6)).astype(dtype), rng.standard_normal((6, 6)).astype(dtype)
    assert _quiet(_trace(vz.from_jax(f, x, 0.3 * w))) == []
    with jax.enable_x64(True):  # a float32 function while 64-bit mode is on (another test's)
        assert _quiet(_trace(vz.from_jax(f, x, 0.3 * w))) == []


class _Softmax(vz.Op):
    """A softmax whose vjp is planted wrong: ``wrong`` "finite" forgets the sum term;
    "at inf" gives the cotangent itself at the masked entries, where the right rule gives
    0."""

    name = "planted_softmax"

    def __init__(self, wrong):
        self.wrong = wrong

    def compute(self, s):
        e = np.exp(s - np.max(s, axis=-1, keepdims=True))
        return e / np.sum(e, axis=-1, keepdims=True)

    def vjp(self, node, adjoint):
        return [_SoftmaxVJP(self.wrong)(node.inputs[0], adjoint)]


class _SoftmaxVJP(vz.Op):
    name = "planted_softmax_vjp"

    def __init__(self, wrong):
        self.wrong = wrong

    def compute(self, s, g):
        y = _Softmax(None).compute(s)
        if self.wrong == "finite":
            return y * g
        right = y * (g - np.sum(y * g, axis=-1, keepdims=True))
        return np.where(np.abs(s) > 1e300, g, right) if self.wrong == "at inf" else right


@pytest.mark.parametrize("wrong", [None, "finite", "at inf"])
@pytest.mark.parametrize("sentinel", [-np.inf, np.finfo(np.float64).min], ids=["-inf", "finfo"])
def test_a_wrong_softmax_rule_at_a_minus_inf_mask_is_still_caught(wrong, sentinel):
    """And at a mask of the float type's lowest number (Hugging Face's finfo(dtype).min),
    held as -inf is: before, its add was "off" (vjp -3.2e307, central differences NaN)."""
    x = vz.Variable("x", shape=(3, 3))
    masked = x + vz.constant(np.triu(np.full((3, 3), sentinel), 1))
    y = vz.sum(_Softmax(wrong)(masked) * vz.constant(np.arange(9.0).reshape(3, 3)))
    feed = {x: np.random.default_rng(1).standard_normal((3, 3))}
    trace = vz.trace_reverse(y, [x], feed)
    failures = trace.check()
    assert [s for s in trace.not_checked()] == []
    if wrong is None:
        assert failures == []
    else:
        (failure,) = failures
        assert failure.op == "planted_softmax" and failure.rule == "vjp"
        if wrong == "at inf":
            said = "is -inf" if np.isinf(sentinel) else "is -1.79769"
            assert said in failure.message and "flat" in failure.message


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_symmetric_and_triangular_inputs_of_pytorch_linear_algebra_are_moved_within(dtype):
    """Before: cholesky, eigh, cholesky_solve off by 0.1-0.38 (gradcheck passes them)."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    dt = getattr(torch, dtype)
    a = torch.randn(4, 4, dtype=dt)
    s = a @ a.T + 4 * torch.eye(4, dtype=dt)
    b = torch.randn(4, 2, dtype=dt)
    for f, args in [
        (lambda s: torch.linalg.cholesky(s).pow(2).sum(), (s,)),
        (
            lambda s: (torch.linalg.eigh(s)[0] ** 2).sum() + torch.linalg.eigh(s)[1].abs().sum(),
            (s,),
        ),
        (lambda l, b: torch.cholesky_solve(b, l).pow(2).sum(), (torch.linalg.cholesky(s), b)),
    ]:
        assert _quiet(_trace(vz.from_torch(f, *args))) == []


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_jax_cholesky_eigh_and_custom_linear_solve_pass(dtype):
    """Before: off by 0.05-1.2; float32 also 'central differences 0'."""
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 4))
    s, b = (a @ a.T + 4 * np.eye(4)).astype(dtype), rng.standard_normal(4).astype(dtype)

    def solve(s, b):
        x = jax.lax.custom_linear_solve(
            lambda v: s @ v, b, lambda _, r: jnp.linalg.solve(s, r), symmetric=True
        )
        return jnp.sum(x**2)

    for f, args in [
        (lambda s: jnp.sum(jnp.linalg.cholesky(s) ** 2), (s,)),
        (lambda s: jnp.sum(jnp.linalg.eigh(s)[0] ** 2), (s,)),
        (solve, (s, b)),
    ]:
        assert _quiet(_trace(vz.from_jax(f, *args))) == []


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_jax_inv_custom_linear_solve_over_lu_factors_is_not_checked_alone(dtype):
    """Before: 'the vjp of op 'custom_linear_solve' disagrees with central differences by
    0.174': its solve (LU factors) and its matvec (the matrix) are different nodes, which no
    move of the op's inputs alone keeps consistent."""
    pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    a = np.random.default_rng(0).standard_normal((4, 4))
    s = (a @ a.T + 4 * np.eye(4)).astype(dtype)
    trace = _trace(vz.from_jax(lambda s: jnp.sum(jnp.linalg.inv(s) ** 2), s))
    (skip,) = _quiet(trace)
    assert skip.op == "custom_linear_solve"
    assert "its vjp and jvp: they hold only while the solve it is given inverts" in skip.reason


class _Cholesky(vz.Op):
    """A cholesky (its name puts it among the ops that read a symmetric matrix) whose vjp is
    PyTorch's times ``factor``."""

    name = "cholesky"

    def __init__(self, factor):
        self.factor = factor

    def compute(self, s):
        return np.linalg.cholesky(s)

    def vjp(self, node, adjoint):
        return [_CholeskyVJP(self.factor)(node.inputs[0], adjoint)]


class _CholeskyVJP(vz.Op):
    name = "cholesky_vjp"

    def __init__(self, factor):
        self.factor = factor

    def compute(self, s, g):
        import torch

        t = torch.tensor(s, requires_grad=True)
        (grad,) = torch.autograd.grad(torch.linalg.cholesky(t), t, torch.tensor(g))
        return self.factor * grad.numpy()


@pytest.mark.parametrize("factor", [1.0, 1.02])
def test_a_wrong_rule_of_an_op_on_a_symmetric_matrix_is_still_caught(factor):
    pytest.importorskip("torch")
    x = vz.Variable("x", shape=(3, 3))
    a = np.random.default_rng(2).standard_normal((3, 3))
    y = vz.sum(_Cholesky(factor)(x) * vz.constant(np.arange(9.0).reshape(3, 3)))
    trace = vz.trace_reverse(y, [x], {x: a @ a.T + 3 * np.eye(3)})
    failures = trace.check()
    assert [f.op for f in failures] == ([] if factor == 1.0 else ["cholesky"])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_complex_intermediates_are_not_checked_with_the_reason(dtype):
    """Before: abs of a complex 'raised ArgumentError', fft's vjp 'raised EvaluationError'."""
    torch = pytest.importorskip("torch")
    signal = torch.randn(16, dtype=getattr(torch, dtype))
    for f in (
        lambda s: torch.fft.fft(s).abs().sum(),
        lambda s: torch.fft.rfft(s).angle().pow(2).sum(),
        lambda s: torch.view_as_complex(s.reshape(8, 2)).abs().sum(),
    ):
        trace = _trace(vz.from_torch(f, signal))
        skipped = _quiet(trace)
        assert len(skipped) == 2
        assert all("complex values" in s.reason and "complex" in s.reason for s in skipped)
        assert any("input v" in s.reason for s in skipped)


def test_jax_fft_is_not_checked_with_the_reason():
    pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    trace = _trace(vz.from_jax(lambda s: jnp.sum(jnp.abs(jnp.fft.fft(s))), np.arange(4.0)))
    skipped = _quiet(trace)
    assert {s.op for s in skipped} == {"abs", "fft", "convert_element_type"}


def test_a_missing_forward_rule_is_not_checked_not_a_failure():
    """Before: 'the jvp of op 'grid_sampler_2d' it raised EvaluationError'."""
    torch = pytest.importorskip("torch")
    functional = pytest.importorskip("torch.nn.functional")
    torch.manual_seed(0)
    image = torch.randn(1, 1, 5, 5, dtype=torch.float64)
    grid = torch.rand(1, 3, 3, 2, dtype=torch.float64) * 1.6 - 0.8
    trace = _trace(
        vz.from_torch(
            lambda i, g: functional.grid_sample(i, g, align_corners=False).pow(2).sum(), image, grid
        )
    )
    assert trace.check() == []
    (skip,) = trace.not_checked()
    assert skip.op == "grid_sampler_2d"
    assert "its jvp: the framework has no such rule" in skip.reason
    assert "forward AD" in skip.reason and "node #" not in skip.reason


@pytest.mark.parametrize("scale", [1000.0])
def test_float32_jax_abs_and_max_are_judged_at_float32s_precision(scale):
    """Before: 'the jvp of op 'abs' disagrees with central differences by 4.95 (… central
    differences 0)': steps below float32's resolution gave differences of 0."""
    pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    x = (scale * np.random.default_rng(1).standard_normal(40)).astype(np.float32)
    for f in (lambda x: jnp.sum(jnp.abs(x) * x), lambda x: jnp.max(x) * jnp.sum(x)):
        assert _trace(vz.from_jax(f, x)).check() == []


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_jax_dot_product_attention_internal_float32_passes(dtype):
    """Before: float64: max(-inf, ·) 'raised … lax.max requires arguments to have the same
    dtypes, got float32, float64'; float32: dot_general off by 4.59."""
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    q = np.random.default_rng(0).standard_normal((1, 4, 2, 4)).astype(dtype)

    def f(q, k, v):
        return jnp.sum(jax.nn.dot_product_attention(q, k, v, is_causal=True) ** 2)

    assert _quiet(_trace(vz.from_jax(f, q, q + 0.1, q - 0.2))) == []


class _Float32Square(vz.Op):
    """x² computed in float32, its vjp off by 1%."""

    name = "square32"

    def compute(self, x):
        return np.asarray(x, np.float32) ** 2

    def vjp(self, node, adjoint):
        return [adjoint * node.inputs[0] * 2.02]


def test_a_float32_rule_one_percent_off_is_still_caught():
    x = vz.Variable("x", shape=(5,))
    trace = vz.trace_reverse(
        vz.sum(_Float32Square()(x)), [x], {x: np.linspace(1, 300, 5, dtype=np.float32)}
    )
    assert [f.op for f in trace.check()] == ["square32"]


def _cancelling(adjoint):
    """x read by three consumers whose partial adjoints 0.1 + 0.2 - 0.3 cancel; the engine
    summed them to ``adjoint``."""
    from vizad.trace.recorded import RecordedNode, Recording

    x = np.array(1.0)
    nodes = (
        RecordedNode(op=None, name="x", value=x, adjoint=np.array(adjoint)),
        RecordedNode(
            op="triple",
            inputs=((0, 0), (0, 0), (0, 0)),
            value=np.array(0.0),
            adjoint=np.array(1.0),
            partials=(np.array(0.1), np.array(0.2), np.array(-0.3)),
            backward="TripleBack",
        ),
    )
    return Recording("Engine", nodes, (1, 0), output=1, seed=np.array(1.0))


@pytest.mark.parametrize("adjoint", [0.0, 1e-3])
def test_a_cancelling_sum_is_judged_against_its_terms(adjoint):
    """Before: 0.1 + 0.2 - 0.3 summed to 0 was 'off by 5.55e-17' (judged against |0|); a sum
    that is really off (1e-3) is still a failure."""
    from vizad.trace.recorded import recorded_trace

    failures = recorded_trace(_cancelling(adjoint)).check()
    assert [f.rule for f in failures] == ([] if adjoint == 0.0 else ["sum"])


def test_a_hooked_tensor_is_named_not_failed():
    """Before: 'step 5, v₂: PyTorch summed the partial adjoints to …, but … (off by 2.27)',
    a failure naming no hook. A hook on an intermediate tensor and one on a leaf are named
    with their lines; without a hook, a changed sum is still a failure."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    x = torch.randn(3, dtype=torch.float64, requires_grad=True)
    h = x * 2

    def halve(g):
        return g * 0.5

    h.register_hook(halve)
    x.register_hook(lambda g: g * 3)
    trace = vz.torch_backward((h.sin() + h**2).sum() + (x * x).sum())
    assert trace.check() == []
    inner, leaf = sorted(trace.not_checked(), key=lambda s: s.node.op.name)
    assert (inner.op, leaf.op) == ("mul", "variable")
    assert f"a hook on the tensor {inner.label}, halve (test_check_false_alarms.py:" in inner.reason
    assert "before the backward of mul" in inner.reason
    assert f"the tensor {leaf.label}, <lambda> (test_check_false_alarms.py:" in leaf.reason
    assert "before it reached .grad" in leaf.reason
    # the same pass with the recorded sum tampered, no hook: a failure
    from vizad.trace.recorded import recorded_trace

    assert recorded_trace(_cancelling(0.5)).check()[0].rule == "sum"


def _compared(torch, f, *args, form):
    imported = vz.from_torch(f, *args)
    ours = _trace(imported)
    tensors = [a.clone().requires_grad_(True) for a in args]
    if form == "loss":
        theirs = vz.torch_backward(f(*tensors))
    else:
        theirs = vz.torch_backward(lambda: f(*tensors))
    return vz.compare(theirs, ours)


@pytest.mark.parametrize("form", ["loss", "function"])
def test_compare_pairs_masked_fill_and_in_place_code_by_structure(form):
    """Before (given the loss tensor): masked_fill paired with vizad's power and pow with its
    where ('differs by 4'); in-place code: copy_slices of h[1] = … paired with the
    broadcast_to of the row written ('differs by 20.4')."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    x, w = torch.randn(3, 4, dtype=torch.float64), torch.randn(4, 3, dtype=torch.float64)

    def masked(x, w):
        s = x @ w
        mask = torch.triu(torch.ones(3, 3, dtype=torch.bool), 1)
        return (s.masked_fill(mask, 0.0) * 5).sum() + s.pow(2).sum()

    def in_place(x, w):
        h = x @ w
        h.mul_(2)
        h.add_(x[:, :3])
        h[1] = h[1] * 3
        h.sub_(h.mean())
        return (h * h).sum()

    for f, pair in (
        (masked, ("masked_fill", "where.self")),
        (in_place, ("copy_slices", "where.self")),
    ):
        comparison = _compared(torch, f, x, w, form=form)
        assert comparison.ok and comparison.differ == []
        assert (pair[0], pair[1]) in {(m.a.op.name, m.b.op.name) for m in comparison.matches}


def test_compare_still_finds_a_wrong_gradient_after_a_masked_fill():
    """A wrong rule (vizad's where passing 2× its adjoint) is still found, at its place."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    x, w = torch.randn(3, 4, dtype=torch.float64), torch.randn(4, 3, dtype=torch.float64)

    def masked(x, w):
        s = x @ w
        mask = torch.triu(torch.ones(3, 3, dtype=torch.bool), 1)
        return (s.masked_fill(mask, 0.0) * 5).sum() + s.pow(2).sum()

    tensors = [t.clone().requires_grad_(True) for t in (x, w)]
    loss = masked(*tensors)
    theirs = vz.torch_backward(loss)
    other = [t.clone().requires_grad_(True) for t in (x, w)]

    def wrong(x, w):  # the same function with the masked entries' factor 5 → 7
        s = x @ w
        mask = torch.triu(torch.ones(3, 3, dtype=torch.bool), 1)
        return (s.masked_fill(mask, 0.0) * 7).sum() + s.pow(2).sum()

    comparison = vz.compare(theirs, _trace(vz.from_torch(wrong, *other)))
    assert not comparison.ok
    assert "power" not in {m.b.op.name for m in comparison.differ}


@pytest.mark.parametrize("form", ["loss", "function"])
def test_compare_tells_two_same_valued_unsqueezes_apart(form):
    """Before: the two x.unsqueeze(0) were paired crosswise ('differs by 17.3', and pow with
    a matmul after them); they are told apart by their lines, or, given the loss tensor
    (no lines, no values), by the ops that read them."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)

    def f(x, w):
        a = x.unsqueeze(0)
        b = x.unsqueeze(0)
        return (((b @ w).tanh() @ w).sin()).sum() + (a * 2).pow(2).sum()

    x, w = torch.randn(3, dtype=torch.float64), torch.randn(3, 3, dtype=torch.float64)
    comparison = _compared(torch, f, x, w, form=form)
    assert comparison.ok and comparison.differ == []
    assert sum(m.a.op.name == "unsqueeze" for m in comparison.matches) == 2
