"""Every composition of forward and reverse mode, tuples, dtypes and numpy's matmul: the
reproductions of the engine issue, each with the right answer."""

import numpy as np
import pytest

import vizad as vz


def test_forward_over_forward_with_an_undeclared_shape():
    x = vz.Variable("x")
    assert vz.evaluate(vz.jvp(vz.jvp(x * x * x, {x: 1.0}), {x: 1.0}), {x: 2.0}) == 12.0


def test_forward_over_reverse_hessian_vector_product():
    x = vz.Variable("x")
    (g,) = vz.gradients(vz.sum(x * x), [x])
    hvp = vz.jvp(g, {x: np.ones(3)})
    np.testing.assert_array_equal(vz.evaluate(hvp, {x: np.arange(3.0)}), [2.0, 2.0, 2.0])


@pytest.mark.parametrize("op", ["broadcast_to", "sum_to_shape", "reshape"])
def test_target_shape_ops_take_no_tangent_from_their_target(op):
    """Only the data input has a tangent to pass on; the target lends its shape."""
    x, r = vz.Variable("x"), vz.Variable("r")
    data, target = {"broadcast_to": (x, r), "sum_to_shape": (r, x), "reshape": (x, r)}[op]
    y = getattr(vz.ops, op)(data, target)
    feed = {
        x: np.ones((2, 3)) if op != "broadcast_to" else np.ones(3),
        r: np.ones((2, 3)) if op != "sum_to_shape" else np.ones((4, 2, 3)),
    }
    if op == "reshape":
        feed[r] = np.ones((3, 2))
    tangent = vz.jvp(y, {target: np.ones_like(feed[target])})
    assert np.all(vz.evaluate(tangent, feed) == 0)


def test_nested_tuples_add_element_by_element():
    x = vz.Variable("x")
    t = vz.make_tuple(vz.make_tuple(x))
    ((v,),) = vz.evaluate(vz.ops.add_n(t, t), {x: 1.5})
    assert v == 3.0
    tt = vz.make_tuple(vz.make_tuple(x), x)
    y = vz.make_tuple(vz.tuple_get(tt, 0), vz.tuple_get(tt, 1))
    (g,) = vz.evaluate(vz.gradients(y, [x]), {x: np.ones(2)})
    np.testing.assert_array_equal(g, [2.0, 2.0])


def test_tuple_shapes_with_an_unknown_element():
    x, c = vz.Variable("x"), vz.Variable("c", shape=(2,))
    t = vz.make_tuple(x, c)
    seed = vz.make_tuple(vz.constant(2.0), vz.constant([1.0, 3.0]))
    gx, gc = vz.evaluate(
        vz.gradients(vz.make_tuple(t[0], t[1]), [x, c], cotangent=seed), {x: 1.0, c: np.ones(2)}
    )
    assert gx == 2.0 and list(gc) == [1.0, 3.0]
    trace = vz.trace_reverse(vz.sum(t[0]) + vz.sum(t[1]), [x, c], {x: 1.0, c: np.ones(2)})
    assert [list(np.ravel(trace.step_of(n).adjoint)) for n in (x, c)] == [[1.0], [1.0, 1.0]]


def test_power_zero_has_an_exact_zero_derivative():
    x = vz.Variable("x")
    assert vz.evaluate(vz.gradients(x**0, [x]), {x: 0.0})[0] == 0.0
    g = vz.evaluate(vz.gradients(x**0, [x]), {x: np.array(3.0)})[0]
    assert g == 0
    assert vz.evaluate(vz.jvp(x**0, {x: 1.0}), {x: 0.0}) == 0.0


def test_integer_powers_stay_integral_and_negative_ones_promote():
    x = vz.Variable("x")
    value = vz.evaluate(x**3, {x: np.array([2, 3])})
    assert value.dtype.kind == "i" and list(value) == [8, 27]
    np.testing.assert_allclose(vz.evaluate(x**-2, {x: np.array([2, 4])}), [0.25, 1 / 16])
    # gradients need floating-point inputs, as in PyTorch and JAX
    with pytest.raises(vz.errors.FeedError, match="'x' is differentiated but was fed int64"):
        vz.evaluate(vz.gradients(x**3, [x]), {x: np.array([2, 3])})


def test_an_elementwise_op_that_defines_vjp_is_refused_when_defined():
    with pytest.raises(vz.errors.GraphError, match="defines vjp.*partials"):

        class Twice(vz.extend.ElementwiseOp):
            def compute(self, x):
                return 2 * x

            def partials(self, node):
                return [vz.constant(2.0)]

            def vjp(self, node, adjoint):
                return [adjoint * 3]


def test_partials_are_nodes_or_symbolic_constants():
    assert (
        repr(vz.extend.ONE) == "vz.extend.ONE" and vz.extend.ZERO == 0 and vz.extend.MINUS_ONE == -1
    )

    class Bad(vz.extend.ElementwiseOp):
        arity = 1

        def compute(self, x):
            return x

        def partials(self, node):
            return ["one"]

    x = vz.Variable("x")
    with pytest.raises(vz.errors.GraphError, match=r"partials of op 'bad'.*str for input 0"):
        vz.gradients(Bad()(x), [x])


FUNCTIONS = {
    "scale": lambda x: x * 2.0,
    "shift": lambda x: x + 1,
    "log": vz.log,
    "reciprocal": lambda x: 1 / x,
    "cube": lambda x: x**3,
    "sqrt": vz.sqrt,
    "tanh": vz.tanh,
    "sigmoid": vz.sigmoid,
    "mean": vz.mean,
    "power": lambda x: x**-1.5,
    "relu": vz.relu,
    "log_softmax": vz.log_softmax,
    "size": lambda x: vz.ops.size(x) * x,
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_float32_stays_float32(name):
    x = vz.Variable("x")
    y = FUNCTIONS[name](x)
    (g,) = vz.gradients(y, [x])
    values = vz.evaluate(
        [y, g, vz.jvp(y, {x: 1.0}), vz.jvp(g, {x: 1.0})], {x: np.array([2.0, 3.0], np.float32)}
    )
    assert [v.dtype for v in values] == [np.float32] * 4


def test_python_literals_are_weakly_typed_and_arrays_are_not():
    x = vz.Variable("x")
    feed = {x: np.array([1, 2], np.int8)}
    assert vz.evaluate(x + 1, feed).dtype == np.int8
    assert vz.evaluate(x * 2.5, {x: np.float32(2)}).dtype == np.float32
    assert vz.evaluate(x * np.float64(2.5), {x: np.float32(2)}).dtype == np.float64
    with pytest.raises(vz.errors.GraphError, match="beyond 64 bits"):
        vz.constant(2**70)


@pytest.mark.parametrize(
    "sa,sb",
    [
        ((3,), (3, 4)),
        ((2, 3), (3,)),
        ((3,), (3,)),
        ((5, 2, 3), (3, 4)),
        ((2, 3), (5, 3, 4)),
        ((5, 1, 2, 3), (4, 3, 2)),
        ((3,), (2, 3, 4)),
        ((2, 2, 3), (3,)),
    ],
)
@pytest.mark.parametrize("declared", [True, False])
def test_matmul_like_numpy(sa, sb, declared):
    rng = np.random.default_rng(0)
    a_val, b_val = rng.standard_normal(sa), rng.standard_normal(sb)
    a = vz.Variable("a", shape=sa if declared else None)
    b = vz.Variable("b", shape=sb if declared else None)
    y = a @ b
    feed = {a: a_val, b: b_val}
    np.testing.assert_allclose(vz.evaluate(y, feed), a_val @ b_val, rtol=1e-12)
    if not declared and (len(sa) == 1 or len(sb) == 1):
        # 1-D operands: the adjoint graph needs their dimensions; a trace knows them
        trace = vz.trace_reverse(y, [a, b], feed)
        grads = [trace.step_of(a).adjoint, trace.step_of(b).adjoint]
    else:
        grads = vz.evaluate(vz.gradients(y, [a, b]), feed)
        assert vz.gradcheck(y, [a, b], feed).ok
    w = np.ones(np.shape(a_val @ b_val))
    expected = vz.numerical_gradient(y, [a, b], feed, cotangent=w)
    for g, e, x in zip(grads, expected, (a_val, b_val)):
        assert np.shape(g) == np.shape(x)
        np.testing.assert_allclose(g, e, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_batched_matmul_with_trans_flags(ta, tb):
    rng = np.random.default_rng(1)
    a_val = rng.standard_normal((4, 3, 2) if ta else (4, 2, 3))
    b_val = rng.standard_normal((5, 3) if tb else (3, 5))
    a, b = vz.Variable("a", shape=a_val.shape), vz.Variable("b", shape=b_val.shape)
    y = vz.matmul(a, b, ta, tb)
    feed = {a: a_val, b: b_val}
    expected = np.matmul(np.swapaxes(a_val, -1, -2) if ta else a_val, b_val.T if tb else b_val)
    np.testing.assert_allclose(vz.evaluate(y, feed), expected, rtol=1e-12)
    assert vz.gradcheck(y, [a, b], feed).ok


def test_transpose_with_negative_axes():
    A = vz.Variable("A")
    for shape, axes in (((2, 3), (-1, 0)), ((2, 3, 4), (1, -1, 0))):
        value = np.arange(np.prod(shape), dtype=float).reshape(shape)
        assert vz.gradcheck(vz.transpose(A, axes), [A], {A: value}).ok
    with pytest.raises(vz.errors.ShapeError, match="not a permutation"):
        vz.transpose(A, (0, 2))


def test_every_deliberate_error_is_a_vizad_error():
    import vizad.errors as errors

    for name in errors.__all__:
        assert issubclass(getattr(errors, name), vz.VizadError)
    with pytest.raises(vz.VizadError):
        vz.draw(vz.Variable("x"), view="sideways")
    with pytest.raises(vz.VizadError):
        vz.expr.parse_expression("x +")
