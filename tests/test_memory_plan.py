"""The page's memory timeline (static/stepper/memory.js, for a checkpoint editor without a
kernel) is trace.memory()'s, step for step: both are run on the same walkthroughs and sets
of checkpoints, and every step's phase, label, values and bytes, the peak and the values
computed again agree (issue 49 item 2's groundwork)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import vizad as vz
from vizad.trace.memory import forward_values, memory_plan

MODULE = (
    Path(__file__).resolve().parents[1] / "vizad/view/widget/static/stepper/memory.js"
).as_uri()
SCRIPT = f"""
import {{ memoryTimeline, aliveAt }} from "{MODULE}";
let text = "";
for await (const chunk of process.stdin) text += chunk;
const out = JSON.parse(text).map(({{ plan, keep }}) => {{
  const t = memoryTimeline(plan, keep);
  return {{ ...t, lives: undefined, alive: aliveAt(t, t.peakStep) }};
}});
process.stdout.write(JSON.stringify(out));
"""

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs Node")


def in_the_page(cases: list[dict]) -> list[dict]:
    done = subprocess.run(
        ["node", "--input-type=module", "-e", SCRIPT],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def walkthroughs():
    x = vz.Variable("x")
    h, layers = x, [x]
    for _ in range(12):
        h = vz.tanh(h)
        layers.append(h)
    chain = vz.trace_reverse(vz.sum(h), x, {x: np.linspace(-1, 1, 3)})
    yield "chain", chain, [None, [], layers[0:12:3], layers[0:12:4], [layers[5]], layers]

    lecture = vz.examples.lecture()
    nodes = [n for n in lecture.graph if n.inputs]
    yield "lecture", lecture, [None, [], nodes[:2], [nodes[-1]]]

    a = vz.Variable("a")
    e = vz.exp(a)
    y = vz.sin(e) * vz.cos(e)
    two_readers = vz.trace_reverse(y, a, {a: np.array([0.3, -0.2])})
    yield "two readers", two_readers, [None, [], [e]]

    rng = np.random.default_rng(0)
    X, W1, b1, W2 = (vz.Variable(n) for n in ("X", "W1", "b1", "W2"))
    h1 = vz.tanh(X @ W1 + b1)
    loss = vz.sum(vz.log_softmax(vz.sigmoid(h1 @ W2)))
    feed = {
        X: rng.standard_normal((4, 3)),
        W1: rng.standard_normal((3, 5)),
        b1: rng.standard_normal(5),
        W2: rng.standard_normal((5, 2)),
    }
    mlp = vz.trace_reverse(loss, [W1, b1, W2], feed)
    inner = [n for n in mlp.graph if n.inputs]
    yield "mlp", mlp, [None, [], inner[::2], [h1]]

    class Scale(vz.Op):
        name = "scale"

        def compute(self, p, q):
            return p * q

        def vjp(self, node, adjoint):
            p, q = node.inputs
            shared = adjoint * node
            return [shared / p, shared / q]

    p, q = vz.Variable("p"), vz.Variable("q")
    shared = vz.trace_reverse(Scale()(vz.exp(p), vz.exp(q)), [p, q], {p: 0.5, q: 2.0})
    yield "shared intermediate", shared, [None, []]


def test_the_page_timeline_is_trace_memorys_step_for_step():
    cases, expected = [], []
    for name, trace, keeps in walkthroughs():
        plan = memory_plan(trace)
        position = {n: k for k, n in enumerate(n for n in trace.graph if n.op.name != "constant")}
        for keep in keeps:
            m = trace.memory(keep=keep)
            cases.append(
                {"plan": plan, "keep": None if keep is None else [position[n] for n in keep]}
            )
            expected.append((name, keep is None, m, position))
    got = in_the_page(json.loads(json.dumps(cases)))
    assert len(got) == len(expected) > 15
    for (name, stored, m, position), page in zip(expected, got):
        what = f"{name}, {'stored' if stored else 'checkpointed'}"
        assert [(s["phase"], s["label"], s["walkthrough"]) for s in page["steps"]] == [
            (s.phase, s.label, s.walkthrough) for s in m
        ], what
        assert [s["values"] for s in page["steps"]] == m.alive_values, what
        assert [s["bytes"] for s in page["steps"]] == m.alive_bytes, what
        assert (page["peakValues"], page["peakBytes"], page["peakStep"]) == (
            m.peak_values,
            m.peak_bytes,
            m.peak_step,
        ), what
        assert page["recomputed"] == [position[n] for n in m.recomputed], what
        alive = m.alive(m.peak_step)
        assert sorted(page["alive"]["forward"]) == sorted(
            position[h.node] for h in alive if h.role == "value"
        ), what
        assert len(page["alive"]["values"]) == sum(h.role != "value" for h in alive), what


def test_the_plan_is_plain_json_with_the_walkthroughs_names():
    plan = memory_plan(vz.examples.lecture())
    assert json.loads(json.dumps(plan)) == plan
    assert [f["label"] for f in plan["forward"]] == [f"v{c}" for c in "₁₂₃₄₅₆₇"]
    assert [f["leaf"] for f in plan["forward"]] == [True, True] + [False] * 5
    assert [r["label"] for r in plan["reverse"]] == [f"v̄{c}" for c in "₇₆₅₄₃₂₁"]
    assert [v["result"] for v in plan["values"]][-2:] == [True, True]  # v̄₂, v̄₁: the gradients


def test_a_stepper_with_memory_carries_the_plan_and_each_views_boxes():
    trace = vz.examples.lecture()
    stepper = vz.Stepper(trace, "forward", memory=True)
    assert stepper.memory is True
    assert stepper.data["memory"] == {"plan": memory_plan(trace)}
    boxes = [f"v{k}" for k in range(1, 8)]
    assert stepper.data["frames"]["forward"]["memoryBoxes"] == boxes
    assert stepper._views.frame("adjoint")["memoryBoxes"] == boxes  # a view laid out later
    plain = vz.Stepper(trace, "forward")
    assert "memory" not in plain.data and "memoryBoxes" not in plain.data["frames"]["forward"]
    assert "memoryBoxes" not in plain._views.frame("adjoint")


def test_a_box_opened_in_a_folded_view_gives_its_values_their_boxes():
    """rnn(20)'s adjoint view folds the 20 repeated steps into one box (each value inside it
    shown by that box); opened (the live widget asks Python), the patch gives each its own
    box, so that the stepper outlines the values alive inside it."""
    trace = vz.examples.rnn(20)
    stepper = vz.Stepper(trace, memory=True)
    base = stepper.data["frames"][stepper.view]["memoryBoxes"]
    fold = next(
        b for b in stepper._views.layout_of(stepper.view).collapsed if b.startswith("fold_v")
    )
    inside = [k for k, box in enumerate(base) if box == fold]
    assert len(inside) == 60  # the 20 steps' three ops each
    patch = stepper.opened(stepper.view, [fold])["memoryBoxes"]
    values = forward_values(trace)
    assert patch == {str(k): f"v{trace.names.number(values[k])}" for k in inside}
    plain = vz.Stepper(trace)
    assert "memoryBoxes" not in plain.opened(plain.view, [fold])


def test_memory_is_for_reverse_walkthroughs():
    x = vz.Variable("x")
    forward = vz.trace_forward(vz.tanh(x), x, {x: 0.5})
    with pytest.raises(vz.errors.ArgumentError, match="memory=True shows what reverse mode keeps"):
        vz.step(forward, memory=True)


def test_an_exported_page_carries_the_timeline_when_asked(tmp_path):
    from vizad.view.export import _walkthrough

    trace = vz.examples.lecture()
    data = _walkthrough(trace, None, None, False, 1.0, None, "export_html", True)[2]
    assert data["memory"]["plan"] == memory_plan(trace)
    assert all("memoryBoxes" in frame for frame in data["frames"].values())
    plain = _walkthrough(trace, None, None, False, 1.0, None, "export_html")[2]
    assert "memory" not in plain  # a trace's own .memory (a method) is no request
    stepper = vz.Stepper(trace, memory=True)
    assert "memory" in _walkthrough(stepper, None, None, None, 1.0, None, "export_html")[2]


def _chain(layers: int = 12):
    x = vz.Variable("x")
    nodes = [x]
    for _ in range(layers):
        nodes.append(vz.tanh(nodes[-1]))
    return vz.trace_reverse(vz.sum(nodes[-1]), x, {x: np.linspace(-1, 1, 3)}), nodes


def test_memory_keep_names_the_checkpoints_python_and_the_editor_share():
    """stepper.memory_keep: the checkpoints by name (the editor's, synced), set from Python
    too: the walkthrough's names in the forward order, each once, an input left out (always
    kept); "v4" taken for "v₄"; None: every value stored."""
    import traitlets

    from vizad.view.widget.checks import StepperValueError

    trace, nodes = _chain()
    stepper = vz.Stepper(trace, memory=True)
    assert stepper.memory_keep is None
    stepper.memory_keep = ["v10", "v₄", "v7", "v4", "v1"]  # v₁: x, the input
    assert stepper.memory_keep == ["v₄", "v₇", "v₁₀"]
    assert [trace.label(n) for n in nodes[3:12:3]] == stepper.memory_keep
    # an unknown name: refused, named, and the checkpoints stay
    with pytest.raises(StepperValueError, match=r"'v99' is not a value of the forward pass"):
        stepper.memory_keep = ["v4", "v99"]
    with pytest.raises(StepperValueError, match=r"'v̄₄' is not a value"):
        stepper.memory_keep = ["v̄₄"]  # an adjoint is not a forward value
    with pytest.raises(traitlets.TraitError, match="list"):
        stepper.memory_keep = 4
    with pytest.raises(StepperValueError, match="3 is not a value"):
        stepper.memory_keep = ["v4", 3]
    assert stepper.memory_keep == ["v₄", "v₇", "v₁₀"]
    stepper.memory_keep = "v5"  # a name alone (traitlets makes it a list of one)
    assert stepper.memory_keep == ["v₅"]
    # from the page (the editor's clicks): applied when valid, rolled back when not
    stepper.set_state({"memory_keep": ["v₆"]})
    assert stepper.memory_keep == ["v₆"]
    stepper.set_state({"memory_keep": ["nowhere"]})
    assert stepper.memory_keep == ["v₆"]
    stepper.memory_keep = None
    assert stepper.memory_keep is None
    # a stepper without the timeline has no checkpoints to choose
    plain = vz.Stepper(trace)
    with pytest.raises(StepperValueError, match="memory=True"):
        plain.memory_keep = ["v4"]
    assert plain.memory_keep is None
