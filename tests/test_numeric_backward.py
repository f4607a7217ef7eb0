"""Eager ``backward()`` computes gradients on values, with the ops' own rules, without building
the adjoint graph: the numbers are those of ``vz.gradients`` bit for bit (every op, random
graphs, float32 and float64), and a leaf's ``.grad`` becomes the adjoint node when it is used
as one."""

import gc
import weakref

import numpy as np
import pytest

import vizad as vz
from differential import make_graph
from opcases import all_cases, sample_inputs
from vizad.engine.backward import adjoint_values
from vizad.engine.eager import LazyGrad
from vizad.errors import GraphError
from vizad.extend import CONSTANT, VARIABLE, EagerNode


def _eager(output, values: dict):
    """The graph of ``output`` run again eagerly: each Variable a tensor holding its value."""
    made = {x: vz.tensor(v, name=x.name) for x, v in values.items()}
    for node in vz.topo_sort(output):
        if node in made:
            continue
        if node.op is VARIABLE:
            made[node] = vz.tensor(values[node], name=node.name)
        elif node.op is CONSTANT or isinstance(node, EagerNode):
            made[node] = node
        else:
            made[node] = node.op(*(made[x] for x in node.inputs), **dict(node.attrs))
    return made[output], [made[x] for x in values]


def _same(a, b) -> bool:
    if isinstance(a, tuple):
        return isinstance(b, tuple) and all(_same(x, y) for x, y in zip(a, b))
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


def _check(y, leaves):
    """adjoint_values against the adjoint graph of gradients(), evaluated."""
    numeric = adjoint_values(y)
    graph = [g.value for g in vz.gradients(y, leaves)]
    for leaf, expected in zip(leaves, graph):
        got = numeric.get(leaf)
        if got is None:  # no path: gradients() gives zeros
            assert not np.any(expected)
            continue
        assert _same(got, expected), (leaf, got, expected)


@pytest.mark.parametrize(("name", "case"), all_cases(), ids=lambda c: str(c))
def test_every_op_numeric_equals_the_adjoint_graph(name, case):
    xs = [vz.Variable(f"x{k}") for k in range(len(case.shapes))]
    symbolic = case.build(*xs)
    for dtype in (np.float64, np.float32):
        point = [np.asarray(v, dtype) for v in sample_inputs(case, seed=5)]
        y, leaves = _eager(symbolic, dict(zip(xs, point)))
        _check(y, leaves)


@pytest.mark.parametrize("first", range(0, 300, 50))
def test_random_graphs_numeric_equals_the_adjoint_graph(first):
    for seed in range(first, first + 50):
        g = make_graph(seed)
        y, leaves = _eager(g.output, g.values)
        if y.requires_grad:
            _check(y, leaves)


def _lecture():
    x1, x2 = vz.tensor(2.0, name="x1"), vz.tensor(5.0, name="x2")
    return x1, x2, vz.log(x1) + x1 * x2 - vz.sin(x2)


def _nodes_made(run) -> int:
    first = vz.constant(0.0).id
    run()
    return vz.constant(0.0).id - first - 1


def test_backward_builds_no_adjoint_node_until_a_gradient_is_used_as_one():
    x1, x2, y = _lecture()
    with pytest.warns(UserWarning, match="reference cycle"):
        graph = _nodes_made(lambda: y.backward(create_graph=True))
    x1.grad = x2.grad = None
    numeric = _nodes_made(y.backward)
    # the seed and the two gradients: the local partials (1/x1, cos x2) are values on the tape
    assert numeric == 3 and graph >= 12, (numeric, graph)
    g = x1.grad
    assert isinstance(g, LazyGrad) and g.value == pytest.approx(5.5) and g._real is None
    assert isinstance(g.origin, vz.extend.Adjoints) and g._real is not None  # built now
    assert g.node() is g._real and g.op.name == "add_n"


def test_a_gradient_used_as_a_node_is_the_adjoint_node():
    x1, x2, y = _lecture()
    y.backward()
    z = x1.grad * x1  # d/dx1 (x2 + 1/x1) x1 = d/dx1 (x1 x2 + 1) = x2
    assert z.value == pytest.approx(5.5 * 2.0)
    x1.grad = x2.grad = None
    z.backward()
    assert x1.grad.value == pytest.approx(5.0) and x2.grad.value == pytest.approx(2.0)


def test_create_graph_builds_the_adjoint_graph_at_once():
    x1, x2, y = _lecture()
    with pytest.warns(UserWarning, match="reference cycle that only the garbage collector"):
        y.backward(create_graph=True)
    assert not isinstance(x1.grad, LazyGrad) and x1.grad.origin.output is y
    g1 = x1.grad
    x1.grad = x2.grad = None
    g1.backward()
    assert x1.grad.value == pytest.approx(-0.25)


def test_gradients_accumulate_and_stay_differentiable():
    x1, x2, y = _lecture()
    y.backward()
    y.backward(cotangent=2.0)
    assert x2.grad.value == pytest.approx(3 * (2 - np.cos(5)))
    node = x2.grad.node()  # add(first, second) of the adjoint nodes
    assert node.op.name == "add" and node.value == pytest.approx(x2.grad.value)


def test_a_gradient_keeps_no_graph_alive_and_makes_no_cycle():
    gc.collect()
    gc.disable()
    try:
        x1, x2, y = _lecture()
        y.backward()
        output = weakref.ref(y)
        del y
        assert output() is None  # freed at once: the gradient does not hold the output
        assert x1.grad.value == pytest.approx(5.5)
        assert x1.grad.node() is x1.grad  # now a constant, as in PyTorch
        assert (x1.grad * 2.0).value == pytest.approx(11.0)
        leaf = weakref.ref(x1)
        del x1, x2
        assert leaf() is None  # no cycle leaf -> .grad -> ... -> leaf
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_drawing_and_tracing_after_backward_use_the_forward_graph():
    x1, x2, y = _lecture()
    y.backward()
    trace = vz.trace_reverse(y)
    assert trace.step_of(x2).adjoint == pytest.approx(x2.grad.value)
    assert "x1" in vz.draw(y).source


def test_partial_adjoints_are_summed_in_reverse_creation_order():
    """x has three consumers; the first made is the deepest, so display order and creation
    order differ: gradients() lists the terms in display order and sums them in reverse
    creation order (add_n's order), as backward() does: the same bits, every time."""
    rng = np.random.default_rng(0)
    for _ in range(40):
        w = vz.tensor(rng.normal(size=3), name="w")
        x = vz.tensor(rng.normal(size=3) * 10, name="x")
        c1 = x * vz.exp(vz.exp(vz.sin(w)))
        y = c1 + vz.sin(x) * 3.7 + vz.cos(x) * 1.3
        (g,) = vz.gradients(y, [x])
        assert _same(adjoint_values(y)[x], g.value)
        assert g.op.name == "add_n" and g.attrs["order"] == (1, 2, 0)
        partials = g.origin.partials(x)  # in display order: the deepest consumer first
        assert list(g.inputs) == [p.node for p in partials] and partials[0].consumer is c1


def _matmuls(monkeypatch) -> list:
    """The matmuls computed from now on (MatMul.compute's calls)."""
    from vizad.engine.ops.tensor import MatMul

    calls, compute = [], MatMul.compute
    monkeypatch.setattr(
        MatMul, "compute", lambda self, *a, **k: calls.append(1) or compute(self, *a, **k)
    )
    return calls


def test_a_vjp_computes_only_the_gradients_needed(monkeypatch):
    """An MLP step on a data batch that needs no gradient: 2 matmuls forward, 3 backward (no
    dX), as hand-written numpy does; vz.gradients builds no adjoint node for X either."""
    rng = np.random.default_rng(0)
    X = vz.tensor(rng.normal(size=(8, 5)), requires_grad=False)
    W1, W2 = vz.tensor(rng.normal(size=(5, 4))), vz.tensor(rng.normal(size=(4, 3)))
    calls = _matmuls(monkeypatch)
    loss = vz.sum(vz.relu(X @ W1) @ W2)
    loss.backward()
    assert len(calls) == 5
    assert W1.grad.value.shape == (5, 4) and W2.grad.value.shape == (4, 3)
    import vizad.engine.ops.tensor as tensor_ops

    built, matmul_op = [], tensor_ops._MATMUL
    monkeypatch.setattr(
        tensor_ops, "_MATMUL", lambda *a, **k: built.append(1) or matmul_op(*a, **k)
    )
    x = vz.Variable("x", shape=(8, 5))
    w = vz.Variable("w", shape=(5, 4))
    y = vz.sum(x @ w)
    built.clear()
    record = vz.extend.build_adjoints(y, [w])
    assert record.adjoint(x) is None and len(built) == 1  # w̄ = xᵀ ȳ alone
    vz.extend.build_adjoints(y, [x, w])
    assert len(built) == 3


def test_the_walk_crosses_other_graphs_nodes():
    """The backward walk reads creation order from the output down: long stretches of other
    nodes (another graph built in between, leaves made long before) are skipped, and the sums
    are those of gradients() bit for bit."""
    a, b = vz.tensor(0.3, name="a"), vz.tensor(np.array([0.5, -1.5]), name="b")
    other = vz.tensor(2.0)
    for _ in range(300):  # another graph's nodes between the leaves and this graph's
        other = vz.tanh(other * 0.9)
    h = vz.sin(a) * b
    for k in range(200):  # this graph's nodes interleaved with the other graph's
        other = other * 1.01
        if k % 50 == 0:
            h = h + vz.exp(a) * b
    y = vz.sum(h * h)
    _check(y, [a, b])
    y.backward()
    assert _same(a.grad.value, adjoint_values(y)[a])
    assert _same(b.grad.value, vz.gradients(y, [b])[0].value)


def test_a_graph_whose_edges_go_back_is_refused():
    """A node's inputs are made before it; a graph whose internals were changed so that an
    input is made after its consumer is refused by backward(), not walked wrongly."""
    x = vz.tensor(1.5, name="x")
    y = vz.sin(x)
    later = vz.cos(x)
    for _ in range(100):  # a stretch of other nodes, so that the walk looks the place up
        vz.tensor(0.0)
    z = y * 2.0
    object.__setattr__(y, "_inputs", (later,))  # tampered with: y now reads a later node
    with pytest.raises(GraphError, match="made before it"):
        z.backward()
