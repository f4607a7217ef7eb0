"""vz.jax_backward: JAX's own backward pass (its linearization transposed, equation by
equation, the partial adjoints summed as add_any sums them) as a walkthrough."""

import html
import inspect

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

import vizad as vz  # noqa: E402
from vizad.errors import ArgumentTypeError, BridgeError  # noqa: E402
from vizad.trace.recorded import RecordedReverseTrace  # noqa: E402

from bridge_cases import jax_cases  # noqa: E402

CASES = jax_cases()


@pytest.mark.slow_family(keep=["mlp_relu"])  # JAX compiles each case
@pytest.mark.parametrize("name, fn, args", CASES, ids=[c[0] for c in CASES])
def test_the_arguments_adjoints_are_jaxs_gradients_and_each_sum_adds_up(name, fn, args):
    trace = vz.jax_backward(fn, *args)
    assert isinstance(trace, RecordedReverseTrace) and trace.engine == "JAX"
    with jax.enable_x64(True):
        want = jax.grad(fn, argnums=tuple(range(len(args))))(*args)
    by_name = {w.name: w for w in trace.wrt}
    for parameter, g in zip(inspect.signature(fn).parameters, want):
        np.testing.assert_allclose(trace.adjoint(by_name[parameter]), g, rtol=1e-12, atol=1e-14)
    assert trace.check() == []
    assert trace.steps[0].node is trace.output and trace.steps[0].is_output
    assert "lambda" in trace.program  # JAX's transposed program, as JAX prints it


def test_the_lecture_with_add_any_as_the_sums():
    trace = vz.jax_backward(lambda x1, x2: jnp.log(x1) + x1 * x2 - jnp.sin(x2), 2.0, 5.0)
    assert [w.name for w in trace.wrt] == ["x1", "x2"]
    assert len(trace.steps) == 7  # five equations, then the two arguments
    assert [s.node.op.name for s in trace.steps[:5]] == ["sub", "sin", "add", "mul", "log"]
    sums = [s for s in trace.steps if len(s.contributions) > 1]
    assert [s.node.name for s in sums] == ["x1", "x2"]
    assert trace.program.count("add_any") == len(sums) == 2  # JAX's own program sums there
    x2 = trace.step_of(trace.wrt[1])
    assert sorted(float(c.partial) for c in x2.contributions) == [-np.cos(5.0), 2.0]
    assert float(x2.adjoint) == 2.0 - np.cos(5.0)
    line = str(trace.derivation()).splitlines()[6]
    assert line == "v̄₂ = v̄₅ ∂v₅/∂v₂ + v̄₄ ∂v₄/∂v₂ = v̄₅ cos v₂ + v̄₄ v₁ = -0.284 + 2 = 1.716"
    # the forward values are JAX's, every one of them
    assert float(trace.step_of(trace.steps[1].node).value) == pytest.approx(np.sin(5.0))
    assert "mul_transpose(v̄₄; v₁, v₂)[0]" in html.unescape(vz.draw(trace).source)


def test_equations_that_no_gradient_flows_through_are_not_steps():
    def f(x, labels):
        mask = (x > 0).astype(x.dtype)  # a comparison: no cotangent flows into it
        return jnp.sum(jnp.sin(x) * mask) + jnp.sum(labels * 0.0)

    trace = vz.jax_backward(f, np.array([1.0, -2.0]), np.array([1, 2]))
    ops = {s.node.op.name for s in trace.steps}
    assert "gt" not in ops and "convert_element_type" not in ops
    assert [w.name for w in trace.wrt] == ["x"]  # integer arguments take no cotangent
    np.testing.assert_allclose(trace.adjoint(trace.wrt[0]), [np.cos(1.0), 0.0])


def test_every_view_the_stepper_and_the_page(tmp_path):
    trace = vz.jax_backward(lambda x, w: jnp.sum(jnp.tanh(x @ w)), np.ones((2, 3)), np.ones(3))
    for view in trace.views:
        assert "JAX" in vz.draw(trace, view, step=2).source
    stepper = vz.step(trace)
    assert stepper.n_steps == len(trace.steps) and stepper.failures == {}
    page = vz.export_html(trace, tmp_path / "jax.html")
    assert "JAX" in page.read_text(encoding="utf-8")
    assert len(vz.export_frames(trace, tmp_path / "frames")) == len(trace.steps)


def test_bad_input_is_an_error_that_says_what_to_do():
    with pytest.raises(ArgumentTypeError, match="callable"):
        vz.jax_backward(np.ones(2), 1.0)
    with pytest.raises(BridgeError, match="single floating-point number"):
        vz.jax_backward(lambda x: x * 2, np.ones(3))
    with pytest.raises(BridgeError, match="2 results"):
        vz.jax_backward(lambda x: (x, x), 1.0)
    with pytest.raises(BridgeError, match="does not depend"):
        vz.jax_backward(lambda x: jnp.sum(jnp.ones(3)), 1.0)
    with pytest.raises(BridgeError, match="could not trace"):
        vz.jax_backward(lambda x: x.no_such_method(), 1.0)
