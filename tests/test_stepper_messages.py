"""The stepper's kernel messages as an adversary sends them: every update from the page is
checked before it changes anything (rolled back and answered with a refusal the page shows),
inputs are finite numbers, the quiz's score is earned by answers judged here, every request is
answered, and a closed stepper says it was closed."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

import vizad as vz
from vizad.errors import ClosedError, VizadError
from vizad.trace.quiz import judge
from vizad.view.widget.stepper import REFUSED


def _stepper(quiz=True):
    x1, x2 = vz.Variable("x1"), vz.Variable("x2")
    y = vz.log(x1) + x1 * x2 - vz.sin(x2)
    stepper = vz.step(y, [x1, x2], {x1: 2.0, x2: 5.0}, quiz=quiz)
    sent = []
    stepper.send = lambda content, buffers=None: sent.append(content)
    stepper.send_state = lambda key=None: sent.append({"state": key})
    return stepper, sent


def _update(stepper, state):
    stepper._handle_msg({"content": {"data": {"method": "update", "state": state}}, "buffers": []})


def _custom(stepper, content):
    stepper._handle_msg(
        {"content": {"data": {"method": "custom", "content": content}}, "buffers": []}
    )


def _consistent(stepper):
    """What a stepper must always be: a view of its trace, a step in range, a finite scale,
    inputs that are the trace's (finite floats), a score made from answers judged here."""
    trace = stepper.trace
    assert stepper.view in trace.views
    assert isinstance(stepper.step, int) and 1 <= stepper.step <= stepper.n_steps
    assert math.isfinite(stepper.scale) and 0.25 <= stepper.scale <= 4
    feed = {node.name: float(np.asarray(v)) for node, v in trace.feed.items()}
    assert stepper.inputs == feed and all(math.isfinite(v) for v in stepper.inputs.values())
    known = {q.key: q for qs in stepper.questions for q in qs}
    for key, entry in stepper.progress.items():
        verdicts = [judge(known[key], a) for a in entry.get("answers", [])]
        assert (entry.get("state") == "right") == any(v.right for v in verdicts), (key, entry)
    assert stepper.score == stepper._score()


def test_refused_updates_are_rolled_back_and_answered():
    stepper, sent = _stepper()
    _update(stepper, {"view": "nope"})
    assert stepper.view == "adjoint" and sent[-1]["kind"] == REFUSED
    assert "give one of them" in sent[-1]["error"] and {"state": ["view"]} in sent
    for bad in ("abc", "3", "nan", "1e400", float("nan"), float("inf"), None, [1], True):
        sent.clear()
        _update(stepper, {"inputs": {"x1": bad}})
        assert stepper.inputs == {"x1": 2.0, "x2": 5.0}, bad
        assert sent[-1]["kind"] == REFUSED, bad
    with pytest.raises(VizadError, match="finite"):
        stepper.inputs = {"x1": float("nan"), "x2": 5.0}
    with pytest.raises(VizadError, match="must be a number"):
        stepper.inputs = {"x1": "abc", "x2": 5.0}
    with pytest.raises(VizadError):
        stepper.view = "nope"
    assert stepper.view == "adjoint"
    _update(stepper, {"inputs": {"x1": 3, "x2": 5.0}})
    assert stepper.trace.feed and stepper.inputs == {"x1": 3.0, "x2": 5.0}
    _consistent(stepper)


def test_the_score_is_earned_by_answers_judged_in_python():
    stepper, sent = _stepper()
    _update(stepper, {"score": {"right": 15, "asked": 15, "questions": 15}})
    assert stepper.score == {"right": 0, "asked": 0, "questions": 15}
    forged = {q.key: {"tries": 0, "state": "right"} for qs in stepper.questions for q in qs}
    _update(stepper, {"progress": forged})
    assert stepper.progress == {} and sent[-1]["kind"] == REFUSED
    wrong = {"0.0": {"tries": 0, "state": "right", "answers": ["2"]}}
    _update(stepper, {"progress": wrong})
    assert stepper.progress == {}
    right = {"0.0": {"tries": 0, "state": "right", "answers": ["1"]}}
    _update(stepper, {"progress": right})
    assert stepper.score["right"] == 1
    _update(stepper, {"progress": {}})  # a decided question stays decided
    assert stepper.score["right"] == 1 and sent[-1]["kind"] == REFUSED
    _consistent(stepper)


def _forged(rng: random.Random, stepper) -> tuple[str, object]:
    """One forged message: an update of a synced value or a request, valid or not."""
    keys = [q.key for qs in stepper.questions for q in qs] + ["9.9", "", "__proto__"]
    junk = [None, True, 1, -1, 2**70, 1.5, float("nan"), float("inf"), "x", "", "3",
            "nan", "1e400", [], {}, [1, 2], {"a": 1}, "<script>alert(1)</script>"]  # fmt: skip
    kind = rng.randrange(12)
    if kind == 0:
        return "update", {"view": rng.choice(["forward", "adjoint", "backprop", "nope", *junk])}
    if kind == 1:
        return "update", {"step": rng.choice([1, 3, 0, -5, 10**9, *junk])}
    if kind == 2:
        return "update", {"scale": rng.choice([1, 2.5, 0.1, 100, *junk])}
    if kind == 3:
        name = rng.choice(["x1", "x2", "x3", *junk[8:10]])
        value = rng.choice([2.5, 3, 0.5, *junk])
        return "update", {"inputs": {name: value}}
    if kind == 4:
        return "update", {"score": rng.choice([{"right": 15, "asked": 15}, *junk])}
    if kind == 5:
        entry = rng.choice([
            {"tries": 0, "state": "right"}, {"tries": 0, "state": "right", "answers": ["1"]},
            {"tries": 1, "answers": ["7"]}, {"tries": 2, "state": "wrong", "answers": ["7", "8"]},
            {"tries": 0, "state": "skipped"}, {"state": "right", "answers": ["1"] * 5}, *junk,
        ])  # fmt: skip
        return "update", {"progress": {rng.choice(keys): entry}}
    if kind == 6:
        return "update", {"difference_request": rng.choice([{"step": 2, "ask": 1}, *junk])}
    if kind == 7:
        return "update", {rng.choice(["data", "_graphviz", "differences", "live"]): {}}
    if kind == 8:
        return "update", {"view": "forward", "step": rng.choice(junk)}  # one bad value: none
    if kind == 9:
        return "custom", {"kind": "view", "view": rng.choice(["forward", "nope", *junk])}
    if kind == 10:
        boxes = rng.choice([["v1"], ["zz"], "v1", [1], None, [["x"]]])
        return "custom", {"kind": "open", "view": "adjoint", "boxes": boxes, "key": 1}
    return "custom", rng.choice([*junk, {"kind": rng.choice(junk[8:])}])


def test_a_hundred_forged_messages_leave_the_stepper_consistent_and_answered():
    """100 forged messages (tests/adversarial has more): after each the stepper is
    consistent, every request got its reply, every refused update a refusal."""
    rng = random.Random(38)
    stepper, sent = _stepper()
    for n in range(100):
        how, message = _forged(rng, stepper)
        before = {k: getattr(stepper, k) for k in ("view", "step", "scale", "inputs", "progress")}
        sent.clear()
        if how == "update":
            _update(stepper, message)
        else:
            _custom(stepper, message)
        _consistent(stepper)
        replies = [m for m in sent if "kind" in m]
        if how == "custom":
            assert len(replies) == 1, (n, message, sent)
        elif replies:  # refused: nothing changed
            assert replies[-1]["kind"] == REFUSED
            after = {k: getattr(stepper, k) for k in before}
            assert after == before, (n, message)


OPERATIONS = {
    "next": lambda s: s.next(),
    "prev": lambda s: s.prev(),
    "answer": lambda s: s.answer("1"),
    "n_steps": lambda s: s.n_steps,
    "current": lambda s: s.current,
    "question": lambda s: s.question,
    "layout_of": lambda s: s.layout_of("forward"),
    "opened": lambda s: s.opened("adjoint", []),
    "check_by_differences": lambda s: s.check_by_differences(),
    "laid_out": lambda s: s.laid_out,
    "export_html": lambda s: vz.export_html(s, "unused.html"),
    "set step": lambda s: setattr(s, "step", 2),
    "set view": lambda s: setattr(s, "view", "forward"),
}


@pytest.mark.parametrize("operation", sorted(OPERATIONS))
def test_a_closed_stepper_says_it_was_closed(operation):
    stepper, _ = _stepper()
    stepper.close()
    stepper.close()  # twice: nothing more
    with pytest.raises(VizadError, match="was closed"):
        OPERATIONS[operation](stepper)
    assert repr(stepper) == "<vizad Stepper: closed>"


def test_a_closed_stepper_raises_closed_error():
    stepper, _ = _stepper()
    stepper.close()
    with pytest.raises(ClosedError, match="make another"):
        stepper.next()
