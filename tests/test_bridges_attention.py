"""Attention and padding masks as users write them, through from_torch and torch_backward:
MultiheadAttention with a key_padding_mask (bool and -inf float, batch_first or not, with and
without the weights), TransformerEncoderLayer with a padding mask and a causal mask,
scaled_dot_product_attention with bool, float and causal masks, masked mean-pooling. Each
gives PyTorch's gradients of every parameter and float input (float64 and float32), its
check() is quiet, and torch_backward records the same gradients.

Before: a bool padding mask closed over by the function (MultiheadAttention's, and the
encoder layer's src_key_padding_mask) was refused as "writes in place to a tensor that is not
one of its arguments (a BatchNorm's running statistics in train mode …?)": PyTorch turns the
bool mask into a float one with zeros_like(mask).masked_fill_(mask, -inf), and the new
tensor, made from a constant alone, was left out of functionalization, so its fill looked
like a write outside the function."""

import inspect

import numpy as np
import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

import vizad as vz  # noqa: E402
from vizad.errors import BridgeError  # noqa: E402

HERE = "test_bridges_attention.py"
TOL = {torch.float64: 1e-10, torch.float32: 2e-5}


def _padding(kind, dtype, batch=2, length=5):
    """True (or -inf) at the padded keys: the first sequence has 3 tokens, the second 4."""
    mask = torch.zeros(batch, length, dtype=torch.bool)
    mask[0, 3:] = True
    mask[1, 4:] = True
    if kind == "float":
        return torch.zeros(batch, length, dtype=dtype).masked_fill(mask, float("-inf"))
    return mask


def _randn(seed, *shape, dtype):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


def _compare(fn, args, modules, dtype):
    """from_torch(fn, *args): the gradients of every input equal PyTorch's autograd (every
    float argument by its name, every parameter of ``modules`` (closed over, by their
    variable's name) as ``name.parameter``), check() finds nothing, and torch_backward
    records PyTorch's gradients too."""
    tol = TOL[dtype]
    imported = vz.from_torch(fn, *args)

    names = list(inspect.signature(fn).parameters)
    given = [a.detach().clone().requires_grad_(a.is_floating_point()) for a in args]
    leaves = {n: t for n, t in zip(names, given) if t.is_floating_point()}
    for name, module in modules.items():
        leaves.update({f"{name}.{k}": p for k, p in module.named_parameters()})
    grads = torch.autograd.grad(fn(*given), list(leaves.values()), allow_unused=True)
    want = {
        k: np.zeros(tuple(t.shape)) if g is None else g.numpy()
        for (k, t), g in zip(leaves.items(), grads)
    }

    assert sorted(x.name for x in imported.inputs) == sorted(want)
    got = vz.evaluate(vz.gradients(imported.output, imported.inputs), imported.feed)
    for x, g in zip(imported.inputs, got):
        np.testing.assert_allclose(g, want[x.name], rtol=tol, atol=tol, err_msg=x.name)

    trace = vz.trace_reverse(imported.output, imported.inputs, imported.feed)
    assert trace.check() == []

    again = [a.detach().clone().requires_grad_(a.is_floating_point()) for a in args]
    named = {n: t for n, t in zip(names, again) if t.is_floating_point()}
    for name, module in modules.items():
        module.zero_grad()
        named.update({f"{name}.{k}": p for k, p in module.named_parameters()})
    recorded = vz.torch_backward(lambda: fn(*again), named)
    assert sorted(w.name for w in recorded.wrt) == sorted(want)
    for w in recorded.wrt:
        np.testing.assert_allclose(recorded.adjoint(w), want[w.name], rtol=tol, atol=tol)


DTYPES = [torch.float64, torch.float32]


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("need_weights", [True, False], ids=["weights", "no-weights"])
@pytest.mark.parametrize("batch_first", [True, False], ids=["batch-first", "seq-first"])
@pytest.mark.parametrize("kind", ["bool", "float"])
def test_multihead_attention_with_a_key_padding_mask(kind, batch_first, need_weights, dtype):
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(8, 2, batch_first=batch_first).to(dtype)
    mask = _padding(kind, dtype)
    x = _randn(1, *((2, 5, 8) if batch_first else (5, 2, 8)), dtype=dtype)

    def loss(x):
        out, weights = mha(x, x, x, key_padding_mask=mask, need_weights=need_weights)
        if weights is None:
            return out.pow(2).sum()
        return out.pow(2).sum() + (weights * torch.arange(5, dtype=dtype)).sum()

    _compare(loss, (x,), {"mha": mha}, dtype)


@pytest.mark.parametrize("kind", ["bool", "float"])
def test_multihead_attention_module_given_with_the_mask_as_an_argument(kind):
    """The module itself, the mask an argument (a float mask is then an input too)."""
    dtype = torch.float64
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(8, 2, batch_first=True).to(dtype)
    x, mask = _randn(2, 2, 5, 8, dtype=dtype), _padding(kind, dtype)
    imported = vz.from_torch(mha, x, x, x, mask)
    names = [v.name for v in imported.inputs]
    assert names[:4] == ["in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"]
    want = [p.grad for p in mha.parameters()]
    assert all(g is None for g in want)  # the import leaves .grad alone
    mha(x, x, x, mask)[0].sum().backward()
    got = vz.evaluate(vz.gradients(vz.sum(imported.outputs[0]), imported.inputs[:4]), imported.feed)
    for g, p in zip(got, mha.parameters()):
        np.testing.assert_allclose(g, p.grad.numpy(), rtol=1e-10, atol=1e-10)


# (a bool padding mask with a float causal one: PyTorch warns "mismatched", and runs it)
@pytest.mark.filterwarnings("ignore:Support for mismatched")
@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("mode", ["train", "eval"])
@pytest.mark.parametrize("causal", [False, True], ids=["padding", "padding+causal"])
def test_transformer_encoder_layer_with_padding_and_causal_masks(causal, mode, dtype):
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    layer = layer.to(dtype).train(mode == "train")
    padding = _padding("bool", dtype)
    causal_mask = (
        torch.nn.Transformer.generate_square_subsequent_mask(5, dtype=dtype) if causal else None
    )
    x = _randn(3, 2, 5, 8, dtype=dtype)

    def loss(x):
        out = layer(x, src_mask=causal_mask, src_key_padding_mask=padding, is_causal=causal)
        return out.pow(2).sum()

    _compare(loss, (x,), {"layer": layer}, dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("how", ["bool", "float", "is_causal", "padding", "float argument"])
def test_scaled_dot_product_attention_masks(how, dtype):
    q, k, v = (_randn(s, 2, 2, 5, 4, dtype=dtype) for s in (4, 5, 6))
    lower = torch.ones(5, 5, dtype=torch.bool).tril()
    floats = torch.zeros(5, 5, dtype=dtype).masked_fill(~lower, float("-inf"))
    keep = ~_padding("bool", dtype)[:, None, None, :]
    masks = {"bool": lower, "float": floats, "is_causal": None, "padding": keep}
    if how == "float argument":

        def loss(q, k, v, mask):
            return F.scaled_dot_product_attention(q, k, v, attn_mask=mask).pow(2).sum()

        _compare(loss, (q, k, v, floats), {}, dtype)
        return

    def loss(q, k, v):
        out = F.scaled_dot_product_attention(
            q, k, v, attn_mask=masks[how], is_causal=how == "is_causal"
        )
        return out.pow(2).sum()

    _compare(loss, (q, k, v), {}, dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
def test_an_extended_attention_mask_of_the_lowest_float(dtype):
    """Hugging Face's BERT masks padding with (1 - mask) * torch.finfo(dtype).min. Before,
    in float64, check() said the add was off ("vjp gives -3.22872e+307, central differences
    nan"): the scores sit at -1.8e308, where a step is lost and a sum overflows. They are
    held as -inf entries are."""
    keep = (~_padding("bool", dtype)).long()
    q, k, v = (_randn(s, 2, 2, 5, 4, dtype=dtype) for s in (8, 9, 10))

    def loss(q, k, v):
        extended = (1.0 - keep[:, None, None, :].to(dtype)) * torch.finfo(dtype).min
        scores = q @ k.transpose(-1, -2) / 2.0 + extended
        return (torch.softmax(scores, -1) @ v).pow(2).sum()

    _compare(loss, (q, k, v), {}, dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("mask_type", ["float", "bool"])
def test_masked_mean_pooling(mask_type, dtype):
    torch.manual_seed(0)
    proj = torch.nn.Linear(8, 3).to(dtype)
    keep = ~_padding("bool", dtype)
    mask = keep.to(dtype) if mask_type == "float" else keep
    h = _randn(7, 2, 5, 8, dtype=dtype)

    def loss(h):
        pooled = (mask.unsqueeze(-1) * proj(h)).sum(1) / mask.sum(1, keepdim=True)
        return pooled.pow(2).sum()

    _compare(loss, (h,), {"proj": proj}, dtype)


def test_a_write_to_a_closed_over_tensor_names_the_op_and_the_tensor_not_batchnorm():
    """What is still refused says the op, the tensor and the line: before, a counter the
    function closes over was "a BatchNorm's running statistics in train mode?"."""
    count = torch.zeros(())

    def counts(x):
        count.add_(1)
        return x.sum()

    x = torch.ones(3, dtype=torch.float64)
    with pytest.raises(BridgeError) as refused:
        vz.from_torch(counts, x)
    said = str(refused.value)
    assert f"{HERE}:" in said and "count.add_(1)" in said
    assert "aten::add_.Tensor writes to a float32 tensor of shape ()" in said
    assert "BatchNorm" not in said and "t.clone()" in said
    assert float(count) == 0.0

    bn = torch.nn.BatchNorm1d(3).double()  # closed over in train mode: PyTorch's code writes
    with pytest.raises(BridgeError) as refused:
        vz.from_torch(lambda x: bn(x).pow(2).sum(), torch.randn(4, 3, dtype=torch.float64))
    said = str(refused.value)
    assert f"{HERE}:" in said and "batchnorm.py:" in said and "num_batches_tracked" in said
    assert "give the module itself to from_torch" in said
    assert int(bn.num_batches_tracked) == 0
