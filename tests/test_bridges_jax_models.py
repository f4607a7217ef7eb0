"""JAX models as their users write them (tests/jax_models.py) through both bridges: the
gradients of from_jax + vz.gradients and of jax_backward equal jax.grad's to 1e-10 in float64,
in the structure of the parameters; check() finds nothing on the correct ones and names the
wrong custom_vjp; loops are unrolled into scopes that fold; a while_loop runs forward only."""

import html

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

import vizad as vz  # noqa: E402
from vizad.errors import ArgumentTypeError, BridgeError  # noqa: E402
from vizad.view.render import Layout  # noqa: E402

from jax_models import models, while_loop_case, wrong_custom_vjp  # noqa: E402

MODELS = models()


def _reference(fn, args, kwargs):
    """jax.grad of fn with respect to every argument that is not static, in float64."""
    static = set(kwargs.get("static_argnums", ()))
    argnums = tuple(k for k, a in enumerate(args) if k not in static and _floating(a))
    with jax.enable_x64(True):
        grads = jax.grad(fn, argnums=argnums)(*args)
    return dict(zip(argnums, grads))


def _floating(tree) -> bool:
    return all(np.asarray(x).dtype.kind == "f" for x in jax.tree_util.tree_leaves(tree))


def _assert_trees_equal(got, want):
    assert jax.tree_util.tree_structure(got) == jax.tree_util.tree_structure(want)
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


@pytest.mark.slow_family(keep=["cond"])  # JAX compiles each model
@pytest.mark.parametrize("name, fn, args, kwargs", MODELS, ids=[m[0] for m in MODELS])
def test_from_jax_gives_jaxs_gradients_in_the_parameters_structure(name, fn, args, kwargs):
    imported = vz.from_jax(fn, *args, **kwargs)
    grads = vz.evaluate(vz.gradients(imported.output, imported.inputs), imported.feed)
    tree = imported.tree(grads)
    for k, want in _reference(fn, args, kwargs).items():
        position = k - sum(1 for s in kwargs.get("static_argnums", ()) if s < k)
        _assert_trees_equal(tree[position], want)
    trace = vz.trace_reverse(imported.output, imported.inputs, imported.feed)
    assert trace.check() == [], [str(f) for f in trace.check()]


@pytest.mark.slow_family(keep=["cond"])  # JAX compiles each model
@pytest.mark.parametrize("name, fn, args, kwargs", MODELS, ids=[m[0] for m in MODELS])
def test_jax_backward_gives_jaxs_gradients_in_the_parameters_structure(name, fn, args, kwargs):
    trace = vz.jax_backward(fn, *args, **kwargs)
    for k, want in _reference(fn, args, kwargs).items():
        position = k - sum(1 for s in kwargs.get("static_argnums", ()) if s < k)
        got = trace.grads[position]
        if not _floating(args[k]):
            continue
        _assert_trees_equal(got, want)
    assert trace.check() == []


def test_inputs_are_named_by_their_path():
    by_name = {m[0]: m for m in MODELS}
    _, fn, args, _ = by_name["flax_like_nested_dict"]
    names = [x.name for x in vz.from_jax(fn, *args).inputs]
    assert names == [
        "variables['params']['Dense_0']['bias']",
        "variables['params']['Dense_0']['kernel']",
        "variables['params']['Dense_1']['bias']",
        "variables['params']['Dense_1']['kernel']",
        "x",
    ]
    _, fn, args, _ = by_name["namedtuple_params"]
    assert [w.name for w in vz.jax_backward(fn, *args).wrt] == ["layer.w", "layer.b", "x"]
    _, fn, args, _ = by_name["list_of_layer_tuples"]
    assert [x.name for x in vz.from_jax(fn, *args).inputs][:2] == ["layers[0][0]", "layers[0][1]"]
    # the names reach the drawings and the panels
    trace = vz.jax_backward(by_name["mlp_dict_softmax"][1], *by_name["mlp_dict_softmax"][2])
    assert "params['W1']" in html.unescape(vz.draw(trace).source)  # labels escape ' and ]


def test_a_scan_is_unrolled_into_time_steps_that_fold_into_one_box():
    by_name = {m[0]: m for m in MODELS}
    _, fn, args, _ = by_name["scan_rnn"]
    trace = vz.jax_backward(fn, *args)
    scopes = {s.node.scope for s in trace.steps if s.node.scope}
    assert scopes == {(f"scan t={t}",) for t in range(1, 5)}
    folds = Layout(trace, "forward", collapse="repeats").scene.folds
    titles = [f.lines[0] for f in folds.values()]
    assert any(t.startswith("× ") and "scan t=" in t for t in titles), titles
    # backpropagation through time: the shared W's adjoint sums one partial per time step
    w = next(x for x in trace.wrt if x.name == "params['W']")
    assert len(trace.step_of(w).contributions) == 4
    imported = vz.from_jax(fn, *args)
    forward = {
        n.scope for n in vz.trace_reverse(imported.output, imported.inputs, imported.feed).graph
    }
    assert ("scan t=4",) in forward


def test_a_cond_records_the_branch_taken_with_its_predicate_not_differentiated():
    def f(x):
        return jax.lax.cond(x > 0, jnp.sin, jnp.cos, x)

    for x, op in ((1.0, "sin"), (-1.0, "cos")):
        imported = vz.from_jax(f, np.float64(x))
        ops = {
            n.op.name
            for n in vz.trace_reverse(imported.output, imported.inputs, imported.feed).graph
        }
        assert op in ops and {"sin", "cos"} - {op} <= {"sin", "cos"} - ops
        (g,) = vz.evaluate(vz.gradients(imported.output, imported.inputs), imported.feed)
        with jax.enable_x64(True):
            assert g == pytest.approx(float(jax.grad(f)(x)), abs=1e-15)


def test_a_while_loop_runs_forward_and_its_reverse_mode_is_refused_as_jax_refuses_it():
    fn, args = while_loop_case()
    imported = vz.from_jax(fn, *args)
    (value,) = vz.evaluate([imported.output], imported.feed)
    assert value == pytest.approx(np.sqrt(2.0), abs=1e-12)
    # forward mode is JAX's: d sqrt(a)/da
    forward = vz.trace_forward(imported.output, imported.inputs, imported.feed)
    with jax.enable_x64(True):
        _, want = jax.jvp(fn, args, (np.float64(1.0),))
    assert float(forward.tangent(imported.output)) == pytest.approx(float(want), rel=1e-9)
    with pytest.raises(BridgeError, match="while_loop"):
        vz.gradients(imported.output, imported.inputs)
    with pytest.raises(BridgeError, match="cannot reverse-differentiate a while_loop|while_loop"):
        vz.jax_backward(fn, *args)
    with jax.enable_x64(True), pytest.raises(ValueError):
        jax.grad(fn)(*args)  # JAX refuses it too


def test_check_names_a_wrong_custom_vjp_and_compare_finds_it():
    fn, args = wrong_custom_vjp()
    imported = vz.from_jax(fn, *args)
    trace = vz.trace_reverse(imported.output, imported.inputs, imported.feed)
    failures = trace.check()
    assert failures and all("custom_vjp" in f.op for f in failures)
    assert "softclip" in failures[0].op
    # JAX's own backward pass uses the same wrong rule: the two agree with each other…
    jaxs = vz.jax_backward(fn, *args)
    assert vz.compare(jaxs, trace, labels=("JAX", "vizad")).ok
    # …and differ from the same function with the right rule
    good = vz.jax_backward(lambda w, x: jnp.sum((jnp.tanh(x @ w) * 2.0) ** 2), *args)
    comparison = vz.compare(jaxs, good, labels=("wrong", "right"))
    assert not comparison.ok and comparison.names == ("wrong", "right")
    assert {m.a.name for m in comparison.differ} >= {"w", "x"}


def test_static_argnums_and_bad_pytrees_are_clear():
    def f(x, n):
        return jnp.sum(x**n)

    trace = vz.jax_backward(f, np.array([1.0, 2.0]), 3, static_argnums=1)
    np.testing.assert_allclose(trace.grads[0], [3.0, 12.0])
    with pytest.raises(ArgumentTypeError, match="static_argnums"):
        vz.from_jax(f, np.ones(2), 2, static_argnums=5)
    with pytest.raises(ArgumentTypeError, match=r"params\['act'\] is a str"):
        vz.from_jax(lambda params: params["w"], {"w": np.ones(2), "act": "tanh"})


def test_compare_takes_labels_and_no_longer_names():
    trace = vz.jax_backward(lambda x: jnp.sum(jnp.sin(x)), np.ones(2))
    assert vz.compare(trace, trace, labels=("a", "b")).names == ("a", "b")
    with pytest.raises(TypeError, match="unexpected keyword argument 'names'"):
        vz.compare(trace, trace, names=("a", "b"))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the NaNs are the point
def test_the_first_nonfinite_value_is_found_and_sent_to_the_stepper():
    from vizad.view.widget.data import walkthrough_data

    def f(w, x):
        return jnp.sum(jnp.sqrt(jnp.log(x @ w)))

    args = (np.array([0.5, -1.0]), np.array([[1.0, 0.2], [0.1, 1.0]]))
    trace = vz.jax_backward(f, *args)
    first = trace.first_nonfinite()
    assert first.node.op.name == "log" and "jnp.log(x @ w)" in first.node.source
    assert walkthrough_data(trace)["nonfinite"] == first.index + 1
    imported = vz.from_jax(f, *args)
    ours = vz.trace_reverse(imported.output, imported.inputs, imported.feed)
    assert ours.first_nonfinite().node.op.name == "log"
    # only an adjoint NaN: found in the order of the walk
    fine = vz.trace_reverse(*(lambda x: (vz.sqrt(x), [x], {x: 0.0}))(vz.Variable("x")))
    assert fine.first_nonfinite().node.op.name == "variable"  # v̄ of x = 1/(2·0) = inf
    assert vz.examples.lecture().first_nonfinite() is None
    assert walkthrough_data(vz.examples.lecture())["nonfinite"] is None
