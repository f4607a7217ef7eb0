"""`python -m vizad grade`'s options are checked before anyone is graded: each wrong value is
refused with a message naming its option (argparse's exit code 2), nothing graded, nothing
written; what could not be written after grading is an error, not a traceback."""

import json
import os

import pytest

from vizad import cli
from vizad.classroom.grading import batch

GOOD = "class Value:\n    pass\n"


@pytest.fixture
def never_graded(monkeypatch):
    """Grading raises: a test passes only if the value is refused first."""

    def refuse(*args, **kwargs):
        raise AssertionError("graded before the options were checked")

    monkeypatch.setattr(cli, "grade", refuse)
    monkeypatch.setattr(batch, "grade_all", refuse)


@pytest.fixture
def submission(tmp_path):
    path = tmp_path / "alice.py"
    path.write_text(GOOD)
    return str(path)


@pytest.mark.parametrize(
    ("option", "value", "said"),
    [
        ("--timeout", "inf", "--timeout takes a finite number above 0"),
        ("--timeout", "1e300", "--timeout takes at most 86400 seconds"),
        ("--timeout", "nan", "--timeout takes a finite number above 0"),
        ("--timeout", "-5", "--timeout takes a finite number above 0"),
        ("--case-timeout", "0", "--case-timeout takes a finite number above 0"),
        ("--case-timeout", "ten", "--case-timeout takes a number"),
        ("--points", "nan", "--points takes a finite number above 0"),
        ("--points", "-1", "--points takes a finite number above 0"),
        ("--jobs", "0", "--jobs takes 1 to 64"),
        ("--jobs", "two", "--jobs takes a whole number"),
    ],
)
def test_a_number_out_of_range_is_refused_naming_its_option(
    option, value, said, submission, never_graded, capsys
):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["grade", submission, "--course", "micrograd", f"{option}={value}"])
    assert exit_.value.code == 2
    assert said in capsys.readouterr().err


def test_an_output_that_cannot_be_written_is_refused_before_grading(
    tmp_path, submission, never_graded, capsys
):
    read_only = tmp_path / "scores.csv"
    read_only.write_text("kept\n")
    os.chmod(read_only, 0o444)
    cases = [
        (["--csv", str(tmp_path)], "--csv: "),  # a directory
        (["--csv", str(tmp_path / "missing" / "s.csv")], "does not exist"),
        (["--results", str(tmp_path) + "/"], "--results: "),
        (["--csv", str(read_only)], "is read-only"),
    ]
    for extra, said in cases:
        assert cli.main(["grade", submission, "--course", "micrograd", *extra]) == 2
        assert said in capsys.readouterr().err
    assert read_only.read_text() == "kept\n"
    missing = str(tmp_path / "nobody")
    assert cli.main(["grade", missing, "--course", "micrograd"]) == 2
    assert f"{missing} does not exist" in capsys.readouterr().err


def test_a_failed_write_after_grading_is_an_error_with_the_grades_shown(
    tmp_path, submission, monkeypatch, capsys
):
    def full(path, text, what):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cli, "write_output", full)
    code = cli.main(["grade", submission, "--course", "micrograd", "--csv", str(tmp_path / "s")])
    out, err = capsys.readouterr()
    assert code == 2 and "the grades are above" in err and "No space left" in err
    assert "micrograd" in out  # the report was written first


def test_json_names_each_submission_by_its_path(tmp_path, capsys):
    for name in ("alice", "bob"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "engine.py").write_text(GOOD)
    cli.main(["grade", str(tmp_path), "--course", "micrograd", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert sorted(os.path.basename(d["path"]) for d in data) == ["alice", "bob"]
