"""What a submission's process sends the grading process, and how: one JSON message a line on
a pipe of its own. Values travel as raw
numbers (arrays as dtype-free nested lists of floats, with their shape), never pickles: the
grading process trusts nothing but numbers, and compares them itself with vizad's engine.
Nothing on the pipe is authenticated (whatever the runner could hold, the student's code in
the same process could read): the grading process reads it as the student's word, and decides
every status itself."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

__all__ = ["encode_value", "decode_value", "frame", "unframe", "MAX_MESSAGE", "capped"]

#: The longest line the grading process reads from a submission (bytes).
MAX_MESSAGE = 8 * 1024 * 1024
#: The longest text (an exception's message, a diagnosis) a submission's process sends.
MAX_TEXT = 2000


def capped(text: Any, limit: int = MAX_TEXT) -> str:
    """``text`` as a string of at most ``limit`` characters (said where it was cut)."""
    text = text if isinstance(text, str) else str(text)
    if len(text) <= limit:
        return text
    return text[:limit] + f"… ({len(text) - limit} more characters)"


def encode_value(value: Any) -> Any:
    """A case's value as JSON-safe data: a float, an array ``{"shape", "data"}``, a list of
    those, None, or ``{"unreadable": type}`` for what is no number (said as such)."""
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return {"list": [encode_value(v) for v in value[:10_000]]}
    try:
        array = np.asarray(value, dtype=float)
    except Exception as exc:  # the student's __array__ or __float__ raised
        return {"unreadable": capped(f"{type(value).__name__} ({type(exc).__name__})", 200)}
    if array.size > 1_000_000:
        return {"unreadable": f"an array of {array.size} numbers"}
    return {"shape": list(array.shape), "data": [_number(x) for x in array.ravel().tolist()]}


def _number(x: float):
    return x if math.isfinite(x) else repr(x)  # "nan", "inf", "-inf": JSON has none


def decode_value(data: Any) -> Any:
    """The value :func:`encode_value` made (a float array, a list, None, or a string naming
    what could not be read); anything else sent is unreadable."""
    if data is None:
        return None
    if isinstance(data, dict) and isinstance(data.get("list"), list):
        return [decode_value(v) for v in data["list"]]
    if isinstance(data, dict) and "shape" in data and "data" in data:
        shape, flat = data["shape"], data["data"]
        if not (isinstance(shape, list) and all(type(n) is int and n >= 0 for n in shape)):
            return "unreadable"
        if not isinstance(flat, list) or len(flat) != math.prod(shape):
            return "unreadable"
        try:
            return np.array([float(x) for x in flat], dtype=float).reshape(shape)
        except (TypeError, ValueError):
            return "unreadable"
    if isinstance(data, dict) and isinstance(data.get("unreadable"), str):
        return capped(data["unreadable"], 200)
    return "unreadable"


def frame(message: dict) -> bytes:
    """A message as the line the submission's process writes."""
    return (json.dumps(message, allow_nan=False) + "\n").encode()


def unframe(line: bytes) -> dict | None:
    """The message of ``line``, or None when it is not one (not JSON, not an object)."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return message if isinstance(message, dict) else None
