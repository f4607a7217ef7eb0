"""The adversarial suite (issue 30): hostile inputs by category, each of which must give a
correct result or a clear VizadError (see harness.py); ``make adversarial`` prints the counts
by category, recorded in docs/adversarial.md."""

from __future__ import annotations

import pytest
from cases import CATEGORIES, all_cases
from harness import run_case

pytestmark = pytest.mark.heavy  # the whole adversarial suite: ~10 s

CASES = all_cases()


def test_every_category_has_cases_and_issue_38s_have_at_least_250():
    """Every category has cases (some are small: a closed stepper has 13 operations); those
    of issue 38 (names drawn, quiz answers, kernel messages) at least 250 each, and the suite
    at least 1500 in all."""
    counts = {name: sum(1 for c in CASES if c.category == name) for name in CATEGORIES}
    assert len(CASES) >= 1500 and min(counts.values()) >= 10, counts
    assert all(counts[k] >= 250 for k in ("names in drawings", "quiz answers",
                                          "kernel messages")), counts  # fmt: skip
    assert len({c.id for c in CASES}) == len(CASES)  # every case says what it is


# the two largest categories are most of the suite's time: make check keeps every 7th of their
# cases (7 is prime to the 8 places a name is put and the 50 names of each engine, so every
# place and every engine stays); the others are slow, and make test runs them all
SAMPLED, STRIDE = ("names", "names in drawings"), 7


def _param(case, index):
    # names an adversary chose may look like vizad's ids: the naming rules are not checked
    hostile = case.category in ("names in drawings", "many readers in pages")
    marks = [pytest.mark.hostile_names] if hostile else []
    if case.category in SAMPLED and index % STRIDE:
        marks.append(pytest.mark.slow)
    return pytest.param(case, marks=marks, id=case.id)


def _params():
    seen = dict.fromkeys(CATEGORIES, 0)
    for case in CASES:
        yield _param(case, seen[case.category])
        seen[case.category] += 1


@pytest.mark.parametrize("case", list(_params()))
def test_a_hostile_input_gets_a_right_result_or_a_clear_error(case):
    outcome = run_case(case)
    if outcome.kind == "skipped":
        pytest.skip(outcome.detail)
    assert outcome.kind != "FAIL", outcome.detail
