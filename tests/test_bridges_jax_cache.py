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

pytestmark = pytest.mark.heavy  # compiles many XLA programs to show they are cached


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


class Traced:
    """How many times JAX traced each Python function (a class's attribute: a rule's key
    holds the class by identity, not the counts)."""

    primal = fwd = bwd = jvp = 0


@jax.custom_vjp
def _clipped_sin(x):
    Traced.primal += 1
    return jnp.sin(x)


def _clipped_sin_fwd(x):
    Traced.fwd += 1
    return jnp.sin(x), jnp.cos(x)


def _clipped_sin_bwd(cos, g):
    Traced.bwd += 1
    return (jnp.clip(g * cos, -SCALE, SCALE),)


_clipped_sin.defvjp(_clipped_sin_fwd, _clipped_sin_bwd)
SCALE = 0.5


@jax.custom_jvp
def _softplus(x):
    return jnp.log1p(jnp.exp(x))


@_softplus.defjvp
def _softplus_jvp(primals, tangents):
    Traced.jvp += 1
    (x,), (t,) = primals, tangents
    return _softplus(x), jax.nn.sigmoid(x) * t * SCALE  # a wrong rule, on purpose: JAX's


def _custom_loss(w, x):
    return jnp.sum(_clipped_sin(x @ w) * jnp.sum(_softplus(w)))


def _counts():
    return (Traced.primal, Traced.fwd, Traced.bwd, Traced.jvp)


def test_custom_rules_are_cached_a_later_call_traces_no_rule_and_gives_the_same_numbers():
    rng = np.random.default_rng(4)
    w, x = rng.standard_normal((3, 2)), rng.standard_normal((4, 3))
    first = vz.jax_backward(_custom_loss, w, x)
    primal, fwd, bwd, jvp = _counts()
    assert fwd and bwd and jvp  # the first call traced each rule
    second = vz.jax_backward(_custom_loss, w, x)
    assert _counts() == (primal + 1, fwd, bwd, jvp)  # make_jaxpr of the function; no rule
    for got, want in zip(second.grads, first.grads):
        np.testing.assert_array_equal(got, want)
    for a, b in zip(first.steps, second.steps):
        np.testing.assert_array_equal(a.adjoint, b.adjoint)
    for got, want in zip(second.grads, _grads(_custom_loss, w, x)):  # JAX's, rules included
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def test_a_rule_reading_a_changed_global_or_closure_is_traced_again(monkeypatch):
    rng = np.random.default_rng(5)
    w, x = rng.standard_normal((3, 2)), rng.standard_normal((4, 3))
    before = vz.jax_backward(_custom_loss, w, x).grads
    monkeypatch.setattr(__import__(__name__), "SCALE", 0.25)  # read by both rules
    _, fwd, bwd, jvp = _counts()
    after = vz.jax_backward(_custom_loss, w, x)
    assert _counts()[1:] != (fwd, bwd, jvp)  # traced again: SCALE is part of the key
    for got, want in zip(after.grads, _grads(_custom_loss, w, x)):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    assert not np.allclose(after.grads[0], before[0])

    def clipped(bound):  # a closure: the bound is part of the rule's key
        @jax.custom_vjp
        def f(x):
            return jnp.sin(x)

        f.defvjp(lambda x: (jnp.sin(x), jnp.cos(x)), lambda c, g: (jnp.clip(g * c, -bound, bound),))
        return f

    table = np.array([1.0, -2.0])  # closed over by a rule and changed in place

    @jax.custom_vjp
    def scaled(x):
        return x * 2.0

    scaled.defvjp(lambda x: (x * 2.0, None), lambda _, g: (g * table,))
    v = np.array([0.3, 2.0])
    for bound in (0.1, 0.7, 0.1):
        got = vz.jax_backward(lambda v: jnp.sum(clipped(bound)(v * 3.0)), v).grads[0]
        np.testing.assert_array_equal(got, np.clip(np.cos(3 * v), -bound, bound) * 3.0)
    for value in (1.0, 5.0):
        table[:] = value * np.array([1.0, -2.0])
        got = vz.jax_backward(lambda v: jnp.sum(scaled(v)), v).grads[0]
        np.testing.assert_array_equal(got, table)


class _Holder:
    def __init__(self, bound):
        self.bound = bound


def test_a_rule_reading_an_objects_state_is_not_cached_and_stays_right():
    holder = _Holder(0.2)

    @jax.custom_vjp
    def f(x):
        return jnp.sin(x)

    f.defvjp(
        lambda x: (jnp.sin(x), jnp.cos(x)),
        lambda c, g: (jnp.clip(g * c, -holder.bound, holder.bound),),
    )
    v = np.array([0.1, 1.0])
    closed = jax.make_jaxpr(lambda v: jnp.sum(f(v)))(v)
    assert jax_program.signature(closed) is None  # no key: the object's state could change
    for bound in (0.2, 0.9):
        holder.bound = bound
        got = vz.jax_backward(lambda v: jnp.sum(f(v)), v).grads[0]
        np.testing.assert_array_equal(got, np.clip(np.cos(v), -bound, bound))


def test_a_rule_closing_over_a_traced_value_has_no_key():
    def loss(w):
        s = jnp.sum(w)

        @jax.custom_jvp
        def f(v):
            return jnp.sin(v) * s

        @f.defjvp
        def f_jvp(primals, tangents):
            (v,), (t,) = primals, tangents
            return f(v), jnp.cos(v) * s * t

        return jnp.sum(f(w))

    closed = jax.make_jaxpr(loss)(np.array([0.3, 0.5]))
    assert jax_program.signature(closed) is None  # the tracer has no value to key


def _clip_to(x, limit):
    return jnp.clip(x, -limit, limit)


_clip_to = jax.custom_jvp(_clip_to, nondiff_argnums=(1,))


@_clip_to.defjvp
def _clip_to_jvp(limit, primals, tangents):
    (x,), (t,) = primals, tangents
    return _clip_to(x, limit), jnp.where(jnp.abs(x) < limit, t, 0.0)


@pytest.mark.parametrize("limit", [0.3, 0.9])
def test_a_custom_jvp_with_a_static_argument_is_cached_by_its_value(limit):
    """nondiff_argnums: JAX boxes the static argument (jax._src.util.Unhashable) in the rule it
    keeps; keyed by the boxed value, a later call reuses the compiled plan (it ran op by op,
    uncached: 5.1 ms per step), and another value is another plan."""

    def f(w, x):
        return jnp.sum(_clip_to(jnp.tanh(x @ w), limit) ** 2)

    rng = np.random.default_rng(6)
    w, x = rng.standard_normal((3, 2)), rng.standard_normal((4, 3))
    assert jax_program.signature(jax.make_jaxpr(f)(w, x)) is not None
    first = vz.jax_backward(f, w, x)
    plans = dict(jax_program._PLANS)
    second = vz.jax_backward(f, w, x)
    assert dict(jax_program._PLANS) == plans  # the first call's plan ran again
    for trace in (first, second):
        for got, want in zip(trace.grads, _grads(f, w, x)):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
