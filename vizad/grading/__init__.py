"""``vz.grade``: a course's homework cases run against a student's module, as a TA grades it.

``vz.grade(module, course="599w" | "needle" | "micrograd")`` runs the course's cases (written
for vizad after the kinds of checks each course's own tests make: :mod:`.autodiff_cases`,
:mod:`.needle_cases`, :mod:`.micrograd_cases`) against ``module`` (a module, a namespace such
as a notebook's ``globals()``, or the path of a ``.py`` file or a package directory), compares
every value with vizad's engine for that course (:mod:`vizad.compat`), and explains each
failure with what differs and what :func:`vizad.diagnose` finds. The report
(:class:`~.report.GradeReport`) is a table in a notebook, text on the command line
(``python -m vizad grade path/to/autodiff.py --course 599w``), JSON for a gradebook, and a
score for nbgrader.
"""

from __future__ import annotations

import types
from typing import Any

from ..compat import autodiff as _autodiff
from ..compat import needle as _needle
from ..compat.micrograd import engine as _micrograd
from ..errors import ArgumentError
from . import autodiff_cases, micrograd_cases, needle_cases
from .cases import Api, Case, run_case
from .loading import load_module
from .report import GradeReport, Row

__all__ = ["grade", "COURSES", "GradeReport", "Row", "Case", "load_module"]

#: Each course: its name in reports, its cases, vizad's engine for it, where it keeps names.
COURSES = {
    "599w": ("CSE 599W", autodiff_cases, _autodiff),
    "needle": ("needle", needle_cases, _needle),
    "micrograd": ("micrograd", micrograd_cases, _micrograd),
}
_ALIASES = {"cse599w": "599w", "autodiff": "599w", "dlsys": "needle", "hw1": "needle"}


def grade(module: Any, course: str) -> GradeReport:
    """Run the cases of ``course`` ("599w", "needle" or "micrograd") against ``module`` (a
    module, a namespace or dict such as ``globals()``, or a path to a ``.py`` file or a
    package directory) and report each case: pass, fail with why, or skipped."""
    key = _ALIASES.get(str(course).lower(), str(course).lower())
    if key not in COURSES:
        raise ArgumentError(
            f"grade: course must be one of {', '.join(map(repr, COURSES))}, got {course!r}"
        )
    title, cases, reference = COURSES[key]
    if isinstance(module, (str, bytes)) or hasattr(module, "__fspath__"):
        module = load_module(module)
    elif isinstance(module, dict):
        module = types.SimpleNamespace(**module)
    student = Api(module, cases.SUBMODULES)
    ours = Api(reference, cases.SUBMODULES)
    report = GradeReport(title, student.name)
    report.rows = [run_case(case, student, ours) for case in cases.CASES]
    return report
