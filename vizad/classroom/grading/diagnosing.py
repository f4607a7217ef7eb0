"""What :func:`vizad.diagnose` says of a student's failed cases, found in a jail of its own.

The grading run's jail holds no vizad (:mod:`vizad.classroom.gradekit`), so the explanations
diagnose gives are found afterwards, for the failed cases only, by a second run of the
submission in the same kind of jail with vizad mounted read-only beside it: this module is that
run's main (``main(config)``, started by :mod:`.sandbox`). It sends text only; the statuses
were decided before it ran, and nothing it sends can change them.
"""

from __future__ import annotations

from vizad.engine.node import Node
from vizad.trace.build import trace_reverse_tolerant
from vizad.classroom.diagnosis import diagnose
from vizad.classroom.gradekit import runner
from vizad.classroom.gradekit.case import exc_text
from vizad.classroom.gradekit.protocol import capped

__all__ = ["main", "MAIN", "explain"]

#: This module, for the runner's boot code.
MAIN = __name__


def explain(case, student, root=None) -> dict:
    """``{"diagnosis": text}``: what diagnose finds on the student's graph of ``case``."""
    try:
        y, wrt, feed = case.graph(student)
        if isinstance(y, Node):  # a graph of vizad's own ops (exercise D): its trace's check
            return {"diagnosis": capped(_checked(y, wrt, feed))}
        report = diagnose(y, wrt, feed)
    except BaseException as exc:  # noqa: BLE001 - a graph diagnose cannot read, or the
        # student's code ending the run: the differences say enough
        return {"diagnosis": capped(f"diagnose could not read the graph ({exc_text(exc)})")}
    if report.ok:
        return {"diagnosis": ""}
    shown = [p.message for p in report.problems[:3]]
    more = len(report.problems) - len(shown)
    text = "diagnose: " + "; ".join(shown) + (f"; and {more} more" if more else "")
    if report.legend:  # the lecture's numbering, as the stepper and check() say it
        text += f" (where {', '.join(report.legend)})"
    return {"diagnosis": capped(text)}


def _checked(y, wrt, feed) -> str:
    """What ``check()`` of the reverse walkthrough finds: each step's rule against central
    differences, in the stepper's numbering ("" when every rule is right)."""
    failures = trace_reverse_tolerant(y, wrt, feed).check()
    shown = [f.message for f in failures[:3]]
    more = len(failures) - len(shown)
    return (
        ("check(): " + "; ".join(shown) + (f"; and {more} more" if more else "")) if shown else ""
    )


def main(config: dict) -> None:
    runner.main(config, run=explain)
