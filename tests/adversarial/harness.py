"""The adversarial suite's harness: a hostile case, what it must give, and how a run of it is
judged.

A case passes when it gives a correct result (its ``expect`` is a check of the result) or the
error it must give (an :class:`Error`: a VizadError of that class whose message names what it
is about, by ``mentions``, and says what to do, by :data:`ADVICE`). Anything else fails: a raw
Python or numpy error, a VizadError that names nothing or advises nothing, a result where an
error was due, or a result that is wrong (silently wrong). Writes into read-only values are
refused by numpy's own ``writeable`` flag, as documented: :data:`READ_ONLY` is that outcome.
"""

from __future__ import annotations

import re
import traceback
import warnings
from collections import Counter
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable

import numpy as np

import vizad as vz

__all__ = ["Case", "Error", "READ_ONLY", "Skip", "Outcome", "run_case", "tally", "ADVICE"]

#: How an error message says what to do: it names an action, a verb in the imperative (use …,
#: give …, write elsewhere) or a call to make (vz.tensor(..., requires_grad=True)). Words that
#: only say what is wrong ("must", "only", "needs", "expected") do not count.
ADVICE = re.compile(
    r"\b(use|give|declare|write|pass|check|feed|free|choose|rebuild|send|index|install|add|"
    r"make|save|define|remove|call|type|set|convert|draw|open|trace|wrap|rename|delete|try|"
    r"run|put|keep|import|cast|reshape|close|build|fix|return|ask|answer|go|step|copy|"
    r"register|seed|compute|differentiate|stop|start|select|read it|list)\b"
    r"|\bvz\.\w+",  # or a call to make: vz.tensor(..., requires_grad=True)
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Error:
    """The error a case must give: a VizadError of class ``cls`` whose message matches
    ``mentions`` (a regex: what the message must name)."""

    cls: type
    mentions: str


#: A write into a read-only value, refused by numpy ("assignment destination is read-only").
READ_ONLY = "read-only"


class Skip(Exception):
    """This machine cannot make the case (a device node without root)."""


@dataclass(frozen=True)
class Case:
    category: str
    label: str
    run: Callable[[], Any]
    #: A check of the result (True when correct), an Error, or READ_ONLY.
    expect: Any

    @property
    def id(self) -> str:
        return f"{self.category}: {self.label}"


@dataclass(frozen=True)
class Outcome:
    #: "result", "error", "read-only", "skipped" or "FAIL".
    kind: str
    detail: str = ""


def run_case(case: Case) -> Outcome:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            result = case.run()
        except Skip as exc:
            return Outcome("skipped", str(exc))
        except vz.VizadError as exc:
            return _judge_error(case, exc)
        except ValueError as exc:
            if case.expect == READ_ONLY and "read-only" in str(exc):
                return Outcome("read-only", str(exc))
            return _raw(exc)
        except Exception as exc:  # a raw Python or numpy error: a failure whatever was expected
            return _raw(exc)
    if isinstance(case.expect, Error) or case.expect == READ_ONLY:
        return Outcome("FAIL", f"gave a result where {case.expect} was due: {result!r:.200}")
    try:
        correct = case.expect(result)
    except Exception as exc:
        return Outcome("FAIL", f"the result could not be checked ({exc!r:.200}): {result!r:.200}")
    if correct is not True:  # exactly True: a falsy np.False_, None or 0 is not a pass
        return Outcome("FAIL", f"silently wrong (the check gave {correct!r:.40}): {result!r:.300}")
    return Outcome("result")


def _judge_error(case: Case, exc: Exception) -> Outcome:
    message = str(exc)
    expect = case.expect
    if not isinstance(expect, Error):
        return Outcome("FAIL", f"{type(exc).__name__} where a result was due: {message[:300]}")
    if not isinstance(exc, expect.cls):
        return Outcome("FAIL", f"{type(exc).__name__}, not {expect.cls.__name__}: {message[:300]}")
    if not re.search(expect.mentions, message):
        return Outcome("FAIL", f"the message does not name {expect.mentions!r}: {message[:300]}")
    if not ADVICE.search(message):
        return Outcome("FAIL", f"the message does not say what to do: {message[:300]}")
    return Outcome("error", f"{type(exc).__name__}: {message[:200]}")


def _raw(exc: Exception) -> Outcome:
    where = traceback.extract_tb(exc.__traceback__)[-1]
    return Outcome(
        "FAIL",
        f"raw {type(exc).__name__}: {str(exc)[:200]} ({where.filename}:{where.lineno})",
    )


def tally(cases: list[Case]) -> tuple[dict[str, Counter], list[tuple[Case, Outcome]]]:
    """Run every case: the outcomes counted by category, and the failures."""
    counts: dict[str, Counter] = {}
    failures = []
    for case in cases:
        outcome = run_case(case)
        counts.setdefault(case.category, Counter())[outcome.kind] += 1
        if outcome.kind == "FAIL":
            failures.append((case, outcome))
    return counts, failures
