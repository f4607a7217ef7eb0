"""The quiz from Python and the terminal: its questions, how answers are judged (the same
cases as the browser's quiz.js, see tests/browser/test_quiz.py), stepper.answer() and the
score, skipped questions, what-if inputs traced again, and `python -m vizad quiz`."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

import vizad as vz
from vizad.trace.quiz import judge, questions
from vizad.view.widget.page import page_data

from quiz_cases import CLOSE, JUDGED, SHAPES


def _question(value, kind="number"):
    from vizad.trace.quiz import Question

    return Question("0.0", 0, "v̄₂", kind, value, str(value), "a hint")


@pytest.mark.parametrize("typed,value,status", JUDGED)
def test_answers_are_judged_to_the_digits_typed(typed, value, status):
    verdict = judge(_question(value), typed)
    assert verdict.status == status, (typed, value, verdict)
    if status == "refused":
        assert "no try used" in verdict.message


def test_a_close_number_is_told_so():
    for typed in CLOSE:  # the values the browser's test gives them too
        q = _question(math.cos(5) if typed.startswith("0.") else 2 - math.cos(5))
        verdict = judge(q, typed)
        assert verdict.status == "wrong" and verdict.message.startswith("close"), typed
    assert judge(_question(2 - math.cos(5)), "1.8").message == ""


def test_shapes():
    q = _question((2, 3), "shape")
    for typed in ("(2, 3)", "2x3", "[2,3]", "2 3", "2×3"):
        assert judge(q, typed).right, typed
    assert judge(q, "(3, 2)").status == "wrong" and judge(q, "two").status == "refused"
    assert judge(_question((), "shape"), "scalar").right


@pytest.mark.parametrize("typed,shape,status", SHAPES)
def test_shapes_shared_with_the_browser(typed, shape, status):
    assert judge(_question(shape, "shape"), typed).status == status


def test_the_lecture_asks_partials_local_derivatives_and_adjoints():
    asked = questions(vz.examples.lecture())
    assert [q.prompt for q in asked[5]] == ["∂v₅/∂v₂", "v̄₂→₅", "∂v₄/∂v₂", "v̄₂→₄", "v̄₂"]
    assert [q.answer for q in asked[5]] == pytest.approx(
        [math.cos(5), -math.cos(5), 2, 2, 2 - math.cos(5)]
    )
    assert "v₅, v₄" in asked[5][-1].hint and "v̄₂→₅ + v̄₂→₄" in asked[5][-1].hint
    assert "v̄₅ cos v₂" in asked[5][1].hint and "sin v₂" in asked[5][0].hint
    forward = questions(vz.examples.lecture_forward())
    assert [q.prompt for q in forward[2]] == ["∂v₃/∂v₁", "v̇₃"]


def test_a_tensor_trace_asks_shapes_and_entries():
    import numpy as np

    W, x = vz.Variable("W"), vz.Variable("x")
    value = np.array([[1.0, 2.0, 0.5], [3.0, -1.0, 0.0]])
    trace = vz.trace_reverse(vz.sum(vz.tanh(W * x)), [W, x], {x: 0.5, W: value})
    asked = [q for qs in questions(trace) for q in qs]
    shapes = [q for q in asked if q.kind == "shape"]
    assert shapes and all(q.answer == (2, 3) for q in shapes)
    entries = [q for q in asked if "[" in q.prompt]
    assert entries and len(asked) >= 6
    adjoint_w = trace.adjoint(W)
    entry = next(q for q in entries if q.prompt.startswith("v̄₁["))
    index = tuple(int(i) for i in entry.prompt.split("[")[1].rstrip("]").split(","))
    assert entry.answer == pytest.approx(adjoint_w[index])


def test_a_quiz_answered_and_scored_from_python():
    stepper = vz.Stepper(vz.examples.lecture(), quiz=True)
    assert stepper.question.prompt == "v̄₇"
    assert stepper.answer("1").right and stepper.question is None
    with pytest.raises(vz.errors.ArgumentError, match="asks nothing more"):
        stepper.answer("1")
    stepper.next()
    assert stepper.answer("x").status == "refused"  # no try used
    wrong = stepper.answer("7")
    assert wrong.status == "wrong" and "Hint:" in wrong.message and "v₇" in wrong.message
    assert stepper.answer("8").message == "the answer: v̄₆ = 1"
    assert stepper.score == {"right": 1, "asked": 2, "questions": 15}
    stepper.step = 6  # steps 3-5 skipped: revealed, counted as asked
    assert stepper.score["asked"] == 5 and stepper.progress["2.0"]["state"] == "skipped"
    for typed in ("cos(5)", "-0.284", "2", "2.00", "1.72"):
        assert stepper.answer(typed).right, typed
    assert stepper.score == {"right": 6, "asked": 10, "questions": 15}
    plain = vz.Stepper(vz.examples.lecture())
    with pytest.raises(vz.errors.ArgumentError, match="not a quiz"):
        plain.answer("1")


def test_what_if_an_input_changes():
    """x1 from 2 to 3: traced again at the same step; v̄₂ = x1 − cos x2 = 3 − cos 5."""
    stepper = vz.Stepper(vz.examples.lecture(), quiz=True)
    stepper.step = 6
    stepper.answer("cos(5)")
    assert stepper.data["inputs"][0] == {
        "name": "x1",
        "label": "v₁",
        "value": 2.0,
        "editable": True,
    }
    stepper.inputs = {"x1": 3.0, "x2": 5.0}
    assert stepper.step == 6 and stepper.progress == {}
    assert stepper.trace.steps[5].adjoint == pytest.approx(3 - math.cos(5))
    assert stepper.data["steps"][5]["panel"]["total"] == "2.716"
    assert stepper.data["inputs"][0]["value"] == 3.0
    assert stepper.questions[5][-1].answer == pytest.approx(3 - math.cos(5))


def test_the_terminal_quiz_reads_answers_from_stdin():
    answers = "1\n7\n8\nabc\n-1\n\n1\ncos(5)\n-0.284\n2\n2\n1.72\n"
    done = subprocess.run(
        [sys.executable, "-m", "vizad", "quiz", "log(x1) + x1*x2 - sin(x2)", "--at", "x1=2",
         "x2=5"],
        input=answers, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    out = done.stdout
    assert "right: v̄₇ = 1" in out and "Hint: v̄₆ sums" in out and "the answer: v̄₆ = 1" in out
    assert "unknown name 'abc'" in out and "no try used" in out and "skipped: v̄₄ = 1" in out
    assert "right: v̄₂ = 1.71634" in out and out.count("step 6 of 7") == 1
    assert "stopped: score 8/10 (5 not asked)" in out and done.returncode == 1
    perfect = "1\n1\n-1\n1\n1\ncos(5)\n-cos(5)\n2\n2\n2-cos(5)\n5\n5\n0.5\n0.5\n5.5\n"
    done = subprocess.run(
        [sys.executable, "-m", "vizad", "quiz", "log(x1) + x1*x2 - sin(x2)", "--at", "x1=2",
         "x2=5"],
        input=perfect, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.stdout.rstrip().endswith("score 15/15") and done.returncode == 0


def test_inputs_that_cannot_be_traced_are_said_and_put_back(monkeypatch):
    import vizad.view.widget.whatif as module

    def fails(trace, feed):
        raise vz.errors.ShapeError("v₄ = v₁ × v₂: shapes (2,) and (3,) do not fit")

    stepper = vz.Stepper(vz.examples.lecture())
    monkeypatch.setattr(module, "retrace", fails)
    stepper.inputs = {"x1": 3.0, "x2": 5.0}
    assert (
        stepper.inputs == {"x1": 2.0, "x2": 5.0} and "shapes (2,) and (3,)" in stepper.input_error
    )
    assert stepper.trace.steps[5].adjoint == pytest.approx(2 - math.cos(5))


def test_forward_mode_what_if_and_read_only_pages(tmp_path):
    stepper = vz.Stepper(vz.examples.lecture_forward())
    stepper.inputs = {"x1": 3.0, "x2": 5.0}
    assert stepper.trace.steps[-1].tangent == pytest.approx(1 / 3 + 5)  # ∂y/∂x1 = 1/x1 + x2
    page = page_data(vz.export_html(vz.examples.lecture(), tmp_path / "p.html").read_text())
    assert not any(i["editable"] for i in page["inputs"])  # no kernel: inputs are read-only


def test_a_quiz_output_saved_gives_no_answer_away():
    stepper = vz.Stepper(vz.examples.lecture(), quiz=True)
    html = stepper._repr_mimebundle_()[0]["text/html"]
    assert "1.716" not in html and "5.5" not in html and "asked, not shown" in html


def test_forward_mode_asks_only_the_terms_that_move():
    x1, x2 = vz.Variable("x1"), vz.Variable("x2")
    trace = vz.trace_forward(x1 * x2 + vz.sin(x1), x1, {x1: 2.0, x2: 5.0})
    prompts = [q.prompt for qs in questions(trace) for q in qs]
    assert "∂v₃/∂v₁" in prompts and "∂v₃/∂v₂" not in prompts  # v̇₂ = 0: its term adds nothing
    asked = {q.prompt: q.answer for qs in questions(trace) for q in qs}
    assert asked["∂v₄/∂v₁"] == pytest.approx(math.cos(2)) and asked["v̇₅"] == pytest.approx(
        5 + math.cos(2)
    )


def test_a_step_checked_by_finite_differences():
    """The stepper's "check by finite differences": the step's result against central
    differences of the function; a wrong rule below the output shows up at its input."""
    stepper = vz.Stepper(vz.examples.lecture())
    stepper.step = 6
    check = stepper.check_by_differences()
    assert check["agree"] and check["numeric"] == pytest.approx(2 - math.cos(5), rel=1e-6)
    assert check["text"].startswith("v̄₂ by central differences: 1.71634")
    stepper.difference_request = {"step": 6, "ask": 1}  # what the browser's button sends
    assert stepper.differences["agree"] and stepper.differences["step"] == 6

    from vizad.extend import ElementwiseOp

    class HalfSquare(ElementwiseOp):  # x², whose stated partial forgets the factor 2
        def compute(self, x):
            return x * x

        def partials(self, node):
            return [node.inputs[0]]

    x = vz.Variable("x")
    wrong = vz.Stepper(vz.trace_reverse(vz.sin(HalfSquare()(x)), [x], {x: 1.5}), check=False)
    wrong.step = len(wrong.trace.steps)  # x: its adjoint is halved
    assert not wrong.check_by_differences()["agree"]
    assert "DIFFER" in wrong.check_by_differences()["text"]
    forward = vz.Stepper(vz.examples.lecture_forward())
    forward.step = forward.n_steps
    assert forward.check_by_differences()["numeric"] == pytest.approx(5.5)
    quiz = vz.Stepper(vz.examples.lecture(), quiz=True)
    quiz.difference_request = {"step": 1, "ask": 1}
    assert quiz.differences["text"] == "answer this step's questions first"


def test_hostile_answers_get_a_verdict_never_an_exception():
    """200+ answers an adversary types (tests/quiz_cases.py's HOSTILE: 1e400, 100,000 signs,
    a sum of 100,000 terms, 5,000-digit integers, deep parentheses, code, controls): each
    gets a verdict, for a number and a shape question; what cannot be read costs no try."""
    from quiz_cases import HOSTILE

    assert len(HOSTILE) >= 200
    for typed in HOSTILE:
        for question in (_question(2 - math.cos(5)), _question((2, 3), "shape")):
            verdict = judge(question, typed)
            assert verdict.status in ("right", "wrong", "refused"), (typed, verdict)
            if verdict.status == "refused":
                assert verdict.message.endswith("(no try used)"), (typed[:40], verdict)
    too_long = judge(_question(1.0), "-" * 100_000 + "1")
    assert too_long.status == "refused" and "too long" in too_long.message
    for huge in ("1e400", "10**400", "exp(1000)", "1/exp(1000)"):
        assert "too large" in judge(_question(1.0), huge).message, huge


def test_the_terminal_quiz_survives_any_line():
    """`python -m vizad quiz` fed every hostile answer (and bytes that are not UTF-8): no
    traceback, each line answered, the score said at the end of input."""
    from quiz_cases import HOSTILE

    lines = [t.replace("\n", " ").replace("\r", " ") for t in HOSTILE if t.strip()]
    # the ones the first question (v̄₇ = 1) refuses first: each is read and answered
    refused = [t for t in lines if judge(_question(1.0), t).status == "refused"]
    lines = refused + [t for t in lines if t not in refused]
    data = "\n".join(lines).encode("utf-8", "surrogatepass") + b"\n\xff\xfe\x80\n"
    done = subprocess.run(
        [sys.executable, "-m", "vizad", "quiz", "log(x1) + x1*x2 - sin(x2)", "--at", "x1=2",
         "x2=5"],
        input=data, capture_output=True, timeout=300,
    )  # fmt: skip
    out, err = done.stdout.decode(), done.stderr.decode()
    assert "Traceback" not in err and "Traceback" not in out, err[-2000:]
    assert len(refused) >= 150 and out.count("(no try used)") >= len(refused)
    assert "stopped: score" in out or "\nscore " in out
    assert done.returncode in (0, 1)
