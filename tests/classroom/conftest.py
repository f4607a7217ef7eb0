"""Fixtures of the classroom's tests."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest


@pytest.fixture
def copies(monkeypatch):
    """The temporary directories the grader made for submissions' copies in this test (a
    list; each must be gone afterwards: a test asserts it), whatever other tests running at
    the same time make."""
    made: list[Path] = []
    mkdtemp = tempfile.mkdtemp

    def recorded(*args, **kwargs):
        path = mkdtemp(*args, **kwargs)
        if Path(path).name.startswith("vizad-grade-"):
            made.append(Path(path))
        return path

    monkeypatch.setattr(tempfile, "mkdtemp", recorded)
    return made
