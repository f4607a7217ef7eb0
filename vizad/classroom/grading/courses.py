"""The courses :func:`vizad.grade` knows: each one's title in reports, its cases, vizad's
engine for it (the reference, imported by the grading process only, never by a submission's
process) and the names a submission's folder may hold its engine under.

Each exercise notebook of ``notebooks/exercises/`` is a course of its own ("exercise-a" …
"exercise-e"), whose cases are those its check cells run (``vz.exercises.cases``);
"exercises" is any of them, told from the notebook (:func:`exercise_of`)."""

from __future__ import annotations

import importlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from vizad.errors import ArgumentError

__all__ = ["Course", "course", "names", "exercise_of", "EXERCISES"]


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
    #: Whether a submission imports vizad (an exercise notebook is written over vizad's
    #: engines): its process then has vizad beside it, read-only, and only the names the
    #: student wrote count (the handout's base classes, the cases module's ``GIVEN``, aside).
    handout: bool = False

    def cases(self) -> list:
        if not self.cases_module:  # "exercises", before the notebook says which
            return []
        return list(importlib.import_module(self.cases_module).CASES)

    def submodules(self) -> tuple[str, ...]:
        if not self.cases_module:
            return ()
        return importlib.import_module(self.cases_module).SUBMODULES

    def reference(self):
        return importlib.import_module(self.reference_module)

    def given(self) -> tuple:
        """The handout's classes a student's class may extend (imported here)."""
        from vizad.classroom.gradekit.runner import handout

        return handout(getattr(importlib.import_module(self.cases_module), "GIVEN", ()))


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
#: The exercise notebooks (their file names' stems), by letter.
EXERCISES = {
    "a": ("a_topo_sort_and_executor", "topological order and evaluation"),
    "b": ("b_gradients", "gradient rules and gradients()"),
    "c": ("c_dual_numbers", "forward mode with dual numbers"),
    "d": ("d_custom_vjp", "a custom op's rule"),
    "e": ("e_assignment_ops", "the assignment's ops, Executor, gradients of gradients"),
}
for _letter, (_stem, _title) in EXERCISES.items():
    _COURSES[f"exercise-{_letter}"] = Course(
        f"exercise-{_letter}", f"exercise {_letter.upper()} ({_title})",
        f"vizad.classroom.gradekit.exercises.{_letter}",
        f"vizad.classroom.courses.exercises.{_letter}", (f"{_stem}.ipynb",), handout=True,
    )  # fmt: skip
#: Any exercise notebook, told from the notebook itself (:func:`exercise_of`).
_ANY_EXERCISE = Course(
    "exercises", "exercises", "", "", tuple(f"{stem}.ipynb" for stem, _ in EXERCISES.values()),
    handout=True,
)  # fmt: skip
_ALIASES = {"cse599w": "599w", "autodiff": "599w", "dlsys": "needle", "hw1": "needle"}
_ALIASES |= {f"exercise_{k}": f"exercise-{k}" for k in EXERCISES} | {"exercise": "exercises"}


def names() -> list[str]:
    """The names ``--course`` takes (aliases aside)."""
    return [*_COURSES, "exercises"]


def course(name: str) -> Course:
    """The course called ``name`` (or one of its aliases); "exercises" is any exercise
    notebook (resolved by :func:`exercise_of` once the notebook is known)."""
    key = _ALIASES.get(str(name).lower(), str(name).lower())
    if key == "exercises":
        return _ANY_EXERCISE
    if key not in _COURSES:
        raise ArgumentError(
            f"grade: course must be one of {', '.join(map(repr, names()))}, got {name!r}"
        )
    return _COURSES[key]


_TITLE = re.compile(r"^#\s*Exercise\s+([A-Za-z])\b", re.MULTILINE)


def exercise_of(path: Path | None) -> Course:
    """The exercise course of the notebook at ``path``: its title ("# Exercise B. …"), else
    its file name ("b_gradients.ipynb", "b_gradients (1).ipynb"). Refused when neither says."""
    letter = None
    if path is not None and path.suffix == ".ipynb" and path.is_file():
        try:
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
            text = "\n".join(
                "".join(c.get("source", "")) for c in cells if c.get("cell_type") == "markdown"
            )
            found = _TITLE.search(text)
            letter = found.group(1).lower() if found else None
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            letter = None
    if letter not in EXERCISES and path is not None:
        stem = path.stem.lower()
        letter = next((k for k, (s, _) in EXERCISES.items() if stem.startswith(s)), None)
    if letter not in EXERCISES:
        raise ArgumentError(
            f"grade: {path or 'these cells'} is no exercise notebook vizad knows (its title "
            "says no '# Exercise A.' … 'E.', nor does its name): give --course exercise-a … "
            "exercise-e"
        )
    return _COURSES[f"exercise-{letter}"]
