"""vz.from_torch and vz.from_jax: a framework's function as a vizad graph whose gradients,
jvps and Hessian-vector products are the framework's, to 1e-10 in float64."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

import vizad as vz  # noqa: E402
from vizad.bridges.framework_op import FrameworkOp  # noqa: E402
from vizad.errors import ArgumentError, ArgumentTypeError, BridgeError  # noqa: E402

from bridge_cases import jax_cases, torch_cases  # noqa: E402

TORCH_CASES, JAX_CASES = torch_cases(), jax_cases()
TOL = 1e-10


def _directions(args, seed):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(np.shape(a)) for a in args]


def _vizad(imported, tangents):
    """vizad's value, gradients, jvp along ``tangents`` and the HVP of the first input
    along the first tangent, from the imported graph."""
    y, xs, feed = imported.output, imported.inputs, imported.feed
    grads = vz.gradients(y, xs)
    jvp = vz.jvp(y, {x: vz.constant(t) for x, t in zip(xs, tangents)})
    hvp = vz.hvp(y, xs[0], vz.constant(tangents[0]))
    value, *rest = vz.Executor([y, *grads, jvp, hvp]).run(feed)
    return value, rest[: len(xs)], rest[-2], rest[-1]


def _torch_reference(fn, args, tangents):
    """PyTorch's value, gradients, jvp and HVP (first input, first tangent)."""
    leaves = [torch.tensor(a, requires_grad=True) for a in args]
    loss = fn(*leaves)
    loss.backward()
    primals = tuple(torch.tensor(a) for a in args)
    _, jvp = torch.func.jvp(fn, primals, tuple(torch.tensor(t) for t in tangents))
    _, hvp = torch.autograd.functional.hvp(
        lambda a: fn(a, *primals[1:]), primals[0], torch.tensor(tangents[0])
    )
    return loss.detach().numpy(), [leaf.grad.numpy() for leaf in leaves], jvp, hvp


def _jax_reference(fn, args, tangents):
    """JAX's value, gradients, jvp and HVP (first input, first tangent), in float64."""
    with jax.enable_x64(True):
        value, grads = jax.value_and_grad(fn, argnums=tuple(range(len(args))))(*args)
        primals = tuple(jnp.asarray(a) for a in args)
        _, jvp = jax.jvp(fn, primals, tuple(jnp.asarray(t) for t in tangents))
        first = jax.grad(lambda a: fn(a, *primals[1:]))
        _, hvp = jax.jvp(first, primals[:1], (jnp.asarray(tangents[0]),))
    return value, grads, jvp, hvp


FRAMEWORKS = {"torch": (vz.from_torch, _torch_reference), "jax": (vz.from_jax, _jax_reference)}
CASES = [("torch", *c) for c in TORCH_CASES] + [("jax", *c) for c in JAX_CASES]


# JAX traces and compiles each case: make check keeps the torch cases (milliseconds) and one
@pytest.mark.slow_family(keep=[f"torch-{c[0]}" for c in TORCH_CASES] + ["jax-mlp_relu"])
@pytest.mark.parametrize("framework, name, fn, args", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_the_imported_gradients_jvp_and_hvp_are_the_frameworks(framework, name, fn, args):
    importer, reference = FRAMEWORKS[framework]
    imported = importer(fn, *args)
    assert [x.name for x in imported.inputs] == argument_names_of(fn)[: len(args)]
    tangents = _directions(args, 1)
    got = _vizad(imported, tangents)
    want = reference(fn, args, tangents)
    for g, w in zip([got[0], *got[1], got[2], got[3]], [want[0], *want[1], want[2], want[3]]):
        np.testing.assert_allclose(g, np.asarray(w), rtol=TOL, atol=TOL)


def argument_names_of(fn):
    import inspect

    return list(inspect.signature(fn).parameters)


def _ops(node):
    return [n.op for n in vz.graph.topo_sort(node)]


def test_primitives_with_a_vizad_counterpart_become_vizad_ops():
    def f(x, w):
        return torch.tanh(x @ w).sum() + torch.sin(x).mul(2.0).sum()

    x, w = np.ones((2, 3)), np.full((3, 4), 0.5)
    names = {op.name for op in _ops(vz.from_torch(f, x, w).output)}
    assert {"matmul", "tanh", "sin", "mul", "sum", "add"} <= names
    assert not any(isinstance(op, FrameworkOp) for op in _ops(vz.from_torch(f, x, w).output))

    def g(x, w):
        return jnp.sum(jnp.tanh(x @ w)) + jnp.sum(jnp.sin(x) * 2.0)

    ops = _ops(vz.from_jax(g, x, w).output)
    assert not any(isinstance(op, FrameworkOp) for op in ops)
    assert {"matmul", "tanh", "sin", "mul", "sum", "add"} <= {op.name for op in ops}


def test_other_ops_run_the_framework_and_their_rules_check_against_central_differences():
    def f(x):
        return torch.special.erf(x).pow(2).sum() + torch.abs(x).sum()

    imported = vz.from_torch(f, np.array([0.3, -0.7, 1.1]))
    fallbacks = [op.name for op in _ops(imported.output) if isinstance(op, FrameworkOp)]
    assert sorted(fallbacks) == ["abs", "erf"]
    trace = vz.trace_reverse(imported.output, imported.inputs, imported.feed)
    assert trace.check() == []  # PyTorch's vjp and jvp of erf and abs, at each step
    # third derivative through PyTorch's rules (its rule's rule's rule)
    (x,) = imported.inputs
    (g1,) = vz.gradients(imported.output, [x])
    (g2,) = vz.gradients(vz.sum(g1), [x])
    (g3,) = vz.gradients(vz.sum(g2), [x])
    t = torch.tensor([0.3, -0.7, 1.1], dtype=torch.float64, requires_grad=True)
    (d1,) = torch.autograd.grad(f(t), t, create_graph=True)
    (d2,) = torch.autograd.grad(d1.sum(), t, create_graph=True)
    (d3,) = torch.autograd.grad(d2.sum(), t)
    np.testing.assert_allclose(vz.evaluate(g3, imported.feed), d3.numpy(), rtol=1e-9)


def test_custom_jvp_keeps_jaxs_rule_and_jit_is_a_scope():
    @jax.custom_jvp
    def clipped(x):
        return jnp.clip(x, -1.0, 1.0)

    @clipped.defjvp
    def _(primals, tangents):  # a straight-through rule: not the derivative of clip
        return clipped(primals[0]), tangents[0]

    def f(x):
        return jnp.sum(jax.jit(lambda a: clipped(a) * a)(x))

    x = np.array([-2.0, 0.5, 3.0])
    imported = vz.from_jax(f, x)
    (g,) = vz.gradients(imported.output, imported.inputs)
    with jax.enable_x64(True):
        np.testing.assert_array_equal(vz.evaluate(g, imported.feed), jax.grad(f)(x))
    scopes = {n.scope for n in vz.graph.topo_sort(imported.output)}
    assert ("<lambda>",) in scopes
    names = {op.name for op in _ops(imported.output)}
    assert "clipped (custom_jvp_call)" in names


def test_an_nn_modules_parameters_are_inputs_and_its_submodules_scopes():
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(4, 3), torch.nn.Tanh(), torch.nn.Linear(3, 2)
    ).double()
    x = np.random.default_rng(0).standard_normal((5, 4))
    imported = vz.from_torch(model, x)
    assert [v.name for v in imported.inputs] == [
        "0.weight", "0.bias", "2.weight", "2.bias", "input"
    ]  # fmt: skip
    scopes = {n.scope for n in vz.graph.topo_sort(imported.output)}
    assert {("0: Linear",), ("1: Tanh",), ("2: Linear",)} <= scopes
    loss = vz.sum(imported.output)
    grads = vz.gradients(loss, imported.inputs[:4])
    model(torch.tensor(x)).sum().backward()
    for g, p in zip(vz.Executor(grads).run(imported.feed), model.parameters()):
        np.testing.assert_allclose(g, p.grad.numpy(), rtol=1e-12, atol=1e-14)
    drawing = vz.draw(vz.trace_reverse(loss, imported.inputs, imported.feed), collapse=1)
    assert "0: Linear" in drawing.source


def test_integer_arguments_are_constants_and_several_results_are_outputs():
    def f(logits, labels):
        return torch.nn.functional.cross_entropy(logits, labels), logits.sum()

    imported = vz.from_torch(f, np.ones((2, 3)), np.array([0, 2]))
    assert [x.name for x in imported.inputs] == ["logits"]
    assert len(imported.outputs) == 2
    with pytest.raises(ArgumentError, match="2 results"):
        imported.output
    values = vz.Executor(list(imported.outputs)).run(imported.feed)
    np.testing.assert_allclose(values[0], np.log(3.0))


def test_bad_input_is_an_error_that_says_what_to_do():
    with pytest.raises(ArgumentTypeError, match="callable"):
        vz.from_torch(3, np.ones(2))
    with pytest.raises(ArgumentTypeError, match="callable"):
        vz.from_jax("f", np.ones(2))
    with pytest.raises(BridgeError, match="could not trace"):
        vz.from_torch(lambda x: x.no_such_method(), np.ones(2))
    with pytest.raises(BridgeError, match="could not trace"):
        vz.from_jax(lambda x: x.no_such_method(), np.ones(2))


def test_every_view_of_an_imported_graph_with_framework_ops(tmp_path):
    def f(x, w):
        return torch.abs(torch.tanh(x @ w)).sum()

    imported = vz.from_torch(f, np.ones((2, 3)), np.full((3, 2), 0.5))
    reverse = vz.trace_reverse(imported.output, imported.inputs, imported.feed)
    forward = vz.trace_forward(imported.output, imported.inputs[1], imported.feed)
    for trace in (reverse, forward):
        assert trace.check() == []
        assert vz.step(trace).failures == {}
        assert len(vz.export_frames(trace, tmp_path / trace.mode)) == len(trace.steps)
        assert "abs" in vz.export_html(trace, tmp_path / f"{trace.mode}.html").read_text("utf-8")
    assert "vjp of abs" in vz.draw(reverse).source
    assert "jvp of abs" in vz.draw(forward).source
