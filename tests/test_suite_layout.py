"""The test suite's own layout: pytest imports test modules by their file name (no
``__init__.py`` in tests/), so two modules of one name in different folders stop its
collection ("import file mismatch") in every run that collects both."""

from __future__ import annotations

import collections
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_no_two_test_modules_share_a_name():
    names = collections.Counter(p.name for p in TESTS.rglob("test_*.py"))
    assert not [n for n, k in names.items() if k > 1], sorted(n for n, k in names.items() if k > 1)
