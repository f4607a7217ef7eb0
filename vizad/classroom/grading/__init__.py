"""``vz.grade``: a course's homework cases run against a student's engine, as a TA grades it.

``vz.grade(submission, course="599w" | "needle" | "micrograd")`` runs the course's cases
(written for vizad after the kinds of checks each course's own tests make:
:mod:`.autodiff_cases`, :mod:`.needle_cases`, :mod:`.micrograd_cases`) against the student's
code (the path of a ``.py`` file, a package directory, a notebook or a student's folder; a
module object, graded from its file; a notebook's ``globals()``, graded from its cells). The
student's code runs in a process of its own (:mod:`.sandbox`: a fresh interpreter on a copy of
the submission, with limits and timeouts) and sends back raw numbers; this process compares
them with vizad's engine for the course (:mod:`vizad.classroom.courses`), which the submission never
sees, and explains each failure with what differs and what :func:`vizad.diagnose` found. The
report (:class:`~.report.GradeReport`) is a table in a notebook, text on the command line
(``python -m vizad grade path/to/autodiff.py --course 599w``), JSON for a gradebook, and a
score for nbgrader; :mod:`.batch` grades a class.
"""

from __future__ import annotations

import importlib.machinery
import os
import shutil
import sys
import types
from pathlib import Path
from typing import Any

from vizad.errors import GradeError
from vizad.classroom.grading.cases import Api, Case, expected_values, judge, run_student
from vizad.classroom.grading.courses import Course, course
from vizad.classroom.grading.draws import current_seed, seeded
from vizad.classroom.grading.report import GradeReport, Row
from vizad.classroom.grading.sandbox import Limits, run
from vizad.classroom.grading.submission import Submission, code_of, find, prepare

__all__ = ["grade", "GradeReport", "Row", "Case", "Limits", "Submission"]

_VIZAD = Path(__file__).resolve().parents[2]  # the vizad package
_EXPECTED: dict = {}


def grade(
    submission: Any,
    course: str,
    *,
    limits: Limits | None = None,
    seed: int | None = None,
    hide: tuple[str, ...] = (),
) -> GradeReport:
    """Run the cases of ``course`` ("599w", "needle" or "micrograd") against the student's
    code ``submission`` (a path to a ``.py`` file, a package directory, a notebook or a
    student's folder; a module, graded from its file; a notebook's ``globals()``, graded from
    its cells) in a process of its own with ``limits``, and report each case: pass, fail with
    why, error (the process ended or hung in it), or skipped. ``seed``: None (the default)
    feeds every case its published inputs, the numbers anyone running the grader sees; a
    course grading for marks gives a number it keeps to itself, and the inputs are drawn
    anew from it, so answers memorised for the published inputs fail
    (vizad.classroom.grading.draws).
    ``hide`` (for tests) makes
    top-level packages of those names findable only in the submission, as if not installed."""
    chosen = _course(course)
    found = _submission(submission, chosen)
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
        raise GradeError(f"grade: seed must be a whole number ≥ 0 or None, got {seed!r}")
    with seeded(seed):
        if found is None:  # a namespace with no source to run elsewhere: graded here
            return _in_process(submission, chosen)
        return _isolated(found, chosen, limits or Limits(), hide)


def _course(name: str) -> Course:
    chosen = course(name)
    names = [c.name for c in chosen.cases()]
    if not names or len(set(names)) != len(names):
        raise GradeError(f"grade: the {chosen.title} case list is empty or repeats a name")
    return chosen


def _submission(thing: Any, chosen: Course) -> Submission | None:
    """Where the student's code is: a path, a module's file or package, a notebook's cells."""
    if isinstance(thing, (str, bytes)) or hasattr(thing, "__fspath__"):
        return find(thing, chosen.entries)
    if isinstance(thing, dict) and isinstance(thing.get("In"), list):  # IPython's globals()
        cells = [code_of(c) for c in thing["In"] if isinstance(c, str)]
        return Submission(None, "cells", "notebook", cells)
    file = getattr(thing, "__file__", None)
    if isinstance(thing, types.ModuleType) and isinstance(file, str) and os.path.isfile(file):
        if hasattr(thing, "__path__"):
            return find(Path(file).parent)
        return Submission(Path(file).resolve(), "file", thing.__name__.rpartition(".")[2])
    return None


def _expected(chosen: Course, case: Case) -> dict:
    key = (chosen.key, case.name, current_seed())
    if key not in _EXPECTED:
        _EXPECTED[key] = expected_values(
            case, Api(chosen.reference(), chosen.submodules(), trusted=True)
        )
    return _EXPECTED[key]


def _blocked() -> list[str]:
    """What a submission may not read: vizad's reference engines, installed course packages."""
    courses = _VIZAD / "classroom" / "courses"
    found = [str(courses / "autodiff.py"), str(courses / "needle"), str(courses / "micrograd")]
    sites = [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]
    for name in ("micrograd", "needle", "autodiff"):
        spec = importlib.machinery.PathFinder.find_spec(name, sites)
        if spec is not None and spec.origin:
            origin = Path(spec.origin)
            found.append(str(origin.parent if origin.name == "__init__.py" else origin))
    return found


def _isolated(found: Submission, chosen: Course, limits: Limits, hide) -> GradeReport:
    cases = chosen.cases()
    temp, work, entry = prepare(found)
    try:
        sites = [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]
        config = {
            "path": [str(_VIZAD.parent), *sites],
            "cases": chosen.cases_module,
            "subs": list(chosen.submodules()),
            "kind": {"notebook": "cells"}.get(found.kind, found.kind),
            "entry": entry,
            "name": found.name,
            "blocked": _blocked(),
            "hide": list(hide),
            "seed": current_seed(),
            "memory_bytes": limits.memory_bytes,
            "file_bytes": limits.file_bytes,
            "open_files": limits.open_files,
        }
        outcome = run(config, str(work), [c.name for c in cases], limits)
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    report = GradeReport(chosen.title, found.name, problem=outcome.problem, notes=outcome.notes)
    for case in cases:
        if outcome.problem:
            report.rows.append(Row(case.name, case.what, "error", outcome.problem, case.weight))
        elif case.name in outcome.results:
            message = outcome.results[case.name]
            report.rows.append(judge(case, message, _expected(chosen, case)))
        else:
            why = outcome.errors.get(case.name, "the submission's process sent no result for it")
            report.rows.append(Row(case.name, case.what, "error", why, case.weight))
    return report


def _in_process(namespace: Any, chosen: Course, trusted: bool = False) -> GradeReport:
    """Grade a namespace with no source file in this process (a test's or a script's dict of
    definitions): not isolated, said in the report's notes. Names from vizad or an installed
    package still count as not implemented."""
    if isinstance(namespace, dict):
        namespace = types.SimpleNamespace(**namespace)
    student = Api(namespace, chosen.submodules(), trusted=trusted)
    report = GradeReport(chosen.title, student.name)
    report.notes.append(
        "graded in this process, not isolated: give a path, a module or a notebook's "
        "globals() to grade in a process of its own"
    )
    for case in chosen.cases():
        report.rows.append(judge(case, run_student(case, student), _expected(chosen, case)))
    return report


def __getattr__(name: str):
    if name == "COURSES":  # the old table: kept for code that read it
        from vizad.classroom.grading.courses import _COURSES

        return _COURSES
    raise AttributeError(name)
