"""A batch always finishes: a submission that cannot be read gets its CSV row with the reason,
never a traceback that leaves the class without a CSV; a folder name that is not UTF-8 is
written with escapes; no temporary copy is left behind (issue 46, item 4 in part)."""

import json
import os

import pytest

from vizad.cli import main

pytestmark = pytest.mark.heavy  # a submission graded in a child process

VALUE = "class Value:\n    pass\n"


def _notebook(source) -> str:
    cell = {"cell_type": "code", "source": source, "metadata": {}, "outputs": []}
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def test_unreadable_submissions_get_rows_and_the_batch_finishes(tmp_path, capsys, copies):
    students = tmp_path / "class"
    for name, file, text in [
        ("alice", "engine.py", VALUE),
        ("bob", "engine.ipynb", _notebook([1, 2, 3])),  # a cell's source that is not text
        ("carol", "engine.ipynb", "[" * 100_000 + "]" * 100_000),  # JSON nested too deep
    ]:
        (students / name).mkdir(parents=True)
        (students / name / file).write_text(text)
    odd = os.path.join(os.fsencode(students), b"\xff\xfe")  # a name made on another system
    os.mkdir(odd)
    with open(os.path.join(odd, b"engine.py"), "w") as f:
        f.write(VALUE)
    csv_path = tmp_path / "scores.csv"
    code = main(["grade", str(students), "--course", "micrograd", "--csv", str(csv_path)])
    assert code == 2  # some could not be graded
    rows = csv_path.read_text(encoding="utf-8").splitlines()[1:]
    by_name = {row.split(",")[0].rsplit("/", 1)[-1]: row for row in rows}
    assert sorted(by_name) == ["\\xff\\xfe", "alice", "bob", "carol"]
    assert "code cell 1's source is not text" in by_name["bob"]
    assert "nested too deep" in by_name["carol"]
    assert ",not graded," in by_name["bob"] and ",not graded," in by_name["carol"]
    assert ",failed," in by_name["alice"] and ",failed," in by_name["\\xff\\xfe"]
    assert len(copies) == 4 and not any(c.exists() for c in copies)  # every copy removed
    assert "Traceback" not in capsys.readouterr().err
