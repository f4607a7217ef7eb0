"""Check cells for the exercise notebooks (``notebooks/exercises/``).

Each exercise cell is followed by a check cell whose output says pass or FAIL::

    checks = vz.exercises.Checks()
    checks.run(vz.exercises.cases("a", globals()))

:func:`cases` gives the checks of an exercise notebook: the grader's own cases for it
(``vz.grade(notebook, course="exercises")``), run on the notebook's names in its kernel, so a
check says what the grader will say. ``checks.run`` also takes any dict of title → function.

A check passes when its function returns None or True (or a clean :func:`vizad.diagnose`
report) and fails when it raises, returns False, or returns a report with problems: the
output gives one line per check (✓ pass / ✗ FAIL with the reason) and, for a failed report,
the report. ``checks.summary()`` ends a notebook with the count.

The tutorials' "try this" cells check a typed answer with :func:`expect`, which judges a number
by the digits typed (:func:`judge`): 1.72 and 1.716 are both right for 1.71634…, with at least
three significant digits; an answer that is close is told to give more digits, not that its
method is wrong.
"""

from __future__ import annotations

import traceback
from decimal import Decimal, InvalidOperation
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from vizad.classroom.diagnosis import Diagnosis
from vizad.trace.text import escape
from vizad.errors import ArgumentError
from vizad.trace.quiz import SIGNIFICANT, by_digits, read_answer

__all__ = ["Checks", "Outcome", "Outcomes", "cases", "expect", "judge"]


@dataclass
class Outcome:
    """The result of one check.

    Examples:
        >>> from vizad.classroom.exercises import Checks, expect
        >>> tests = {"v̄₂": lambda: expect(1.72, 1.7163378), "v̄₁": lambda: expect(2.5, 5.5)}
        >>> checks = Checks()
        >>> outcomes = checks.run(tests)
        >>> outcomes[1]
        ✗ v̄₁: FAIL — 2.5 is not it
    """

    title: str
    ok: bool
    reason: str = ""
    report: Diagnosis | None = None

    def __repr__(self) -> str:
        if self.ok:
            return f"✓ {self.title}: pass"
        text = f"✗ {self.title}: FAIL — {self.reason}"
        if self.report is not None and not self.report.ok:
            text += "\n" + repr(self.report)
        return text


class Outcomes(list):
    """The results of a check cell; shown one line per check.

    Examples:
        >>> from vizad.classroom.exercises import Checks, expect
        >>> tests = {"v̄₂": lambda: expect(1.72, 1.7163378), "v̄₁": lambda: expect(2.5, 5.5)}
        >>> checks = Checks()
        >>> outcomes = checks.run(tests)
        >>> outcomes
        ✓ v̄₂: pass
        ✗ v̄₁: FAIL — 2.5 is not it
    """

    def __repr__(self) -> str:
        return "\n".join(map(repr, self))

    def _repr_html_(self) -> str:
        rows = []
        for o in self:
            colour = "#009E73" if o.ok else "#c0392b"
            rows.append(
                f"<div style='color:{colour}'>{escape(repr(o)).replace('&#10;', '<br>')}</div>"
            )
        return f"<div class='mathjax_ignore tex2jax_ignore'>{''.join(rows)}</div>"

    @property
    def ok(self) -> bool:
        return all(o.ok for o in self)


class Checks:
    """The pass/fail record of one notebook's check cells.

    Examples:
        >>> from vizad.classroom.exercises import Checks, expect
        >>> tests = {"v̄₂": lambda: expect(1.72, 1.7163378), "v̄₁": lambda: expect(2.5, 5.5)}
        >>> checks = Checks()
        >>> outcomes = checks.run(tests)
        >>> checks.ok, checks.summary()
        (False, 1 of 2 checks pass)
    """

    def __init__(self) -> None:
        self.results: dict[str, bool] = {}

    def run(self, checks: Mapping[str, Callable[[], Any]]) -> Outcomes:
        """Run each check (title → function) and give the outcomes."""
        outcomes = Outcomes(self._one(title, fn) for title, fn in checks.items())
        for o in outcomes:
            self.results[o.title] = o.ok
        return outcomes

    @staticmethod
    def _one(title: str, check: Callable[[], Any]) -> Outcome:
        try:
            result = check()
        except NotImplementedError as exc:
            # a blank says what to write: "not implemented yet: write Dual.__mul__"
            told = str(exc).removeprefix("not implemented yet: ")
            what = f": {told}" if told else ""
            return Outcome(
                title, False, f"not written yet{what} (it still raises NotImplementedError)"
            )
        except AssertionError as exc:
            return Outcome(title, False, str(exc) or "an assertion failed")
        except Exception as exc:  # the student's code
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            where = f" (line {frame.lineno}: {frame.line})" if frame.line else ""
            return Outcome(title, False, f"{type(exc).__name__}: {exc}{where}")
        if isinstance(result, Diagnosis):
            return Outcome(title, result.ok, "vz.diagnose found problems:", result)
        if result is None or result is True:
            return Outcome(title, True)
        return Outcome(title, False, f"the check gave {result!r:.80}")

    @property
    def ok(self) -> bool:
        """Whether every check run so far passed."""
        return all(self.results.values())

    def summary(self) -> str:
        """``3 of 4 checks pass`` (shown without quotes)."""
        passed = sum(self.results.values())
        return _Line(f"{passed} of {len(self.results)} checks pass")


def cases(
    exercise: str, namespace: Mapping[str, Any], *names: str
) -> dict[str, Callable[[], None]]:
    """The checks of exercise ``exercise`` ("a" … "e") on a notebook's names ``namespace``
    (its ``globals()``): the grader's cases of that exercise (those called ``names``, else
    all), title → check, each failing with the words the grader's report gives for it
    (``vz.grade(notebook, course="exercises")``).

    Examples:
        >>> from vizad.classroom.exercises import Checks, cases
        >>> checks = cases("a", {})  # a notebook that defines nothing yet
        >>> first = next(iter(checks))
        >>> first
        'order_of_the_example — find_topo_sort([y]) for y = x2*x1 + x1'
        >>> (outcome,) = Checks().run({first: checks[first]})
        >>> outcome.ok, outcome.reason.startswith("not implemented")
        (False, True)
    """
    from vizad.classroom.grading import case_checks  # the grader loads only when asked

    return case_checks(f"exercise-{str(exercise).lower()}", dict(namespace), names)


class _Line(str):
    """A string that a notebook shows as it is."""

    def __repr__(self) -> str:
        return str(self)


#: The least number of significant digits a rounded answer must give (exact answers need none):
#: the stepper's quiz rule, :data:`vizad.trace.quiz.RULE`, which notebooks follow too.
SIGNIFICANT_DIGITS = SIGNIFICANT


def judge(answer: Any, correct: Any) -> str:
    """``"right"``, ``"close"`` or ``"wrong"``: a typed number judged by the digits typed.

    A number is right when it equals ``correct`` exactly (5.5, 2, 48) or when it is ``correct``
    rounded to the decimals it was written with and gives at least :data:`SIGNIFICANT_DIGITS`
    significant digits: 1.72 and 1.716 are both right for 1.71634…, and 1.7 is close (too few
    digits), as is 1.71 (the last digit is off). The digits are those of the number as typed: a
    string keeps them all ("1.50"), a float those of its shortest repr (``1.5``). Arrays and
    tuples are judged entry by entry (the worst entry counts) and must have the right shape;
    anything else must be equal. Text is read as the stepper's quiz reads it
    (:func:`vizad.trace.quiz.read_answer`): ``"2 - cos(5)"`` is an exact expression, right
    when it is the value.

    Examples:
        >>> from vizad.classroom.exercises import judge
        >>> judge(1.72, 1.7163378), judge(1.7, 1.7163378), judge(2.5, 1.7163378)
        ('right', 'close', 'wrong')
    """
    if isinstance(answer, str):
        return _judge_text(answer, correct)
    try:
        a = np.asarray(answer, dtype=float)
        c = np.asarray(correct, dtype=float)
    except (TypeError, ValueError):
        return "right" if answer == correct else "wrong"
    if a.shape != c.shape:
        return "wrong"
    typed = np.asarray(answer, dtype=object).reshape(-1) if a.ndim else [answer]
    verdicts = [_judge_one(t, float(x), float(y)) for t, x, y in zip(typed, a.flat, c.flat)]
    for verdict in ("wrong", "close"):
        if verdict in verdicts:
            return verdict
    return "right"


def _judge_text(answer: str, correct: Any) -> str:
    """A typed text: a number or an expression, read by the quiz's reader, else equality."""
    try:
        value, decimals, significant = read_answer(answer)
        c = float(correct)
    except (ArgumentError, TypeError, ValueError):
        return "right" if answer == correct else "wrong"
    if not (np.isfinite(value) and np.isfinite(c)):
        return "right" if value == c else "wrong"
    verdict = by_digits(value, c, decimals, significant or 1)
    return "close" if verdict == "too few" else verdict


def _judge_one(typed: Any, a: float, c: float) -> str:
    if not (np.isfinite(a) and np.isfinite(c)):
        return "right" if a == c else "wrong"
    if abs(a - c) <= 1e-9 * max(abs(a), abs(c)) + 1e-12:
        return "right"
    decimals, significant = _digits(typed, a)
    verdict = by_digits(a, c, decimals, significant)  # the quiz's rule
    return "close" if verdict == "too few" else verdict


def _digits(typed: Any, value: float) -> tuple[int, int]:
    """The decimals (digits after the point, 8 for 1e-8) and significant digits typed."""
    if isinstance(typed, str):
        text = typed.strip()
    elif float(value).is_integer() and abs(value) < 1e15:
        text = str(int(value))
    else:
        text = repr(float(value))
    try:
        sign, digits, exponent = Decimal(text).as_tuple()
    except InvalidOperation:
        text = repr(float(value))
        sign, digits, exponent = Decimal(text).as_tuple()
    significant = len("".join(map(str, digits)).lstrip("0")) or 1
    return -int(exponent), significant


def expect(
    answer: Any,
    correct: Any,
    *,
    rtol: float | None = None,
    atol: float | None = None,
    key: Callable[[Any], Any] | None = None,
    hint: str = "",
) -> None:
    """A check of a typed answer: fails with "not answered yet" while it is None, passes when
    :func:`judge` finds it right (numbers judged by the digits typed: 1.72 is right for
    1.71634…), tells a close answer to give more digits, and gives ``hint`` otherwise.

    ``rtol``/``atol`` judge by a tolerance instead of the digits (for values the student reads
    off a plot). ``key`` compares ``key(answer)`` with ``key(correct)`` (such as the power of
    ten of an ε); the message always shows the answer as typed.

    Examples:
        >>> from vizad.classroom.exercises import expect
        >>> expect(1.72, 1.7163378)
        >>> expect(None, 1.7163378)
        Traceback (most recent call last):
            ...
        AssertionError: not answered yet: write your answer in the cell ...
    """
    if answer is None:
        raise AssertionError("not answered yet: write your answer in the cell above")
    mine, theirs = (answer, correct) if key is None else (_keyed(key, answer), key(correct))
    if rtol is None and atol is None:
        verdict = judge(mine, theirs)
    else:
        verdict = "right" if _within(mine, theirs, rtol or 0.0, atol or 0.0) else "wrong"
    if verdict == "right":
        return
    shown = f"{answer!r:.60}"
    if verdict == "close":
        raise AssertionError(
            f"{shown} is close, but not to the digits typed: give more digits, rounded "
            f"(a number is right when it is the value rounded to the decimals you write, "
            f"with at least {SIGNIFICANT_DIGITS} significant digits)"
        )
    raise AssertionError(f"{shown} is not it" + (f": {hint}" if hint else ""))


def _keyed(key: Callable[[Any], Any], answer: Any) -> Any:
    try:
        return key(answer)
    except (TypeError, ValueError, ArithmeticError):
        return None


def _within(answer: Any, correct: Any, rtol: float, atol: float) -> bool:
    try:
        a = np.asarray(answer, dtype=float)
        c = np.asarray(correct, dtype=float)
    except (TypeError, ValueError):
        return answer == correct
    return a.shape == c.shape and bool(np.allclose(a, c, rtol=rtol, atol=atol))
