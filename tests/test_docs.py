"""The documentation site (`make docs`, built before the tests by `make test`): every public
name of every public module has its page, rendered from its docstring; the pages, the command
line, the tutorials and the changelog are there; and each guide of docs/guides/ is there with
the output of its code, which the build ran."""

from __future__ import annotations

import html
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
        ("index.html", "Start 3: your PyTorch model, stepped"),  # the README
        ("guides/index.html", "17_jax_pytrees_and_loops"),
    ],
)
def test_the_pages_are_there(site, page, text):
    assert text in (site / page).read_text(encoding="utf-8")


#: Each guide: a phrase of its prose, and a phrase that only its code's output holds.
GUIDES = {
    "engine": ("The record of an extension", "array(1.71633781)"),  # Executor.run: ∂y/∂x2
    "trace": ("The first NaN", "= v̄₅ cos v₂ + v̄₄ v₁ = -0.284 + 2 = 1.716"),
    "view": ("Predict, then reveal", "2.716337814536774"),  # v̄₂ once x1 is 3
    "bridges": ("own backward pass, stepped", "f:f64[] = add_any d e"),  # JAX's own program
    "classroom": ("your own engine, checked", "assigns instead of adding (+=)"),
}


def _outputs(page: str) -> str:
    """The text of a built page's cell outputs (what its code printed or returned)."""
    parts = re.split(r'<div class="cell_output[^>]*>', page)[1:]
    text = " ".join(part.split('<div class="cell docutils')[0] for part in parts)
    return html.unescape(re.sub(r"<[^>]+>", "", text))


@pytest.mark.parametrize("guide", sorted(GUIDES))
def test_each_guide_is_there_with_its_code_run(site, guide):
    prose, output = GUIDES[guide]
    page = (site / "guides" / f"{guide}.html").read_text(encoding="utf-8")
    assert prose in html.unescape(page)
    assert output in _outputs(page), f"{guide}: its code's output is not in the page"
    assert output not in (REPO / "docs" / "guides" / f"{guide}.md").read_text(encoding="utf-8")


def test_the_outputs_are_read_from_cells_only():
    page = '<p>x = 1</p><div class="cell_output docutils"><pre>y &amp; 2</pre></div>'
    page += '<div class="cell docutils container"><pre>z = 3</pre></div>'
    assert _outputs(page).strip().endswith("y & 2") and "z = 3" not in _outputs(page)
