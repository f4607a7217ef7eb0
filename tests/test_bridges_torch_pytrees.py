"""``from_torch`` of functions taking pytrees of tensors (dicts, lists, tuples, NamedTuples),
as a ``torch.func.functional_call`` user writes them: each tensor is an input named by its path
(``params['W1']``, ``layers[0].w``), and ``Imported.tree`` gives PyTorch's gradients (to 1e-10
in float64) in the structure of the arguments."""

from collections import namedtuple

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import vizad as vz  # noqa: E402
from vizad.errors import BridgeError  # noqa: E402

D = torch.float64
TOL = 1e-10
Layer = namedtuple("Layer", "w b")


def _randn(g, *shape):
    return torch.randn(*shape, generator=g, dtype=D)


def mlp(params, x, layers, labels):
    h = torch.tanh(x @ params["W1"] + params["b1"])
    for layer in layers:
        h = h @ layer.w if layer.b is None else torch.tanh(h @ layer.w + layer.b)
    return torch.nn.functional.cross_entropy(h, labels)


def _example():
    g = torch.Generator().manual_seed(0)
    params = {"W1": _randn(g, 3, 4), "b1": _randn(g, 4)}
    layers = [Layer(_randn(g, 4, 4), _randn(g, 4)), Layer(_randn(g, 4, 3), None)]
    return params, _randn(g, 5, 3), layers, torch.tensor([0, 1, 2, 0, 1])


def _pytorch(fn, *args):
    """The .grad PyTorch's backward gives every floating tensor among the arguments."""
    copies = torch.utils._pytree.tree_map(
        lambda t: (
            t.clone().requires_grad_(t.is_floating_point()) if isinstance(t, torch.Tensor) else t
        ),
        args,
    )
    fn(*copies).backward()
    return torch.utils._pytree.tree_map(
        lambda t: t.grad if isinstance(t, torch.Tensor) else t, copies
    )


def _assert_same(got, want):
    flat_got, spec_got = torch.utils._pytree.tree_flatten(got)
    flat_want, spec_want = torch.utils._pytree.tree_flatten(want)
    assert spec_got == spec_want
    for g, w in zip(flat_got, flat_want):
        if not isinstance(w, torch.Tensor):  # an integer, a label: not an input
            assert g is None
        else:
            np.testing.assert_allclose(g, w.numpy(), rtol=TOL, atol=TOL)


def test_inputs_are_named_by_path_and_gradients_come_back_in_the_arguments_structure():
    params, x, layers, labels = _example()
    imported = vz.from_torch(mlp, params, x, layers, labels)
    assert [i.name for i in imported.inputs] == [
        "params['W1']",
        "params['b1']",
        "x",
        "layers[0].w",
        "layers[0].b",
        "layers[1].w",
    ]
    grads = imported.tree(
        vz.evaluate(vz.gradients(imported.output, imported.inputs), imported.feed)
    )
    assert isinstance(grads[2][0], Layer) and grads[2][1].b is None and grads[3] is None
    _assert_same(grads, _pytorch(mlp, params, x, layers, labels))
    assert params["W1"].grad is None and not params["W1"].requires_grad  # untouched

    source = vz.draw(vz.trace_reverse(imported.output, imported.inputs, imported.feed)).source
    assert "params[&#x27;W1&#x27;&#93;" in source  # escaped for DOT's HTML-like labels


class Scaled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 2).double()
        self.frozen = torch.nn.Linear(2, 2).double().requires_grad_(False)

    def forward(self, batch):
        h = self.frozen(torch.tanh(self.fc(batch["x"])))
        return (h * batch["scale"][0]).pow(2).sum()


def test_a_module_with_a_dict_batch_gives_its_parameters_then_the_arguments():
    torch.manual_seed(1)
    model = Scaled()
    g = torch.Generator().manual_seed(2)
    batch = {"x": _randn(g, 4, 3), "scale": (_randn(g, 2), 3)}
    imported = vz.from_torch(model, batch)
    names = [i.name for i in imported.inputs]
    assert names == ["fc.weight", "fc.bias", "batch['x']", "batch['scale'][0]"]
    grads = imported.tree(
        vz.evaluate(vz.gradients(imported.output, imported.inputs), imported.feed)
    )
    parameters, batch_grads = grads
    assert set(parameters) == {"fc.weight", "fc.bias"}
    assert batch_grads["scale"][1] is None
    want = _pytorch(model, batch)[0]  # its backward() gives the parameters their .grad
    _assert_same(batch_grads, want)
    for name, p in model.fc.named_parameters():
        np.testing.assert_allclose(parameters[f"fc.{name}"], p.grad.numpy(), rtol=TOL, atol=TOL)


def test_a_leaf_that_is_not_a_tensor_is_refused_by_its_path():
    x = torch.ones(3, dtype=D)
    with pytest.raises(BridgeError, match=r"the input \"params\['act'\]\" is a str"):
        vz.from_torch(lambda params, x: (x * params["w"]).sum(), {"w": x, "act": "relu"}, x)
    with pytest.raises(BridgeError, match=r"'layers\[1\]' is torch\.bfloat16"):
        vz.from_torch(lambda layers: layers[0].sum(), [x, x.to(torch.bfloat16)])
