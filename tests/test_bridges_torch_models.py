"""The models people bring, through both PyTorch bridges: for each model of torch_models.py,
from_torch + vz.gradients and torch_backward give PyTorch's gradients to 1e-10 in float64,
the import leaves the module's state and the RNG as they were, check() finds nothing on the
correct ones and names the rules that are not derivatives on purpose (a wrong backward, a
straight-through estimator, a hook)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import vizad as vz  # noqa: E402

from torch_models import CASES  # noqa: E402

TOL = 1e-10


def _state(fn):
    if not isinstance(fn, torch.nn.Module):
        return {}
    return {k: v.detach().clone() for k, v in fn.state_dict(keep_vars=True).items()}


def _leaves(fn, args):
    """The tensors PyTorch differentiates, by the name from_torch gives them."""
    import inspect

    leaves = {}
    if isinstance(fn, torch.nn.Module):
        leaves.update({k: p for k, p in fn.named_parameters() if p.requires_grad})
        names = list(inspect.signature(fn.forward).parameters)
    else:
        names = list(inspect.signature(fn).parameters)
    given = []
    for name, a in zip(names, args):
        t = a.detach().clone()
        if t.is_floating_point():
            t.requires_grad_(True)
            leaves[name] = t
        given.append(t)
    return leaves, given


def _pytorch(fn, args):
    """PyTorch's gradients (by name) of the loss, from its own backward()."""
    leaves, given = _leaves(fn, args)
    if isinstance(fn, torch.nn.Module):
        fn.zero_grad()
    fn(*given).backward()
    return {
        k: (np.zeros(tuple(t.shape)) if t.grad is None else t.grad.numpy().copy())
        for k, t in leaves.items()
    }


# the large models (attention, LSTM, BatchNorm) take seconds each: make check keeps two
@pytest.mark.slow_family(keep=["frozen backbone", "custom Function, wrong backward"])
@pytest.mark.parametrize("name, make", CASES, ids=[c[0] for c in CASES])
def test_a_model_imports_and_records_as_pytorch_differentiates_it(name, make):
    fn, args, flagged = make()
    before, rng = _state(fn), torch.random.get_rng_state()
    imported = vz.from_torch(fn, *args)
    after = _state(fn)
    assert set(before) == set(after)
    for key in before:  # parameters, running statistics, counters: untouched
        assert torch.equal(before[key], after[key]), key
    assert torch.equal(rng, torch.random.get_rng_state())

    want = _pytorch(fn, args)  # draws the same dropout mask as the import did
    got = vz.evaluate(vz.gradients(imported.output, imported.inputs), imported.feed)
    assert [x.name for x in imported.inputs] == list(want)
    for x, g in zip(imported.inputs, got):
        np.testing.assert_allclose(g, want[x.name], rtol=TOL, atol=TOL, err_msg=x.name)

    torch.random.set_rng_state(rng)
    leaves, given = _leaves(fn, args)
    if isinstance(fn, torch.nn.Module):
        fn.zero_grad()
    recorded = vz.torch_backward(lambda: fn(*given), leaves)
    for w in recorded.wrt:
        np.testing.assert_allclose(recorded.adjoint(w), want[w.name], rtol=TOL, atol=TOL)

    failures = vz.trace_reverse(imported.output, imported.inputs, imported.feed).check()
    # stop_gradient's zero vjp is what it means; check() reports it until it knows
    # stop-gradient ops (the JAX branch's change to check.py)
    assert {f.op for f in failures} - {"stop_gradient"} == flagged


def test_every_imported_node_says_its_line_in_the_panel_tooltip_and_search():
    from vizad.view.widget.frames import find_entries, frame_data
    from vizad.trace.panel import step_panel

    fn, args, _ = dict(CASES)["resnet block train"]()
    imported = vz.from_torch(fn, *args)
    trace = vz.trace_reverse(imported.output, imported.inputs, imported.feed)
    made = [s for s in trace.steps if s.node.inputs]
    assert all(s.node.source and s.node.source.startswith("torch_models.py:") for s in made)
    lines = {s.node.source for s in made}
    assert any("self.bn1(self.conv1(x))" in line for line in lines)
    k = next(k for k, s in enumerate(trace.steps) if s.node.op.name.startswith("_native_batch"))
    assert "self.bn" in step_panel(trace, k)["source"]
    layout = vz.render.Layout(trace, "forward")
    tips = frame_data(layout, trace, 3)["tips"]
    assert any("self.bn1" in t.get("source", "") for t in tips.values())
    entries = find_entries(layout.scene, trace, {s.node: k for k, s in enumerate(trace.steps)})
    assert any("self.bn2(self.conv2(out))" in text for text, *_ in entries)
    # and the nodes torch_backward records
    _leaves_named, given = _leaves(fn, args)
    recorded = vz.torch_backward(lambda: fn(*given), fn)
    assert any("self.bn1" in (s.node.source or "") for s in recorded.steps)


def test_what_cannot_be_imported_faithfully_is_refused_by_name_with_the_line():
    from vizad.errors import BridgeError

    x = torch.ones(3, dtype=torch.float64)
    for bad, words in [
        (x.to(torch.bfloat16), r"'x' is torch.bfloat16"),
        (x.to(torch.complex128), r"'x' is torch.complex128.*Wirtinger"),
        (x.to_sparse(), r"'x' is a torch.sparse_coo tensor"),
        (torch.ones(3, device="meta"), r"'x' is a meta tensor"),
        ("abc", r"'x' is a str"),
    ]:
        with pytest.raises(BridgeError, match=words):
            vz.from_torch(lambda x: x.sum(), bad)

    def keeps_a_gradient(x):
        h = torch.sin(x)
        h.retain_grad()
        return h.sum()

    with pytest.raises(BridgeError, match=r"retain_grad.*test_bridges_torch_models.py:\d+"):
        vz.from_torch(keeps_a_gradient, x)

    net = torch.nn.Sequential(torch.nn.Linear(3, 2)).double()
    handle = net[0].register_full_backward_hook(lambda m, gi, go: None)
    with pytest.raises(BridgeError, match=r"module '0' \(Linear\) has backward hooks"):
        vz.from_torch(net, x)
    handle.remove()

    bn = torch.nn.BatchNorm1d(3).double()  # train mode, closed over: its statistics would move
    before = bn.running_mean.clone()
    with pytest.raises(BridgeError, match=r"writes in place to a tensor that is not one of its"):
        vz.from_torch(lambda x: bn(x).pow(2).sum(), torch.randn(4, 3, dtype=torch.float64))
    assert torch.equal(before, bn.running_mean) and int(bn.num_batches_tracked) == 0


def _bf16_buffer():
    m = torch.nn.Linear(3, 2).double()
    m.register_buffer("scale", torch.ones(2, dtype=torch.bfloat16))
    return m


@pytest.mark.parametrize(
    "fn, value, words",
    [
        (None, torch.ones(3).to(torch.complex64), r"'x' is torch\.complex64: .*Wirtinger"),
        (None, np.ones(3, dtype=np.complex128), r"'x' is a ndarray of dtype complex128: .*Wirt"),
        (None, 1j, r"'x' is a complex of dtype complex128"),
        (None, torch.ones(3).to(torch.float8_e4m3fn), r"'x' is torch\.float8_e4m3fn, which numpy"),
        (
            None,
            torch.eye(3).to_sparse_csr(),
            r"'x' is a torch\.sparse_csr tensor of torch\.float32",
        ),
        (None, torch.ones(3, device="meta"), r"'x' is a meta tensor of torch\.float32"),
        (None, np.array(["a"]), r"'x' is a ndarray of dtype <U1"),
        (None, np.ones(2, dtype=object), r"'x' is a ndarray of dtype object"),
        (None, {"w": torch.ones(2), "act": "relu"}, r"\"x\['act'\]\" is a str"),
        (torch.nn.Linear(3, 2, device="meta"), torch.ones(3), r"'weight' is a meta tensor"),
        (torch.nn.Linear(3, 2).bfloat16(), torch.ones(3), r"'weight' is torch\.bfloat16"),
        (_bf16_buffer(), torch.ones(3, dtype=torch.float64), r"'scale' is torch\.bfloat16"),
    ],
    ids=lambda c: type(c).__name__ if not isinstance(c, str) else "",
)
def test_a_value_vizad_cannot_hold_is_refused_naming_the_input_and_its_dtype(fn, value, words):
    from vizad.errors import BridgeError

    with pytest.raises(BridgeError, match=words):
        vz.from_torch(fn if fn is not None else (lambda x: x), value)


def test_torch_backward_seed_for_an_output_that_reads_no_leaf_and_the_renamed_keyword():
    w = torch.tensor([1.0, -2.0], dtype=torch.float64, requires_grad=True)
    seed = torch.tensor([3.0, 0.5], dtype=torch.float64)
    trace = vz.torch_backward(w * 2, {"w": w}, cotangent=seed)
    np.testing.assert_array_equal(trace.adjoint(trace.wrt[0]), [6.0, 1.0])
    linear = torch.nn.Linear(2, 3).double()
    x = torch.ones(4, 2, dtype=torch.float64)
    with pytest.raises(TypeError, match="unexpected keyword argument 'gradient'"):
        vz.torch_backward(linear(x), linear, gradient=torch.ones(4, 3, dtype=torch.float64))
    trace = vz.torch_backward(linear(x), linear, cotangent=torch.ones(4, 3, dtype=torch.float64))
    for w in trace.wrt:
        np.testing.assert_array_equal(
            trace.adjoint(w), dict(linear.named_parameters())[w.name].grad.numpy()
        )
    with pytest.raises(vz.errors.ArgumentError, match="values='all' needs the forward pass"):
        vz.torch_backward(linear(x).sum(), values="all")


@pytest.mark.parametrize("steps", [3, 5])
def test_an_imported_lstm_folds_its_time_steps_even_three(steps):
    """Each step reads its slice of the input projection made before the loop: near for the
    first steps, far for the later ones; the fold finds all the steps all the same."""
    from vizad.view.render import Layout

    torch.manual_seed(0)
    lstm = torch.nn.LSTM(3, 4, batch_first=True).double()
    x = torch.randn(2, steps, 3, dtype=torch.float64)
    imported = vz.from_torch(lambda x: lstm(x)[0].pow(2).sum(), x)
    trace = vz.trace_reverse(imported.output, imported.inputs, imported.feed)
    for view in ("forward", "adjoint"):
        folds = Layout(trace, view, collapse="repeats").scene.folds
        (fold,) = [f for key, f in folds.items() if key.startswith("fold_v")]  # forward steps
        assert fold.repeats == steps
        assert len({len(block) for block in fold.blocks}) == 1
    # the steps' adjoints fold from four steps on (the last step's adjoint starts the chain)
    adjoint = Layout(trace, "adjoint", collapse="repeats").scene.folds
    assert [f.repeats for key, f in adjoint.items() if key.startswith("fold_a")] == (
        [steps - 1] if steps - 1 >= 3 else []
    )
