"""vizad.classroom.courses.needle against the dlsys homework 1's kinds of tests: each op's forward
values, each op's gradient (``op.gradient_as_tuple`` and ``backward()``) against central
differences, needle's exact topological orders, compute_gradient_of_variables with a gradient of a
gradient, and numdifftools as the homework uses it. ``import needle`` resolves to the compat package
here, as in the homework's own tests."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import vizad as vz
import vizad.classroom.courses.needle as compat


@pytest.fixture(autouse=True)
def ndl(monkeypatch):
    """``import needle`` and its submodules give the compat package."""
    for name in ("", ".ops", ".autograd", ".init"):
        module = compat if not name else getattr(compat, name[1:])
        monkeypatch.setitem(sys.modules, "needle" + name, module)
    import needle

    np.random.seed(0)
    return needle


def gradient_check(ndl, f, *args, tol=1e-6, backward=False, **kwargs):
    """Central differences of sum(f(*args)) against the op's gradient (or backward())."""
    eps = 1e-4
    numerical = [np.zeros(a.shape) for a in args]
    for i, a in enumerate(args):
        data = a.realize_cached_data()  # edited in place, as the homework's check does
        for j in range(data.size):
            data.flat[j] += eps
            up = float(f(*args, **kwargs).numpy().sum())
            data.flat[j] -= 2 * eps
            down = float(f(*args, **kwargs).numpy().sum())
            data.flat[j] += eps
            numerical[i].flat[j] = (up - down) / (2 * eps)
    if backward:
        out = f(*args, **kwargs).sum()
        out.backward()
        computed = [a.grad.numpy() for a in args]
    else:
        out = f(*args, **kwargs)
        computed = [
            g.numpy() for g in out.op.gradient_as_tuple(ndl.Tensor(np.ones(out.shape)), out)
        ]
    error = sum(np.linalg.norm(c - n) for c, n in zip(computed, numerical))
    assert error < tol, (computed, numerical)
    return computed


def test_forward(ndl):
    T = ndl.Tensor
    np.testing.assert_allclose(
        ndl.divide(
            T([[3.3, 4.35, 1.2], [2.45, 0.95, 2.55]]), T([[4.6, 4.35, 4.8], [0.65, 0.7, 4.4]])
        ).numpy(),
        np.array([[3.3, 4.35, 1.2], [2.45, 0.95, 2.55]])
        / np.array([[4.6, 4.35, 4.8], [0.65, 0.7, 4.4]]),
    )
    np.testing.assert_allclose(
        ndl.power_scalar(T([[0.5, 2.0, 3.0]]), scalar=2).numpy(), [[0.25, 4.0, 9.0]]
    )
    np.testing.assert_allclose(
        ndl.divide_scalar(T([[1.7, 1.45]]), scalar=12).numpy(), [[1.7 / 12, 1.45 / 12]]
    )
    a, b = np.random.randn(6, 6, 5, 4), np.random.randn(4, 3)
    np.testing.assert_allclose(ndl.matmul(T(a), T(b)).numpy(), a @ b)
    np.testing.assert_allclose(ndl.summation(T(a), axes=(1, 2)).numpy(), a.sum(axis=(1, 2)))
    np.testing.assert_allclose(ndl.summation(T(a)).numpy(), a.sum())
    np.testing.assert_allclose(
        ndl.broadcast_to(T([[1.85, 0.85, 0.6]]), shape=(3, 3, 3)).numpy(),
        np.broadcast_to([[1.85, 0.85, 0.6]], (3, 3, 3)),
    )
    np.testing.assert_allclose(ndl.reshape(T(a), shape=(30, 24)).numpy(), a.reshape(30, 24))
    np.testing.assert_allclose(ndl.negate(T([[1.45, 0.55]])).numpy(), [[-1.45, -0.55]])
    # needle's Transpose swaps two axes: the last two by default
    np.testing.assert_allclose(ndl.transpose(T(a), axes=(0, 2)).numpy(), np.swapaxes(a, 0, 2))
    np.testing.assert_allclose(ndl.transpose(T(a)).numpy(), np.swapaxes(a, 2, 3))
    np.testing.assert_allclose(ndl.log(T([[4.0, 1.0]])).numpy(), [[np.log(4.0), 0.0]])
    np.testing.assert_allclose(ndl.exp(T([[0.5, 1.0]])).numpy(), np.exp([[0.5, 1.0]]))
    np.testing.assert_allclose(ndl.relu(T([[-0.5, 2.0]])).numpy(), [[0.0, 2.0]])
    np.testing.assert_allclose(ndl.power(T([[2.0, 3.0]]), T([[3.0, 0.5]])).numpy(), [[8.0, 3**0.5]])
    x = T([[1.0, 2.0]])
    np.testing.assert_allclose((x - 1).numpy(), [[0.0, 1.0]])
    np.testing.assert_allclose((2 - x).numpy(), [[-1.0, 0.0]])  # needle's __rsub__ is __sub__
    np.testing.assert_allclose((x / x).numpy(), [[1.0, 1.0]])
    np.testing.assert_allclose(x.sum().numpy(), 3.0)
    assert x.shape == (1, 2) and x.dtype == np.float64 and repr(x.device) == "cpu()"
    assert repr(x) == "needle.Tensor([[1. 2.]])" and str(x) == "[[1. 2.]]"


@pytest.mark.parametrize(
    "name, shapes, kwargs",
    [
        ("divide", [(5, 4), (5, 4)], {}),
        ("divide_scalar", [(5, 4)], {"scalar": 2.3}),
        ("power_scalar", [(5, 4)], {"scalar": 3}),
        ("multiply", [(5, 4), (5, 4)], {}),
        ("mul_scalar", [(5, 4)], {"scalar": -1.7}),
        ("add", [(5, 4), (5, 4)], {}),
        ("add_scalar", [(5, 4)], {"scalar": 2.0}),
        ("matmul", [(5, 4), (4, 5)], {}),
        ("matmul", [(6, 6, 5, 4), (6, 6, 4, 3)], {}),
        ("matmul", [(6, 6, 5, 4), (4, 3)], {}),
        ("matmul", [(5, 4), (6, 6, 4, 3)], {}),
        ("reshape", [(5, 4)], {"shape": (4, 5)}),
        ("reshape", [(5, 4)], {"shape": (20,)}),
        ("negate", [(2, 3, 4)], {}),
        ("transpose", [(3, 5, 4)], {"axes": (1, 2)}),
        ("transpose", [(3, 5, 4)], {"axes": (0, 1)}),
        ("transpose", [(3, 5, 4)], {}),
        ("broadcast_to", [(3, 1)], {"shape": (3, 3)}),
        ("broadcast_to", [(1, 3)], {"shape": (3, 3)}),
        ("broadcast_to", [(1,)], {"shape": (3, 3, 3)}),
        ("broadcast_to", [()], {"shape": (3, 3, 3)}),
        ("broadcast_to", [(5, 4, 1)], {"shape": (5, 4, 3)}),
        ("summation", [(5, 4)], {"axes": (1,)}),
        ("summation", [(5, 4)], {"axes": (0,)}),
        ("summation", [(5, 4)], {"axes": (0, 1)}),
        ("summation", [(5, 4, 1)], {"axes": (0, 1)}),
        ("summation", [(5, 4)], {"axes": None}),
        ("summation", [(5, 4)], {"axes": -1}),
        ("log", [(5, 4)], {}),
        ("exp", [(5, 4)], {}),
        ("relu", [(5, 4)], {}),
        ("power", [(5, 4), (5, 4)], {}),
    ],
)
@pytest.mark.parametrize("backward", [False, True])
def test_backward(ndl, name, shapes, kwargs, backward):
    def draw(shape):
        value = np.random.randn(*shape)
        return np.abs(value) + 0.5 if name in ("log", "power", "divide") else value

    args = [ndl.Tensor(draw(s)) for s in shapes]
    if name == "relu":  # keep away from the kink
        data = args[0].realize_cached_data()
        data[np.abs(data) < 1e-2] = 0.5
    gradient_check(ndl, getattr(ndl, name), *args, backward=backward, **kwargs)


def test_topo_sort(ndl):
    T = ndl.Tensor
    a1, b1 = T(np.asarray([[0.88282157]])), T(np.asarray([[0.90170084]]))
    c1 = 3 * a1 * a1 + 4 * b1 * a1 - a1
    expected = [0.88282157, 2.64846471, 2.33812177, 0.90170084, 3.60680336, 3.1841638,
                5.52228558, -0.88282157, 4.63946401]  # fmt: skip
    order = ndl.autograd.find_topo_sort([c1])
    np.testing.assert_allclose([x.numpy().item() for x in order], expected, rtol=1e-6, atol=1e-6)

    a2, b2 = T(np.asarray([[0.20914675], [0.65264178]])), T(np.asarray([[0.65394286, 0.08218317]]))
    m1 = b2 @ a2
    s = 2.3412 * b2
    m2 = s @ a2
    total = m1 + m2
    tripled = 3 * total
    c2 = tripled + 1.5
    assert ndl.autograd.find_topo_sort([c2]) == [b2, a2, m1, s, m2, total, tripled, c2]

    a3, b3 = T(np.asarray([[1.4335, 4.9845], [0.0, 1.0]])), T(np.asarray([[0.6, 0.7]]))
    e = a3 @ ndl.transpose(b3)
    c3 = ndl.relu(e) - b3.sum()
    order = ndl.autograd.find_topo_sort([c3])
    assert order[0] is a3 and order[1] is b3 and order[-1] is c3
    assert [type(x.op).__name__ for x in order[2:]] == [
        "Transpose", "MatMul", "ReLU", "Summation", "Negate", "EWiseAdd",
    ]  # fmt: skip


def test_compute_gradient(ndl):
    T = ndl.Tensor
    gradient_check(
        ndl,
        lambda A, B, C: ndl.summation((A @ B + C) * (A @ B), axes=None),
        T(np.random.randn(10, 9)), T(np.random.randn(9, 8)), T(np.random.randn(10, 8)),
        backward=True,
    )  # fmt: skip
    gradient_check(
        ndl,
        lambda A, B: ndl.summation(ndl.broadcast_to(A, shape=(10, 9)) * B, axes=None),
        T(np.random.randn(10, 1)), T(np.random.randn(10, 9)),
        backward=True,
    )  # fmt: skip
    gradient_check(
        ndl,
        lambda A, B, C: ndl.summation(ndl.reshape(A, shape=(10, 10)) @ B / 5 + C, axes=None),
        T(np.random.randn(100)), T(np.random.randn(10, 5)), T(np.random.randn(10, 5)),
        backward=True,
    )  # fmt: skip
    # a gradient of a gradient, with integer tensors as the homework has them
    x2, x3 = T([6]), T([0])
    y = x2 * x2 + x2 * x3
    y.backward()
    grad_x2, grad_x3 = x2.grad, x3.grad
    grad_x2.backward()
    x2_val, x3_val = x2.numpy(), x3.numpy()
    assert y.numpy() == x2_val * x2_val + x2_val * x3_val
    assert grad_x2.numpy() == 2 * x2_val + x3_val
    assert grad_x3.numpy() == x2_val
    assert x2.grad.numpy() == 2
    assert x3.grad.numpy() == 1


def test_numdifftools_as_the_homework_uses_it(ndl):
    nd = pytest.importorskip("numdifftools")
    x0 = np.random.randn(3, 4)

    def f(flat):
        return float(ndl.summation(ndl.exp(ndl.Tensor(flat.reshape(3, 4))) * 2).numpy())

    x = ndl.Tensor(x0)
    ndl.summation(ndl.exp(x) * 2).backward()
    np.testing.assert_allclose(x.grad.numpy().ravel(), nd.Gradient(f)(x0.ravel()), rtol=1e-6)


def test_init_and_fields(ndl):
    r = ndl.init.rand(3, 4, low=-2, high=3)
    assert r.shape == (3, 4) and r.dtype == np.float32 and not r.requires_grad
    assert ((r.numpy() >= -2) & (r.numpy() < 3)).all()
    assert ndl.init.randn(2, 5, mean=1.0, std=0.1).shape == (2, 5)
    np.testing.assert_array_equal(ndl.init.ones(2, 2).numpy(), np.ones((2, 2), np.float32))
    np.testing.assert_array_equal(ndl.init.zeros(3).numpy(), np.zeros(3, np.float32))
    np.testing.assert_array_equal(
        ndl.init.one_hot(3, ndl.Tensor([2, 0])).numpy(), [[0, 0, 1], [1, 0, 0]]
    )
    x = ndl.Tensor([[1.0, -2.0]])
    y = ndl.relu(x) * 3
    assert y.inputs[0].inputs[0] is x and isinstance(y.op, ndl.ops.MulScalar) and y.op.scalar == 3
    assert x.is_leaf() and not y.is_leaf()
    d = y.detach()
    assert d.is_leaf() and not d.requires_grad
    assert d.realize_cached_data() is y.realize_cached_data()  # the data is shared, not copied
    assert not d.numpy().flags.writeable  # and read-only through numpy()
    x.data = ndl.Tensor([[5.0, 6.0]])
    np.testing.assert_array_equal(x.numpy(), [[5.0, 6.0]])
    # results that need no gradient are detached constants, as needle's make_from_op makes them
    c = ndl.Tensor([1.0], requires_grad=False) + 1
    assert c.is_leaf() and not c.requires_grad


def test_drawn_and_stepped_with_needle_names(ndl):
    x = ndl.Tensor([[1.0, 2.0]])
    w = ndl.Tensor([[3.0], [-4.0]])
    y = ndl.summation(ndl.relu(x @ w) + 2)
    source = vz.draw(y).source
    for name in ("MatMul", "ReLU", "AddScalar", "Summation", "scalar=2"):
        assert name in source, name
    trace = vz.trace_reverse(y)
    assert len(trace.wrt) == 2
    assert trace.check() == []  # every needle rule agrees with central differences
    vz.step(y)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0.0, 0.0]])  # relu(−5) = 0


def test_wrong_student_gradient_is_named(ndl):
    class Broken(ndl.autograd.TensorOp):
        def compute(self, a):
            return a.sum(axis=0)

        def gradient(self, out_grad, node):
            return out_grad  # forgot to broadcast back

    x = ndl.Tensor(np.ones((3, 2)))
    with pytest.raises(
        vz.errors.ShapeError, match=r"vjp of op 'Broken'.*shape \(2,\).*shape \(3, 2\)"
    ):
        Broken()(x).sum().backward()
