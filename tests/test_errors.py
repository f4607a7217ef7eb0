"""Bad input gets a clear exception naming the node or op and the problem."""

import numpy as np
import pytest

import vizad as vz


def test_missing_variable_in_feed_names_it():
    x1, x2 = vz.Variable("x1"), vz.Variable("x2")
    y = x1 * x2
    with pytest.raises(vz.errors.FeedError, match=r"Variable 'x2'.*not in the feed dict.*'x1'"):
        vz.evaluate(y, {x1: 1.0})


def test_shapes_that_do_not_broadcast_at_run_time():
    a, b = vz.Variable("a"), vz.Variable("b")
    with pytest.raises(
        vz.errors.ShapeError, match=r"add\(a, b\).*\(3,\) and \(4,\) do not broadcast"
    ):
        vz.evaluate(a + b, {a: np.ones(3), b: np.ones(4)})


def test_shapes_that_do_not_broadcast_at_build_time():
    a, b = vz.Variable("a", shape=(3,)), vz.Variable("b", shape=(4,))
    with pytest.raises(vz.errors.ShapeError, match=r"mul\(a, b\).*\(3,\) and \(4,\)"):
        a * b


def test_shapes_that_do_not_matmul():
    a, b = vz.Variable("A"), vz.Variable("B")
    with pytest.raises(
        vz.errors.ShapeError, match=r"matmul\(A, B\).*\(2, 3\) and \(4, 5\) do not matmul"
    ):
        vz.evaluate(a @ b, {a: np.ones((2, 3)), b: np.ones((4, 5))})
    with pytest.raises(vz.errors.ShapeError, match=r"\(2, 3\) and \(4, 5\)"):
        vz.Variable("C", shape=(2, 3)) @ vz.Variable("D", shape=(4, 5))
    with pytest.raises(vz.errors.ShapeError, match="the left one is a scalar"):
        vz.evaluate(a @ b, {a: np.float64(3.0), b: np.ones((3, 1))})
    with pytest.raises(
        vz.errors.ShapeError, match=r"batch\) dimensions of shapes \(2, 3, 4\) and \(5, 4, 1\)"
    ):
        vz.Variable("E", shape=(2, 3, 4)) @ vz.Variable("F", shape=(5, 4, 1))


def test_feed_value_that_is_not_numeric():
    x = vz.Variable("x")
    with pytest.raises(vz.errors.FeedError, match=r"Variable 'x'.*str"):
        vz.evaluate(x * 2, {x: "two"})
    with pytest.raises(vz.errors.FeedError, match=r"Variable 'x'"):
        vz.evaluate(x * 2, {x: [[1, 2], [3]]})
    with pytest.raises(vz.errors.FeedError, match="declared with shape \\(2,\\)"):
        y = vz.Variable("y", shape=(2,))
        vz.evaluate(y * 2, {y: np.ones(3)})


def test_op_applied_to_something_that_is_not_a_node_or_number():
    x = vz.Variable("x")
    with pytest.raises(vz.errors.NodeTypeError, match=r"mul: input 1 is a str"):
        x * "a"
    with pytest.raises(vz.errors.NodeTypeError, match=r"sin: input 0 is a dict"):
        vz.sin({})
    with pytest.raises(TypeError):  # NodeTypeError is a TypeError
        vz.ops.add(x, object())
    with pytest.raises(vz.errors.NodeTypeError, match="exponent must be a constant number"):
        x**x


def test_cycle_made_by_tampering_is_found():
    a = vz.Variable("a")
    b = vz.exp(a)
    c = b * 2
    object.__setattr__(b, "_inputs", (c,))  # tamper: b now depends on c, which depends on b
    with pytest.raises(vz.errors.GraphError, match="cycle through node"):
        vz.topo_sort(c)
    with pytest.raises(vz.errors.GraphError, match="cycle"):
        vz.gradients(c, [a])
    with pytest.raises(vz.errors.GraphError, match="cycle"):
        vz.Executor([c])


def test_wrong_vjp_results_are_named():
    class BadArity(vz.Op):
        name = "bad_arity"

        def compute(self, a, b):
            return a + b

        def vjp(self, node, adjoint):
            return [adjoint]

    class BadType(vz.Op):
        name = "bad_type"

        def compute(self, a):
            return a

        def vjp(self, node, adjoint):
            return [1.0]

    x = vz.Variable("x")
    with pytest.raises(
        vz.errors.GraphError, match=r"vjp of op 'bad_arity'.*returned 1 adjoint\(s\) for 2"
    ):
        vz.gradients(BadArity()(x, x), [x])
    with pytest.raises(vz.errors.GraphError, match=r"vjp of op 'bad_type'.*float for input 0"):
        vz.gradients(BadType()(x), [x])


def test_wrong_adjoint_shape_from_a_custom_vjp():
    class Sum(vz.Op):
        name = "bad_sum"

        def compute(self, a):
            return np.sum(a)

        def infer_shape(self, shapes, attrs):
            return ()

        def vjp(self, node, adjoint):
            return [adjoint]  # forgot to broadcast back to the input's shape

    x = vz.Variable("x", shape=(3,))
    with pytest.raises(
        vz.errors.ShapeError, match=r"bad_sum.*shape \(\) for input 0 \(x\) of shape \(3,\)"
    ):
        vz.gradients(Sum()(x), [x])


def test_failing_compute_names_node_op_and_shapes():
    class Broken(vz.Op):
        name = "broken"

        def compute(self, a):
            raise RuntimeError("boom")

    x = vz.Variable("x")
    with pytest.raises(
        vz.errors.EvaluationError, match=r"broken\(x\).*shapes \(2,\).*RuntimeError: boom"
    ):
        vz.evaluate(Broken()(x), {x: np.ones(2)})


def test_other_bad_arguments():
    x = vz.Variable("x")
    with pytest.raises(vz.errors.NodeTypeError):
        vz.Variable(3)
    with pytest.raises(vz.errors.ShapeError, match="axis 2 is out of range"):
        vz.sum(vz.Variable("m", shape=(2, 3)), axis=2)
    with pytest.raises(vz.errors.ShapeError, match="cannot reshape"):
        vz.reshape(vz.Variable("m", shape=(2, 3)), (4, 2))
    with pytest.raises(vz.errors.GraphError, match="takes 2 input"):
        vz.ops.add(x)
    with pytest.raises(vz.errors.NodeTypeError, match="item 1"):
        vz.gradients(x * 2, [x, "x"])
    with pytest.raises(vz.errors.ShapeError, match="seed has shape"):
        vz.gradients(vz.Variable("v", shape=(3,)) * 2, [x], cotangent=np.ones(2))
    with pytest.raises(vz.errors.NodeTypeError, match="not iterable"):
        a, b = x
