"""In-place writes, ``.data``, ``.detach()`` and ``requires_grad`` through ``from_torch``: each
function is either imported with PyTorch's own gradients (to 1e-10 in float64) or refused at
import time with a BridgeError naming the op and the user's line, exactly where PyTorch's own
backward fails or computes with values changed behind autograd's back. The user's module
state and the RNG are as before either way."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import vizad as vz  # noqa: E402
from vizad.errors import BridgeError  # noqa: E402

D = torch.float64
TOL = 1e-10
HERE = "test_bridges_torch_inplace.py"


def _args(n, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(3, 2, generator=g, dtype=D) for _ in range(n)]


def _pytorch(fn, args):
    """PyTorch's gradients of fn at args (every argument requires grad), or its error."""
    leaves = [a.clone().requires_grad_(True) for a in args]
    fn(*leaves).backward()
    return [np.zeros(tuple(t.shape)) if t.grad is None else t.grad.numpy() for t in leaves]


# -- in-place writes to a value PyTorch saved for its backward pass: PyTorch fails ----------
def sigmoid_then_mul_(x):
    y = x.sigmoid()
    y.mul_(2)  # sigmoid saved y
    return y.sum()


def exp_then_add_(x, w):
    h = torch.exp(x)
    h.add_(1)  # exp saved h
    return (h * w).sum()


def inplace_relu_after_sigmoid(x):
    return torch.nn.functional.relu(torch.sigmoid(x), inplace=True).sum()


def saved_operand_then_written(x, w):
    h = x * 1.0
    z = h * w  # mul saved h
    h += 1
    return z.sum()


def index_assignment_after_tanh(x):
    y = torch.tanh(x)
    y[0] = 0.0  # tanh saved y
    return y.sum()


def a_saved_view_written(x, w):
    y = x * 2.0
    y[1] = y[1] * w[0]  # mul saved the view y[1], which the assignment writes
    return (y * w).sum()


def relu_then_mul_(x):
    y = x * 2.0
    y.relu_()
    y.mul_(3.0)  # relu_ saved y
    return y.sum()


SAVED = [
    (sigmoid_then_mul_, 1, "mul_", r"y\.mul_\(2\)", "sigmoid"),
    (exp_then_add_, 2, "add_", r"h\.add_\(1\)", "exp"),
    (
        inplace_relu_after_sigmoid,
        1,
        "relu",
        r"relu\(torch\.sigmoid\(x\), inplace=True\)",
        "sigmoid",
    ),
    (saved_operand_then_written, 2, "add_", r"h \+= 1", "mul"),
    (
        index_assignment_after_tanh,
        1,
        "index assignment",
        r"y\[0\] = 0\.0",
        "tanh",
    ),
    (a_saved_view_written, 2, "index assignment", r"y\[1\] = y\[1\] \* w\[0\]", "mul"),
    (relu_then_mul_, 1, "mul_", r"y.mul_\(3.0\)", "relu_"),
]


@pytest.mark.parametrize("fn, n, op, code, saver", SAVED, ids=[c[0].__name__ for c in SAVED])
def test_an_inplace_write_to_a_saved_value_is_refused_where_pytorch_fails(fn, n, op, code, saver):
    args = _args(n)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        _pytorch(fn, args)
    words = rf"{op} \(at {HERE}:\d+ .*{code}.*\) writes in place to a value that {saver} \(at "
    words += rf"{HERE}:\d+"
    with pytest.raises(BridgeError, match=words) as caught:
        vz.from_torch(fn, *args)
    assert "modified by an inplace operation" in str(caught.value)


def test_the_recorder_gives_pytorchs_own_error():
    (x,) = _args(1)
    x.requires_grad_(True)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        vz.torch_backward(lambda: sigmoid_then_mul_(x), {"x": x})
    assert x.grad is None


class SigmoidThenInplaceReLU(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(
            torch.nn.Linear(2, 3),
            torch.nn.Dropout(0.3),
            torch.nn.BatchNorm1d(3),
            torch.nn.Sigmoid(),
            torch.nn.ReLU(inplace=True),
        )

    def forward(self, x):
        return self.net(x).sum()


def test_a_module_refused_keeps_its_state_and_the_rng():
    torch.manual_seed(0)
    model = SigmoidThenInplaceReLU().double()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    rng = torch.random.get_rng_state()
    (x,) = _args(1)
    # ReLU writes to what Sigmoid saved
    with pytest.raises(BridgeError, match=r"relu \(at .* value that sigmoid \(at"):
        vz.from_torch(model, x)
    assert torch.equal(rng, torch.random.get_rng_state())
    for k, v in model.state_dict().items():
        assert torch.equal(before[k], v), k
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        model(x).backward()


# -- in-place writes PyTorch differentiates: imported with its gradients ---------------------
def write_to_an_unsaved_value(x, w):
    y = x * 2.0  # mul saves neither its result nor a value written later
    y.add_(w)
    y[1] = w[0] * 3.0
    return (y * w).sum()


def write_in_a_branch_backward_does_not_run(x, w):
    y = x.sigmoid()
    _unused = y * w
    y.mul_(2)  # what sigmoid saved, but nothing of the loss reaches sigmoid
    return (x * w).sum() + y.detach().sum()


def relu_in_place_after_linear(x, w):
    return torch.relu_(x @ w.T).square().sum()


def clone_before_writing(x, w):
    y = torch.sigmoid(x * w)
    z = y.clone()
    z.mul_(2)
    return (z * y).sum()


def detach_read_only(x, w):
    target = (x * w).detach()
    return ((x * w - target * 0.5) ** 2).sum() + (x.data * w).sum()


def requires_grad_attribute_off(x, w):
    w.requires_grad = False  # PyTorch then gives w no gradient
    return (x * w).sum() + x.square().sum()


FAITHFUL = [
    write_to_an_unsaved_value,
    write_in_a_branch_backward_does_not_run,
    relu_in_place_after_linear,
    clone_before_writing,
    detach_read_only,
    requires_grad_attribute_off,
]


@pytest.mark.parametrize("fn", FAITHFUL, ids=[f.__name__ for f in FAITHFUL])
def test_what_pytorch_differentiates_is_imported_with_its_gradients(fn):
    args = _args(2, seed=3)
    want = _pytorch(fn, args)
    imported = vz.from_torch(fn, *args)
    got = vz.evaluate(vz.gradients(imported.output, imported.inputs), imported.feed)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=TOL, atol=TOL)
    assert [a.requires_grad for a in args] == [False, False]  # the arguments as they were


# -- changes behind autograd's back: refused by name ---------------------------------------
def write_through_data(x, w):
    y = torch.sigmoid(x * w)
    y.data.mul_(2)  # PyTorch's sigmoid backward then reads 2σ, silently
    return (y * w).sum()


def write_through_detach(x, w):
    y = x * w
    d = y.detach()
    d.mul_(2)  # y's values change too
    return (y * w).sum()


def set_data(x, w):
    y = x * w
    y.data = y.data * 3.0
    return (y * w).sum()


def requires_grad_off_computed(x, w):
    y = x * w
    y.requires_grad = False  # PyTorch refuses it on a non-leaf
    return y.sum()


def write_under_no_grad(x, w):
    with torch.no_grad():
        w.mul_(2.0)  # PyTorch keeps w's gradient path through the new values
    return (x * w).sum()


def write_to_an_argument(x, w):
    x.mul_(2.0)  # PyTorch refuses an in-place op on a leaf that requires grad
    return (x * w).sum()


REFUSED = [
    (write_through_data, r"mul_ \(at .*y\.data\.mul_\(2\).* \.data taken at"),
    (write_through_detach, r"mul_ \(at .*d\.mul_\(2\).* \.detach taken at .*y\.detach\(\)"),
    (set_data, r"setting \.data .* at .*y\.data = y\.data \* 3\.0"),
    (requires_grad_off_computed, r"\.requires_grad = False\) on a tensor computed .*y\.requires"),
    (write_under_no_grad, r"mul_ \(at .*w\.mul_\(2\.0\).* gradients disabled"),
    (write_to_an_argument, r"writes in place to a tensor it differentiates.*x\.mul_\(2\.0\)"),
]


@pytest.mark.parametrize("fn, words", REFUSED, ids=[c[0].__name__ for c in REFUSED])
def test_values_changed_behind_autograds_back_are_refused_by_name(fn, words):
    args = _args(2, seed=5)
    with pytest.raises(BridgeError, match=words):
        vz.from_torch(fn, *args)
