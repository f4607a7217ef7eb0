"""Reliability, third pass (issue 30): nothing silently wrong at run time. One section per item
of the issue; each test failed before its fix. (Item 1, output paths, is
tests/test_output_paths.py; the adversarial suite is tests/adversarial/.)"""

from __future__ import annotations

import math

import numpy as np
import pytest

import vizad as vz

# -- 2. seeds and tangents have their output's / input's run-time shape, in every plan ----------
x = vz.Variable("x")


@pytest.mark.parametrize(
    "build, feed, message",
    [
        # the plan of the gradient holds the seed but neither the output nor x
        (lambda: vz.gradients(x * 2.0, [x], vz.constant(np.ones(3)))[0], {x: 1.0},
         r"the seed of mul\(x, 2\.\), has shape \(3,\) but mul\(x, 2\.\) has shape \(\)"),
        (lambda: vz.gradients(vz.sin(x) * x, [x], [1.0, 2.0])[0], {x: 1.0},
         r"the seed of mul\(…, x\), has shape \(2,\) but mul\(…, x\) has shape \(\)"),
        (lambda: vz.gradients(x * 2.0, [x], 2.0)[0], {x: np.ones(3)},
         r"the seed of mul\(x, 2\.\), has shape \(\) but mul\(x, 2\.\) has shape \(3,\)"),
        (lambda: vz.jvp(x * 2.0, {x: vz.constant(np.ones(3))}), {x: 1.0},
         r"the tangent given for x, has shape \(3,\) but x has shape \(\): give a tangent of "
         r"shape \(\), or a number"),
        (lambda: vz.jvp(x * 2.0, {x: np.ones(3)}), {x: np.ones(2)},
         r"broadcast_to\(\[1\., 1\., 1\.\], x\): .*\(3,\) does not broadcast to \(2,\)"),
    ],
)  # fmt: skip
def test_a_seed_or_tangent_of_the_wrong_shape_is_refused_in_every_plan(build, feed, message):
    with pytest.raises(vz.errors.ShapeError, match=message):
        vz.evaluate(build(), feed)


def test_a_plan_run_again_with_other_shapes_is_checked_again():
    (g,) = vz.gradients(x * 2.0, [x], 2.0)
    run = vz.Executor([g])
    assert run.run({x: 1.0}) == [4.0]
    with pytest.raises(vz.errors.ShapeError, match=r"has shape \(\) but mul\(x, 2\.\) has shape"):
        run.run({x: np.ones(3)})
    assert run.run({x: 3.0}) == [4.0]  # the right shapes again: fine
    t = vz.jvp(x * 2.0, {x: vz.constant(np.ones(3))})
    run = vz.Executor([t])
    np.testing.assert_array_equal(run.run({x: np.ones(3)})[0], [2.0, 2.0, 2.0])
    with pytest.raises(vz.errors.ShapeError, match=r"the tangent given for x, has shape \(3,\)"):
        run.run({x: np.ones(4)})


def test_right_shapes_still_run_and_the_output_is_not_needed_in_the_feed_twice():
    (g,) = vz.gradients(vz.sum(x * 2.0), [x])
    np.testing.assert_array_equal(vz.evaluate(g, {x: np.ones(2)}), [2.0, 2.0])
    (g,) = vz.gradients(x * 2.0, [x], np.array([1.0, -1.0]))
    np.testing.assert_array_equal(vz.evaluate(g, {x: np.ones(2)}), [2.0, -2.0])


# -- 7. smaller silent wrongs --------------------------------------------------------------------
def test_a_given_eager_node_is_used_and_what_depends_on_it_computed_again():
    a = vz.tensor(2.0, name="a")
    s = vz.sin(a)
    b = s * 3.0
    assert vz.Executor([b], given=[a]).run({a: np.array(0.0)}) == [0.0]
    assert vz.Executor([b], given=[s]).run({s: np.array(1.0)}) == [3.0]
    assert b.value == pytest.approx(3 * math.sin(2.0))  # the eager values stay as they ran
    assert vz.Executor([b]).run({}) == [pytest.approx(3 * math.sin(2.0))]


_TUPLE_REFUSED = r"takes arrays, not tuple values \(read an element with vz\.tuple_get"


@pytest.mark.parametrize(
    "op",
    [vz.sin, vz.exp, vz.relu, vz.sum, vz.mean, vz.transpose, vz.log_softmax, vz.ops.heaviside,
     lambda t: vz.reshape(t, (4,)), lambda t: vz.ops.expand_dims(t, 0), vz.ops.size,
     lambda t: vz.ops.sum_to_shape(t, ()), lambda t: -t, lambda t: t**2],
)  # fmt: skip
def test_every_op_on_arrays_refuses_a_tuple_value(op):
    x = vz.Variable("x", shape=(2,))
    with pytest.raises(vz.errors.ShapeError, match=_TUPLE_REFUSED):
        op(vz.make_tuple(x, x))
    eager = vz.make_tuple(vz.tensor([1.0, 2.0]), vz.tensor([3.0, 4.0]))
    with pytest.raises(vz.errors.ShapeError, match=_TUPLE_REFUSED):
        op(eager)


class _Pair(vz.Op):
    """A custom op that returns a tuple and states no shape."""

    name = "pair"

    def compute(self, x):
        return (x, 2 * x)

    def vjp(self, node, adjoint):
        return [vz.tuple_get(adjoint, 0) + 2 * vz.tuple_get(adjoint, 1)]


def test_a_tuple_value_known_only_at_run_time_is_refused_too():
    x = vz.Variable("x")
    with pytest.raises(vz.errors.ShapeError, match=r"sin\(pair\(x\)\): its input pair\(x\) has"):
        vz.evaluate(vz.sin(_Pair()(x)), {x: np.ones(2)})
    ok = vz.ops.tuple_get(_Pair()(x), 1)  # reading an element is what a tuple is for
    np.testing.assert_array_equal(vz.evaluate(vz.sin(ok), {x: 0.0}), 0.0)
