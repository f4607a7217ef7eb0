"""``vz.grade``: a course's homework cases run against a student's engine, as a TA grades it.

``vz.grade(submission, course="599w" | "needle" | "micrograd")`` runs the course's cases
(written for vizad after the kinds of checks each course's own tests make:
:mod:`.autodiff_cases`, :mod:`.needle_cases`, :mod:`.micrograd_cases`; an exercise notebook's,
``course="exercises"``, are those its check cells run: :func:`case_checks`) against the student's
code (the path of a ``.py`` file, a package directory, a notebook or a student's folder; a
module object, graded from its file; a notebook's ``globals()``, graded from its cells). The
student's code runs in a process of its own, isolated by the operating system (:mod:`.jail`:
a bubblewrap sandbox, or a user of its own) on a copy of the submission, with limits and
timeouts (:mod:`.sandbox`), and sends back raw numbers for the inputs it was given; this
process draws those inputs, compares the numbers with vizad's engine for the course
(:mod:`vizad.classroom.courses`), which the submission never sees, decides every status, and
explains each failure with what differs. The
report (:class:`~.report.GradeReport`) is a table in a notebook, text on the command line
(``python -m vizad grade path/to/autodiff.py --course 599w``), JSON for a gradebook, and a
score for nbgrader; :mod:`.batch` grades a class.
"""

from __future__ import annotations

import dataclasses
import importlib.machinery
import os
import shutil
import sys
import types
from pathlib import Path
from typing import Any

from vizad.errors import GradeError
from vizad.classroom.gradekit.draws import current_seed, seeded
from vizad.classroom.grading import diagnosing, jail, ownwork
from vizad.classroom.grading.cases import Api, Case, expected_values, judge, run_case
from vizad.classroom.grading.courses import Course, course, exercise_of
from vizad.classroom.grading.report import GradeReport, Row
from vizad.classroom.grading.sandbox import Limits, run
from vizad.classroom.grading.submission import Submission, code_of, find, prepare

__all__ = ["grade", "case_checks", "GradeReport", "Row", "Case", "Limits", "Submission"]

_VIZAD = Path(__file__).resolve().parents[2]  # the vizad package
_EXPECTED: dict = {}


def grade(
    submission: Any,
    course: str,
    *,
    limits: Limits | None = None,
    seed: int | None = None,
    isolation: str = "auto",
    hide: tuple[str, ...] = (),
) -> GradeReport:
    """Run the cases of ``course`` ("599w", "needle", "micrograd", an exercise notebook's
    "exercise-a" … "exercise-e", or "exercises": the one the notebook is) against the student's
    code ``submission`` (a path to a ``.py`` file, a package directory, a notebook or a
    student's folder; a module, graded from its file; a notebook's ``globals()``, graded from
    its cells) in a process of its own with ``limits``, and report each case: pass, fail with
    why, error (the process ended or hung in it), or skipped. ``seed``: None (the default)
    feeds every case its published inputs, the numbers anyone running the grader sees; a
    course grading for marks gives a number it keeps to itself, and the inputs are drawn
    anew from it, so answers memorised for the published inputs fail
    (vizad.classroom.gradekit.draws); the submission gets the inputs, never the seed.
    ``isolation``: "auto" (bubblewrap, else a user of its own when run as root, else
    GradeError saying what to do), one of those ("bubblewrap", "uid"), or "none" to run
    trusted code without isolation (every result says so); see :mod:`.jail`.
    ``hide`` (for tests) makes
    top-level packages of those names findable only in the submission, as if not installed.

    Examples:
        >>> import pathlib, tempfile
        >>> student = pathlib.Path(tempfile.mkdtemp()) / "engine.py"
        >>> _ = student.write_text("Value = float")
        >>> report = vz.grade(student, "micrograd", isolation="none")
        >>> report.graded, len(report.rows)
        (True, 14)
        >>> report.rows[0].name, report.rows[0].status
        ('add', 'fail')
    """
    chosen = course_named = _course(course)
    found = _submission(submission, chosen)
    if course_named.key == "exercises":
        chosen = _course(exercise_of(found.path if found is not None else None).key)
    mode = jail.choose(isolation) if found is not None else "in process"
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
        raise GradeError(f"grade: seed must be a whole number ≥ 0 or None, got {seed!r}")
    with seeded(seed):
        if found is None:  # a namespace with no source to run elsewhere: graded here
            return _in_process(submission, chosen)
        return _isolated(found, chosen, limits or Limits(), mode, hide)


def _course(name: str) -> Course:
    chosen = course(name)
    if chosen.key == "exercises":  # which exercise: told from the notebook
        return chosen
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


def _expected(chosen: Course, case: Case) -> tuple[dict, dict]:
    """vizad's values for ``case`` and the inputs drawn for them (kept: one draw a seed)."""
    key = (chosen.key, case.name, current_seed())
    if key not in _EXPECTED:
        _EXPECTED[key] = expected_values(
            case, Api(chosen.reference(), chosen.submodules(), trusted=True)
        )
    return _EXPECTED[key]


def _blocked(handout: bool = False) -> list[str]:
    """What a submission may not read: vizad's reference engines (but where vizad is the
    handout an exercise notebook imports), installed course packages."""
    courses = _VIZAD / "classroom" / "courses"
    found = [str(courses / "autodiff.py"), str(courses / "needle"), str(courses / "micrograd")]
    found = [] if handout else found
    sites = [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]
    for name in ("micrograd", "needle", "autodiff"):
        spec = importlib.machinery.PathFinder.find_spec(name, sites)
        if spec is not None and spec.origin:
            origin = Path(spec.origin)
            found.append(str(origin.parent if origin.name == "__init__.py" else origin))
    return found


def _isolated(found: Submission, chosen: Course, limits: Limits, mode: str, hide) -> GradeReport:
    cases = chosen.cases()
    expected = {c.name: _expected(chosen, c) for c in cases}
    temp, work, entry = prepare(found)
    try:
        how = jail.launch(mode, work, temp, limits.disk_bytes, vizad=chosen.handout)
        config = {
            "main": "gradekit.runner",
            "cases": chosen.cases_module.removeprefix("vizad.classroom.gradekit."),
            "subs": list(chosen.submodules()),
            "kind": {"notebook": "cells"}.get(found.kind, found.kind),
            "entry": entry,
            "name": found.name,
            "guard": None if mode == "bubblewrap" else _blocked(chosen.handout),
            "hide": list(hide),
            "draws": {name: draws for name, (_, draws) in expected.items()},
            "limits": {
                "memory_bytes": limits.memory_bytes,
                "file_bytes": limits.file_bytes,
                "open_files": limits.open_files,
            },
        }
        files = _files(work)
        outcome = run(config, how, [c.name for c in cases], limits)
        if mode != "bubblewrap":  # a jail's copy is bounded; elsewhere, what it wrote is said
            outcome.notes += _disk(work, limits.disk_bytes)
        report = _report(found, chosen, mode, outcome, expected)
        _explain(report, config, mode, work, temp, limits)
        report.files = files
        _not_own(report, ownwork.not_own_derivatives(files))
        report.notes += ownwork.notes(ownwork.matches(
            files, ownwork.references(chosen.key), given=ownwork.handout(chosen.key)
        ))  # fmt: skip
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    return report


def _files(work: Path) -> dict[str, str]:
    """The Python files of a prepared copy (its notebook's cells included), by name, before
    the submission ran (links are never copied)."""
    found = {}
    for path in sorted(work.rglob("*.py"))[:200]:
        if path.is_file() and path.stat().st_size <= 1024**2:
            found[str(path.relative_to(work))] = path.read_text(encoding="utf-8", errors="replace")
    return found


def _disk(work: Path, most: int) -> list[str]:
    """A note when the submission left more in its copy than a jail would have let it."""
    used = 0
    for folder, _dirs, files in os.walk(work):
        for name in files:
            try:
                used += os.lstat(os.path.join(folder, name)).st_size
            except OSError:
                continue
    if used <= most:
        return []
    return [f"wrote {used / 2**20:.0f} MB into its copy (a jail holds {most / 2**20:.0f} MB)"]


def _report(found: Submission, chosen: Course, mode: str, outcome, expected) -> GradeReport:
    """The report of a run: every status decided here, from what the process sent."""
    notes = [n for n in [jail.said(mode)] if n] + outcome.notes
    report = GradeReport(chosen.title, found.name, problem=outcome.problem, notes=notes)
    report.isolation = mode
    for case in chosen.cases():
        if outcome.problem:
            report.rows.append(Row(case.name, case.what, "error", outcome.problem, case.weight))
        elif case.name in outcome.results:
            message = outcome.results[case.name]
            report.rows.append(judge(case, message, expected[case.name][0]))
        else:
            why = outcome.errors.get(case.name, "the submission's process sent no result for it")
            report.rows.append(Row(case.name, case.what, "error", why, case.weight))
    return report


def _explain(report: GradeReport, config: dict, mode, work, temp, limits: Limits) -> None:
    """What diagnose finds on each failed case (not a missing name), added to its row: a
    second run in a jail with vizad beside the submission (:mod:`.diagnosing`)."""
    diagnosed = {c.name for c in _cases_of(config) if c.diagnosed}
    failed = [r.name for r in report.rows if _explained(r) and r.name in diagnosed]
    if not failed:
        return
    how = jail.launch(mode, work, temp, limits.disk_bytes, vizad=True)
    seconds = min(limits.submission_seconds, 3 * limits.case_seconds)
    brief = dataclasses.replace(limits, submission_seconds=seconds, restarts=0)
    outcome = run({**config, "main": diagnosing.MAIN}, how, failed, brief)
    for k, row in enumerate(report.rows):
        text = outcome.results.get(row.name, {}).get("diagnosis")
        if row.name in failed and isinstance(text, str) and text:
            report.rows[k] = dataclasses.replace(row, hint=text)


def _not_own(report: GradeReport, why: str) -> None:
    """Every case a submission whose derivatives are not its rules' (``why``: another
    library's, complex-step) would have passed fails, saying why."""
    if not why:
        return
    for k, row in enumerate(report.rows):
        if row.status == "pass":
            report.rows[k] = dataclasses.replace(row, status="fail", explanation=why)


def _cases_of(config: dict) -> list:
    """The cases of the course a run's ``config`` names."""
    import importlib

    return list(importlib.import_module(f"vizad.classroom.gradekit.{config['cases']}").CASES)


def _explained(row: Row) -> bool:
    """Whether diagnose may say more of ``row``: a failure, not a missing name or a blank."""
    return row.status == "fail" and not row.explanation.startswith(
        ("not implemented", "not written yet")
    )


def _in_process(namespace: Any, chosen: Course, trusted: bool = False) -> GradeReport:
    """Grade a namespace with no source file in this process (a test's or a script's dict of
    definitions): not isolated, said in the report's notes. Names from vizad or an installed
    package still count as not implemented."""
    if isinstance(namespace, dict):
        namespace = types.SimpleNamespace(**namespace)
    student = Api(namespace, chosen.submodules(), trusted=trusted, given=chosen.given())
    report = GradeReport(chosen.title, student.name, isolation="in process")
    report.notes.append(
        "graded in this process, not isolated: give a path, a module or a notebook's "
        "globals() to grade in a process of its own"
    )
    report.rows += [_row_here(chosen, case, student) for case in chosen.cases()]
    return report


def _row_here(chosen: Course, case: Case, student: Api) -> Row:
    """The row of ``case`` run in this process with ``student``: judged, and explained by
    diagnose when it fails (what the grader's two jailed runs give, in one)."""
    row = judge(case, run_case(case, student), _expected(chosen, case)[0])
    if _explained(row) and case.diagnosed:
        text = diagnosing.explain(case, student)["diagnosis"]
        row = dataclasses.replace(row, hint=text) if text else row
    return row


def case_checks(course_name: str, namespace: dict, names: tuple[str, ...] = ()) -> dict:
    """The cases of ``course_name`` (an exercise's, "exercise-b"; those called ``names``, else
    all) as an exercise notebook's check cell runs them
    (``checks.run(vz.exercises.cases("b", globals()))``): title → a check that runs the case
    on the notebook's names ``namespace`` in the notebook's kernel and fails with what the
    grader says of it (the same cases, inputs and words).

    Examples:
        >>> from vizad.classroom.grading import case_checks
        >>> checks = case_checks("exercise-a", {})
        >>> len(checks), next(iter(checks))
        (4, 'order_of_the_example — find_topo_sort([y]) for y = x2*x1 + x1')
    """
    chosen = _course(course_name)
    if chosen.key == "exercises":
        raise GradeError("case_checks: name the exercise (exercise-a … exercise-e)")
    cases = {c.name: c for c in chosen.cases()}
    unknown = [n for n in names if n not in cases]
    if unknown:
        raise GradeError(
            f"case_checks: {chosen.title} has no case {', '.join(map(repr, unknown))} "
            f"(its cases: {', '.join(cases)})"
        )
    student = Api(namespace, chosen.submodules(), given=chosen.given())

    def check(case: Case):
        def run() -> None:
            row = _row_here(chosen, case, student)
            if row.status != "pass":
                raise AssertionError(row.said)

        return run

    chosen_cases = [cases[n] for n in names] if names else list(cases.values())
    return {f"{case.name} — {case.what}": check(case) for case in chosen_cases}


def __getattr__(name: str):
    if name == "COURSES":  # the old table: kept for code that read it
        from vizad.classroom.grading.courses import _COURSES

        return _COURSES
    raise AttributeError(name)
