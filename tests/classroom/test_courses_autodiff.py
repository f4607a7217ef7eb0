"""The CSE 599W assignment-1 API: the checks a course's own autodiff tests make."""

import numpy as np
import pytest

import vizad.classroom.courses.autodiff as ad


def test_identity():
    x2 = ad.Variable(name="x2")
    y = x2
    (grad_x2,) = ad.gradients(y, [x2])
    x2_val = 2 * np.ones(3)
    y_val, grad_x2_val = ad.Executor([y, grad_x2]).run(feed_dict={x2: x2_val})
    assert isinstance(y, ad.Node)
    assert np.array_equal(y_val, x2_val)
    assert np.array_equal(grad_x2_val, np.ones_like(x2_val))


def test_add_and_mul_by_const():
    x2 = ad.Variable(name="x2")
    for y, grad in (
        (5 + x2, 1),
        (x2 + 5, 1),
        (5 * x2, 5),
        (x2 * 5, 5),
        (ad.add_byconst_op(x2, 5), 1),
        (ad.mul_byconst_op(x2, 5), 5),
    ):
        (grad_x2,) = ad.gradients(y, [x2])
        x2_val = 2 * np.ones(3)
        y_val, grad_x2_val = ad.Executor([y, grad_x2]).run(feed_dict={x2: x2_val})
        assert isinstance(y, ad.Node)
        assert np.array_equal(grad_x2_val, np.ones_like(x2_val) * grad)
    x = ad.Variable(name="x")
    assert np.array_equal(ad.Executor([5 * x + 2]).run({x: np.arange(3)})[0], [2, 7, 12])


def test_two_vars_and_mixes():
    x1, x2, x3, x4 = (ad.Variable(name=f"x{k}") for k in range(1, 5))
    x1_val, x2_val, x3_val, x4_val = (k * np.ones(3) for k in range(1, 5))
    feed = {x1: x1_val, x2: x2_val, x3: x3_val, x4: x4_val}

    y = ad.add_op(x2, x3)
    g2, g3 = ad.gradients(y, [x2, x3])
    y_val, g2_val, g3_val = ad.Executor([y, g2, g3]).run(feed)
    assert np.array_equal(y_val, x2_val + x3_val)
    assert np.array_equal(g2_val, np.ones(3)) and np.array_equal(g3_val, np.ones(3))

    y = ad.mul_op(x2, x3)
    g2, g3 = ad.gradients(y, [x2, x3])
    y_val, g2_val, g3_val = ad.Executor([y, g2, g3]).run(feed)
    assert np.array_equal(y_val, x2_val * x3_val)
    assert np.array_equal(g2_val, x3_val) and np.array_equal(g3_val, x2_val)

    y = x1 + x2 * x3 * x1
    g1, g2, g3 = ad.gradients(y, [x1, x2, x3])
    y_val, g1_val, g2_val, g3_val = ad.Executor([y, g1, g2, g3]).run(feed)
    assert np.array_equal(y_val, x1_val + x2_val * x3_val * x1_val)
    assert np.array_equal(g1_val, 1 + x2_val * x3_val)
    assert np.array_equal(g2_val, x3_val * x1_val)
    assert np.array_equal(g3_val, x2_val * x1_val)

    y = x1 + x2 * x3 * x4
    grads = ad.gradients(y, [x1, x2, x3, x4])
    values = ad.Executor([y] + grads).run(feed)
    assert np.array_equal(values[0], x1_val + x2_val * x3_val * x4_val)
    for got, want in zip(
        values[1:], (np.ones(3), x3_val * x4_val, x2_val * x4_val, x2_val * x3_val)
    ):
        assert np.array_equal(got, want)

    z = x2 * x2 + x2 + x3 + 3
    y = z * z + x3
    g2, g3 = ad.gradients(y, [x2, x3])
    y_val, g2_val, g3_val = ad.Executor([y, g2, g3]).run(feed)
    z_val = x2_val * x2_val + x2_val + x3_val + 3
    assert np.array_equal(y_val, z_val * z_val + x3_val)
    assert np.array_equal(g2_val, 2 * z_val * (2 * x2_val + 1))
    assert np.array_equal(g3_val, 2 * z_val + 1)


def test_grad_of_grad():
    x2, x3 = ad.Variable(name="x2"), ad.Variable(name="x3")
    y = x2 * x2 + x2 * x3
    g2, g3 = ad.gradients(y, [x2, x3])
    g22, g23 = ad.gradients(g2, [x2, x3])
    x2_val, x3_val = 2 * np.ones(3), 3 * np.ones(3)
    values = ad.Executor([y, g2, g3, g22, g23]).run({x2: x2_val, x3: x3_val})
    assert np.array_equal(values[0], x2_val * x2_val + x2_val * x3_val)
    assert np.array_equal(values[1], 2 * x2_val + x3_val)
    assert np.array_equal(values[2], x2_val)
    assert np.array_equal(values[3], 2 * np.ones(3))
    assert np.array_equal(values[4], np.ones(3))


def test_matmul_two_vars_with_flags():
    x2, x3 = ad.Variable(name="x2"), ad.Variable(name="x3")
    x2_val = np.array([[1, 2], [3, 4], [5, 6]])  # 3x2, integers
    x3_val = np.array([[7, 8, 9], [10, 11, 12]])  # 2x3
    y = ad.matmul_op(x2, x3)
    g2, g3 = ad.gradients(y, [x2, x3])
    y_val, g2_val, g3_val = ad.Executor([y, g2, g3]).run({x2: x2_val, x3: x3_val})
    ones = np.ones_like(x2_val @ x3_val)
    assert np.array_equal(y_val, x2_val @ x3_val)
    assert np.array_equal(g2_val, ones @ x3_val.T)
    assert np.array_equal(g3_val, x2_val.T @ ones)

    y = ad.matmul_op(x2, x3, trans_A=True, trans_B=True)  # (3x2)ᵀ (2x3)ᵀ = 2x2
    g2, g3 = ad.gradients(y, [x2, x3])
    y_val, g2_val, g3_val = ad.Executor([y, g2, g3]).run({x2: x2_val, x3: x3_val})
    assert np.array_equal(y_val, x2_val.T @ x3_val.T)
    ones = np.ones((2, 2), dtype=int)
    assert np.array_equal(g2_val, (ones @ x3_val).T)
    assert np.array_equal(g3_val, (x2_val @ ones).T)


def test_course_example_and_helpers():
    x1 = ad.Variable(name="x1")
    x2 = x1 + 3
    x3 = x1 + 5
    y = x2 * x3
    grads = ad.gradients(y, [x1, x2, x3])
    executor = ad.Executor([y] + grads)
    y_val, g1, g2, g3 = executor.run(feed_dict={x1: 1 * np.ones(3)})
    assert np.array_equal(y_val, 24 * np.ones(3))
    assert np.array_equal(g1, 10 * np.ones(3))
    assert np.array_equal(g2, 6 * np.ones(3)) and np.array_equal(g3, 4 * np.ones(3))
    assert executor.eval_node_list[0] is y
    order = ad.find_topo_sort([y])
    assert order[0] is x1 and order[-1] is y
    assert all(order.index(i) < order.index(n) for n in order for i in n.inputs)
    s = ad.sum_node_list([x1, x2, x3])
    assert ad.Executor([s]).run({x1: np.zeros(2)})[0].tolist() == [8, 8]
    z = ad.oneslike_op(x1) + ad.zeroslike_op(x1)
    assert ad.Executor([z]).run({x1: np.zeros(2)})[0].tolist() == [1, 1]
    p = ad.placeholder_op()
    assert ad.Executor([p * 2]).run({p: 3})[0] == 6


def test_op_in_the_assignment_style():
    class SquareOp(ad.Op):
        def compute(self, node, input_vals):
            assert isinstance(node, ad.Node)
            return input_vals[0] ** 2

        def gradient(self, node, output_grad):
            return [output_grad * 2 * node.inputs[0]]

    square = SquareOp()
    x = ad.Variable(name="x")
    y = square(x) + x
    (g,) = ad.gradients(y, [x])
    y_val, g_val = ad.Executor([y, g]).run({x: np.array([1, 2, 3])})
    assert np.array_equal(y_val, [2, 6, 12])
    assert np.array_equal(g_val, [3, 5, 7])


def test_the_skeletons_names_classes_and_printouts():
    x1, x2, x3 = ad.Variable("x1"), ad.Variable("x2"), ad.Variable("x3")
    y = x1 + x2 * x3 * x1
    assert str(y) == "(x1+((x2*x3)*x1))" and repr(y) == str(y)
    assert y.op is ad.add_op and isinstance(y.op, ad.AddOp)
    assert str(x1 + 3) == "(x1+3)" and (x1 + 3).const_attr == 3 and (x1 + 3).op is ad.add_byconst_op
    assert str(3 * x1) == "(x1*3)" and isinstance((x1 * 3).op, ad.MulByConstOp)
    m = ad.matmul_op(x2, x3, True, False)
    assert str(m) == "MatMul(x2,x3,True,False)"
    assert m.matmul_attr_trans_A is True and m.matmul_attr_trans_B is False
    assert str(ad.oneslike_op(x1)) == "Oneslike(x1)" and str(ad.zeroslike_op(x1)) == "Zeroslike(x1)"
    assert isinstance(x1.op, ad.PlaceholderOp) and x1.inputs == [] and x1.const_attr is None
    (g1,) = ad.gradients(x1 * x2, [x1])
    assert str(g1) == "(Oneslike((x1*x2))*x2)"
    # the node of a plain Node() is the skeleton's: empty, mutable
    node = ad.Node()
    assert (node.inputs, node.op, node.const_attr, node.name) == ([], None, None, "")


def test_find_topo_sort_is_the_post_order_dfs():
    x1, x2 = ad.Variable("x1"), ad.Variable("x2")
    y = x2 * x1 + x1
    order = ad.find_topo_sort([y])
    assert [str(n) for n in order] == ["x2", "x1", "(x2*x1)", "((x2*x1)+x1)"]
    deep = x1
    for _ in range(5000):  # deeper than Python's recursion limit
        deep = deep + 1
    assert len(ad.find_topo_sort([deep])) == 5001
    # the skeleton's helper, with its own visited set and list, as find_topo_sort calls it
    visited, order = {x1}, []
    ad.topo_sort_dfs(y, visited, order)
    assert [str(n) for n in order] == ["x2", "(x2*x1)", "((x2*x1)+x1)"]
    assert visited == {x1, x2, y, y.inputs[0]}
    ad.topo_sort_dfs(deep, visited, order)
    assert len(order) == 3 + 5000 and order[-1] is deep


def test_semantics_of_the_skeleton():
    x1, x2, unused = ad.Variable("x1"), ad.Variable("x2"), ad.Variable("u")
    y = x1 * x2
    with pytest.raises(KeyError, match="u"):
        ad.gradients(y, [x1, unused])
    (g1,) = ad.gradients(y, [x1])
    y_val, g_val = ad.Executor([y, g1]).run({x1: np.array([2, 3]), x2: np.array([4, 5])})
    assert y_val.dtype == np.int64 and g_val.dtype == np.float64  # oneslike makes float64
    assert g_val.tolist() == [4.0, 5.0]


def test_an_op_written_the_skeletons_way():
    class ExpOp(ad.Op):
        def __call__(self, node_A):
            new_node = ad.Op.__call__(self)
            new_node.inputs = [node_A]
            new_node.name = f"Exp({node_A.name})"
            return new_node

        def compute(self, node, input_vals):
            return np.exp(input_vals[0])

        def gradient(self, node, output_grad):
            return [output_grad * node]

    exp_op = ExpOp()
    x = ad.Variable("x")
    y = exp_op(x) * 2
    assert str(y) == "(Exp(x)*2)"
    (g,) = ad.gradients(y, [x])
    y_val, g_val = ad.Executor([y, g]).run({x: np.array([0.0, 1.0])})
    assert np.allclose(g_val, 2 * np.exp([0.0, 1.0]))


def test_vizad_draws_and_steps_skeleton_graphs_with_their_own_rules():
    import vizad as vz

    x1, x2, x3 = ad.Variable("x1"), ad.Variable("x2"), ad.Variable("x3")
    y = x1 + x2 * x3 * x1
    feed = {x1: np.array([2.0]), x2: np.array([3.0]), x3: np.array([4.0])}
    trace = vz.trace_reverse(y, [x1, x2, x3], feed)
    assert [float(v[0]) for v in trace.gradients] == [13.0, 8.0, 6.0]
    assert trace.check() == []  # the skeleton's rules agree with central differences
    # the adjoint graph is built by the skeleton's own gradient rules: Mul nodes, not vizad's
    ops = {n.op.name for n in vz.topo_sort(trace.record.gradients)}
    assert {"Mul", "Add", "variable"} <= ops and "mul" not in ops
    source = vz.draw(trace, "adjoint").source
    assert "Mul(v̄₆, v₄)" in source
    assert len(vz.step(y, [x1, x2], feed).trace.steps) == 5  # x3 is not differentiated
    assert vz.draw(y).source.count("id=v") == 6

    # a student's rule with a wrong sign is caught by trace.check()
    class BadMul(ad.MulOp):
        def gradient(self, node, output_grad):
            return [output_grad * node.inputs[1], -1 * (output_grad * node.inputs[0])]

    z = BadMul()(x1, x2) + x3
    failures = vz.trace_reverse(z, [x1, x2], feed).check()
    assert len(failures) == 1 and failures[0].op == "BadMul"


def test_the_course_notes_printout_is_reproduced():
    """The CSE 599W notes print the gradient nodes of x1 + ((x2*x3)*x1) by name."""
    x1, x2, x3 = ad.Variable("x1"), ad.Variable("x2"), ad.Variable("x3")
    y = x1 + ((x2 * x3) * x1)
    ones = "Oneslike((x1+((x2*x3)*x1)))"
    assert [str(g) for g in ad.gradients(y, [x1, x2, x3])] == [
        f"({ones}+({ones}*(x2*x3)))",
        f"(({ones}*x1)*x3)",
        f"(({ones}*x1)*x2)",
    ]
    assert [str(n) for n in ad.find_topo_sort([y])] == [
        "x1", "x2", "x3", "(x2*x3)", "((x2*x3)*x1)", "(x1+((x2*x3)*x1))",
    ]  # fmt: skip
