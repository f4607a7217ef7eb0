"""A course's case, how it runs in a submission's process and how the grading process judges it.

A :class:`Case` builds a graph with a module's API (``graph(api)``) and says what to compare
(``values(api, graph)``: named numbers, arrays or lists of arrays). In the submission's
process, :func:`run_student` runs it with the student's module and sends back raw values (or
the exception raised, or why it is skipped, and what :func:`vizad.diagnose` finds on the
student's graph); in the grading process, :func:`judge` compares those numbers with vizad's
own engine for the course (:mod:`vizad.classroom.courses`), which the submission never sees. A
module is read through :class:`Api`, which also looks in the submodules a course keeps names in
(needle's ``ops`` and ``autograd``) and refuses names whose code is not the student's.
"""

from __future__ import annotations

import importlib
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from vizad.classroom.diagnosis import diagnose
from vizad.classroom.diagnosis.hints import exc_text, shown, student_frame
from vizad.errors import MissingNameError
from vizad.classroom.grading.origin import foreign_file
from vizad.classroom.grading.protocol import capped, decode_value, encode_value
from vizad.classroom.grading.report import Row

__all__ = ["Case", "Api", "run_student", "judge", "expected_values"]


@dataclass(frozen=True)
class Case:
    """One case of a course."""

    name: str
    #: What it builds and compares, in a line.
    what: str
    #: api -> (y, wrt, feed): the graph it builds (feed None for eager engines).
    graph: Callable[[Any], tuple]
    #: (api, graph) -> {name: value}: what is compared with vizad's engine.
    values: Callable[[Any, tuple], dict]
    #: Methods of the value class the case needs that its course does not require (a
    #: module without them skips the case): micrograd's tanh and exp.
    optional: tuple[str, ...] = ()
    #: Its points (1 unless the course says otherwise).
    weight: float = 1.0


class Api:
    """A module (or a namespace) as a course's cases read it: a name is looked up in it, then
    in its submodules ``subs``. A name whose code is not the submission's (outside ``root``,
    the submission's copy; with no root, vizad's or an installed package's) counts as
    missing: re-exporting vizad's engine or site-packages' micrograd implements nothing."""

    def __init__(
        self, module: Any, subs: tuple[str, ...] = (), root: str | None = None, trusted=False
    ):
        if isinstance(module, dict):
            module = types.SimpleNamespace(**module)
        self._module, self._subs, self._root, self._trusted = module, subs, root, trusted

    def __getattr__(self, name: str):
        for place in [self._module, *(self._sub(s) for s in self._subs)]:
            if place is not None and hasattr(place, name):
                value = getattr(place, name)
                elsewhere = None if self._trusted else foreign_file(value, self._root)
                if elsewhere is not None:
                    raise MissingNameError(
                        f"{self.name}'s {name!r} comes from {elsewhere}, not from the "
                        "submission: it counts as not implemented"
                    )
                return value
        where = " or ".join([self.name] + [f"{self.name}.{s}" for s in self._subs])
        raise MissingNameError(
            f"{where} has no {name!r}: the course's cases use it (define it, or import it "
            "into the module)"
        )

    def _sub(self, sub: str):
        """The submodule ``sub`` of the module (imported when the module is a package that
        has not imported it: ``import micrograd`` leaves micrograd.engine out)."""
        found = getattr(self._module, sub, None)
        if found is None and hasattr(self._module, "__path__"):
            try:
                found = importlib.import_module(f"{self._module.__name__}.{sub}")
            except ImportError:
                return None
        return found

    @property
    def name(self) -> str:
        return str(getattr(self._module, "__name__", type(self._module).__name__))

    def files(self) -> frozenset[str]:
        """The files of the module's own functions and classes (where a traceback's line is
        the student's)."""
        found = {getattr(self._module, "__file__", None)}
        for value in vars(self._module).values():
            code = getattr(value, "__code__", None)
            if code is not None:
                found.add(code.co_filename)
        return frozenset(f for f in found if f)


def _diagnosis(graph: tuple | None) -> str:
    """What diagnose finds on the student's graph ("" when it finds nothing)."""
    if graph is None:
        return ""
    y, wrt, feed = graph
    try:
        report = diagnose(y, wrt, feed)
    except BaseException as exc:  # noqa: BLE001 - a graph diagnose cannot read, or the
        # student's code ending the run: the differences say enough
        return f"diagnose could not read the graph ({raised_text(exc)})"
    if report.ok:
        return ""
    shown_problems = [p.message for p in report.problems[:3]]
    more = len(report.problems) - len(shown_problems)
    return "diagnose: " + "; ".join(shown_problems) + (f"; and {more} more" if more else "")


def raised_text(exc: BaseException) -> str:
    """What a case reports of an exception the student's code raised (``KeyError: 'x'``, see
    :func:`vizad.classroom.diagnosis.hints.exc_text`), capped to what a report may hold."""
    return capped(exc_text(exc), 1000)


def run_student(case: Case, student: Api) -> dict:
    """Run ``case`` with the student's module, in the submission's process: the message for
    the grading process (``status`` "values", "raised", "missing" or "skipped")."""
    try:
        return _run_student(case, student)
    except BaseException as exc:  # noqa: BLE001 - the student's code, wherever it raised
        return {"status": "raised", "why": raised_text(exc)}


def _run_student(case: Case, student: Api) -> dict:
    cls = _value_class(student)
    missing = [m for m in case.optional if cls is not None and not hasattr(cls, m)]
    if missing:
        return {"status": "skipped", "why": f"{student.name}'s Value has no {', '.join(missing)}()"}
    graph = None
    try:
        graph = case.graph(student)
        got = case.values(student, graph)
        encoded = {str(k): encode_value(v) for k, v in dict(got).items()}
    except MissingNameError as exc:
        return {"status": "missing", "why": capped(str(exc))}
    except BaseException as exc:  # noqa: BLE001 - the student's code, SystemExit included
        where = student_frame(exc, student.files())
        return {"status": "raised", "why": raised_text(exc) + capped(where, 300),
                "diagnosis": capped(_diagnosis(graph))}  # fmt: skip
    return {"status": "values", "values": encoded, "diagnosis": capped(_diagnosis(graph))}


def expected_values(case: Case, reference: Api) -> dict:
    """vizad's values for ``case``, in the grading process (through the same encoding as the
    student's, so that both are compared alike)."""
    got = case.values(reference, case.graph(reference))
    return {str(k): decode_value(encode_value(v)) for k, v in got.items()}


def judge(case: Case, message: dict, expected: dict) -> Row:
    """The row of ``case`` from what the submission's process sent: its values against
    vizad's ``expected`` ones. Anything unexpected in the message fails the case."""
    status = message.get("status")
    why = message.get("why")
    why = why if isinstance(why, str) else ""
    diagnosis = message.get("diagnosis")
    diagnosis = diagnosis if isinstance(diagnosis, str) else ""
    row = lambda status, text: Row(case.name, case.what, status, text, case.weight)  # noqa: E731
    if status == "skipped":
        return row("skipped", why)
    if status == "missing":
        return row("fail", why)
    if status == "raised":
        return row("fail", f"raised {why}" + (f". {diagnosis}" if diagnosis else ""))
    values = message.get("values")
    if status != "values" or not isinstance(values, dict):
        return row("error", "the grader could not read this case's result")
    got = {k: decode_value(v) for k, v in values.items()}
    differences = _differences(got, expected)
    if not differences:
        return row("pass", "")
    return row("fail", "; ".join(differences) + (f". {diagnosis}" if diagnosis else ""))


def _differences(got: dict, expected: dict) -> list[str]:
    """What differs between the student's values and vizad's, each in a line."""
    out = []
    for key, want in expected.items():
        have = got.get(key)
        if isinstance(want, list):
            if not isinstance(have, list) or len(have) != len(want):
                size = len(have) if isinstance(have, list) else _kind(have)
                out.append(f"{key} has {size} entries, expected {len(want)}")
                continue
            wrong = next((k for k, (h, w) in enumerate(zip(have, want)) if not _agree(h, w)), None)
            if wrong is not None:
                out.append(
                    f"{key}: entry {wrong + 1} is {_shown(have[wrong])}, expected "
                    f"{shown(want[wrong])}"
                )
        elif not _agree(have, want):
            out.append(f"{key} is {_shown(have)}, expected {shown(want)}")
    return out


def _kind(value) -> str:
    return "no" if value is None else "unreadable"


def _shown(value) -> str:
    if value is None:
        return "None"
    if isinstance(value, str):
        return f"unreadable ({value})"
    return shown(value)


def _agree(have, want) -> bool:
    if not isinstance(have, np.ndarray) or not isinstance(want, np.ndarray):
        return False
    return have.shape == want.shape and bool(
        np.allclose(have, want, rtol=1e-5, atol=1e-7, equal_nan=False)
    )


def _value_class(api: Api):
    try:
        return api.Value
    except MissingNameError:
        return None
