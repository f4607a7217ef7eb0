"""trace.memory(): the values reverse mode keeps alive at each step, with and without
checkpoints (issue 49; tests/test_memory.py is another matter: graphs freed at del). The
counts are derived by hand from the definitions in vizad/trace/memory.py's docstring; the
gradients are compared bit for bit."""

from __future__ import annotations

import math

import numpy as np
import pytest

import vizad as vz
from vizad.errors import ArgumentError, ArgumentTypeError, StepNotFoundError


def chain(layers: int, width: int = 5):
    x = vz.Variable("x")
    h, hs = x, [x]
    for _ in range(layers):
        h = vz.tanh(h)
        hs.append(h)
    trace = vz.trace_reverse(h, x, {x: np.linspace(-1.5, 1.5, width)})
    return trace, hs


def same_bits(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("layers", [16, 36, 64])
def test_a_tanh_chain_holds_L_plus_2_and_L_over_k_plus_k_plus_2_with_checkpoints(layers):
    trace, hs = chain(layers)
    stored = trace.memory()
    # every tanh(…) value (tanh's rule reads its output; x is freed) + the seed and the adjoint
    assert stored.peak_values == layers + 2
    assert stored.recomputed == ()
    assert stored.peak.phase == "reverse" and stored.peak.walkthrough == 2
    assert stored.peak_bytes == (layers + 2) * 5 * 8
    assert set(stored.saved) == set(hs[1:])  # what reverse mode keeps: the L tanh values
    peaks = {}
    for k in (k for k in range(1, layers + 1) if layers % k == 0):
        kept = trace.memory(keep=hs[0:layers:k])  # each segment's input: x, v_k, v_2k, …
        assert kept.peak_values == layers // k + k + 2, k
        peaks[k] = kept.peak_values
        # the last segment in full, every other segment but its kept end
        assert len(kept.recomputed) == layers - layers // k + 1
        assert len(set(kept.recomputed)) == len(kept.recomputed)  # each at most once
        assert same_bits(kept.gradients[0], stored.gradients[0])
        assert same_bits(kept.gradients[0], trace.gradients[0])
    root = math.isqrt(layers)
    assert min(peaks, key=peaks.get) == root and peaks[root] == 2 * root + 2


def test_the_chain_timeline_step_by_step():
    trace, hs = chain(4, width=3)
    m = trace.memory()
    # v₁ = x … v₅, then v̄₅ (the seed), v̄₄ … v̄₁
    assert [s.phase for s in m] == ["forward"] * 5 + ["reverse"] * 5
    assert m.alive_values == [1, 2, 2, 3, 4, 5, 6, 5, 4, 3]
    assert m.alive_bytes == [24 * n for n in m.alive_values]
    assert [h.label for h in m[2].freed] == ["v₁"]  # x: read by v₂'s forward step only
    assert [h.label for h in m[7].reads] == ["v₅", "v̄₅"]  # v̄₄ = v̄₅ (1 - v₅²)
    assert [h.label for h in m.alive(7)] == ["v₂", "v₃", "v₄", "v₅", "v̄₅", "v̄₄"]
    assert [h.label for h in m[-1].freed] == ["v₂", "v̄₂"]  # v̄₁, the gradient, is handed back
    assert m.peak_step == 7 and m.peak.label == "v̄₄"

    k = trace.memory(keep=[hs[2]])  # v₃ kept: v₄, v₅ dropped and computed again
    phases = [(s.phase, s.label) for s in k]
    assert phases[5:9] == [
        ("reverse", "v̄₅"),
        ("recompute", "v₄"),
        ("recompute", "v₅"),
        ("reverse", "v̄₄"),
    ]
    assert phases[10:12] == [("reverse", "v̄₂"), ("recompute", "v₂")]  # from x, kept: an input
    assert [trace.label(n) for n in k.recomputed] == ["v₄", "v₅", "v₂"]
    assert same_bits(k.gradients[0], trace.gradients[0])


def test_keep_nothing_recomputes_everything_once_and_keep_everything_recomputes_nothing():
    trace, hs = chain(6)
    assert len(trace.memory(keep=[]).recomputed) == 6
    assert trace.memory(keep=[]).peak_values == 6 + 1 + 2  # x, all six again, two adjoints
    everything = trace.memory(keep=hs)
    assert everything.recomputed == ()
    # a checkpoint is held until the walkthrough reaches it: x until v̄₁'s step
    assert everything.peak_values == trace.memory().peak_values + 1


def test_the_lecture_example_by_hand():
    trace = vz.examples.lecture()
    m = trace.memory()
    assert m.alive_values == [1, 2, 3, 4, 5, 6, 5, 3, 4, 5, 5, 6, 6, 6]
    assert m.peak_values == 6 and m.peak_step == 6  # v₆ = v₃ + v₄: everything so far
    # v₃ = ln v₁ and v₄ = v₁ v₂: the rules of v₃ and v₄ read v₁ and v₂, not v₃ … v₇
    assert [trace.label(n) for n in m.saved] == ["v₁", "v₂"]
    step = m[13]  # v̄₂ = v̄₅ cos v₂ + v̄₄ v₁
    assert step.walkthrough == 6
    assert [h.label for h in step.reads] == ["v₁", "v₂", "v̄₅", "v̄₄"]
    assert [h.label for h in step.freed] == ["v̄₅"]
    assert [same_bits(a, b) for a, b in zip(m.gradients, trace.gradients)] == [True, True]


def test_a_value_read_by_two_rules_lives_until_the_second_and_is_recomputed_once():
    x = vz.Variable("x")
    a = vz.exp(x)
    y = vz.sin(a) * vz.cos(a)  # sin's and cos's rules read a; exp's reads a (its output)
    trace = vz.trace_reverse(y, x, {x: np.array([0.3, -0.2])})
    m = trace.memory()
    number = {trace.label(s.node): s.index + 1 for s in m if s.phase == "reverse"}
    last = max(s.index + 1 for s in m if any(h.node is a for h in s.reads))
    assert last == number["v₁"]  # v̄₁ = v̄₂ v₂ (x = v₁): exp reads its output, the last reader
    assert any(h.node is a and h.role == "value" for h in m[last].freed)
    assert a in m.saved
    assert all(any(h.node is a for h in m.alive(n)) for n in range(2, last + 1))
    steps_reading = [s for s in m if s.phase == "reverse" and any(h.node is a for h in s.reads)]
    assert len(steps_reading) == 2  # v̄₂'s step (sin, cos partials) and v̄₁'s (exp)

    kept = trace.memory(keep=[])
    assert [n for n in kept.recomputed if n is a] == [a]  # once, held for both readers
    assert all(same_bits(p, q) for p, q in zip(kept.gradients, trace.gradients))


def test_branches_free_each_value_after_its_last_reader():
    x1, x2 = vz.Variable("x1"), vz.Variable("x2")
    left = vz.tanh(x1 * x2)
    right = vz.sin(x2)
    y = vz.sum(left + right)
    trace = vz.trace_reverse(y, [x1, x2], {x1: np.ones(3), x2: np.arange(3.0)})
    m = trace.memory()
    label = trace.label
    # sum's rule reads no value (its adjoint broadcasts), add's neither: the values kept are
    # x1 and x2 (mul reads the other factor, sin its input) and tanh's output
    assert sorted(label(n) for n in m.saved) == sorted(label(n) for n in (x1, x2, left))
    assert y not in m.saved and right not in m.saved
    for s in m:
        for h in s.freed:  # nothing freed is read again
            later = [t for t in m.steps[s.index + 1 :] if h in t.reads]
            assert not later or any(h in t.made for t in m.steps[s.index + 1 :]), h
    for keep in ([], [left], [left, right], [y]):
        k = trace.memory(keep=keep)
        assert all(same_bits(p, q) for p, q in zip(k.gradients, trace.gradients)), keep


def test_checkpointed_gradients_are_bit_for_bit_on_an_mlp():
    rng = np.random.default_rng(3)
    X, W1, b1, W2 = (vz.Variable(n) for n in ("X", "W1", "b1", "W2"))
    h1 = vz.tanh(X @ W1 + b1)
    h2 = vz.sigmoid(h1 @ W2)
    loss = vz.sum(vz.log_softmax(h2 * h2))
    feed = {
        X: rng.standard_normal((4, 3)),
        W1: rng.standard_normal((3, 5)),
        b1: rng.standard_normal(5),
        W2: rng.standard_normal((5, 2)),
    }
    trace = vz.trace_reverse(loss, [W1, b1, W2], feed)
    graph = [n for n in trace.graph if n.inputs]
    stored = trace.memory()
    for keep in ([], graph[::2], graph[1::3], [h1], [h2]):
        k = trace.memory(keep=keep)
        assert all(same_bits(p, q) for p, q in zip(k.gradients, trace.gradients))
        assert all(same_bits(p, q) for p, q in zip(k.gradients, stored.gradients))
        assert set(k.recomputed) <= set(graph) - set(keep)
    assert trace.memory(keep=[]).peak_bytes >= 0
    # the bytes are the arrays': the X @ W1 value is 4 × 5 float64
    first = next(s for s in stored if s.phase == "forward" and trace.label(s.node) == "v₅")
    assert first.made[0].node.op.name == "matmul"
    assert stored.alive_bytes[first.index] - stored.alive_bytes[first.index - 1] == 4 * 5 * 8 - 0


def test_an_intermediate_shared_by_two_partial_adjoints_is_counted_between_the_steps():
    class Scale(vz.Op):
        """a · b with a rule whose intermediate (v̄ · out) serves both inputs."""

        name = "scale"

        def compute(self, a, b):
            return a * b

        def vjp(self, node, adjoint):
            a, b = node.inputs
            shared = adjoint * node
            return [shared / a, shared / b]

    a, b = vz.Variable("a"), vz.Variable("b")
    y = Scale()(vz.exp(a), vz.exp(b))
    trace = vz.trace_reverse(y, [a, b], {a: 0.5, b: 2.0})
    m = trace.memory()
    shared = [h for s in m for h in s.made if h.role == "intermediate"]
    assert len(shared) == 1 and shared[0].node.op.name == "mul"
    readers = [s for s in m if shared[0] in s.reads]
    assert len(readers) == 1 and readers[0].phase == "reverse"
    assert all(same_bits(p, q) for p, q in zip(m.gradients, trace.gradients))


def test_bad_keep_is_refused_naming_the_node():
    trace, hs = chain(3)
    stranger = vz.tanh(vz.Variable("elsewhere"))
    named = r"node #\d+ tanh\(elsewhere\).*not a node of the forward"
    with pytest.raises(ArgumentError, match=named):
        trace.memory(keep=[hs[1], stranger])
    with pytest.raises(ArgumentError, match="not a node of the forward"):
        trace.memory(keep=[trace.steps[0].adjoint_node])  # an adjoint node
    c = vz.constant(2.0)
    y = vz.tanh(hs[0] * c)
    with pytest.raises(ArgumentError, match="a constant"):
        vz.trace_reverse(y, hs[0], {hs[0]: 1.0}).memory(keep=[c])
    with pytest.raises(ArgumentTypeError, match="int 3"):
        trace.memory(keep=[3])
    with pytest.raises(ArgumentTypeError, match="keep is a set of nodes"):
        trace.memory(keep=3)
    assert trace.memory(keep=hs[2]).recomputed  # one node is a set of one


def test_steps_are_numbered_from_one_and_shown_escaped():
    x = vz.Variable("<b>x</b>")
    trace = vz.trace_reverse(vz.tanh(vz.tanh(x)), x, {x: 0.5})
    m = trace.memory(keep=[])
    assert m[1].phase == "forward" and m[-1].phase == "reverse"
    with pytest.raises(StepNotFoundError):
        m[0]
    with pytest.raises(ArgumentTypeError):
        m[1.5]
    text = repr(m)
    assert text.startswith("Memory of the reverse walkthrough of v₃ (0 checkpoints kept): peak")
    # the timeline's step counts the forward pass; the walkthrough's own step (the stepper's
    # "Step k of n") is said beside it
    peak = m.peak
    assert f"at step {m.peak_step} of {len(m)} ({peak.phase} {peak.label}" in text
    if peak.walkthrough is not None:
        assert f", the walkthrough's step {peak.walkthrough})" in text
    assert "◀ peak" in text and "recompute" in text
    html = m._repr_html_()  # the trace tables' one escaping table maker
    assert html.startswith('<div class="vizad-trace') and "<b>" not in html
    header, rows = m.table()
    assert header[0] == "step" and len(rows) == len(m)
    assert (
        vz.trace_reverse(vz.tanh(x), x, {x: 0.5})
        .memory()
        .describe()
        .endswith("0 forward ops run again")
    )


def test_a_tuple_of_many_values_counts_the_bytes_of_each_leaf():
    x = vz.Variable("x")
    pair = vz.make_tuple(vz.sin(x), vz.cos(x))
    y = vz.tuple_get(pair, 0) * vz.tuple_get(pair, 1)
    trace = vz.trace_reverse(y, x, {x: np.zeros(4)})
    m = trace.memory()
    step = next(s for s in m if s.phase == "forward" and s.node is pair)
    assert m.alive_bytes[step.index] - m.alive_bytes[step.index - 1] == 2 * 4 * 8
    assert all(same_bits(p, q) for p, q in zip(m.gradients, trace.gradients))


def test_a_walkthrough_recorded_from_pytorch_is_refused_with_the_way_round():
    torch = pytest.importorskip("torch")
    x1 = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    trace = vz.torch_backward(torch.sin(x1) * x1, {"x1": x1})
    with pytest.raises(ArgumentError, match="recorded from PyTorch's backward pass.*from_torch"):
        trace.memory()
