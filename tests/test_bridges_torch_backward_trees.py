"""``vz.torch_backward(loss, inputs=...)`` with the tensors to differentiate given as PyTorch
users hold them (a dict of parameters, ``model.named_parameters()``, nested tuples): the pass is
``loss.backward(inputs=...)``'s, the inputs are named by their paths, and ``trace.grads`` is
exactly what ``torch.autograd.grad`` returns (Δ = 0), in the structure ``inputs`` was given."""

from collections import namedtuple

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import vizad as vz  # noqa: E402
from vizad.errors import ArgumentTypeError, BridgeError  # noqa: E402

D = torch.float64
Layer = namedtuple("Layer", "w b")


def _randn(g, *shape):
    return torch.randn(*shape, generator=g, dtype=D).requires_grad_()


def _mlp():
    g = torch.Generator().manual_seed(0)
    params = {"W1": _randn(g, 3, 4), "b1": _randn(g, 4), "W2": _randn(g, 4, 2)}
    x = torch.randn(5, 3, generator=g, dtype=D)
    labels = torch.tensor([0, 1, 1, 0, 1])

    def loss():
        h = torch.tanh(x @ params["W1"] + params["b1"])
        return torch.nn.functional.cross_entropy(h @ params["W2"], labels)

    return params, loss


def _leaf_adjoints(trace):
    return {x.name: trace.adjoint(x) for x in trace.wrt}


def test_a_dict_of_parameters_gives_torch_autograd_grads_in_a_dict():
    params, loss = _mlp()
    want = torch.autograd.grad(loss(), list(params.values()))
    trace = vz.torch_backward(loss, inputs=params)
    assert list(trace.grads) == ["W1", "b1", "W2"]
    for (name, got), w in zip(trace.grads.items(), want):
        np.testing.assert_array_equal(got, w.numpy(), err_msg=name)  # Δ = 0
    assert [x.name for x in trace.wrt] == ["W1", "b1", "W2"]
    adjoints = _leaf_adjoints(trace)
    for name, got in trace.grads.items():
        np.testing.assert_array_equal(adjoints[name], got)
    assert trace.check() == []
    for name, p in params.items():  # loss.backward(inputs=params) accumulated them
        np.testing.assert_array_equal(p.grad.numpy(), trace.grads[name])


def test_only_the_inputs_accumulate_grad_and_only_their_nodes_run():
    params, loss = _mlp()
    whole = vz.torch_backward(loss)
    for p in params.values():
        p.grad = None
    trace = vz.torch_backward(loss, inputs={"W2": params["W2"]})
    assert params["W1"].grad is None and params["b1"].grad is None  # as backward(inputs=)
    want = torch.autograd.grad(loss(), params["W2"])[0]
    np.testing.assert_array_equal(trace.grads["W2"], want.numpy())
    np.testing.assert_array_equal(params["W2"].grad.numpy(), want.numpy())
    assert [x.name for x in trace.wrt] == ["W2"]
    assert len(trace.steps) < len(whole.steps)  # the W1 branch did not run
    assert "W1" not in vz.draw(trace, view="adjoint").source


def test_named_parameters_of_an_lstm_are_a_dict_by_parameter_name():
    torch.manual_seed(3)
    lstm = torch.nn.LSTM(3, 4, num_layers=2).double()
    xs = torch.randn(4, 2, 3, dtype=D)

    def loss():
        out, (h, c) = lstm(xs)
        return out.pow(2).sum() + c.sum()

    names = [n for n, _ in lstm.named_parameters()]
    want = torch.autograd.grad(loss(), list(lstm.parameters()))
    trace = vz.torch_backward(loss, inputs=lstm.named_parameters())
    assert list(trace.grads) == names
    for name, w in zip(names, want):
        np.testing.assert_array_equal(trace.grads[name], w.numpy(), err_msg=name)
    assert sorted(x.name for x in trace.wrt) == sorted(names)
    assert trace.check() == []
    assert "weight_hh_l1" in vz.draw(trace).source
    # the module itself gives the same, by the same names
    again = vz.torch_backward(loss, inputs=lstm)
    assert list(again.grads) == names
    for name in names:
        np.testing.assert_array_equal(again.grads[name], trace.grads[name])


def test_a_nested_tuple_keeps_its_structure_and_is_named_by_path():
    g = torch.Generator().manual_seed(5)
    w1, b1, w2 = _randn(g, 3, 3), _randn(g, 3), _randn(g, 3)
    layer = Layer(_randn(g, 3, 3), None)
    x = torch.randn(2, 3, generator=g, dtype=D)

    def loss():
        h = torch.sin(x @ w1 + b1) @ layer.w
        return (h * w2).sum() + (w1 * w1).sum()

    inputs = ((w1, (b1,)), [w2, layer])
    want = torch.autograd.grad(loss(), [w1, b1, w2, layer.w])
    trace = vz.torch_backward(loss, inputs=inputs)
    (g_w1, (g_b1,)), [g_w2, g_layer] = trace.grads
    assert isinstance(g_layer, Layer) and g_layer.b is None
    for got, w in zip([g_w1, g_b1, g_w2, g_layer.w], want):
        np.testing.assert_array_equal(got, w.numpy())
    assert sorted(x.name for x in trace.wrt) == sorted(
        ["inputs[0][0]", "inputs[0][1][0]", "inputs[1][0]", "inputs[1][1].w"]
    )
    # ``names`` renames an input; nested dicts name by path
    renamed = vz.torch_backward(loss, {"first": {"w": w1}}, inputs=inputs)
    assert "first['w']" in [x.name for x in renamed.wrt]


def test_an_intermediate_tensor_as_an_input_and_one_the_loss_does_not_use():
    params, _ = _mlp()
    x = torch.ones(2, 3, dtype=D)
    unused = torch.zeros(2, dtype=D, requires_grad=True)
    h = torch.tanh(x @ params["W1"])
    loss = (h @ params["W2"][:4]).pow(2).sum()
    want = torch.autograd.grad(loss, [h, params["W2"]], retain_graph=True)
    trace = vz.torch_backward(loss, inputs={"h": h, "W2": params["W2"], "unused": unused})
    np.testing.assert_array_equal(trace.grads["h"], want[0].numpy())
    np.testing.assert_array_equal(trace.grads["W2"], want[1].numpy())
    assert trace.grads["unused"] is None and unused.grad is None
    assert sorted(x.name for x in trace.wrt) == ["W2", "h"]  # h is where the pass stops
    assert params["W1"].grad is None


def test_bad_inputs_are_errors_naming_the_path():
    params, mlp_loss = _mlp()
    ran = []

    def loss():
        ran.append(1)
        return mlp_loss()

    with pytest.raises(ArgumentTypeError, match=r"inputs\['act'\]\[1\] is a str"):
        vz.torch_backward(loss, inputs={"act": [params["W1"], "relu"]})
    with pytest.raises(BridgeError, match=r"inputs\[1\]\.w \(shape \(2,\)\) does not require"):
        vz.torch_backward(loss, inputs=[params["W1"], Layer(torch.ones(2), None)])
    frozen = torch.nn.Linear(2, 2).requires_grad_(False)
    with pytest.raises(BridgeError, match="holds no tensor"):
        vz.torch_backward(loss, inputs=frozen)
    with pytest.raises(ArgumentTypeError, match=r"names\['W1'\]\['x'\] is a int"):
        vz.torch_backward(loss, names={"W1": {"x": 1}})
    assert not ran and all(p.grad is None for p in params.values())  # refused before running
