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
        line = message.get("line")
        return row("fail", f"raised {message['raised']}" + (line if isinstance(line, str) else ""))
    values = message.get("values")
    if not isinstance(values, dict):
        return row("error", "the grader could not read this case's result")
    got = {k: decode_value(v) for k, v in values.items()}
    differences = _differences(got, expected)
    if not differences:
        return row("pass", "")
    return row("fail", "; ".join(differences))


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
