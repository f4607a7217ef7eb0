"""Importing an optional framework, with an error that says which extra installs it."""

from __future__ import annotations

import importlib
from types import ModuleType

from vizad.errors import MissingExtraError

__all__ = ["require"]


def require(module: str, extra: str) -> ModuleType:
    """The module ``module`` (``"torch"``), or a MissingExtraError naming the extra
    (``vizad[torch]``) that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtraError(
            f"this bridge needs {module}, which is not installed ({exc}): "
            f"pip install 'vizad[{extra}]'"
        ) from None
