"""vz.jax_backward's compiled programs are cached by the jaxpr's structure: a later call of
the same function reuses them, and nothing that can change between calls is baked in wrongly
(closed-over arrays and numbers, source lines, the branch a cond takes); a scan's time steps
share their programs."""

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

import vizad as vz  # noqa: E402
from vizad.bridges import jax_program, jax_segment  # noqa: E402


def _grads(fn, *args):
    with jax.enable_x64(True):
        return jax.grad(fn, argnums=tuple(range(len(args))))(*args)


def test_a_later_call_reuses_the_plan_and_gives_the_new_arguments_gradients():
    def f(w, x):
        return jnp.sum(jnp.tanh(x @ w) ** 2)

    rng = np.random.default_rng(1)
    w, x = rng.standard_normal((3, 2)), rng.standard_normal((4, 3))
    first = vz.jax_backward(f, w, x)
    plans = dict(jax_program._PLANS)
    w2, x2 = rng.standard_normal((3, 2)), rng.standard_normal((4, 3))
    second = vz.jax_backward(f, w2, x2)
    assert dict(jax_program._PLANS) == plans  # no new plan: the first one's programs ran
    for trace, args in ((first, (w, x)), (second, (w2, x2))):
        for got, want in zip(trace.grads, _grads(f, *args)):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    assert not np.allclose(first.grads[0], second.grads[0])


@pytest.mark.parametrize("scale", [0.5, 3.0])
def test_closed_over_arrays_and_numbers_are_read_at_each_call(scale):
    table = np.array([1.0, -2.0, 0.5])

    def f(x):
        return jnp.sum(jnp.sin(x) * table) * scale  # a constant of the jaxpr, and a literal

    x = np.array([0.1, 0.2, 0.3])
    for value in (1.0, 4.0):
        table[:] = value * np.array([1.0, -2.0, 0.5])
        trace = vz.jax_backward(f, x)
        np.testing.assert_allclose(trace.grads[0], _grads(f, x)[0], rtol=1e-12, atol=0)
        np.testing.assert_allclose(trace.grads[0], np.cos(x) * table * scale, rtol=1e-12)


def test_equal_functions_on_other_lines_keep_their_own_source_lines():
    def f(x):
        return jnp.sum(jnp.exp(x))  # line A

    def g(x):
        return jnp.sum(jnp.exp(x))  # line B

    x = np.array([0.5, 1.5])
    for fn, line in ((f, "line A"), (g, "line B"), (f, "line A")):
        trace = vz.jax_backward(fn, x)
        exp = next(s.node for s in trace.steps if s.node.op.name == "exp")
        assert line in exp.source


def test_a_cond_takes_the_branch_of_each_calls_example():
    def f(x, w):
        return jax.lax.cond(
            jnp.sum(x) > 0, lambda v: jnp.sum(jnp.sin(v * w)), lambda v: jnp.sum(v * w**2), x
        )

    w = np.array([0.3, -0.7])
    for x in (np.array([1.0, 2.0]), np.array([-1.0, -2.0]), np.array([3.0, 1.0])):
        trace = vz.jax_backward(f, x, w)
        for got, want in zip(trace.grads, _grads(f, x, w)):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
        scopes = {s.node.scope for s in trace.steps if s.node.scope}
        assert scopes == {("cond: branch 1" if x.sum() > 0 else "cond: branch 0",)}


@pytest.mark.parametrize("steps", [3, 12])
def test_a_scans_time_steps_share_their_compiled_programs(steps):
    def rnn(params, xs):
        def step(h, x):
            h = jnp.tanh(params["W"] @ h + params["U"] @ x)
            return h, jnp.sum(h)

        h, ys = jax.lax.scan(step, jnp.zeros(2), xs)
        return jnp.sum(h) + jnp.sum(ys)

    rng = np.random.default_rng(2)
    params = {"W": 0.5 * rng.standard_normal((2, 2)), "U": rng.standard_normal((2, 3))}
    xs = rng.standard_normal((steps, 3))
    trace = vz.jax_backward(rnn, params, xs)
    want = _grads(rnn, params, xs)
    for name in ("W", "U"):
        np.testing.assert_allclose(trace.grads[0][name], want[0][name], rtol=1e-12)
    np.testing.assert_allclose(trace.grads[1], want[1], rtol=1e-12)
    plan = next(reversed(jax_program._PLANS.values()))
    stepped = [s for s in plan.segments if s.backward is not None]
    assert len(stepped) >= steps  # a piece per time step …
    programs = {id(s.backward.call) for s in stepped} | {id(s.forward.call) for s in stepped}
    assert len(programs) <= 8  # … and the steps' pieces are a few programs, whatever T
    assert all(callable(p) for p in jax_segment._EXECUTABLES.values())
