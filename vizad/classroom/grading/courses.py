"""The courses :func:`vizad.grade` knows: each one's title in reports, its cases, vizad's
engine for it (the reference, imported by the grading process only, never by a submission's
process) and the names a submission's folder may hold its engine under."""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from vizad.errors import ArgumentError

__all__ = ["Course", "course"]


@dataclass(frozen=True)
class Course:
    key: str
    title: str
    #: The module of its cases (``vizad.classroom.gradekit.autodiff_cases`` …).
    cases_module: str
    #: vizad's engine for it, compared with in the grading process.
    reference_module: str
    #: Where a student's folder keeps the engine, first found wins (a package directory or a
    #: file); else the folder's one notebook or one .py file.
    entries: tuple[str, ...]

    def cases(self) -> list:
        return list(importlib.import_module(self.cases_module).CASES)

    def submodules(self) -> tuple[str, ...]:
        return importlib.import_module(self.cases_module).SUBMODULES

    def reference(self):
        return importlib.import_module(self.reference_module)


_COURSES = {
    "599w": Course(
        "599w", "CSE 599W", "vizad.classroom.gradekit.autodiff_cases",
        "vizad.classroom.courses.autodiff", ("autodiff.py", "autodiff.ipynb"),
    ),
    "needle": Course(
        "needle", "needle", "vizad.classroom.gradekit.needle_cases",
        "vizad.classroom.courses.needle", ("needle", "python/needle"),
    ),
    "micrograd": Course(
        "micrograd", "micrograd", "vizad.classroom.gradekit.micrograd_cases",
        "vizad.classroom.courses.micrograd.engine", ("micrograd", "engine.py"),
    ),
}  # fmt: skip
_ALIASES = {"cse599w": "599w", "autodiff": "599w", "dlsys": "needle", "hw1": "needle"}


def course(name: str) -> Course:
    """The course called ``name`` (or one of its aliases)."""
    key = _ALIASES.get(str(name).lower(), str(name).lower())
    if key not in _COURSES:
        raise ArgumentError(
            f"grade: course must be one of {', '.join(map(repr, _COURSES))}, got {name!r}"
        )
    return _COURSES[key]
