"""vz.torch_backward: PyTorch's own backward pass as a walkthrough, with PyTorch's numbers, and
the leaves' .grad exactly what they are without vizad."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import vizad as vz  # noqa: E402
from vizad.errors import ArgumentTypeError, BridgeError  # noqa: E402
from vizad.trace.recorded import RecordedReverseTrace  # noqa: E402
from vizad.engine.tree import Unrecorded  # noqa: E402

from bridge_cases import torch_cases  # noqa: E402

CASES = torch_cases()


def _leaves(args):
    return [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in args]


def _grad_fn_nodes(loss) -> int:
    """The nodes of the grad_fn graph, counted here by a walk of its own."""
    seen, stack = set(), [loss.grad_fn]
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        stack.extend(n for n, _ in fn.next_functions)
    return len(seen)


@pytest.mark.parametrize("name, fn, args", CASES, ids=[c[0] for c in CASES])
def test_one_step_per_grad_fn_node_and_the_leaves_get_exactly_their_grad(name, fn, args):
    plain = _leaves(args)
    fn(*plain).backward()
    watched = _leaves(args)
    loss = fn(*watched)
    nodes = _grad_fn_nodes(loss)
    trace = vz.torch_backward(loss, {f"x{k}": t for k, t in enumerate(watched, 1)})
    assert isinstance(trace, RecordedReverseTrace)
    assert len(trace.steps) == nodes
    for a, b in zip(plain, watched):  # bit for bit, as without vizad
        assert torch.equal(a.grad, b.grad)
    by_name = {w.name: w for w in trace.wrt}
    for k, leaf in enumerate(watched, 1):
        assert np.array_equal(trace.adjoint(by_name[f"x{k}"]), leaf.grad.numpy())
    assert trace.check() == []
    for step in trace.steps:  # each sum is the sum of its partial adjoints, PyTorch's numbers
        if step.contributions and not isinstance(step.adjoint, tuple):
            total = sum(np.asarray(c.partial) for c in step.contributions)
            np.testing.assert_allclose(total, step.adjoint, rtol=1e-12, atol=1e-15)


def _lecture():
    x1 = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    x2 = torch.tensor(5.0, dtype=torch.float64, requires_grad=True)
    return x1, x2, torch.log(x1) + x1 * x2 - torch.sin(x2)


def test_the_lecture_in_pytorchs_order_with_its_partial_adjoints():
    x1, x2, y = _lecture()
    trace = vz.torch_backward(y, {"x1": x1, "x2": x2})
    labels = [s.label for s in trace.steps]
    # PyTorch runs sub, sin, add, mul, AccumulateGrad(x2), log, AccumulateGrad(x1)
    assert [s.node.op.name for s in trace.steps] == [
        "sub", "sin", "add", "mul", "variable", "log", "variable"
    ]  # fmt: skip
    assert labels == ["v₇", "v₅", "v₆", "v₄", "v₂", "v₃", "v₁"]
    v2 = trace.step_of(trace.wrt[1])
    partials = sorted(float(c.partial) for c in v2.contributions)
    assert partials == pytest.approx([-np.cos(5.0), 2.0], abs=1e-15)
    assert float(v2.adjoint) == float(x2.grad)
    line = str(trace.derivation()).splitlines()[4]
    assert line == "v̄₂ = v̄₅ ∂v₅/∂v₂ + v̄₄ ∂v₄/∂v₂ = v̄₅ cos v₂ + v̄₄ v₁ = -0.284 + 2 = 1.716"
    assert "PyTorch" in trace.describe()


def test_forward_values_are_what_pytorch_saved_and_the_others_say_so():
    x1, x2, y = _lecture()
    trace = vz.torch_backward(y, {"x1": x1, "x2": x2})
    values = {s.label: s.value for s in trace.steps}
    assert float(values["v₁"]) == 2.0 and float(values["v₂"]) == 5.0  # leaves
    assert float(values["v₇"]) == pytest.approx(float(y.detach()))  # the loss itself
    for label in ("v₃", "v₄", "v₅", "v₆"):  # log, mul, sin and add saved only their inputs
        assert isinstance(values[label], Unrecorded)
        assert values[label].reason == "not saved by PyTorch"
    assert "not saved by PyTorch" in repr(trace)
    # exp saves its result: that value is shown
    x = torch.tensor([0.5, 1.0], dtype=torch.float64, requires_grad=True)
    e = torch.exp(x)
    trace = vz.torch_backward((e * 3.0).sum(), {"x": x})
    exp_step = next(s for s in trace.steps if s.node.op.name == "exp")
    np.testing.assert_array_equal(exp_step.value, np.exp([0.5, 1.0]))
    h = torch.tanh(x)  # a tensor the user names is known too
    trace = vz.torch_backward((h + 1.0).sum(), {"x": x, "h": h})
    assert "h" in trace.names.titles.values()
    np.testing.assert_array_equal(trace.step_of(_node(trace, "h")).value, h.detach().numpy())


def _node(trace, name):
    return next(s.node for s in trace.steps if s.node.name == name)


def test_names_from_an_nn_module_and_pytorch_op_names():
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(4, 3), torch.nn.LayerNorm(3), torch.nn.Tanh(), torch.nn.Linear(3, 2)
    ).double()
    x = torch.randn(5, 4, dtype=torch.float64)
    loss = torch.nn.CrossEntropyLoss()(model(x), torch.tensor([0, 1, 0, 1, 1]))
    trace = vz.torch_backward(loss, model)
    params = dict(model.named_parameters())
    assert {w.name for w in trace.wrt} == set(params)
    for w in trace.wrt:
        np.testing.assert_array_equal(trace.adjoint(w), params[w.name].grad.numpy())
    ops = {s.node.op.name for s in trace.steps}
    assert {"nll_loss", "log_softmax", "addmm", "native_layer_norm", "tanh", "t"} <= ops
    assert trace.check() == []


def test_unnamed_leaves_and_a_seed_for_a_tensor_loss():
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    y = x * x
    seed = torch.tensor([1.0, -3.0], dtype=torch.float64)
    trace = vz.torch_backward(y, cotangent=seed)
    assert [w.name for w in trace.wrt] == ["leaf1"]
    np.testing.assert_array_equal(trace.steps[0].adjoint, [1.0, -3.0])
    np.testing.assert_array_equal(trace.gradients[0], x.grad.numpy())
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, -12.0])
    # x read twice by one node: two partial adjoints, summed
    (leaf,) = [s for s in trace.steps if s.node is trace.wrt[0]]
    assert len(leaf.contributions) == 2


def test_a_loss_built_twice_from_one_leaf_accumulates_as_pytorch_does():
    x = torch.tensor([0.5, -1.0], dtype=torch.float64, requires_grad=True)
    first = vz.torch_backward((torch.sin(x) * x).sum(), {"x": x})
    after_first = x.grad.clone()
    np.testing.assert_array_equal(first.adjoint(first.wrt[0]), after_first.numpy())
    second = vz.torch_backward((torch.exp(x) * x).sum(), {"x": x})
    # each trace shows what its pass added; .grad holds their sum, as backward() makes it
    np.testing.assert_array_equal(
        x.grad.numpy(), after_first.numpy() + second.adjoint(second.wrt[0])
    )


def test_a_node_with_several_outputs_is_one_step_with_a_tuple_adjoint():
    x = torch.tensor([[1.0, -2.0], [0.5, 3.0], [1.5, 1.0]], dtype=torch.float64)
    x.requires_grad_(True)
    a, b, _ = torch.unbind(x * 1.0)
    trace = vz.torch_backward((a * b).sum() + torch.relu(a).sum(), {"x": x})
    unbind = next(s for s in trace.steps if s.node.op.name == "unbind")
    assert isinstance(unbind.adjoint, tuple) and len(unbind.adjoint) == 3
    assert isinstance(unbind.adjoint[2], Unrecorded)  # output 2 received no gradient
    mul = next(s for s in trace.steps if s.node.op.name == "mul" and len(s.node.inputs) == 2)
    assert mul.definition.count("[") == 2  # v₃[0] × v₃[1]: two different outputs
    np.testing.assert_array_equal(trace.adjoint(trace.wrt[0]), x.grad.numpy())


def test_bad_input_is_an_error_that_says_what_to_do():
    leaf = torch.tensor(1.0, requires_grad=True)
    with pytest.raises(BridgeError, match="leaf"):
        vz.torch_backward(leaf)
    with pytest.raises(BridgeError, match="requires_grad=True"):
        vz.torch_backward(torch.tensor(2.0) * 3)
    x = torch.ones(3, requires_grad=True)
    with pytest.raises(BridgeError, match=r"shape \(3,\).*cotangent="):
        vz.torch_backward(x * 2)
    with pytest.raises(BridgeError, match="torch.Tensor"):
        vz.torch_backward(np.ones(3))
    with pytest.raises(ArgumentTypeError, match="names"):
        vz.torch_backward((x * 2).sum(), names=["x"])
    y = (x * x).sum()
    y.backward()
    with pytest.raises(BridgeError, match="freed"):  # its graph is gone
        vz.torch_backward(y)
    assert issubclass(BridgeError, ValueError)


def test_the_hooks_are_removed_afterwards():
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    y = (torch.sin(x) * x).sum()
    fn = y.grad_fn
    vz.torch_backward(y, {"x": x})
    pre, post = fn.register_prehook(lambda g: None), fn.register_hook(lambda gi, go: None)
    assert len(pre.hooks_dict_ref()) == 1 and len(post.hooks_dict_ref()) == 1  # ours alone


def test_every_view_the_stepper_the_page_and_the_frames(tmp_path):
    x1, x2, y = _lecture()
    trace = vz.torch_backward(y, {"x1": x1, "x2": x2})
    for view in trace.views:
        source = vz.draw(trace, view, step=5).source
        assert "PyTorch" in source
    assert "not saved by PyTorch" in vz.draw(trace, "forward").source
    assert "MulBackward0" in vz.draw(trace).source
    stepper = vz.step(trace)
    assert stepper.n_steps == 7 and stepper.failures == {}
    assert stepper.data["steps"][4]["panel"]["total"] == "1.716"
    page = vz.export_html(trace, tmp_path / "page.html")
    assert "PyTorch" in page.read_text(encoding="utf-8")
    frames = vz.export_frames(trace, tmp_path / "frames")
    assert len(frames) == 7
    with pytest.raises(vz.errors.ArgumentError, match="opened as it is"):
        vz.step(trace, mode="forward")
