"""Arguments renamed so that one word means one thing everywhere: ``feed`` for the values of
the Variables, ``cotangent`` and ``tangent`` for the seeds of derivatives, ``rng`` for a random
seed. The old keyword still works for one release, with a DeprecationWarning naming the new
one."""

from __future__ import annotations

import warnings
from typing import Any


def renamed(where: str, given: dict[str, Any], **names: str) -> dict[str, Any]:
    """The values passed to ``where`` under old keyword names (``names`` maps each old name to
    its new one), by new name, each with a DeprecationWarning; any other keyword in ``given``
    is a TypeError, as Python's own."""
    values = {}
    for old, value in given.items():
        new = names.get(old)
        if new is None:
            raise TypeError(f"{where}() got an unexpected keyword argument {old!r}")
        warnings.warn(
            f"{where}(..., {old}=...) is deprecated: the argument is called {new!r} now",
            DeprecationWarning,
            stacklevel=3,
        )
        values[new] = value
    return values
