"""What :func:`vizad.diagnose` says about a wrong number or a raised exception: whether two
gradients agree, a one-line guess at what is wrong with a gradient ("sign flipped", "inputs
swapped", "looks transposed" …), values printed short, and the student's own line where their
code raised."""

from __future__ import annotations

import math
import re
import sys
import traceback

import numpy as np

from vizad.classroom.gradekit.case import exc_text  # the jail's, shared

__all__ = ["close", "hint", "shown", "student_line", "student_frame", "exc_text"]


def close(a, b, scale: float) -> bool:
    """Whether ``a`` and ``b`` have one shape and agree (rtol 1e-4, atol 1e-6 × ``scale``)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-4, atol=1e-6 * scale))


def hint(got, expected, others: list, node_flags: str = "") -> str:
    """A one-line guess at what is wrong with ``got`` (the student's gradient) against
    ``expected``; ``others`` are the expected gradients of the node's other inputs."""
    got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    scale = max(1.0, float(np.max(np.abs(expected), initial=0.0)))
    if got.shape != expected.shape:
        if got.T.shape == expected.shape and close(got.T, expected, scale):
            return "looks transposed" + node_flags
        if got.ndim == expected.ndim or got.size < expected.size:
            return (
                f"has shape {got.shape} where the input has {expected.shape}: summed over the "
                "wrong axis (or not broadcast back to the input's shape)"
            )
        return f"has shape {got.shape} where the input has shape {expected.shape}" + node_flags
    if close(got, -expected, scale):
        return "sign flipped"
    if not np.any(got) and np.any(expected):
        return "is zero where it should not be"
    for other in others:
        if other is not None and close(got, other, scale):
            return "is another input's gradient: inputs swapped"
    if got.ndim == 2 and got.shape[0] == got.shape[1] and close(got.T, expected, scale):
        return "looks transposed" + node_flags
    mask = np.abs(expected) > 1e-9 * scale
    if mask.any():
        ratios = got[mask] / expected[mask]
        r = float(np.median(ratios))
        if np.allclose(ratios, r, rtol=1e-4) and r != 0:
            if math.isclose(r, 0.5, rel_tol=1e-4):
                return "missing factor 2"
            if math.isclose(r, 2.0, rel_tol=1e-4):
                return "an extra factor 2"
            return f"off by a factor {r:.4g}"
    return "wrong values"


def shown(value) -> str:
    """A value as a report prints it: on one line, 4 decimals, long arrays summarised."""
    if np.ndim(value) == 0 and np.isrealobj(value):
        return f"{float(value):.6g}"
    array = np.asarray(value)
    if array.size > _SHOWN:  # a few numbers and the shape, never the whole array
        flat = array.ravel()
        head = np.array2string(flat[:4], precision=4, separator=", ")[1:-1]
        tail = np.array2string(flat[-2:], precision=4, separator=", ")[1:-1]
        return " ".join(f"[{head}, …, {tail}] (shape {array.shape})".split())
    text = np.array2string(array, precision=4, threshold=_SHOWN, separator=", ")
    return " ".join(text.split())


#: Arrays of more numbers than this are shown abbreviated.
_SHOWN = 12


def student_line(
    exc: BaseException, files: frozenset[str] = frozenset(), code=None
) -> tuple[str, str] | None:
    """(``file:line``, its source) of the student's line in the traceback of ``exc``: the
    line of the function whose code is ``code`` (the rule being checked) when it is on the
    traceback, else the innermost line in the student's ``files``, else the innermost line
    outside vizad and installed packages (numpy's own lines never)."""
    tb, frames = exc.__traceback__, []
    while tb is not None:
        frames.append((tb.tb_frame.f_code, tb.tb_lineno))
        tb = tb.tb_next
    summary = traceback.extract_tb(exc.__traceback__)
    picked = [k for k, (c, _) in enumerate(frames) if code is not None and c is code]
    if not picked:
        picked = [k for k, (c, _) in enumerate(frames) if c.co_filename in files]
    if not picked:
        picked = [
            k
            for k, (c, _) in enumerate(frames)
            if "/vizad/" not in c.co_filename and "-packages/" not in c.co_filename
        ]
    if not picked:
        return None
    f = summary[picked[-1]]
    return place(f.filename, f.lineno), (f.line or "")


#: The grader's copy of a notebook's code cell k (grading.submission.prepare).
_COPIED_CELL = re.compile(r"(?:^|/)\.(?P<notebook>[^/]+)_cells/cell_(?P<k>\d+)\.py$")


def place(filename: str, line: int | None) -> str:
    """Where a line of the student's code is: ``cell In[5], line 6`` for a notebook cell (as
    IPython's tracebacks say it; the file name is a kernel's temporary file), ``code cell 5 of
    b_gradients.ipynb, line 6`` for the grader's copy of a notebook's cell, else
    ``file:line``."""
    copied = _COPIED_CELL.search(filename)
    if copied is not None:
        return f"code cell {int(copied['k'])} of {copied['notebook']}.ipynb, line {line}"
    shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    names = getattr(getattr(shell, "compile", None), "_filename_map", None)
    if isinstance(names, dict) and filename in names:
        return f"cell In[{names[filename]}], line {line}"
    return f"{filename}:{line}"


def student_frame(exc: BaseException, files: frozenset[str] = frozenset(), code=None) -> str:
    """`` (file:line: source)`` of :func:`student_line`, or "" when there is none."""
    found = student_line(exc, files, code)
    if found is None:
        return ""
    where, line = found
    return f" ({where}: {line})" if line else f" ({where})"
