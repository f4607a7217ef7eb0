"""The grader's isolation by the operating system (vizad/classroom/grading/jail.py): what a
submission sees from inside each kind of isolation, what the grader refuses when it has none,
and that the code running beside the student's (gradekit) holds nothing of vizad and no seed."""

from __future__ import annotations

import ast
import json
import os
import sys
from pathlib import Path

import pytest

from engines import source
from vizad.classroom.grading import grade, jail
from vizad.cli import main
from vizad.errors import ArgumentError, GradeError

KIT = Path(__file__).resolve().parents[2] / "vizad" / "classroom" / "gradekit"

#: A submission that reports what it can see and do, in the message of its import's error.
PROBE = r"""
import os
facts = {}
def fact(label, what):
    try:
        facts[label] = repr(what())[:200]
    except BaseException as exc:
        facts[label] = type(exc).__name__
fact("uid", os.getuid)
fact("ppid", os.getppid)
fact("environ", lambda: open(f"/proc/{os.getppid()}/environ", "rb").read())
fact("kill", lambda: os.kill(os.getppid(), 0))
fact("vizad", lambda: __import__("vizad"))
fact("root_write", lambda: open("/planted", "w"))
fact("own_write", lambda: open("mine.txt", "w").write("x"))
fact("tmp_write", lambda: open(os.path.join(os.environ["TMPDIR"], "t"), "w").write("x"))
fact("socket", lambda: __import__("socket").create_connection(("127.0.0.1", 9), 1))
fact("site", lambda: sorted(__import__("sys").path))
raise RuntimeError("FACTS " + __import__("json").dumps(facts))
"""


def _facts(tmp_path: Path, isolation: str) -> dict:
    folder = tmp_path / isolation
    folder.mkdir()
    (folder / "autodiff.py").write_text(PROBE)
    report = grade(folder, "599w", isolation=isolation)
    assert not report.graded and report.isolation == isolation
    return json.loads(report.problem.split("FACTS ", 1)[1].rsplit(" (autodiff.py", 1)[0])


def _needs(mode: str) -> None:
    if not jail._works(mode):
        pytest.skip(f"{mode} does not work here (make test installs bubblewrap, as root)")


def test_gradekit_imports_nothing_of_vizad():
    """The package mounted alone in the jail imports the standard library, numpy and itself
    (the exercises' cases too: the handout an exercise notebook imports, vizad, is read
    through the notebook's names, and its base classes by name in the runner)."""
    for path in sorted(KIT.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                continue  # gradekit's own modules
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom):
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                assert top == "numpy" or top in sys.stdlib_module_names, (path.name, name)
    assert len(list(KIT.glob("*_cases.py"))) == 3
    assert sorted(p.stem for p in (KIT / "exercises").glob("?.py")) == list("abcde")


def test_what_a_submission_sees_in_the_jail(tmp_path, monkeypatch):
    _needs("bubblewrap")
    monkeypatch.setenv("VIZAD_JAIL_SECRET", "s3cret-4242")
    facts = _facts(tmp_path, "bubblewrap")
    assert facts["uid"] == "65534" and facts["ppid"] == "1"  # its own pid namespace
    assert "s3cret-4242" not in facts["environ"]  # pid 1 is the jail's, not the grader
    assert facts["vizad"] == "ModuleNotFoundError"
    assert facts["root_write"] in ("OSError", "PermissionError")  # a read-only root
    assert facts["own_write"] == "1" and facts["tmp_write"] == "1"
    assert facts["socket"] == "OSError" or "Error" in facts["socket"]  # no network
    assert "site-packages" not in facts["site"]
    assert not (tmp_path / "bubblewrap" / "mine.txt").exists()  # wrote in its own copy
    assert not Path("/planted").exists()


def test_what_a_submission_sees_as_a_user_of_its_own(tmp_path, monkeypatch):
    _needs("uid")
    monkeypatch.setenv("VIZAD_JAIL_SECRET", "s3cret-4242")
    facts = _facts(tmp_path, "uid")
    assert int(facts["uid"]) >= 3_100_000
    assert facts["environ"] == "PermissionError" and facts["kill"] == "PermissionError"
    assert facts["vizad"] == "ModuleNotFoundError"
    assert facts["root_write"] == "PermissionError"


def test_no_seed_within_the_submissions_reach(tmp_path):
    """The inputs arrive; the seed stays in the grading process."""
    seed = 987_654_321
    hunter = (
        source("minigrad")
        + """
import gc, sys
seen = []
for thing in gc.get_objects():
    if isinstance(thing, dict):
        seen += [repr(v) for v in list(thing.values())[:50] if isinstance(v, (int, str))]
frame = sys._getframe()
while frame:
    seen += [repr(v) for v in frame.f_locals.values()]
    frame = frame.f_back
_old = Value.__init__
def _init(self, data, *a, **k):
    _old(self, data, *a, **k)
    if "987654321" in " ".join(seen):
        raise RuntimeError("found the seed")
Value.__init__ = _init
"""
    )
    (tmp_path / "engine.py").write_text(hunter)
    report = grade(tmp_path / "engine.py", "micrograd", seed=seed)
    assert report.passed, report  # never "found the seed"
    assert str(seed) not in report.to_json()


def test_no_isolation_is_refused_or_said(tmp_path, monkeypatch, capsys):
    (tmp_path / "engine.py").write_text(source("minigrad"))
    monkeypatch.setattr(jail, "_WORKS", {"bubblewrap": False, "uid": False})
    with pytest.raises(GradeError, match="--no-isolation"):
        grade(tmp_path / "engine.py", "micrograd")
    assert main(["grade", str(tmp_path), "--course", "micrograd"]) == 2  # before grading
    err = capsys.readouterr().err
    assert "no isolation works here" in err and "apt install bubblewrap" in err
    csv_path, results = tmp_path.parent / "scores.csv", tmp_path.parent / "results.json"
    args = ["grade", str(tmp_path), "--course", "micrograd", "--no-isolation", "--json"]
    assert main([*args, "--csv", str(csv_path), "--results", str(results)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["isolation"] == "none" and "not isolated (--no-isolation)" in data["notes"][0]
    assert csv_path.read_text().splitlines()[1].endswith(",passed,,none")  # every result
    gradescope = json.loads(results.read_text())
    assert gradescope["extra_data"] == {"isolation": "none"}
    assert gradescope["output"].startswith("not isolated (--no-isolation)")
    with pytest.raises(GradeError, match="isolation must be one of"):
        grade(tmp_path / "engine.py", "micrograd", isolation="docker")


def test_links_are_never_followed(tmp_path):
    """alice/autodiff.py -> ../bob/autodiff.py is not graded as Alice's."""
    (tmp_path / "bob").mkdir()
    (tmp_path / "bob" / "autodiff.py").write_text(source("student599"))
    (tmp_path / "alice").mkdir()
    (tmp_path / "alice" / "autodiff.py").symlink_to(tmp_path / "bob" / "autodiff.py")
    with pytest.raises(ArgumentError, match="is a link"):
        grade(tmp_path / "alice", "599w")
    (tmp_path / "carol").symlink_to(tmp_path / "bob")
    with pytest.raises(ArgumentError, match="is a link"):
        grade(tmp_path / "carol", "599w")


def test_a_notebook_too_large_is_refused_before_it_is_parsed(tmp_path):
    cells = [{"cell_type": "code", "source": "x = 1\n", "metadata": {}}] * 2001
    path = tmp_path / "engine.ipynb"
    path.write_text(json.dumps({"cells": cells, "nbformat": 4, "metadata": {}}))
    with pytest.raises(ArgumentError, match="2001 cells; at most 2000"):
        grade(path, "micrograd")


def test_a_copy_of_the_reference_is_flagged(tmp_path):
    reference = (KIT.parent / "courses" / "autodiff.py").read_text()
    disguised = reference.replace("Node", "Vertex").replace("node", "vertex")
    (tmp_path / "autodiff.py").write_text(disguised)
    report = grade(tmp_path / "autodiff.py", "599w")
    assert any(
        "not the student's own work? autodiff.py is" in n
        and "like vizad's reference engine for 599w" in n
        for n in report.notes
    ), report.notes
    honest = tmp_path / "honest"
    honest.mkdir()
    (honest / "autodiff.py").write_text(source("student599"))
    assert not any("own work" in n for n in grade(honest, "599w").notes)


def test_the_jails_tmp_and_copy_are_bounded(tmp_path):
    """A submission that fills its copy is stopped by the jail's size, not the machine's."""
    _needs("bubblewrap")
    (tmp_path / "engine.py").write_text(
        source("minigrad") + "\nopen('big.bin', 'wb').write(b'x' * (80 * 1024 * 1024))\n"
    )
    report = grade(tmp_path / "engine.py", "micrograd", isolation="bubblewrap")
    assert not report.graded and (
        "No space left" in report.problem or "File too large" in report.problem
    ), report.problem
    assert sorted(os.listdir(tmp_path)) == ["engine.py"]
