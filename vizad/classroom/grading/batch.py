"""Grading a class: many submissions (paths, or folders of them), a few processes at a time,
and the files a course's tools read: a CSV of scores, Gradescope's ``results.json`` and
nbgrader-style points (the score scaled to a cell's points)."""

from __future__ import annotations

import csv
import io
import json
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from vizad.errors import VizadError
from vizad.classroom.grading import grade, jail, ownwork
from vizad.classroom.grading.courses import course
from vizad.classroom.grading.report import GradeReport, Row, one_line
from vizad.classroom.grading.sandbox import Limits
from vizad.classroom.grading.submission import find

__all__ = ["submissions", "grade_all", "to_csv", "gradescope", "exit_code"]


def submissions(paths: list, course_name: str) -> list[Path]:
    """Each path that is a submission itself (a ``.py`` file, a notebook, a package, a folder
    holding the course's engine), and each entry of a folder of submissions, sorted."""
    entries = course(course_name).entries
    found = []
    for path in map(Path, paths):
        try:
            find(path, entries)
            found.append(path)
        except Exception:  # noqa: BLE001 - not one submission: a folder of them, or unreadable
            if not path.is_dir():
                found.append(path)  # graded as "could not grade", saying why
                continue
            found += sorted(p for p in path.iterdir() if not p.name.startswith((".", "_")))
    return found


def grade_all(
    paths: list,
    course_name: str,
    limits: Limits | None = None,
    jobs: int = 2,
    seed: int | None = None,
    isolation: str = "auto",
) -> list[tuple[Path, GradeReport]]:
    """The report of every submission of ``paths`` (see :func:`submissions`), ``jobs`` at a
    time, their cases' inputs drawn with ``seed``, each isolated as ``isolation`` says (see
    :func:`vizad.grade`: refused before anyone is graded when it cannot be had); a
    submission that cannot be read at all gets a report saying why."""
    isolation = jail.choose(isolation)
    found = submissions(paths, course_name)

    def one(path: Path) -> GradeReport:
        try:
            return grade(path, course_name, limits=limits, seed=seed, isolation=isolation)
        except Exception as exc:  # noqa: BLE001 - a batch always finishes: a row saying why
            why = str(exc) if isinstance(exc, VizadError) else f"could not be read: {exc!r}"
            chosen = course(course_name)
            report = GradeReport(chosen.title, shown_path(path.name), problem=why)
            report.rows = [Row(c.name, c.what, "error", why, c.weight) for c in chosen.cases()]
            return report

    with ThreadPoolExecutor(max(1, jobs)) as pool:
        graded = list(zip(found, pool.map(one, found)))
    chosen = course(course_name)
    flagged = ownwork.batch_matches(
        {shown_path(p): r.files for p, r in graded if r.files}, given=ownwork.handout(chosen.key)
    )
    for path, report in graded:
        report.notes += ownwork.notes(flagged.get(shown_path(path), []))
    return graded


def shown_path(path) -> str:
    """``path`` as text any file can hold: a name that is not UTF-8 (a folder made on another
    system) with its bytes written as ``\\xff`` escapes."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def exit_code(reports: list[GradeReport]) -> int:
    """2 when some submission could not be graded, else 1 when some failed, else 0."""
    codes = [r.exit_code for r in reports] or [2]
    return max(codes)


def to_csv(graded: list[tuple[Path, GradeReport]], out_of: float | None = None) -> str:
    """One row a submission: its path, score, max_score, points (the score scaled to
    ``out_of``, as an nbgrader cell gives partial credit), status, the problem if any, and
    how it was isolated (bubblewrap, uid or none; empty when it could not be read)."""
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(
        ["submission", "score", "max_score", "points", "status", "problem", "isolation"]
    )
    for path, report in graded:
        status = "passed" if report.passed else "failed" if report.graded else "not graded"
        points = report.points(out_of) if out_of else report.score
        writer.writerow([shown_path(path), report.score, report.max_score, points, status,
                         one_line(report.problem, 300), report.isolation])  # fmt: skip
    return text.getvalue()


def gradescope(report: GradeReport) -> dict:
    """Gradescope's ``results.json`` of one submission: the score and one test a case
    (skipped cases visible, worth nothing)."""
    tests = []
    for row in report.rows:
        why = f" — {row.said}" if row.said else ""
        tests.append({
            "name": row.name,
            "score": row.weight if row.status == "pass" else 0,
            "max_score": row.weight if row.status != "skipped" else 0,
            "status": "passed" if row.status in ("pass", "skipped") else "failed",
            "output": f"{row.status}: {row.what}{why}",
        })  # fmt: skip
    result = {"score": report.score, "tests": tests, "visibility": "visible"}
    said = [f"not graded: {report.problem}"] if report.problem else []
    said += [n for n in report.notes if n.startswith(("not isolated", "isolated by"))]
    if said:
        result["output"] = "\n".join(said)
    result["extra_data"] = {"isolation": report.isolation}
    return result


def gradescope_json(graded: list[tuple[Path, GradeReport]]) -> str:
    """Gradescope's results.json for one submission, else a JSON object of every
    submission's, by path."""
    if len(graded) == 1:
        data = gradescope(graded[0][1])
    else:
        data = {shown_path(p): gradescope(r) for p, r in graded}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
