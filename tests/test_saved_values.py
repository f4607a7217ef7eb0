"""What vizad's reverse mode keeps (trace.memory().saved) against the residuals JAX saves and
the tensors PyTorch's autograd saves (issue 49 item 3): on 13 JAX functions and 12 PyTorch
modules every value matches or its difference is named and explained; a few are pinned
exactly, and a value no rule explains is reported as such."""

from __future__ import annotations

import numpy as np
import pytest

from vizad.bridges.saved import Residual, _compared, compare_saved, saved_by_jax

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
torch = pytest.importorskip("torch")

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

# -- JAX ------------------------------------------------------------------------------------
_k = jax.random.split(jax.random.PRNGKey(0), 8)
X = jax.random.normal(_k[0], (4, 3))
W1, B1, W2 = jax.random.normal(_k[1], (3, 5)), jnp.zeros(5), jax.random.normal(_k[2], (5, 2))
WQ, WK, WV = (jax.random.normal(_k[i], (3, 3)) for i in (3, 4, 5))
WZ, UZ = jax.random.normal(_k[6], (3, 2)), jax.random.normal(_k[7], (2, 2))
H0 = jnp.full((4, 2), 0.1)


def tanh_chain(x):
    for _ in range(3):
        x = jnp.tanh(x)
    return x.sum()


def mlp(x, w1, b1, w2):
    return (jnp.tanh(x @ w1 + b1) @ w2).sum()


def relu_mlp(x, w1, b1, w2):
    return (jax.nn.relu(x @ w1 + b1) @ w2).sum()


def softmax(x):
    return jax.nn.softmax(x, -1)[:, 0].sum()


def log_softmax(x):
    return jax.nn.log_softmax(x, -1)[:, 0].sum()


def layernorm(x):
    m = x.mean(-1, keepdims=True)
    normed = (x - m) / jnp.sqrt(((x - m) ** 2).mean(-1, keepdims=True) + 1e-5)
    return (normed**2)[:, 0].sum()


def attention(x, wq, wk, wv):
    a = jax.nn.softmax((x @ wq) @ (x @ wk).T / jnp.sqrt(3.0), -1)
    return (a @ (x @ wv)).sum()


def gru(x, h, wz, uz):
    z = jax.nn.sigmoid(x @ wz + h @ uz)
    c = jnp.tanh(x @ wz - h @ uz)
    return ((1 - z) * h + z * c).sum()


def conv1d(x):
    y = jax.lax.conv_general_dilated(x[None].transpose(0, 2, 1), jnp.ones((2, 3, 2)), (1,), "VALID")
    return jnp.tanh(y).sum()


def sin_cos(x):
    return (jnp.sin(x) * jnp.cos(x)).sum()


def softplus(x):
    return jnp.log(1 + jnp.exp(x)).sum()


def checkpointed(x):
    h = jax.checkpoint(lambda h: jnp.tanh(jnp.tanh(h)))(x)
    return jnp.sin(h).sum()


def checkpointed_mlp(x, w1, b1, w2):
    h = jax.checkpoint(lambda x, w1, b1: jnp.tanh(x @ w1 + b1))(x, w1, b1)
    return (h @ w2).sum()


JAX_CASES = {
    "tanh chain": (tanh_chain, X),
    "mlp": (mlp, X, W1, B1, W2),
    "relu mlp": (relu_mlp, X, W1, B1, W2),
    "softmax": (softmax, X),
    "log_softmax": (log_softmax, X),
    "layernorm": (layernorm, X),
    "attention": (attention, X, WQ, WK, WV),
    "gru cell": (gru, X, H0, WZ, UZ),
    "conv1d": (conv1d, X),
    "sin cos": (sin_cos, X),
    "softplus": (softplus, X),
    "jax.checkpoint on a block": (checkpointed, X),
    "jax.checkpoint on an mlp's layer": (checkpointed_mlp, X, W1, B1, W2),
}


@pytest.mark.parametrize("case", list(JAX_CASES))
def test_jax_residuals_match_or_each_difference_is_explained(case):
    fn, *args = JAX_CASES[case]
    report = compare_saved(fn, *args)
    assert report.framework == "JAX"
    assert report.ok, repr(report)
    # every residual is accounted for: matched, or a difference of its own
    accounted = [r for _, r in report.matches] + [
        d.residual for d in report.differences if d.residual is not None
    ]
    assert len(accounted) == len(report.residuals)
    # and every value vizad keeps too
    kept = [n for n, _ in report.matches] + [
        d.node for d in report.differences if d.residual is None
    ]
    assert sorted(n.id for n in kept) == sorted(n.id for n in report.memory.saved)
    assert repr(report).startswith("JAX saves ")


@pytest.mark.parametrize("case", ["tanh chain", "mlp", "sin cos", "softplus", "gru cell"])
def test_our_residuals_are_print_saved_residuals_ones(case):
    from jax._src.ad_checkpoint import saved_residuals

    fn, *args = JAX_CASES[case]
    theirs = saved_residuals(fn, *args)
    ours = saved_by_jax(fn, *args)
    assert len(ours) == len(theirs)
    assert sorted(r.value.shape for r in ours) == sorted(a.shape for a, _ in theirs)
    # "output of tanh from file.py:12 (f)": the same primitives, the same number of arguments
    made = sorted(r.description for r in ours if r.description.startswith("output of"))
    assert made == sorted(d.split(" from ")[0] for _, d in theirs if d.startswith("output of"))
    arguments = [r for r in ours if r.description.startswith("the argument")]
    assert len(arguments) == sum(d.startswith("from the argument") for _, d in theirs)


def test_jax_saves_tanh_outputs_as_vizad_and_one_minus_y_besides():
    report = compare_saved(tanh_chain, X)
    label = report.trace.label
    assert [(label(n), r.description) for n, r in report.matches] == [
        ("v₂", "output of tanh"),
        ("v₃", "output of tanh"),
        ("v₄", "output of tanh"),
    ]
    texts = [d.text for d in report.differences]
    assert texts[0].startswith("JAX saves sub(1, v₂), computed in the forward pass")


def test_jax_saves_cos_where_vizad_keeps_the_input_of_sin():
    report = compare_saved(lambda x: jnp.sin(x).sum(), jnp.ones(3))
    assert report.matches == []
    first, second = report.differences
    assert first.text.startswith("JAX saves cos v₁ (∂v₂/∂v₁ = cos v₁), computed in the forward")
    assert second.text.startswith("vizad keeps v₁ (variable), read in the steps of v̄₁; JAX saves")
    assert "cos v₁ instead" in second.text


def test_a_checkpointed_block_saves_its_input_in_both():
    report = compare_saved(checkpointed, X)
    (match,) = report.matches
    assert report.trace.label(match[0]) == "v₁" and match[1].description.startswith("the arg")
    plain = compare_saved(lambda x: jnp.sin(jnp.tanh(jnp.tanh(x))).sum(), X)
    assert len(plain.matches) == 2  # without the checkpoint: both tanh values, in both


def test_vizads_own_checkpoints_are_named_as_such():
    def plain(x):
        return jnp.sin(jnp.tanh(jnp.tanh(x))).sum()

    report = compare_saved(plain, X, keep=lambda f: [f.output, f.output.inputs[0]])
    assert report.ok
    assert any(
        "a checkpoint, held until the walkthrough reaches it" in d.text for d in report.differences
    )
    assert any("computes again" in d.text for d in report.differences)


def test_a_value_nothing_explains_is_reported_unexplained():
    report = compare_saved(tanh_chain, X)
    stray = Residual(np.full((7, 7), 3.25, np.float32), "output of mystery")
    again = _compared("JAX", report.trace, report.memory, [*report.residuals, stray])
    assert not again.ok
    assert (
        "? JAX saves a value vizad never computes: JAX's output of mystery, shape (7, 7)"
        in repr(again)
    )
    html = again._repr_html_()
    assert "mystery" in html and "<script" not in html


# -- PyTorch --------------------------------------------------------------------------------
class Attention(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.q, self.k, self.v = (torch.nn.Linear(3, 3) for _ in range(3))

    def forward(self, x):
        a = torch.softmax(self.q(x) @ self.k(x).T / 3**0.5, -1)
        return (a @ self.v(x)).sum()


class TanhChain(torch.nn.Module):
    def forward(self, x):
        for _ in range(3):
            x = torch.tanh(x)
        return x.sum()


def _torch_cases():
    torch.manual_seed(0)
    return {
        "tanh chain": (TanhChain(), torch.randn(4, 3)),
        "mlp": (
            torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.Tanh(), torch.nn.Linear(5, 2)),
            torch.randn(4, 3),
        ),
        "relu mlp": (
            torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.ReLU(), torch.nn.Linear(5, 2)),
            torch.randn(4, 3),
        ),
        "sigmoid layer": (
            torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Sigmoid()),
            torch.randn(4, 3),
        ),
        "softmax": (torch.nn.Softmax(-1), torch.randn(4, 3)),
        "log_softmax": (torch.nn.LogSoftmax(-1), torch.randn(4, 3)),
        "layernorm": (torch.nn.LayerNorm(3), torch.randn(4, 3)),
        "conv1d": (torch.nn.Conv1d(2, 3, 2), torch.randn(1, 2, 5)),
        "attention": (Attention(), torch.randn(4, 3)),
        "gru cell": (torch.nn.GRUCell(3, 2), torch.randn(4, 3)),
        "rnn cell": (torch.nn.RNNCell(3, 2), torch.randn(4, 3)),
        "softplus": (torch.nn.Softplus(), torch.randn(4, 3)),
    }


TORCH_CASES = _torch_cases()


@pytest.mark.parametrize("case", list(TORCH_CASES))
def test_pytorch_saved_tensors_match_or_each_difference_is_explained(case):
    module, x = TORCH_CASES[case]
    report = compare_saved(module, x)
    assert report.framework == "PyTorch"
    assert report.ok, repr(report)
    kept = [n for n, _ in report.matches] + [
        d.node for d in report.differences if d.residual is None
    ]
    assert sorted(n.id for n in kept) == sorted(n.id for n in report.memory.saved)


def test_pytorch_keeps_what_vizad_keeps_on_a_tanh_chain_and_an_mlp():
    chain = compare_saved(*TORCH_CASES["tanh chain"])
    assert chain.differences == [] and len(chain.matches) == 3
    assert {r.description for _, r in chain.matches} == {"TanhBackward0 result"}
    mlp_report = compare_saved(*TORCH_CASES["mlp"])
    assert mlp_report.differences == []
    # the tanh's output: saved once, by two nodes (the next layer's input and tanh's result)
    assert sorted(r.description for _, r in mlp_report.matches) == [
        "AddmmBackward0 mat1",
        "AddmmBackward0 mat1, TanhBackward0 result",
        "AddmmBackward0 mat2",
        "AddmmBackward0 mat2",
    ]


def test_relu_reads_its_input_in_vizad_and_its_output_in_pytorch():
    report = compare_saved(*TORCH_CASES["relu mlp"])
    (difference,) = report.differences
    assert difference.residual is None and difference.node.op.name == "add"
    assert "vizad's rule reads it (∂v₁₀/∂v₉ = H(v₉)" in difference.text
    assert difference.text.endswith(
        "PyTorch's rule is written otherwise and reads v₁₀, which it saves"
    )
