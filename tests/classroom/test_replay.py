"""The replay of a student's own reverse pass beside the lecture's order
(vz.diagnosis.replay), and the printout of their own gradients() (adjoint_printout)."""

from __future__ import annotations

import numpy as np
import pytest

import vizad as vz
from vizad.classroom.diagnosis import adjoint_printout, replay
from test_diagnose import engine

APPEND = "grads_list.setdefault(inp, []).append(input_grads[i])"
REVERSED = "for node in reversed(find_topo_sort([output_node])):  # REVERSE-ORDER"
SUMMED = "grad = sum_node_list(grads_list[node])  # SUM-PARTIALS"


def lecture(ad):
    """ln x1 + x1·x2 at (2, 5): v₁ = x1, v₂ = x2, v₃ = ln v₁, v₄ = v₁v₂, v₅ = v₃ + v₄."""
    x1, x2 = ad.Variable("x1"), ad.Variable("x2")
    return ad.log_op(x1) + x1 * x2, [x1, x2], {x1: np.array([2.0]), x2: np.array([5.0])}


def test_a_right_walk_replays_clean_beside_the_lectures_order():
    found = replay(*lecture(engine("student599", "s599_replay_ok")))
    assert found.ok and found.first_wrong is None
    assert [s.label for s in found.steps] == ["v₅", "v₄", "v₂", "v₃", "v₁"]
    assert [label for label, _ in found.right] == ["v₅", "v₄", "v₃", "v₂", "v₁"]
    assert float(found.steps[-1].used[0]) == 5.5 and found.final[0][0] == "v₁"
    assert abs(float(found.right[-1][1][0]) - 5.5) < 1e-6  # central differences, seed 1


def test_assigning_a_partial_adjoint_instead_of_appending_is_replayed():
    ad = engine("student599", "s599_replay_assign", (APPEND, "grads_list[inp] = [input_grads[i]]"))
    found = replay(*lecture(ad))
    assert not found.ok and found.first_wrong == 5
    last = found.steps[-1]
    assert last.label == "v₁" and float(last.used[0]) == 0.5 and not found.steps[0].wrong
    assert last.listed == [("v̄₁→₃", pytest.approx(np.array([0.5])))]
    assert last.marks == [
        "v̄₁→₄ (given at step 2) is not in node_to_output_grads_list[v₁]: replaced, not appended"
    ]
    assert found.causes[0].startswith("a partial adjoint replaces the ones before it")
    text = repr(found)
    assert "5. v₁ ⚠  v̄₁ = [0.5] ✗" in text and "5. v₁  v̄₁ = [5.5]" in text
    report = vz.diagnose(*lecture(ad))  # diagnose names the cause the replay found
    assert "replaces the ones before it" in report.first.message, report


def test_a_walk_in_forward_order_is_replayed_and_diagnosed_as_such():
    """Behind a .get fallback the forward walk raises nothing: every adjoint but the seed's
    is used before its partial adjoints arrive (diagnose once called this "not summed")."""
    ad = engine(
        "student599",
        "s599_replay_forward",
        (REVERSED, "for node in find_topo_sort([output_node]):"),
        (SUMMED, "grad = sum_node_list(grads_list.get(node, [zeroslike_op(node)]))"),
    )
    found = replay(*lecture(ad))
    assert [s.label for s in found.steps] == ["v₁", "v₃", "v₂", "v₄", "v₅"]
    assert found.first_wrong == 1
    assert found.steps[0].marks == [
        "v̄₁ used here before all its partial adjoints arrived: v̄₁→₃ comes at step 2"
    ]
    assert found.causes[0].startswith("the walk is not in reverse topological order")
    report = vz.diagnose(*lecture(ad))
    assert "not in reverse topological order" in report.first.message, report
    assert "not summed" not in report.first.message


def test_a_forward_walk_that_raises_is_replayed_up_to_its_keyerror():
    ad = engine(
        "student599",
        "s599_replay_keyerror",
        (REVERSED, "for node in find_topo_sort([output_node]):"),
    )
    found = replay(*lecture(ad))
    (step,) = found.steps
    assert step.label == "v₁" and "none has (gradients() raised KeyError: v₁)" in step.marks[0]
    assert found.notes == ["gradients() raised KeyError: x1: the replay stops there"]


def micrograd_graph(mg):
    """e = (a·b + a·a)·(a·b): a read by two nodes and by one twice."""
    a, b = mg.Value(1.5, label="a"), mg.Value(-3.0, label="b")
    c = a * b
    c.label = "c"
    d = c + a * a
    d.label = "d"
    e = d * c
    e.label = "e"
    return e, [a, b]


def test_micrograd_assigning_a_grad_is_replayed_and_everything_restored():
    mg = engine(
        "minigrad",
        "mg_replay_assign",
        ("self.grad += other.data * out.grad  # MUL-SELF", "self.grad = other.data * out.grad"),
    )
    e, (a, b) = micrograd_graph(mg)
    backward = vars(e).get("_backward")
    found = replay(e, [a, b])
    wrong = [s for s in found.steps if s.wrong]
    assert wrong and wrong[0].marks[0].startswith("a's grad lost what it held")
    assert found.causes[0].startswith("a rule sets its inputs' grads (=) where it must add")
    assert a.grad == 0.0 and e.grad == 0.0 and vars(e).get("_backward") is backward
    right = dict(found.right)
    assert right["a"] == pytest.approx((-3.0 + 3.0) * -4.5 + (-4.5 + 2.25) * -3.0, abs=1e-6)


def test_micrograd_backward_without_topological_order_is_replayed():
    mg = engine(
        "minigrad",
        "mg_replay_order",
        ("for v in reversed(topo):  # BACKWARD-ORDER", "for v in topo:"),
    )
    e, wrt = micrograd_graph(mg)
    found = replay(e, wrt)
    assert [s.label for s in found.steps][-1] == "e" and found.right[0][0] == "e"
    first = found.steps[found.first_wrong - 1]  # c or a·a first: _prev is a set
    assert first.label in ("c", "v₄"), found
    assert first.marks[0].endswith(
        "→d comes at step " + str(found.steps.index(_step(found, "d")) + 1)
    )
    assert found.causes[0].startswith("the walk is not in reverse topological order")
    assert "<table>" in found._repr_html_() and "⚠" in found._repr_html_()


def test_the_printout_is_the_students_own_gradients():
    """The notes' printout runs the student's gradients(): with the no-accumulation bug x1's
    sum is theirs (3), not vizad's loop's (4), and the lost partial adjoint is named."""
    ad = engine("student599", "s599_printout_own", (APPEND, "grads_list[inp] = [input_grads[i]]"))
    x1, x2 = ad.Variable("x1"), ad.Variable("x2")
    y = x1 * x2 + x1
    text = str(adjoint_printout(y, {x1: np.array([2.0]), x2: np.array([3.0])}))
    lines = text.splitlines()
    assert lines[0] == "1. node v₄ = ((x1*x2)+x1) = AddOp(v₃, v₁)"
    assert lines[1] == "   node_to_output_grads_list[v₄]: [v̄₄ (the seed) = [1.]]"
    assert lines[3] == "   input_grads = AddOp.gradient(node, grad): [v̄₃→₄ = [1.], v̄₁→₄ = [1.]]"
    assert lines[12:15] == [
        "4. node v₁ = x1",
        "   node_to_output_grads_list[v₁]: [v̄₁→₃ = [3.]]",
        "   grad = sum_node_list(…): v̄₁ = [3.]",
    ]
    assert "⚠ v̄₁→₄ (given at step 1) is not in node_to_output_grads_list[v₁]" in text
    import vizad.classroom.courses.autodiff as ours  # vizad's own engine: sums to 4

    x1, x2 = ours.Variable("x1"), ours.Variable("x2")
    y = x1 * x2 + x1
    text = str(adjoint_printout(y, {x1: np.array([2.0]), x2: np.array([3.0])}))
    assert "   grad = sum_node_list(…): v̄₁ = [4.]" in text and "⚠" not in text
    names_only = str(adjoint_printout(y))  # no feed: vizad's loop, said on the first line
    assert names_only.startswith("(vizad's loop over your rules, not your gradients(): no feed")
    with pytest.raises(vz.errors.ArgumentTypeError, match="not a node of a CSE 599W-style"):
        adjoint_printout(vz.Variable("x"))


def _step(found, label):
    return next(s for s in found.steps if s.label == label)


def test_micrograd_backward_by_recursion_visits_a_node_twice():
    """micrograd's most-asked question: a backward() that recurses into each child visits a
    node once per path, so its _backward runs again with a grad still growing."""
    mg = engine(
        "minigrad",
        "mg_replay_recursion",
        (
            "        build(self)\n        self.grad = 1.0  # SEED\n"
            "        for v in reversed(topo):  # BACKWARD-ORDER\n            v._backward()",
            "        self.grad = 1.0  # SEED\n\n        def go(v):\n            v._backward()\n"
            "            for child in v._prev:\n                go(child)\n\n        go(self)",
        ),
    )
    e, wrt = micrograd_graph(mg)
    found = replay(e, wrt)
    again = [s for s in found.steps if any("visited again" in m for m in s.marks)]
    assert again and again[0].label in ("a", "c"), found
    assert any(c.startswith("a node is visited more than once") for c in found.causes), found
    assert len(found.steps) > len(found.right)  # more visits than nodes


def test_vizads_own_micrograd_values_are_refused_with_the_reason():
    from vizad.classroom.courses.micrograd.engine import Value

    a, b = Value(2.0), Value(-3.0)
    with pytest.raises(vz.errors.ArgumentTypeError, match="replay records a student's engine"):
        replay(a * b + a, [a, b])
