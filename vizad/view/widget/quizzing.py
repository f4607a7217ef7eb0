"""A stepper's quiz, as Python keeps it: the question a step asks now, an answer typed from
Python, the score, and the progress the page sends checked against the answers it holds
(every state earned by answers judged here, by vizad.trace.quiz's rule).

``progress`` maps a question's key to ``{"tries": wrong tries, "state": "right", "wrong"
(revealed after two wrong tries) or "skipped" (the student went on: revealed), "answers":
the answers typed}``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from vizad.errors import ArgumentError
from vizad.trace.quiz import MAX_ANSWER, Question, Verdict, judge
from vizad.view.widget.checks import StepperValueError, short

if TYPE_CHECKING:
    from vizad.view.widget.stepper import Stepper

__all__ = ["asking", "answer", "answered", "score", "checked_progress", "skipped", "restart"]


def asking(questions: Sequence[Question], progress: dict) -> Question | None:
    """The first of a step's ``questions`` not decided yet (None: all are)."""
    return next((q for q in questions if "state" not in progress.get(q.key, {})), None)


def answer(stepper: Stepper, text: str) -> Verdict:
    """``text`` typed from Python as the answer to the question ``stepper`` asks now
    (:meth:`~vizad.view.widget.Stepper.answer`): its verdict, the progress updated."""
    q = stepper.question
    if q is None:
        raise ArgumentError(
            "stepper.answer: " + ("this stepper is not a quiz (vz.step(..., quiz=True))"
            if not stepper.quiz else f"step {stepper.step} asks nothing more: stepper.next()")
        )  # fmt: skip
    verdict, entry = answered(q, stepper.progress, text)
    if entry is not None:
        stepper.progress = {**stepper.progress, q.key: entry}
    return verdict


def answered(question: Question, progress: dict, text: str) -> tuple[Verdict, dict | None]:
    """``text`` typed as the answer to ``question``: the verdict as the student reads it,
    and the question's new entry in the progress (None: the answer could not be read, no
    try). Two wrong tries reveal the answer."""
    verdict = judge(question, text)
    if verdict.status == "refused":
        return verdict, None
    entry = dict(progress.get(question.key, {"tries": 0}))
    entry["answers"] = [*entry.get("answers", ()), str(text)]
    if verdict.right:
        entry["state"] = "right"
        message = f"right: {question.prompt} = {question.shown}"
    else:
        entry["tries"] = entry.get("tries", 0) + 1
        if entry["tries"] < 2:
            close = f" ({verdict.message})" if verdict.message else ""
            message = (
                f"not {str(text).strip()}{close}: try again (one more try). Hint: {question.hint}"
            )
        else:
            entry["state"] = "wrong"
            message = f"the answer: {question.prompt} = {question.shown}"
    return Verdict(verdict.status, message), entry


def score(questions: Sequence[Sequence[Question]], progress: dict) -> dict:
    """{"right": questions answered right (first or second try), "asked": questions
    answered, revealed or skipped, "questions": how many there are}."""
    done = [progress.get(q.key, {}) for qs in questions for q in qs]
    return {
        "right": sum(1 for e in done if e.get("state") == "right"),
        "asked": sum(1 for e in done if "state" in e),
        "questions": len(done),
    }


def skipped(questions: Sequence[Sequence[Question]], progress: dict, old: int, new: int) -> dict:
    """The entries of the questions that going from step ``old`` on to step ``new`` skips
    (this step's, and those of the steps jumped over, undecided): revealed, since later
    steps need their answers."""
    return {
        q.key: {**progress.get(q.key, {"tries": 0}), "state": "skipped"}
        for k in range(old - 1, min(new - 1, len(questions)))
        for q in questions[k]
        if "state" not in progress.get(q.key, {})
    }


def restart(stepper: Stepper) -> None:
    """The quiz afresh, for a walkthrough traced again: its progress emptied (which the
    page may not do: the questions decided stay decided)."""
    stepper._restarting = True
    try:
        stepper.progress = {}
    finally:
        stepper._restarting = False


def checked_progress(
    questions: Sequence[Sequence[Question]], old: dict, new: dict, *, quiz: bool, restarting: bool
) -> dict:
    """The progress ``new`` (sent by the page) with each entry as its answers earn it,
    judged here, over ``old`` (the progress last accepted): a state "right" or "wrong" needs
    the answers that earned it; an entry, once decided, never changes. Emptied only when
    the walkthrough starts again (``restarting``: inputs traced again)."""
    if not new:  # a new walkthrough (inputs traced again) starts its quiz afresh
        if old and not restarting:
            raise StepperValueError("stepper.progress: the questions decided stay decided")
        return {}
    if not quiz:
        raise StepperValueError("stepper.progress: this stepper is not a quiz")
    known = {q.key: q for qs in questions for q in qs}
    checked = {}
    for key, entry in new.items():
        if key not in known:
            raise StepperValueError(f"stepper.progress: no question {str(key)[:40]!r}")
        checked[key] = earned(known[key], entry, old.get(key))
    for key in old:
        if "state" in old[key] and key not in checked:
            raise StepperValueError(
                f"stepper.progress: question {key} was decided; its entry stays"
            )
    return checked


def earned(question: Question, entry: Any, before: Any) -> dict:
    """A quiz entry (``{"tries", "state", "answers"}``) as Python judges its answers: its
    tries and state must be what those answers earn (or "skipped": revealed, not earned),
    and an entry decided before stays as it was. A StepperValueError otherwise."""
    where = f"stepper.progress[{question.key!r}]"
    if before is not None and "state" in before:
        if entry != before:
            raise StepperValueError(f"{where}: this question was decided; its entry stays")
        return before
    if not isinstance(entry, dict) or set(entry) - {"tries", "state", "answers"}:
        raise StepperValueError(
            f"{where}: an entry is {{tries, state, answers}}, got {short(entry)}"
        )
    answers = entry.get("answers", [])
    if (
        not isinstance(answers, list)
        or len(answers) > 2
        or not all(isinstance(a, str) and len(a) <= MAX_ANSWER for a in answers)
    ):
        raise StepperValueError(f"{where}: answers must be at most two answers typed (str)")
    typed_before = (before or {}).get("answers", [])
    if answers[: len(typed_before)] != typed_before:
        raise StepperValueError(f"{where}: the answers typed before stay (more can be added)")
    tries, state = 0, None
    for text in answers:
        if state is not None:
            raise StepperValueError(f"{where}: an answer after the question was decided")
        verdict = judge(question, text)
        if verdict.status == "refused":
            raise StepperValueError(f"{where}: {short(text)} cannot be read: no try")
        if verdict.right:
            state = "right"
        else:
            tries += 1
            state = "wrong" if tries >= 2 else None
    claimed = entry.get("state")
    if claimed == "skipped" and state is None:
        state = "skipped"
    earned = {"tries": tries, **({"state": state} if state else {}), "answers": answers}
    if entry.get("tries", 0) != tries or claimed != state:
        raise StepperValueError(
            f"{where}: the answers typed earn {state or 'no decision'} after {tries} wrong "
            f"tries, not {short(claimed)} after {short(entry.get('tries'))}"
        )
    return earned
