"""The tutorials carry slideshow metadata (tools/slide-metadata) and convert to slides with
nbconvert, one slide per heading; vizad's own deck (``python -m vizad slides``) shows them with
nothing fetched."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("[0-9]*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_cell_says_how_it_is_presented(path):
    nb = nbformat.read(path, as_version=4)
    kinds = [cell.metadata.get("slideshow", {}).get("slide_type") for cell in nb.cells]
    assert kinds[0] == "slide" and None not in kinds, "run tools/slide-metadata"
    for cell, kind in zip(nb.cells, kinds):
        heading = cell.cell_type == "markdown" and cell.source.lstrip().startswith(("# ", "## "))
        assert (kind != "-") == heading, (cell.source[:40], kind)


@pytest.mark.notebook  # nbconvert on a tutorial, in a subprocess
def test_a_tutorial_converts_to_slides(tmp_path):
    path = NOTEBOOKS[4]  # 05, reverse mode
    subprocess.run(
        [sys.executable, "-m", "jupyter", "nbconvert", "--to", "slides", str(path),
         "--output-dir", str(tmp_path)],
        check=True, capture_output=True,
    )  # fmt: skip
    html = next(tmp_path.glob("*.slides.html")).read_text(encoding="utf-8")
    headings = sum(
        c.source.lstrip().startswith(("# ", "## "))
        for c in nbformat.read(path, as_version=4).cells
        if c.cell_type == "markdown"
    )
    assert html.count("<section") >= headings > 3


REPO = Path(__file__).resolve().parents[1]


@pytest.mark.notebook  # nbconvert on a tutorial
def test_vizads_slides_fetch_nothing(tmp_path):
    """``python -m vizad slides`` writes one page that names no script, style sheet, font or
    image to fetch: vizad's deck, KaTeX and their style are inlined (the browser test,
    tests/browser/test_offline_slides.py, opens it with every request blocked)."""
    import re

    from vizad.cli import main

    out = tmp_path / "deck.html"
    assert main(["slides", str(NOTEBOOKS[4]), "-o", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert "vizadSlides.start(" in html and "renderMathInElement" in html
    assert "Reveal" not in html
    markup = re.sub(r"(?s)(<script\b[^>]*>).*?</script>", r"\1", html)  # the scripts' text aside
    fetched = re.findall(
        r"<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)=\"(?!data:|#)[^\"]*", markup
    )
    assert fetched == []
    assert not re.search(r"@import|url\((?!data:)", html.split("</style>")[0])
    for cdn in ("unpkg.com", "jsdelivr", "cdnjs", "require.js", "mathjax@"):
        assert cdn not in markup.lower()


def test_the_slides_command_says_what_is_wrong(tmp_path, capsys):
    from vizad.cli import main

    assert main(["slides", str(tmp_path / "missing.ipynb")]) == 2
    assert "no notebook at" in capsys.readouterr().err
    (tmp_path / "bad.ipynb").write_text("not json")
    assert main(["slides", str(tmp_path / "bad.ipynb")]) == 2
    assert "is not a notebook" in capsys.readouterr().err


def test_a_fresh_build_equals_the_committed_deck():
    """vizad/view/slides/deck.js and deck.css are what frontend/build-slides.mjs makes from the
    deck's sources (frontend/deck/) and the KaTeX pinned in frontend/package-lock.json."""
    import shutil

    node = shutil.which("node")
    modules = REPO / "frontend/node_modules"
    if node is None or not all((modules / name).is_dir() for name in ("katex", "esbuild")):
        pytest.skip("Node and frontend/node_modules (npm ci) rebuild the deck")
    run = subprocess.run(
        [node, "frontend/build-slides.mjs", "--check"], cwd=REPO, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr


def test_the_deck_carries_its_licences():
    text = (REPO / "vizad/view/slides/deck.LICENSES.txt").read_text(encoding="utf-8")
    assert "KaTeX" in text and "MIT License" in text
    assert "reveal.js" not in text  # the deck is vizad's own
