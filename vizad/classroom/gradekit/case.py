"""A course's case, and how it runs against a student's engine in the submission's process.

A :class:`Case` builds a graph with a module's API (``graph(api)``) and says what to compare
(``values(api, graph)``: named numbers, arrays or lists of arrays). :func:`run_case` runs it
with the student's module and says what happened, as raw data: the values, the exception
raised (and the student's line it came from), or the name the module lacks. It decides no
status: :func:`vizad.classroom.grading.cases.judge` does, in the grading process. A module is
read through :class:`Api`, which also looks in the submodules a course keeps names in
(needle's ``ops`` and ``autograd``) and refuses names whose code is not the student's.
"""

from __future__ import annotations

import importlib
import os
import types
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .origin import foreign_file
from .protocol import capped, encode_value

__all__ = ["Case", "Api", "MissingName", "run_case", "exc_text"]


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
    #: Methods of the value class the case needs beyond the repository's own engine (the
    #: lecture's tanh and exp for micrograd): a Value without them has not implemented them.
    optional: tuple[str, ...] = ()
    #: Its points (1 unless the course says otherwise).
    weight: float = 1.0
    #: What to add when a value differs (by its key) or when the case raised an exception
    #: (by ``"raised KeyError"``): the lecture's reason, in a line (an exercise's teaching).
    hints: Mapping[str, str] = field(default_factory=dict)
    #: Whether :func:`vizad.diagnose` can read the case's graph (a failure then says what it
    #: finds); False for cases whose "graph" is no engine's graph (dual numbers, an order).
    diagnosed: bool = True


class MissingName(AttributeError):
    """A name a case needs is not the submission's (absent, or another's code)."""


class Api:
    """A module (or a namespace) as a course's cases read it: a name is looked up in it, then
    in its submodules ``subs``. A name whose code is not the submission's (outside ``root``,
    the submission's copy; with no root, vizad's or an installed package's) counts as
    missing: re-exporting vizad's engine or site-packages' micrograd implements nothing."""

    def __init__(
        self,
        module: Any,
        subs: tuple[str, ...] = (),
        root: str | None = None,
        trusted=False,
        given: tuple = (),
    ):
        if isinstance(module, dict):
            module = types.SimpleNamespace(**module)
        self._module, self._subs, self._root, self._trusted = module, subs, root, trusted
        #: Classes of the course's handout a student's class may extend (an exercise's
        #: ``ad.Op``, ``vz.Op``): their code is no one's, the student's subclass is theirs.
        self._given = tuple(given)

    def __getattr__(self, name: str):
        for place in [self._module, *(self._sub(s) for s in self._subs)]:
            if place is not None and hasattr(place, name):
                value = getattr(place, name)
                elsewhere = None if self._trusted else foreign_file(value, self._root, self._given)
                if elsewhere is not None:
                    raise MissingName(
                        f"{self.name}'s {name!r} comes from {elsewhere}, not from the "
                        "submission: it counts as not implemented"
                    )
                return value
        where = " or ".join([self.name] + [f"{self.name}.{s}" for s in self._subs])
        raise MissingName(
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


def exc_text(exc: BaseException) -> str:
    """``KeyError: 'x'``, or just ``NotImplementedError`` when it has no message; for any
    exception, even a student's whose ``__str__`` raises."""
    try:
        text = str(exc)
    except BaseException:  # noqa: BLE001 - the student's __str__
        text = "(its message could not be read)"
    name = getattr(type(exc), "__name__", "exception")
    return f"{name}: {text}" if text else str(name)


def _line(exc: BaseException, root: str | None) -> str:
    """`` (file:line)`` of the innermost line of the traceback in the submission's copy."""
    tb, found = exc.__traceback__, ""
    while tb is not None:
        path = tb.tb_frame.f_code.co_filename
        if root is not None and os.path.abspath(path).startswith(root + os.sep):
            found = f" ({os.path.relpath(path, root)}:{tb.tb_lineno})"
        tb = tb.tb_next
    return found


def run_case(case: Case, student: Api, root: str | None = None) -> dict:
    """What ``case`` gave with the student's module: ``{"values": {...}}``,
    ``{"raised": text, "line": where}`` or ``{"missing": text}`` (raw data for the grading
    process, which decides the status)."""
    try:
        cls = _value_class(student)
        lacking = [m for m in case.optional if cls is not None and not hasattr(cls, m)]
        if lacking:
            return {"missing": f"{student.name}'s Value has no {', '.join(lacking)}()"}
        got = case.values(student, case.graph(student))
        return {"values": {str(k): encode_value(v) for k, v in dict(got).items()}}
    except MissingName as exc:
        return {"missing": capped(str(exc))}
    except BaseException as exc:  # noqa: BLE001 - the student's code, SystemExit included
        try:
            return {"raised": capped(exc_text(exc), 1000), "line": capped(_line(exc, root), 300)}
        except BaseException:  # noqa: BLE001 - an exception whose every part raises
            return {"raised": "an exception that could not be read", "line": ""}


def _value_class(api: Api):
    try:
        return api.Value
    except MissingName:
        return None
