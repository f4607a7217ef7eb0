"""The tutorials carry slideshow metadata (tools/slide-metadata) and convert to reveal.js
slides with nbconvert, one slide per heading."""

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
