"""How the grading process judges a case from what a submission's process sent.

The cases themselves (:class:`~vizad.classroom.gradekit.case.Case`, the courses' lists) live in
:mod:`vizad.classroom.gradekit`, the package that also runs in the jail; here the grading
process computes vizad's values for a case with the course's own engine
(:mod:`vizad.classroom.courses`, which the submission never sees), recording the inputs it
drew for the submission's process, and decides every status from the student's raw data: pass
when every number agrees, fail with what differs (or what was raised, or what is not
implemented), error when what came back cannot be read.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from vizad.classroom.diagnosis.hints import shown
from vizad.classroom.gradekit.case import Api, Case, run_case
from vizad.classroom.gradekit.draws import recording
from vizad.classroom.gradekit.protocol import decode_value, encode_value
from vizad.classroom.grading.report import Row

__all__ = ["Case", "Api", "judge", "expected_values", "run_case"]


def expected_values(case: Case, reference: Api) -> tuple[dict, dict]:
    """vizad's values for ``case`` (through the same encoding as the student's, so that both
    are compared alike), and the inputs it drew (for the submission's process)."""
    with recording() as draws:
        got = case.values(reference, case.graph(reference))
    return {str(k): decode_value(encode_value(v)) for k, v in got.items()}, draws


def judge(case: Case, message: Any, expected: dict) -> Row:
    """The row of ``case`` from what the submission's process sent (``{"values": …}``,
    ``{"raised": …, "line": …}`` or ``{"missing": …}``): its values against vizad's
    ``expected`` ones. Anything else is an error, never a pass."""
    row = lambda status, text: Row(case.name, case.what, status, text, case.weight)  # noqa: E731
    if not isinstance(message, dict) or len(message.keys() - {"line"}) != 1:
        return row("error", "the grader could not read this case's result")
    if isinstance(message.get("missing"), str):
        return row("fail", f"not implemented: {message['missing']}")
    if isinstance(message.get("raised"), str):
        return row("fail", _raised(case, message["raised"], message.get("line")))
    values = message.get("values")
    if not isinstance(values, dict):
        return row("error", "the grader could not read this case's result")
    got = {k: decode_value(v) for k, v in values.items()}
    differences = _differences(got, expected, case.hints)
    if differences:
        return row("fail", "; ".join(differences))
    numerical = _numerical(got, expected)
    return row("fail", numerical) if numerical else row("pass", "")


#: What a blank of an exercise raises ("not implemented yet: write AddOp.gradient").
_BLANK = "NotImplementedError"


def _raised(case: Case, raised: str, line) -> str:
    """Why a case that raised fails: a blank still to write (an exercise's stub raises
    NotImplementedError, naming what to write), else the exception, its line in the
    student's code and the case's hint for that kind of exception."""
    kind, _, text = raised.partition(":")
    if kind == _BLANK:
        told = text.strip().removeprefix("not implemented yet: ")
        return f"not written yet{': ' + told if told else ''} (it still raises {_BLANK})"
    said = f"raised {raised}" + (line if isinstance(line, str) else "")
    hint = case.hints.get(f"raised {kind}")
    return f"{said}: {hint}" if hint else said


#: The keys of a case's forward values (every other key is a derivative or an order).
FORWARD = frozenset({"y", "y.data", "the value"})
#: How far a derivative computed by rules in float64 is from vizad's, at most (relative to the
#: largest of its numbers, or 1): rounding in another order, never more than ~1e-13 in the
#: courses' cases (6e-16 measured); central finite differences are off by 2e-12 to 1e-7.
EXACT = 1e-12


def _error(have, want) -> float:
    if not isinstance(have, np.ndarray) or have.shape != want.shape or not have.size:
        return 0.0
    scale = max(1.0, float(np.max(np.abs(want))))
    return float(np.max(np.abs(have - want))) / scale


def _numerical(got: dict, expected: dict) -> str:
    """Why derivatives that agree with vizad's within the tolerance look numerical (finite
    differences): they are off by more than rounding while the forward values are exact.
    "" when they do not (or the engine computes in lower precision: no judgement)."""
    forward = [_error(got.get(k), w) for k, w in expected.items() if k in FORWARD]
    if not forward or max(forward) > 1e-13:
        return ""
    worst, key = max(
        ((_error(h, w), k) for k, want in expected.items() if k not in FORWARD
         for h, w in zip(*(_entries(got.get(k)), _entries(want)))),
        default=(0.0, ""),
    )  # fmt: skip
    if worst <= EXACT:
        return ""
    return (
        f"{key} agrees with vizad's only to {worst:.0e}, while the value agrees to rounding: "
        "derivatives computed numerically (finite differences), not by rules, score nothing"
    )


def _entries(value) -> list:
    return value if isinstance(value, list) else [value]


def _differences(got: dict, expected: dict, hints=None) -> list[str]:
    """What differs between the student's values and vizad's, each in a line (followed by
    the case's hint for that value, when it has one)."""
    out = []
    for key, want in expected.items():
        before = len(out)
        _difference(key, got.get(key), want, out)
        if len(out) > before and (hints or {}).get(key):
            out[-1] += f" ({hints[key]})"
    return out


def _difference(key: str, have, want, out: list[str]) -> None:
    """The line saying how ``have`` differs from ``want`` (added to ``out``), if it does."""
    if isinstance(want, list):
        if not isinstance(have, list) or len(have) != len(want):
            size = len(have) if isinstance(have, list) else _kind(have)
            out.append(f"{key} has {size} entries, expected {len(want)}")
            return
        wrong = next((k for k, (h, w) in enumerate(zip(have, want)) if not _agree(h, w)), None)
        if wrong is not None:
            out.append(
                f"{key}: entry {wrong + 1} is {_shown(have[wrong])}, expected {shown(want[wrong])}"
            )
    elif not _agree(have, want):
        out.append(f"{key} is {_shown(have)}, expected {shown(want)}")


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
