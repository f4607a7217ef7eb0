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
