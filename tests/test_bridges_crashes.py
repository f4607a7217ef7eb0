"""The framework code that crashed vizad (issue 47 item 3) imports with the framework's
gradients, or is refused at import with the op and the user's line: cross-entropy with
label smoothing recorded by torch_backward, JAX random keys (dropout), EmbeddingBag, autocast,
reentrant checkpoints, a torch.Generator, torch_backward(inputs=...) with an unused input,
and the refusals of make_fx's data-dependent ops, torch.func transforms and torch.compile."""

import inspect
import os

import numpy as np
import pytest

import vizad as vz
from vizad.errors import BridgeError

HERE = os.path.basename(__file__)


def _line(offset=0):
    """``test_bridges_crashes.py:N``: the caller's line, ``offset`` lines further on."""
    return f"{HERE}:{inspect.currentframe().f_back.f_lineno + offset}"


def _gradients(imported, wrt=None):
    wrt = imported.inputs if wrt is None else wrt
    return vz.evaluate(vz.gradients(vz.sum(imported.output), wrt), imported.feed)


# -- torch_backward: cross-entropy with label smoothing ------------------------------------
torch = pytest.importorskip("torch")
F = torch.nn.functional

TORCH_DTYPES = [(torch.float64, 1e-10), (torch.float32, 1e-5)]


@pytest.mark.parametrize("dtype, tol", TORCH_DTYPES, ids=["float64", "float32"])
def test_label_smoothing_is_recorded_drawn_stepped_and_checked(dtype, tol):
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    net = net.to(dtype)
    x, y = torch.randn(5, 4, dtype=dtype), torch.tensor([0, 1, 2, 1, 0])
    loss = F.cross_entropy(net(x), y, label_smoothing=0.1)
    trace = vz.torch_backward(loss, net)
    scaled = [s for s in trace.steps if s.node.op.name == "mul"]  # MulBackward1: × 0.9, × 0.1
    assert len(scaled) == 2 and all(len(s.node.inputs) == 1 for s in scaled)
    vz.draw(trace)  # IndexError at the recorded MulBackward1 before
    assert vz.step(trace).failures == {}
    assert trace.check() == []
    net.zero_grad()
    F.cross_entropy(net(x), y, label_smoothing=0.1).backward()  # (torch_backward ran loss's)
    by_name = {w.name: w for w in trace.wrt}
    for name, p in net.named_parameters():
        np.testing.assert_allclose(trace.adjoint(by_name[name]), p.grad.numpy(), rtol=tol, atol=tol)
    imported = vz.from_torch(lambda x: F.cross_entropy(net(x), y, label_smoothing=0.1), x)
    vizads = vz.trace_reverse(imported.output, imported.inputs, imported.feed)
    comparison = vz.compare(trace, vizads)  # IndexError before; its pairing is item 4's
    agreeing = {m.a.name for m in comparison.matches if m.same}
    assert agreeing >= {n for n, _ in net.named_parameters()}


# -- JAX random keys: constants of the trace ------------------------------------------------
jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

KEYS = {"PRNGKey": lambda: jax.random.PRNGKey(7), "key": lambda: jax.random.key(7)}
JAX_DTYPES = [(np.float64, 1e-10), (np.float32, 1e-5)]


def dropout_loss(w, x, key):
    h = jnp.tanh(x @ w)
    keep = jax.random.bernoulli(key, 0.5, h.shape)
    return jnp.sum(jnp.where(keep, h / 0.5, 0.0) ** 2)


def _jax_example(dtype):
    rng = np.random.default_rng(0)
    return rng.normal(size=(3, 6)).astype(dtype), rng.normal(size=(4, 3)).astype(dtype)


def _ways(key):
    """The key passed positionally, as a static argument, and closed over."""
    return {
        "positional": (dropout_loss, (key,), {}),
        "static": (dropout_loss, (key,), {"static_argnums": 2}),
        "closed over": (lambda w, x: dropout_loss(w, x, key), (), {}),
    }


@pytest.mark.parametrize("way", ["positional", "static", "closed over"])
@pytest.mark.parametrize("kind", list(KEYS))
@pytest.mark.parametrize("dtype, tol", JAX_DTYPES, ids=["float64", "float32"])
def test_jax_dropout_is_imported_with_its_key_a_constant(kind, way, dtype, tol):
    key = KEYS[kind]()
    w, x = _jax_example(dtype)
    fn, rest, options = _ways(key)[way]
    imported = vz.from_jax(fn, w, x, *rest, **options)  # EvaluationError at random_wrap before
    assert [n.name for n in imported.inputs] == ["w", "x"]  # the key is no input
    with jax.enable_x64(dtype == np.float64):
        want = jax.grad(dropout_loss, argnums=(0, 1))(w, x, key)
    got = _gradients(imported)
    assert got[0].dtype == dtype
    h = np.tanh(x @ w)  # a real mask: some of h dropped, not all
    assert 0 < vz.evaluate(imported.output, imported.feed) < np.sum((2 * h) ** 2)
    for g, wnt in zip(got, want):
        np.testing.assert_allclose(g, wnt, rtol=tol, atol=tol)
    grads = imported.tree(got)
    assert len(grads) == (2 if way != "positional" else 3)
    if way == "positional":
        assert grads[2] is None  # the key's place: no gradient


@pytest.mark.parametrize("way", ["positional", "static", "closed over"])
@pytest.mark.parametrize("kind", list(KEYS))
@pytest.mark.parametrize("dtype, tol", JAX_DTYPES, ids=["float64", "float32"])
def test_jax_backward_steps_dropout(kind, way, dtype, tol):
    key = KEYS[kind]()
    w, x = _jax_example(dtype)
    fn, rest, options = _ways(key)[way]
    trace = vz.jax_backward(fn, w, x, *rest, **options)  # TypeError 'key<fry>' before
    assert [s.node.op.name for s in trace.steps if s.node.op].count("select_n") == 1  # stepped
    with jax.enable_x64(dtype == np.float64):
        want = jax.grad(dropout_loss, argnums=(0, 1))(w, x, key)
    for g, wnt in zip(trace.grads, want):
        np.testing.assert_allclose(g, wnt, rtol=tol, atol=tol)
    assert trace.check() == []


def test_a_key_split_and_folded_in_gives_jaxs_noise():
    def noisy(w):
        k1, k2 = jax.random.split(jax.random.fold_in(jax.random.key(3), 5))
        return jnp.sum(jnp.sin(w + jax.random.normal(k1, w.shape)) * jax.random.uniform(k2))

    w = np.linspace(-1, 1, 5)
    imported = vz.from_jax(noisy, w)
    with jax.enable_x64(True):
        np.testing.assert_allclose(_gradients(imported)[0], jax.grad(noisy)(w), rtol=1e-12)


def test_a_key_made_from_an_input_is_refused_at_import_with_the_users_line():
    def made_inside(w, seed):
        noise = jax.random.normal(jax.random.key(seed), w.shape)  # the line named
        return jnp.sum(w * noise)

    with pytest.raises(BridgeError) as caught:
        vz.from_jax(jax.jit(made_inside), np.ones(3), 4)
    assert "random" in str(caught.value) and HERE in str(caught.value)
