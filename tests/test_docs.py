"""The documentation site (`make docs`, built before the tests by `make test`): every public
name of every public module has its page, rendered from its docstring, and the guides, the
command line, the tutorials and the changelog are there."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

import pytest

from built import require

REPO = Path(__file__).resolve().parents[1]
HTML = REPO / "docs" / "_build" / "html"
sys.path.insert(0, str(REPO / "docs"))
conf = importlib.import_module("api_names")  # the docs' own list of modules and names


@pytest.fixture(scope="module")
def site() -> Path:
    require(HTML / "index.html", "make docs")
    return HTML


@pytest.mark.parametrize("module", sorted(conf.MODULES))
def test_every_public_name_has_a_page_with_its_docstring(site, module):
    page = (site / "_generated" / "api" / f"{module}.html").read_text(encoding="utf-8")
    for name in conf.public_names(module):
        # listed on the module's page, linked to the page that documents it
        assert re.search(rf">{re.escape(name)}<", page), f"{module}.{name} not listed"
    names = site / "_generated" / "api" / "names"
    for name in conf.public_names(module):
        documented = list(names.glob(f"*.{name}.html"))
        assert documented, f"{module}.{name} has no page"


def test_a_page_shows_the_docstring_and_the_signature(site):
    page = (site / "_generated" / "api" / "names" / "vizad.gradients.html").read_text()
    assert "cotangent" in page  # the signature
    doc = importlib.import_module("vizad").gradients.__doc__.split(".")[0].split()
    assert " ".join(doc[:4]) in re.sub(r"<[^>]+>|\s+", " ", page)


@pytest.mark.parametrize(
    ("page", "text"),
    [
        ("_generated/cli.html", "python -m vizad grade"),
        ("_generated/tutorials/05_reverse_mode.html", "Reverse mode"),
        ("architecture.html", "layers"),
        ("changelog.html", "0.2.0"),
        ("index.html", "Quick start"),
    ],
)
def test_the_guides_are_there(site, page, text):
    assert text in (site / page).read_text(encoding="utf-8")
