"""The adversarial suite (issue 30): hostile inputs by category, each of which must give a
correct result or a clear VizadError (see harness.py); ``make adversarial`` prints the counts
by category, recorded in docs/adversarial.md."""

from __future__ import annotations

import pytest
from cases import CATEGORIES, all_cases
from harness import run_case

CASES = all_cases()


def test_there_are_at_least_300_cases_in_every_category():
    assert len(CASES) >= 300
    assert {c.category for c in CASES} == set(CATEGORIES)
    assert len({c.id for c in CASES}) == len(CASES)  # every case says what it is


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_a_hostile_input_gets_a_right_result_or_a_clear_error(case):
    outcome = run_case(case)
    if outcome.kind == "skipped":
        pytest.skip(outcome.detail)
    assert outcome.kind != "FAIL", outcome.detail
