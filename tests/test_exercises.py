"""The exercise notebooks: the blanks students get run without errors outside the exercise
cells, and every check of theirs says FAIL (the solved copies pass under nbval); the blanks
and the solutions are made from one source by tools/make-exercises and must not drift."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

EXERCISES = Path(__file__).resolve().parents[1] / "notebooks" / "exercises"
BLANKS = sorted(EXERCISES.glob("*.ipynb"))


def test_there_are_four_exercises_with_solutions():
    assert [p.stem for p in BLANKS] == [
        "a_topo_sort_and_executor", "b_gradients", "c_dual_numbers", "d_custom_vjp",
    ]  # fmt: skip
    for blank in BLANKS:
        solved = nbformat.read(EXERCISES / "solutions" / blank.name, as_version=4)
        empty = nbformat.read(blank, as_version=4)
        assert len(solved.cells) == len(empty.cells)
        for a, b in zip(solved.cells, empty.cells):
            tagged = "exercise" in b.metadata.get("tags", [])
            assert tagged == ("NotImplementedError" in b.source and a.source != b.source) or (
                not tagged and a.source == b.source
            )


def test_the_notebooks_are_what_make_exercises_writes(tmp_path):
    before = {p: p.read_bytes() for p in BLANKS}
    subprocess.run(
        [sys.executable, str(EXERCISES.parents[1] / "tools" / "make-exercises")], check=True
    )
    assert {p: p.read_bytes() for p in BLANKS} == before, "run tools/make-exercises and commit"


@pytest.mark.parametrize("path", BLANKS, ids=lambda p: p.stem)
def test_every_check_fails_on_the_blank_notebook(path):
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=False).execute(
        cwd=str(path.parent)
    )
    outcomes = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            text = output.get("data", {}).get("text/plain", "")
            outcomes += [line for line in text.splitlines() if line[:2] in ("✓ ", "✗ ")]
    assert outcomes, "no check ran"
    assert all(line.startswith("✗ ") and "FAIL" in line for line in outcomes), outcomes
    assert any("not written yet" in line for line in outcomes)
