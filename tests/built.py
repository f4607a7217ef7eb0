"""What `make test` builds before pytest runs (the docs, the JupyterLite site): a test of such
a build is skipped, saying how to build it, when run alone without it, and fails under `make
test` (which sets VIZAD_REQUIRE_BUILT=1), so a build that went missing never passes unseen."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def require(path: Path, how: str) -> None:
    """Skip (or, under `make test`, fail) unless ``path`` was built."""
    if path.exists():
        return
    message = f"{path} is missing: `{how}` builds it (`make test` does first)"
    if os.environ.get("VIZAD_REQUIRE_BUILT"):
        pytest.fail(message)
    pytest.skip(message)
