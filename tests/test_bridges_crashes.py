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
checkpoint = pytest.importorskip("torch.utils.checkpoint").checkpoint

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
    # JAX's 32-bit mode for float32 whatever the global setting (tests/differential.py sets
    # x64 on): the dropout's uniform draws are float64 in x64, so the mask follows the mode
    with jax.enable_x64(dtype == np.float64):
        key = KEYS[kind]()
        w, x = _jax_example(dtype)
        fn, rest, options = _ways(key)[way]
        imported = vz.from_jax(fn, w, x, *rest, **options)  # EvaluationError at random_wrap before
        want = jax.grad(dropout_loss, argnums=(0, 1))(w, x, key)
    assert [n.name for n in imported.inputs] == ["w", "x"]  # the key is no input
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
    with jax.enable_x64(dtype == np.float64):  # the mode's own draws, as above
        key = KEYS[kind]()
        w, x = _jax_example(dtype)
        fn, rest, options = _ways(key)[way]
        trace = vz.jax_backward(fn, w, x, *rest, **options)  # TypeError 'key<fry>' before
        want = jax.grad(dropout_loss, argnums=(0, 1))(w, x, key)
    assert [s.node.op.name for s in trace.steps if s.node.op].count("select_n") == 1  # stepped
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


def test_a_key_made_from_a_floating_input_is_refused_at_import_with_the_users_line():
    def made_inside(w):
        noise = jax.random.normal(jax.random.key(jnp.sum(w).astype(int)), w.shape)  # named
        return jnp.sum(w * noise)

    with pytest.raises(BridgeError) as caught:
        vz.from_jax(made_inside, np.ones(3))
    assert "random_seed" in str(caught.value) and _line(-5) in str(caught.value)


def test_a_seed_argument_in_a_jitted_function_is_held_with_its_key():
    def made_inside(w, seed):
        return jnp.sum(w * jax.random.normal(jax.random.key(seed), w.shape))

    w = np.linspace(-1, 1, 3)
    imported = vz.from_jax(jax.jit(made_inside), w, 4)
    assert [n.name for n in imported.inputs] == ["w"]
    with jax.enable_x64(True):
        np.testing.assert_allclose(_gradients(imported)[0], jax.grad(made_inside)(w, 4))


def rnn_with_dropout(w, xs, key):
    def step(h, given):
        x, k = given
        h = jnp.tanh(h @ w + x)
        return jnp.where(jax.random.bernoulli(k, 0.7, h.shape), h / 0.7, 0.0), h

    h, _ = jax.lax.scan(step, jnp.zeros(3, w.dtype), (xs, jax.random.split(key, len(xs))))
    return jnp.sum(h**2)


@jax.jit
def _dropped(h, key):
    return jnp.where(jax.random.bernoulli(key, 0.7, h.shape), h / 0.7, 0.0)


def jitted_dropout(w, xs, key):
    return jnp.sum(_dropped(jnp.tanh(xs @ w), key) ** 2)


@pytest.mark.parametrize("fn", [rnn_with_dropout, jitted_dropout], ids=["scan", "jit"])
@pytest.mark.parametrize("dtype, tol", JAX_DTYPES, ids=["float64", "float32"])
def test_keys_used_in_a_scan_or_a_nested_jit_are_run_inline(fn, dtype, tol):
    rng = np.random.default_rng(0)
    w, xs = rng.normal(size=(3, 3)).astype(dtype), rng.normal(size=(4, 3)).astype(dtype)
    with jax.enable_x64(dtype == np.float64):  # the mode's own draws, as above
        key = jax.random.key(5)
        want = jax.grad(fn, argnums=(0, 1))(w, xs, key)
        imported = vz.from_jax(fn, w, xs, key)  # refused: a key in a loop or a nested jit
        trace = vz.jax_backward(fn, w, xs, key)
    for g, wnt in zip(_gradients(imported), want):
        np.testing.assert_allclose(g, wnt, rtol=tol, atol=tol)
    for g, wnt in zip(trace.grads, want):
        np.testing.assert_allclose(g, wnt, rtol=tol, atol=tol)


# -- from_torch: EmbeddingBag, autocast, checkpoints, generators ---------------------------
def _torch_grads(fn, module, *args):
    """PyTorch's gradients of sum(fn(*args)): the module's parameters, then the float args."""
    module.zero_grad()
    given = [a.clone().requires_grad_() if a.is_floating_point() else a for a in args]
    fn(*given).sum().backward()
    return [p.grad.numpy() for p in module.parameters()] + [
        a.grad.numpy() for a in given if a.is_floating_point()
    ]


def _assert_close(got, want, tol):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("dtype, tol", TORCH_DTYPES, ids=["float64", "float32"])
def test_embedding_bag_differentiates_as_pytorch(mode, dtype, tol):
    torch.manual_seed(0)
    bag = torch.nn.EmbeddingBag(10, 3, mode=mode).to(dtype)
    indices, offsets = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([0, 4])
    imported = vz.from_torch(bag, indices, offsets)  # its vjp failed on Long before
    _assert_close(_gradients(imported), _torch_grads(bag, bag, indices, offsets), tol)


def test_embedding_bag_with_per_sample_weights_differentiates_both():
    torch.manual_seed(0)
    bag = torch.nn.EmbeddingBag(10, 3, mode="sum").double()
    indices, offsets = torch.tensor([1, 2, 4, 5, 4, 3]), torch.tensor([0, 2])
    weights = torch.rand(6, dtype=torch.float64)

    def f(weights):
        return bag(indices, offsets, per_sample_weights=weights)

    imported = vz.from_torch(f, weights)
    assert [n.name for n in imported.inputs] == ["weights", "bag.weight"]  # (closed over)
    _assert_close(_gradients(imported), _torch_grads(f, bag, weights)[::-1], 1e-10)


def test_bfloat16_autocast_is_refused_at_import_with_the_op_and_the_users_line():
    lin = torch.nn.Linear(4, 3)

    def f(x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return lin(x).sum()  # the line named

    with pytest.raises(BridgeError) as caught:  # an EvaluationError at _to_copy, later, before
        vz.from_torch(f, torch.randn(2, 4))
    message = str(caught.value)
    assert "_to_copy" in message and "bfloat16" in message and _line(-5) in message


def test_float16_autocast_is_imported_as_pytorch_runs_it():
    torch.manual_seed(0)
    lin = torch.nn.Linear(4, 3)

    def f(x):
        with torch.autocast("cpu", dtype=torch.float16):
            return torch.tanh(lin(x)).float()

    x = torch.randn(2, 4)
    imported = vz.from_torch(f, x)
    want = _torch_grads(f, lin, x)
    _assert_close(_gradients(imported), want[2:] + want[:2], 1e-6)  # x first, then lin's


@pytest.mark.parametrize("reentrant", [True, False], ids=["reentrant", "non-reentrant"])
@pytest.mark.parametrize("dtype, tol", TORCH_DTYPES, ids=["float64", "float32"])
def test_a_checkpointed_block_differentiates_its_parameters_and_input(reentrant, dtype, tol):
    torch.manual_seed(0)

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.block = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Tanh())
            self.head = torch.nn.Linear(4, 1)

        def forward(self, x):
            h = checkpoint(self.block, x, use_reentrant=reentrant)
            return self.head(h)

    net = Net().to(dtype)
    x = torch.randn(3, 4, dtype=dtype)
    imported = vz.from_torch(net, x)  # reentrant: its vjp refused torch.autograd.grad before
    assert [n.name for n in imported.inputs][:2] == ["block.0.weight", "block.0.bias"]
    _assert_close(_gradients(imported), _torch_grads(net, net, x), tol)


@pytest.mark.parametrize("dtype, tol", TORCH_DTYPES, ids=["float64", "float32"])
def test_a_generator_inside_the_function_draws_what_the_users_call_draws(dtype, tol):
    generator = torch.Generator().manual_seed(3)
    before = generator.get_state().clone()
    lin = torch.nn.Linear(3, 2).to(dtype)

    def noisy(x):
        noise = torch.randn(x.shape, generator=generator, dtype=x.dtype)
        return lin(x + noise)

    x = torch.randn(4, 3, dtype=dtype)
    imported = vz.from_torch(noisy, x)  # GraphError about an object array before
    assert torch.equal(generator.get_state(), before)  # the generator's state as it was
    want = _torch_grads(noisy, lin, x)  # (draws from the same state)
    _assert_close(_gradients(imported), [want[2], *want[:2]], tol)
    generator.set_state(before)
    np.testing.assert_allclose(
        vz.evaluate(imported.output, imported.feed), noisy(x).detach().numpy(), rtol=tol
    )


# -- torch_backward(inputs=...) with inputs the loss does not use -------------------------
def _encoder():
    torch.manual_seed(0)
    enc, dec, other = (torch.nn.Linear(3, n).double() for n in (3, 1, 2))
    x = torch.randn(4, 3, dtype=torch.float64)
    return enc, dec, other, x, lambda: dec(torch.tanh(enc(x))).sum()


@pytest.mark.parametrize(
    "given", ["module", "named_parameters", "tuple", "function"], ids=lambda g: g
)
def test_inputs_the_loss_does_not_use_get_none_as_in_pytorch(given):
    enc, dec, other, x, loss = _encoder()
    inputs = {
        "module": other,
        "named_parameters": other.named_parameters(),
        "tuple": (other.weight, other.bias),
        "function": other,
    }[given]
    trace = vz.torch_backward(loss if given == "function" else loss(), inputs=inputs)  # KeyError
    grads = trace.grads.values() if isinstance(trace.grads, dict) else trace.grads
    assert list(grads) == [None, None]
    assert torch.autograd.grad(loss(), [other.weight, other.bias], allow_unused=True) == (
        None,
        None,
    )
    assert other.weight.grad is None and enc.weight.grad is None  # nothing ran, as in PyTorch
    assert len(trace.steps) == 0
    vz.draw(trace)


def test_inputs_some_used_some_not_and_a_non_leaf():
    enc, dec, other, x, loss = _encoder()
    h = torch.tanh(enc(x))
    unused = other(x)  # a non-leaf the loss does not use
    trace = vz.torch_backward(dec(h).sum(), inputs=[dec.weight, other.weight, h, unused])
    want = torch.autograd.grad(
        dec(h).sum(), [dec.weight, other.weight, h, unused], allow_unused=True
    )
    assert trace.grads[1] is None and trace.grads[3] is None
    np.testing.assert_allclose(trace.grads[0], want[0].numpy(), rtol=1e-12)
    np.testing.assert_allclose(trace.grads[2], want[2].numpy(), rtol=1e-12)


# -- refusals naming the user's line -------------------------------------------------------
def test_a_packed_sequence_is_refused_naming_the_users_line_and_what_to_do():
    torch.manual_seed(0)
    rnn = torch.nn.GRU(2, 3, batch_first=True).double()

    def f(x):
        packed = torch.nn.utils.rnn.pack_padded_sequence(x, torch.tensor([3, 2]), True)
        _, h = rnn(packed)  # the line named
        return h.sum()

    with pytest.raises(BridgeError) as caught:
        vz.from_torch(f, torch.randn(2, 3, 2, dtype=torch.float64))
    message = str(caught.value)
    assert _line(-6) in message and "_local_scalar_dense" in message and "pad" in message
    assert "tracing_mode" not in message  # make_fx's advice, for make_fx's callers


def test_a_size_read_from_a_tensor_in_pytorchs_code_is_refused_naming_the_line():
    def f(x):
        k = (x > 0).sum()
        return x.flatten().topk(k)[0].sum()  # the line named

    with pytest.raises(BridgeError) as caught:
        vz.from_torch(f, torch.randn(2, 3))
    assert _line(-4) in str(caught.value)


@pytest.mark.parametrize(
    "transform, name",
    [
        (lambda f: torch.func.grad(f), "torch.func.grad"),
        (lambda f: torch.func.jacrev(f), "torch.func.vjp (jacrev, hessian)"),
        (lambda f: torch.func.hessian(f), "torch.func.jvp (jacfwd)"),
    ],
    ids=["grad", "jacrev", "hessian"],
)
def test_torch_func_inside_the_function_is_vizads_refusal_naming_the_line(transform, name):
    def f(x):
        return transform(lambda y: (y**3).sum())(x).sum()  # the line named

    x = torch.randn(3, dtype=torch.float64)
    with pytest.raises(BridgeError) as caught:  # grad and vjp: silently 78 off before
        vz.from_torch(f, x)
    message = str(caught.value)
    assert name in message and "vizad refuses it" in message and _line(-6) in message
    assert "saved tensor hooks" not in message  # (vizad's own check, blamed on PyTorch)


def test_torch_func_vjp_inside_the_function_is_refused_naming_the_line():
    def f(x):
        _, pull = torch.func.vjp(torch.sin, x)  # the line named
        return pull(torch.ones_like(x))[0].sum()

    with pytest.raises(BridgeError) as caught:  # silently 0.27 off before
        vz.from_torch(f, torch.randn(3, dtype=torch.float64))
    assert "torch.func.vjp" in str(caught.value) and _line(-5) in str(caught.value)


def test_torch_vmap_inside_the_function_is_imported():
    x = torch.randn(3, dtype=torch.float64)
    imported = vz.from_torch(lambda x: torch.vmap(torch.sin)(x).sum(), x)
    np.testing.assert_allclose(_gradients(imported)[0], np.cos(x.numpy()), rtol=1e-12)


def test_a_compiled_module_is_refused_with_orig_mod_which_imports():
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh()).double()
    compiled = torch.compile(net)
    x = torch.randn(2, 3, dtype=torch.float64)
    with pytest.raises(BridgeError, match=r"compiled\._orig_mod"):
        vz.from_torch(compiled, x)
    imported = vz.from_torch(compiled._orig_mod, x)
    assert imported.inputs[0].name == "0.weight"
    _assert_close(_gradients(imported), _torch_grads(net, net, x), 1e-10)


def test_a_compiled_function_or_a_call_of_a_compiled_module_is_refused_naming_it():
    net = torch.nn.Linear(3, 2).double()
    compiled = torch.compile(net)

    def f(x):
        return compiled(x).sum()  # the line named

    x = torch.randn(2, 3, dtype=torch.float64)
    with pytest.raises(BridgeError) as caught:
        vz.from_torch(f, x)
    assert "_orig_mod" in str(caught.value) and _line(-5) in str(caught.value)
    with pytest.raises(BridgeError, match="before compiling"):
        vz.from_torch(torch.compile(lambda x: torch.sin(x).sum()), x)


def test_an_import_keeps_its_float_mode_when_the_global_mode_changes():
    """A float32 function imported in JAX's 32-bit mode and run after x64 is turned on runs in
    32-bit mode still (it mixed float64 constants into float32 ops: lax.select failed); one
    imported with x64 on keeps JAX's float64 draws."""
    w, x = _jax_example(np.float32)
    key = jax.random.key(7)
    before = bool(jax.config.jax_enable_x64)
    try:
        for mode in (False, True):
            jax.config.update("jax_enable_x64", mode)
            imported = vz.from_jax(dropout_loss, w, x, key)
            want = jax.grad(dropout_loss, argnums=(0, 1))(w, x, key)
            jax.config.update("jax_enable_x64", not mode)
            got = _gradients(imported)
            for g, wnt in zip(got, want):
                assert g.dtype == np.float32
                np.testing.assert_allclose(g, wnt, rtol=1e-5, atol=1e-5)
    finally:
        jax.config.update("jax_enable_x64", before)
