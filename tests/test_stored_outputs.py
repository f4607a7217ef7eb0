"""What the tutorials store as outputs is what every reader sees (GitHub, nbconvert, the
static site) and what nbval compares on another machine: no warning text, no path of the
machine that ran them."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(ROOT.glob("notebooks/**/*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT / "notebooks")))
def test_no_stored_output_is_a_warning_or_names_this_machine(path):
    nb = nbformat.read(path, as_version=4)
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            where = f"{path.name}, cell {index}: {cell.source[:60]!r}"
            assert output.get("name") != "stderr", f"{where} printed {output.get('text')!r}"
            text = str(output.get("text", "")) + str(output.get("data", {}).get("text/plain", ""))
            for private in (str(ROOT), "/root/", "site-packages"):
                assert private not in text, f"{where} shows {private!r}"
