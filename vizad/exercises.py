"""Check cells for the exercise notebooks (``notebooks/exercises/``).

Each exercise cell is followed by a check cell whose output says pass or FAIL::

    checks = vz.exercises.Checks()
    checks.run({"find_topo_sort of x2*x1 + x1": lambda: ..., "a deep graph": lambda: ...})

A check passes when its function returns None or True (or a clean :func:`vizad.diagnose`
report) and fails when it raises, returns False, or returns a report with problems: the
output gives one line per check (✓ pass / ✗ FAIL with the reason) and, for a failed report,
the report. ``checks.summary()`` ends a notebook with the count.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .diagnosis import Diagnosis
from .text import escape

__all__ = ["Checks", "Outcome", "Outcomes", "expect"]


@dataclass
class Outcome:
    """The result of one check."""

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
    """The results of a check cell; shown one line per check."""

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
    """The pass/fail record of one notebook's check cells."""

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
        except NotImplementedError:
            return Outcome(title, False, "not written yet (it still raises NotImplementedError)")
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


class _Line(str):
    """A string that a notebook shows as it is."""

    def __repr__(self) -> str:
        return str(self)


def expect(answer: Any, correct: Any, *, rtol: float = 1e-3, hint: str = "") -> None:
    """A check of a typed answer: passes when ``answer`` equals ``correct`` (numbers and arrays
    within ``rtol``), fails with "not answered yet" while it is None and with ``hint``
    otherwise."""
    if answer is None:
        raise AssertionError("not answered yet: write your answer in the cell above")
    try:
        right = bool(
            np.allclose(
                np.asarray(answer, dtype=float),
                np.asarray(correct, dtype=float),
                rtol=rtol,
                atol=1e-12,
            )
        )
    except (TypeError, ValueError):
        right = answer == correct
    if not right:
        raise AssertionError(f"{answer!r:.60} is not it" + (f": {hint}" if hint else ""))
