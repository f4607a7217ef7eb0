"""The engine's short paths keep its behaviour: reverse mode builds no partial adjoint nobody
reads, the nodes it sums and multiplies itself skip the op's full call only where that call
would give the same node, constants of Python numbers share a read-only array without mixing
up 0.0 and -0.0, and a walkthrough's values read as arrays although it computes on scalars."""

from __future__ import annotations

import numpy as np
import pytest

import vizad as vz
from vizad.engine.eager import EagerNode


def _built_by(fn) -> int:
    """How many nodes ``fn()`` builds (ids count every node made)."""
    before = vz.constant(1.5).id
    fn()
    return vz.constant(1.5).id - before - 1


def test_no_partial_adjoint_for_inputs_that_do_not_depend_on_wrt():
    x, w = vz.Variable("x", shape=()), vz.Variable("w", shape=())
    y = x * w
    # the seed ones_like(y) and v̄ × w for x; no v̄ × x for w, which is not differentiated
    assert _built_by(lambda: vz.gradients(y, [x])) == 2
    assert _built_by(lambda: vz.gradients(y, [x, w])) == 3
    z = vz.sin(x) * 3.0 + w  # the constant 3 and w get no partial adjoint either
    # the seed, v̄ × 1 for sin(x) * 3, v̄ × 3 for sin(x), cos(x) and v̄ × cos(x) for x
    assert _built_by(lambda: vz.gradients(z, [x])) == 5
    [g] = vz.gradients(z, [x])
    assert vz.evaluate(g, {x: 0.4, w: 1.0}) == pytest.approx(3.0 * np.cos(0.4))


def test_engine_products_skip_the_full_call_only_when_it_gives_the_same_node(monkeypatch):
    x = vz.Variable("x", shape=(3,))
    y = vz.sum(vz.tanh(x) * x)
    calls = []
    full_call = vz.Op.__call__

    def counted(op, *inputs, **kwargs):
        calls.append(op.name)
        return full_call(op, *inputs, **kwargs)

    monkeypatch.setattr(vz.Op, "__call__", counted)
    record = vz.extend.build_adjoints(y, [x])
    monkeypatch.undo()
    # the full calls: the seed and its broadcast, tanh's partial 1 − v² (written with ops),
    # the sum of x's two partial adjoints; not the three products v̄ × ∂v/∂x
    assert sorted(calls) == ["add_n", "broadcast_to", "mul", "ones_like", "sub"]
    made = [n for n in vz.topo_sort(record.gradients) if n.origin is record]
    assert [(n.op.name, n.shape) for n in made] == [
        ("ones_like", ()),
        ("broadcast_to", (3,)),
        ("mul", (3,)),  # v̄ × x for tanh(x), straight to the node
        ("mul", (3,)),  # v̄ × tanh(x) for x, straight to the node
        ("mul", (3,)),  # tanh(x)², in the op's own partial (full calls)
        ("constant", ()),
        ("sub", (3,)),
        ("mul", (3,)),  # v̄ × (1 − tanh(x)²), straight to the node
        ("add_n", (3,)),  # the two partial adjoints of x summed
    ]
    record.release()
    # a constant seed: v̄ × 1 of constants only is folded into an eager node, as the op does
    a = vz.Variable("a")
    record = vz.extend.build_adjoints(a + a, [a], cotangent=2.0)
    partials = [p.node for p in record.partials(a)]
    assert len(partials) == 2 and all(isinstance(p, EagerNode) for p in partials)
    assert [float(p.value) for p in partials] == [2.0, 2.0]
    record.release()
    # eager graphs compute every adjoint node at once
    t = vz.tensor(0.5)
    loss = vz.tanh(t) * t + t
    loss.backward()
    assert isinstance(t.grad, EagerNode)
    assert float(t.grad.value) == pytest.approx(np.tanh(0.5) + 0.5 * (1 - np.tanh(0.5) ** 2) + 1)
    # shapes that differ go through the op (broadcasting, its checks)
    v, m = vz.Variable("v", shape=(3,)), vz.Variable("m", shape=(2, 3))
    gv, gm = vz.gradients(vz.sum(v * m), [v, m])
    assert gv.shape == (3,) and gm.shape == (2, 3)
    assert "sum_to_shape" in {n.op.name for n in vz.topo_sort(gv)}


def test_constants_of_python_numbers_keep_sign_nan_and_type():
    assert np.signbit(vz.constant(-0.0).attrs["value"])
    assert not np.signbit(vz.constant(0.0).attrs["value"])
    assert np.isnan(vz.constant(float("nan")).attrs["value"])
    for value in (1, 1.0, True):
        array = vz.constant(value).attrs["value"]
        assert array.dtype == np.asarray(value).dtype and not array.flags.writeable
    x = vz.Variable("x")
    assert vz.evaluate(x * -0.0, {x: 2.0}) == 0.0
    assert np.signbit(vz.evaluate(x * -0.0, {x: 2.0}))
    assert vz.evaluate(x * 2, {x: np.float32(1.5)}).dtype == np.float32


def test_walkthrough_values_read_as_arrays():
    x1, x2 = vz.Variable("x1"), vz.Variable("x2")
    y = vz.log(x1) + x1 * x2 - vz.sin(x2)
    for trace in (
        vz.trace_reverse(y, [x1, x2], {x1: 2.0, x2: 5.0}),
        vz.trace_forward(y, feed={x1: 2.0, x2: 5.0}),
    ):
        values = trace.values
        assert len(values) == len(list(values)) == len(dict(values.items()))
        for node, value in values.items():
            assert type(value) is np.ndarray, node
            assert values[node] is value  # made once, kept
            assert node in values
        assert "values of" in repr(values)
    tuples = vz.examples.tuples()
    made = [n for n in tuples.values if n.op.name == "make_tuple"]
    assert made
    for node in made:
        value = tuples.values[node]
        assert isinstance(value, tuple) and all(type(v) is np.ndarray for v in value)
        assert tuples.values[node] is value  # converted once
    copied = tuples.values.copy()
    assert type(copied) is dict and copied.keys() == set(tuples.values)
    trace = vz.trace_reverse(y, [x1, x2], {x1: np.float32(2.0), x2: np.float32(5.0)})
    assert all(v.dtype == np.float32 for v in trace.gradients)
    assert trace.gradients[1] == pytest.approx(1.716, abs=1e-3)
