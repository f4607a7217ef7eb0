"""The API reference shows how: every public callable's docstring has an example (doctest
lines, docs/api_examples.py) that runs and gives what it says, the same run the docs build
makes of it; the Stepper's page shows its own signature, not the ipywidget's (*args,
**kwargs), and none of the members it inherits from ipywidgets and traitlets."""

from __future__ import annotations

import html
import importlib
import inspect
import re
import sys
from pathlib import Path

import pytest

import vizad as vz
from built import require

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "docs"))
examples = importlib.import_module("api_examples")  # docs/api_examples.py
CALLABLES = examples.public_callables()
NAMES = sorted(set(CALLABLES) - examples.PENDING)


@pytest.mark.parametrize("name", NAMES)
def test_each_public_callable_has_an_example_that_runs(name):
    status, report = examples.run(name, CALLABLES[name])
    if status == "skipped":
        pytest.skip(report)
    assert status == "passed", report


def test_the_callables_still_without_an_example_are_the_listed_ones():
    # a debt that only shrinks: a callable gaining an example leaves PENDING, and a name
    # there that is no public callable any more goes too
    assert examples.PENDING <= set(CALLABLES), sorted(examples.PENDING - set(CALLABLES))
    have = sorted(n for n in examples.PENDING if examples.example(n, CALLABLES[n]) is not None)
    assert not have, f"these have an example now: take them out of PENDING: {have}"


def test_an_example_that_fails_or_is_missing_is_reported():
    def good():
        """Add.

        Examples:
            >>> 1 + 1
            2
        """

    def wrong():
        """Add.

        Examples:
            >>> 1 + 1
            3
        """

    def none():
        """Add."""

    assert examples.run("good", good) == ("passed", "")
    status, report = examples.run("wrong", wrong)
    assert status == "failed" and "Expected:\n    3\nGot:\n    2" in report
    assert examples.run("none", none)[0] == "missing"


def test_an_example_needing_a_framework_not_installed_is_skipped():
    def needs():
        """Examples:
        >>> import vizad_no_such_framework
        """

    assert examples.run("needs", needs) == (
        "skipped",
        "needs: its example needs vizad_no_such_framework, not installed",
    )


def test_the_stepper_has_its_own_signature():
    parameters = inspect.signature(vz.Stepper).parameters
    assert list(parameters)[:2] == ["trace", "view"]
    assert {"quiz", "step", "decimals", "budget"} <= set(parameters)  # drawing options too


HTML = REPO / "docs" / "_build" / "html" / "_generated" / "api" / "names"


def _text(page: str) -> str:
    """A built page's text: no tags, entities read, spaces collapsed."""
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", page)))


def test_the_stepper_page_shows_its_signature_and_its_own_members_only():
    require(HTML / "vizad.Stepper.html", "make docs")
    page = (HTML / "vizad.Stepper.html").read_text(encoding="utf-8")
    text = _text(page)
    assert "Stepper(trace, view=None" in text and "*args, **kwargs" not in text
    for own in ("next", "prev", "answer", "check_by_differences", "n_steps", "current"):
        assert f"vizad.Stepper.{own}" in page, own
    for inherited in ("add_class", "add_traits", "observe", "send_state", "keys", "comm"):
        assert f"vizad.Stepper.{inherited}" not in page, inherited
    assert ">>> stepper.next()" in text  # its example


def test_from_torch_links_what_it_returns():
    require(HTML / "vizad.from_torch.html", "make docs")
    page = (HTML / "vizad.from_torch.html").read_text(encoding="utf-8")
    assert 'href="vizad.bridges.imported.Imported.html' in page
    assert ">>> imported = vz.from_torch(f, torch.tensor(2.0)" in _text(page)
