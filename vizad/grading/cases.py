"""A course's case and how it is run against a student's module.

A :class:`Case` builds a graph with a module's API (``graph(api)``) and says what to compare
(``values(api, graph)``: named numbers, arrays or lists of arrays). It is run twice, with the
student's module and with vizad's own engine for that course (:mod:`vizad.compat`), and
passes when every value agrees; a failure is explained by what differs and by what
:func:`vizad.diagnose` finds on the student's graph. A module is read through :class:`Api`,
which also looks in the submodules a course keeps names in (needle's ``ops`` and
``autograd``).
"""

from __future__ import annotations

import importlib
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..diagnosis import diagnose
from ..diagnosis.hints import exc_text, shown, student_frame
from ..errors import MissingNameError
from .report import Row

__all__ = ["Case", "Api", "run_case"]


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


class Api:
    """A module (or a namespace) as a course's cases read it: a name is looked up in it, then
    in its submodules ``subs``."""

    def __init__(self, module: Any, subs: tuple[str, ...] = ()):
        if isinstance(module, dict):
            module = types.SimpleNamespace(**module)
        self._module, self._subs = module, subs

    def __getattr__(self, name: str):
        for place in [self._module, *(self._sub(s) for s in self._subs)]:
            if place is not None and hasattr(place, name):
                return getattr(place, name)
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


def _differences(got: dict, expected: dict) -> list[str]:
    """What differs between the student's values and vizad's, each in a line."""
    out = []
    for key, want in expected.items():
        have = got.get(key)
        if isinstance(want, list):
            have = list(have) if isinstance(have, (list, tuple)) else have
            if not isinstance(have, list) or len(have) != len(want):
                size = len(have) if isinstance(have, list) else type(have).__name__
                out.append(f"{key} has {size} entries, expected {len(want)}")
                continue
            wrong = next((k for k, (h, w) in enumerate(zip(have, want)) if not _agree(h, w)), None)
            if wrong is not None:
                out.append(
                    f"{key}: entry {wrong + 1} is {shown(have[wrong])}, expected "
                    f"{shown(want[wrong])}"
                )
        elif not _agree(have, want):
            value = shown(have) if have is not None else None
            out.append(f"{key} is {value}, expected {shown(want)}")
    return out


def _agree(have, want) -> bool:
    if have is None:
        return False
    try:
        have, want = np.asarray(have, dtype=float), np.asarray(want, dtype=float)
    except (TypeError, ValueError):
        return False
    return have.shape == want.shape and bool(np.allclose(have, want, rtol=1e-5, atol=1e-7))


def _diagnosis(graph: tuple | None) -> str:
    """What diagnose finds on the student's graph ("" when it finds nothing)."""
    if graph is None:
        return ""
    y, wrt, feed = graph
    try:
        report = diagnose(y, wrt, feed)
    except Exception as exc:  # a graph diagnose cannot read: the differences say enough
        return f"diagnose could not read the graph ({exc_text(exc)})"
    if report.ok:
        return ""
    shown_problems = [p.message for p in report.problems[:3]]
    more = len(report.problems) - len(shown_problems)
    return "diagnose: " + "; ".join(shown_problems) + (f"; and {more} more" if more else "")


def run_case(case: Case, student: Api, reference: Api) -> Row:
    """The row of ``case``: the student's values against vizad's engine's."""
    cls = _value_class(student)
    missing = [m for m in case.optional if cls is not None and not hasattr(cls, m)]
    if missing:
        why = f"{student.name}'s Value has no {', '.join(missing)}()"
        return Row(case.name, case.what, "skipped", why)
    graph = None
    try:
        graph = case.graph(student)
        got = case.values(student, graph)
    except MissingNameError as exc:
        return Row(case.name, case.what, "fail", str(exc))
    except Exception as exc:  # the student's code
        text = f"raised {exc_text(exc)}{student_frame(exc, student.files())}"
        found = _diagnosis(graph)
        return Row(case.name, case.what, "fail", text + (f". {found}" if found else ""))
    expected = case.values(reference, case.graph(reference))
    differences = _differences(got, expected)
    if not differences:
        return Row(case.name, case.what, "pass")
    found = _diagnosis(graph)
    text = "; ".join(differences) + (f". {found}" if found else "")
    return Row(case.name, case.what, "fail", text)


def _value_class(api: Api):
    try:
        return api.Value
    except MissingNameError:
        return None
