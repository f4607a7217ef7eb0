"""The engine on the examples of the lecture and the course, and its invariants."""

import math

import numpy as np
import pytest

import vizad as vz


@pytest.fixture
def lecture():
    x1, x2 = vz.Variable("x1"), vz.Variable("x2")
    y = vz.log(x1) + x1 * x2 - vz.sin(x2)
    return x1, x2, y


def test_lecture_example_values_and_gradients(lecture):
    x1, x2, y = lecture
    g1, g2 = vz.gradients(y, [x1, x2])
    y_val, g1_val, g2_val = vz.Executor([y, g1, g2]).run({x1: 2.0, x2: 5.0})
    assert y_val == pytest.approx(math.log(2) + 10 - math.sin(5))
    assert g1_val == pytest.approx(5.5)
    assert g2_val == pytest.approx(2 - math.cos(5))
    assert round(float(g2_val), 3) == 1.716


def test_lecture_example_forward_mode(lecture):
    x1, x2, y = lecture
    feed = {x1: 2.0, x2: 5.0}
    assert vz.evaluate(vz.jvp(y, {x1: 1.0}), feed) == pytest.approx(5.5)
    assert vz.evaluate(vz.jvp(y, {x2: 1.0}), feed) == pytest.approx(2 - math.cos(5))


def test_lecture_numbering(lecture):
    x1, x2, y = lecture
    number = vz.numbering(y)
    by_number = {k: node for node, k in number.items()}
    assert by_number[1] is x1 and by_number[2] is x2
    assert [by_number[k].op.name for k in range(3, 8)] == ["log", "mul", "sin", "add", "sub"]
    assert by_number[4].inputs == (x1, x2)
    assert by_number[6].inputs == (by_number[3], by_number[4])
    assert by_number[7].inputs == (by_number[6], by_number[5])
    assert vz.extend.ranked_order(y) == [by_number[k] for k in range(1, 8)]


def test_lecture_partial_adjoints(lecture):
    """v̄2 = v̄2→5 + v̄2→4 = −0.284 + 2 and v̄1 = v̄1→4 + v̄1→3 = 5 + 0.5, read from the record."""
    x1, x2, y = lecture
    record = vz.extend.build_adjoints(y, [x1, x2])
    by_number = {k: n for n, k in vz.numbering(y).items()}
    feed = {x1: 2.0, x2: 5.0}

    def partial_values(node):
        return {
            vz.numbering(y)[p.consumer]: float(vz.evaluate(p.node, feed))
            for p in record.partials(node)
        }

    v2 = partial_values(x2)
    assert v2[5] == pytest.approx(-math.cos(5)) and v2[4] == pytest.approx(2.0)
    assert partial_values(x1) == pytest.approx({4: 5.0, 3: 0.5})
    # the order of the steps is the reverse display order v7 … v1
    assert list(record.order) == [by_number[k] for k in range(7, 0, -1)]
    adjoints = [float(vz.evaluate(record.adjoint(by_number[k]), feed)) for k in range(7, 0, -1)]
    assert adjoints == pytest.approx([1, 1, -1, 1, 1, 2 - math.cos(5), 5.5])
    # the sums are add_n nodes over exactly those partials
    sum_node = record.adjoint(x2)
    assert sum_node.op.name == "add_n"
    assert set(sum_node.inputs) == {p.node for p in record.partials(x2)}
    # every node made by the extension knows its record
    assert all(
        n.origin is record
        for n in vz.topo_sort(record.gradients)
        if n not in set(vz.topo_sort(y)) and n.op.name != "constant"
    )


def test_course_example_multi_var_chain_rule():
    x1 = vz.Variable("x1")
    x2 = x1 + 3
    x3 = x1 + 5
    y = x2 * x3
    grads = vz.gradients(y, [x1, x2, x3])
    x1_val = np.array([1.0, 2.0, -3.0])
    y_val, g1, g2, g3 = vz.Executor([y] + grads).run({x1: x1_val})
    np.testing.assert_array_equal(y_val, (x1_val + 3) * (x1_val + 5))
    np.testing.assert_array_equal(g1, 2 * x1_val + 8)
    np.testing.assert_array_equal(g2, x1_val + 5)
    np.testing.assert_array_equal(g3, x1_val + 3)


def test_course_example_numbering_shows_constants_by_value():
    x1 = vz.Variable("x1")
    x2, x3 = x1 + 3, x1 + 5
    y = x2 * x3
    assert vz.numbering(y) == {x1: 1, x2: 2, x3: 3, y: 4}
    assert len(vz.extend.ranked_order(y)) == 6  # the constants 3 and 5 are nodes all the same


def test_reused_nodes_keep_every_edge():
    a = vz.Variable("a")
    b = a + a
    c = b + b
    assert b.inputs == (a, a)
    (g,) = vz.gradients(c, [a])
    assert vz.evaluate(g, {a: 3.0}) == 4.0
    sq = a * a
    assert sq.inputs == (a, a)
    record = vz.extend.build_adjoints(sq, [a])
    assert [p.index for p in record.partials(a)] == [0, 1]
    assert vz.evaluate(record.gradients[0], {a: 3.0}) == 6.0


def test_gradient_of_gradient_to_third_order():
    x = vz.Variable("x")
    y = x * x * x + vz.sin(x)
    (g1,) = vz.gradients(y, [x])
    (g2,) = vz.gradients(g1, [x])
    (g3,) = vz.gradients(g2, [x])
    v = 0.7
    values = vz.evaluate([g1, g2, g3], {x: v})
    assert values == pytest.approx([3 * v * v + math.cos(v), 6 * v - math.sin(v), 6 - math.cos(v)])
    # each generation's nodes point at their own record
    assert g1.origin is not g2.origin and g2.origin.output is g1


def test_hessian_vector_product_matches_forward_over_reverse():
    x = vz.Variable("x", shape=(3,))
    A = np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]])
    y = 0.5 * vz.sum(vz.matmul(x, vz.constant(A)) * x)  # ½ xᵀAx, A symmetric: ∇ = Ax
    (g,) = vz.gradients(y, [x])
    u = np.array([1.0, -1.0, 2.0])
    (hvp,) = vz.gradients(vz.sum(g * u), [x])
    fwd = vz.jvp(g, {x: u})
    point = {x: np.array([0.3, -0.2, 0.5])}
    np.testing.assert_allclose(vz.evaluate(hvp, point), A @ u)
    np.testing.assert_allclose(vz.evaluate(fwd, point), A @ u)


@pytest.mark.parametrize("trans_a", [False, True])
@pytest.mark.parametrize("trans_b", [False, True])
def test_matmul_flags(trans_a, trans_b):
    rng = np.random.default_rng(0)
    A = rng.standard_normal((3, 2) if trans_a else (2, 3))
    B = rng.standard_normal((4, 3) if trans_b else (3, 4))
    a, b = vz.Variable("A"), vz.Variable("B")
    c = vz.matmul(a, b, trans_a, trans_b)
    ga, gb = vz.gradients(c, [a, b])
    c_val, ga_val, gb_val = vz.Executor([c, ga, gb]).run({a: A, b: B})
    opA, opB = (A.T if trans_a else A), (B.T if trans_b else B)
    np.testing.assert_allclose(c_val, opA @ opB)
    ones = np.ones((2, 4))
    dA, dB = ones @ opB.T, opA.T @ ones
    np.testing.assert_allclose(ga_val, dA.T if trans_a else dA)
    np.testing.assert_allclose(gb_val, dB.T if trans_b else dB)


def test_tensor_example_xbar_is_zbar_w_transposed():
    X, W = vz.Variable("X", shape=(2, 3)), vz.Variable("W", shape=(3, 4))
    Z = X @ W
    v = vz.sum(vz.tanh(Z))
    record = vz.extend.build_adjoints(v, [X, W])
    (partial,) = record.partials(X)
    assert partial.consumer is Z
    assert partial.node.op.name == "matmul" and partial.node.attrs["trans_b"]
    assert partial.node.inputs == (record.adjoint(Z), W)
    rng = np.random.default_rng(1)
    feed = {X: rng.standard_normal((2, 3)), W: rng.standard_normal((3, 4))}
    Zbar = 1 - np.tanh(feed[X] @ feed[W]) ** 2
    np.testing.assert_allclose(vz.evaluate(record.gradients[0], feed), Zbar @ feed[W].T)


def test_broadcasting_adjoint_goes_through_one_sum_to_shape_node():
    x = vz.Variable("x", shape=(2, 3))
    b = vz.Variable("b", shape=(3,))
    y = vz.sum(x * b)
    record = vz.extend.build_adjoints(y, [x, b])
    (partial,) = record.partials(b)
    assert partial.node.op.name == "sum_to_shape"
    assert partial.node.attrs["shape"] == (3,)
    (partial_x,) = record.partials(x)
    assert partial_x.node.op.name == "mul"  # x has the output's shape: nothing to reduce
    feed = {x: np.arange(6.0).reshape(2, 3), b: np.array([1.0, 2.0, 3.0])}
    np.testing.assert_allclose(vz.evaluate(record.gradients[1], feed), feed[x].sum(axis=0))


def test_unknown_shapes_reduce_at_run_time():
    x, b = vz.Variable("x"), vz.Variable("b")
    (gb,) = vz.gradients(vz.sum(x * b), [b])
    assert vz.evaluate(gb, {x: np.ones((4, 3)), b: 2.0}) == 4 * 3
    np.testing.assert_allclose(vz.evaluate(gb, {x: np.ones((4, 3)), b: np.ones(3)}), [4, 4, 4])


def test_shape_hints_leave_out_sum_to_shape_where_nothing_broadcast(lecture):
    x1, x2, y = lecture
    conservative = vz.topo_sort(vz.gradients(y, [x1, x2]))
    assert any(n.op.name == "sum_to_shape" for n in conservative)
    shapes = {n: () for n in vz.topo_sort(y)}
    exact = vz.gradients(y, [x1, x2], shapes=shapes)
    assert not any(n.op.name == "sum_to_shape" for n in vz.topo_sort(exact))
    assert vz.evaluate(exact, {x1: 2.0, x2: 5.0}) == pytest.approx([5.5, 2 - math.cos(5)])


def test_unreached_input_gets_zeros_like():
    x, z = vz.Variable("x"), vz.Variable("z")
    y = vz.exp(x)
    gx, gz = vz.gradients(y, [x, z])
    assert gz.op.name == "zeros_like" and gz.inputs == (z,)
    np.testing.assert_array_equal(vz.evaluate(gz, {x: 0.0, z: np.ones(2)}), [0.0, 0.0])


def test_non_scalar_output_default_seed_is_gradient_of_sum():
    x = vz.Variable("x")
    y = x * x
    (g,) = vz.gradients(y, [x])
    np.testing.assert_allclose(vz.evaluate(g, {x: np.array([1.0, 2.0])}), [2.0, 4.0])
    (gs,) = vz.gradients(y, [x], cotangent=np.array([1.0, 0.0]))
    np.testing.assert_allclose(vz.evaluate(gs, {x: np.array([1.0, 2.0])}), [2.0, 0.0])


def test_tuple_values_and_tuple_adjoint():
    a, b = vz.Variable("a"), vz.Variable("b")
    t = vz.make_tuple(a * b, a + b)
    y = vz.tuple_get(t, 0) * vz.tuple_get(t, 1)  # (ab)(a+b)
    record = vz.extend.build_adjoints(y, [a, b])
    adjoint_t = record.adjoint(t)
    assert adjoint_t.op.name == "add_n"  # two consumers: a sum of two tuples
    feed = {a: 2.0, b: 3.0}
    value = vz.evaluate(adjoint_t, feed)
    assert isinstance(value, tuple) and len(value) == 2
    assert [float(v) for v in value] == [5.0, 6.0]  # (∂y/∂t0, ∂y/∂t1) = (t1, t0)
    ga, gb = vz.evaluate(record.gradients, feed)
    assert (ga, gb) == (2 * 2 * 3 + 3 * 3, 2 * 2 + 2 * 2 * 3)
    assert vz.evaluate(t, feed) == (6.0, 5.0)
    assert vz.evaluate(t[1], feed) == 5.0


class Square(vz.Op):
    name = "test_square"

    def compute(self, x):
        return x * x

    def vjp(self, node, adjoint):
        (x,) = node.inputs
        return [adjoint * 2 * x]


def test_custom_op_reverse_mode_and_clear_forward_error():
    square = Square()
    x = vz.Variable("x")
    y = vz.sin(square(x))
    (g,) = vz.gradients(y, [x])
    assert vz.evaluate(g, {x: 0.5}) == pytest.approx(math.cos(0.25) * 2 * 0.5)
    report = vz.gradcheck(y, [x], {x: np.array([0.5, -1.2])})
    assert report.ok
    with pytest.raises(NotImplementedError, match="test_square.*forward mode"):
        vz.jvp(y, {x: 1.0})
    assert "test_square" not in vz.extend.registry()


@pytest.mark.slow
def test_200k_node_chain_builds_and_runs_without_recursion():
    x = vz.Variable("x")
    y = x
    for _ in range(200_000):
        y = vz.sin(y)
    (g,) = vz.gradients(y, [x])
    assert len(vz.topo_sort(y)) == 200_001
    y_val, g_val = vz.Executor([y, g]).run({x: 1.0})
    value, slope = 1.0, 1.0
    for _ in range(200_000):
        slope *= math.cos(value)
        value = math.sin(value)
    assert y_val == pytest.approx(value) and g_val == pytest.approx(slope)
    (t,) = [vz.jvp(y, {x: 1.0})]
    assert vz.evaluate(t, {x: 1.0}) == pytest.approx(slope)


def test_deterministic_structure():
    def build():
        x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        grads = vz.gradients(y, [x1, x2])
        order = vz.extend.ranked_order(grads)
        base = min(n.id for n in order)
        return [(n.op.name, n.id - base, tuple(i.id - base for i in n.inputs)) for n in order]

    assert build() == build()


def test_nodes_are_immutable_and_hash_by_identity():
    x = vz.Variable("x")
    with pytest.raises(AttributeError):
        x.name = "y"
    with pytest.raises(AttributeError):
        x.inputs = (x,)
    with pytest.raises(AttributeError):
        x.extra = 1
    a, b = x + 1, x + 1
    assert a is not b and len({a, b}) == 2
    assert (2 + x).inputs[1] is x and (2 * x).op.name == "mul" and (1 - x).op.name == "sub"
    assert (1 / x).op.name == "div" and (-x).op.name == "neg" and (x**2).op.name == "power"
    assert (np.float64(2.0) * x).op.name == "mul"
    assert (np.ones((2, 2)) @ vz.Variable("m")).op.name == "matmul"


def test_nan_and_inf_propagate_like_numpy():
    x = vz.Variable("x")
    with np.errstate(all="ignore"):
        y_val, g_val = vz.evaluate(
            [vz.log(x), vz.gradients(vz.log(x), [x])[0]], {x: np.array([-1.0, 0.0, 1.0])}
        )
    assert np.isnan(y_val[0]) and y_val[1] == -np.inf and y_val[2] == 0
    assert np.isinf(g_val[1]) and g_val[2] == 1


def test_sigmoid_and_log_softmax_are_stable():
    x = vz.Variable("x")
    big = np.array([-1000.0, 0.0, 1000.0])
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        np.testing.assert_allclose(vz.evaluate(vz.sigmoid(x), {x: big}), [0.0, 0.5, 1.0])
        ls = vz.evaluate(vz.log_softmax(x), {x: big})
    assert np.all(np.isfinite(ls)) and ls[2] == pytest.approx(0.0)


def test_reprs_show_expressions_not_ids():
    x1, x2 = vz.Variable("x1"), vz.Variable("x2")
    y = vz.log(x1) + x1 * x2 - vz.sin(x2)
    assert repr(y) == "<Node sub(add(log(x1), mul(x1, x2)), sin(x2))>"
    deep = vz.exp(vz.exp(vz.exp(vz.exp(x1))))
    assert str(deep) == "exp(exp(exp(…)))" and "#" not in repr(deep)
    assert repr(vz.Variable("v", shape=(3,))) == "<Node v shape=(3,)>"


def test_scopes_nest_and_reject_bad_names():
    x = vz.Variable("x")
    with vz.scope("outer"):
        a = x * 2
        with vz.scope("inner") as path:
            b = a + 1
    c = b - 1
    assert (x.scope, a.scope, b.scope, c.scope) == ((), ("outer",), ("outer", "inner"), ())
    assert path == ("outer", "inner")
    (g,) = vz.gradients(c, [x])
    assert g.scope == ()  # built outside: drawings place adjoint nodes by the node they are for
    for bad in ("", "  ", 3, None):
        with pytest.raises(TypeError, match="non-empty string"):
            with vz.scope(bad):
                pass


def _fresh_python(code: str) -> list[str]:
    """The lines ``code`` prints in a fresh interpreter."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.splitlines()


def test_import_vizad_loads_only_numpy_and_the_engine():
    """The drawing and widget stack (graphviz, ipywidgets, anywidget) loads on first use."""
    code = (
        "import sys, vizad\n"
        "heavy = ('graphviz', 'ipywidgets', 'anywidget', 'IPython')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
        "vizad.draw\n"
        "print('graphviz' in sys.modules, 'anywidget' in sys.modules)\n"
        "vizad.Stepper\n"
        "print('anywidget' in sys.modules)"
    )
    assert _fresh_python(code) == ["[]", "True False", "True"]


def test_walkthroughs_and_checks_load_on_first_use_and_stay_functions():
    """trace, numerical, diagnosis, derivatives load when first used; vz.gradcheck,
    vz.diagnose and vz.jacobian are functions even when their modules are imported first."""
    code = (
        "import sys, vizad as vz\n"
        "later = ('vizad.trace', 'vizad.engine.numerical', 'vizad.classroom.diagnosis',"
        " 'vizad.engine.derivatives')\n"
        "print(sorted(m for m in later if m in sys.modules))\n"
        "import vizad.trace.check, vizad.classroom.exercises, vizad.engine.derivatives\n"
        "print(all(callable(f) and f.__name__ == n for n, f in [\n"
        "    ('gradcheck', vz.gradcheck), ('diagnose', vz.diagnose), ('jacobian', vz.jacobian)]))\n"
        "print(vz.trace_reverse.__module__, 'trace_reverse' in dir(vz))"
    )
    assert _fresh_python(code) == ["[]", "True", "vizad.trace.build True"]


def test_a_record_lists_the_nodes_it_names():
    x1, x2 = vz.Variable("x1"), vz.Variable("x2")
    y = vz.log(x1) + x1 * x2 - vz.sin(x2)
    record = vz.extend.build_adjoints(y, [x1, x2])
    named = set(record.nodes())
    assert {record.adjoint(n) for n in record.order} <= named
    assert {p.node for n in record.order for p in record.partials(n)} <= named
    assert {p.local for p in record.partials(x2) if isinstance(p.local, vz.extend.Node)} <= named
    assert set(record.gradients) | {record.seed} <= named
    forward = set(vz.topo_sort(y))  # a rule may name forward nodes: x2 is ∂(x1 x2)/∂x1
    assert all(n.origin is record or n in forward for n in named)
    assert x2 in named and x1 in named
