"""The hostile-submission suite: each module of tests/classroom/hostile/ attacks the grader in
one way (exits, signals, loops, threads, memory, output floods, monkeypatches of numpy, vizad and
the grader, re-exports of vizad's reference or an installed course package, forged results,
files written outside its copy, processes, sockets, limits). Graded in one batch with honest
submissions after them: every hostile one is reported as not passed, with its reason; every
honest one scores as it does alone; the batch ends within its timeouts; no file outside the
submissions' copies changes."""

from __future__ import annotations

import csv
import hashlib
import io
import re
from pathlib import Path

import pytest

from engines import source
from test_grade import NO_RESHAPE, SIGN, TANH_OF_X
from vizad.classroom.grading import Limits, batch, grade, jail
from vizad.classroom.grading.courses import course as course_named

pytestmark = pytest.mark.heavy  # hostile submissions graded in child processes

HOSTILE = Path(__file__).parent / "hostile"
VIZAD = Path(__file__).resolve().parents[2] / "vizad"
LIMITS = Limits(case_seconds=3.0, submission_seconds=10.0, restarts=2)
#: One bug a course's honest engine is seeded with (a hostile module with a bug must score as
#: that bug does).
BUG = {"599w": (SIGN,), "micrograd": (TANH_OF_X,), "needle": (NO_RESHAPE,)}
ENTRY = {
    "599w": ("student599", "autodiff.py"),
    "micrograd": ("minigrad", "engine.py"),
    "needle": ("needlish", "needle_engine.py"),
}


def _header(text: str, key: str, default: str | None = None) -> str:
    found = re.search(rf"^# {key}: (.*)$", text, re.M)
    return found.group(1) if found else _header(text, default)


def _build(
    module: Path, root: Path, outside: Path, isolation: str, course: str
) -> tuple[Path, str, str]:
    """The hostile module as a student's folder of ``course`` (one of its ``course`` header):
    (the folder, its engine, expected reason: the module's ``expect-<isolation>`` header,
    else its ``expect``)."""
    text = module.read_text()
    engine = _header(text, "engine")
    base, entry = ENTRY[course]
    prefix = {"honest": source(base), "sign": source(base, *BUG[course]), "none": ""}[engine]
    folder = root / module.stem
    folder.mkdir()
    code = f"OUTSIDE = {str(outside)!r}\n" + text
    (folder / entry).write_text(prefix + "\n" + code)
    return folder, engine, _header(text, f"expect-{isolation}", "expect")


#: In the grader's environment while the battery runs: no report may show it.
SECRET = "vizad-hostile-secret-0451"


def _left_behind(copies) -> list[str]:
    """Processes still running whose command line names a submission's copy, or of a user
    this grader made for a submission."""
    found, ours = [], jail.uids()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().decode(errors="replace")
            uid = int((entry / "status").read_text().split("\nUid:")[1].split()[0])
        except (OSError, IndexError, ValueError):
            continue
        if uid in ours or any(str(c) in command for c in copies):
            found.append(f"{entry.name}: uid {uid}: {command[:200]}")
    return found


def _digest(paths) -> dict:
    return {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in paths if p.is_file()}


def _courses(text: str) -> list[str]:
    return _header(text, "course").split()


def test_the_battery_has_at_least_120_submissions_over_three_course_styles():
    texts = [m.read_text() for m in HOSTILE.glob("*.py")]
    by_course = {c: sum(c in _courses(t) for t in texts) for c in ENTRY}
    assert sum(by_course.values()) >= 120 and min(by_course.values()) >= 30, by_course


@pytest.mark.slow_family(keep=["micrograd-bubblewrap"])  # each batch: tens of processes
@pytest.mark.parametrize("isolation", ["bubblewrap", "uid", "none"])
@pytest.mark.parametrize("course", ["599w", "micrograd", "needle"])
def test_hostile_submissions_in_a_batch(tmp_path, course, isolation, copies, monkeypatch):
    """In each isolation: a jail (the boundary), a user of its own (root without
    namespaces) and none (audit hooks only, said on every result)."""
    if isolation != "none" and not jail._works(isolation):
        pytest.skip(f"{isolation} does not work here (make test installs bubblewrap, as root)")
    monkeypatch.setenv("VIZAD_HOSTILE_SECRET", SECRET)
    outside = tmp_path / "outside.txt"
    outside.write_text("the grader's own file")
    root = tmp_path / "class"
    root.mkdir()
    hostile = {}
    for module in sorted(HOSTILE.glob("*.py")):
        text = module.read_text()
        modes = _header(text, "isolation", "course") if "# isolation: " in text else isolation
        if course in _courses(text) and isolation in modes.split():
            # a module that harms whoever runs it unisolated runs in the isolated modes only
            hostile[module.stem] = _build(module, root, outside, isolation, course)
    base, entry = ENTRY[course]
    honest = {}
    for name, replacements in (("zz_honest", ()), ("zz_bug", BUG[course])):
        folder = root / name
        folder.mkdir()
        (folder / entry).write_text(source(base, *replacements))
        honest[folder] = grade(folder, course, limits=LIMITS, isolation=isolation)  # alone
    watched = sorted(VIZAD.rglob("*.py")) + [outside]
    before = _digest(watched)

    graded = dict(batch.grade_all([root], course, LIMITS, jobs=2, isolation=isolation))

    assert set(graded) == {folder for folder, _, _ in hostile.values()} | set(honest)
    # what each engine is worth: no attack scores more than the code it carries
    worth = {"honest": len(course_named(course).cases()), "none": 0}
    worth["sign"] = graded[root / "zz_bug"].score
    for folder, engine, expect in hostile.values():
        report = graded[folder]
        text = "\n".join([repr(report), report.problem, *report.notes])
        assert report.score <= worth[engine], (folder.name, text[:3000])
        assert re.search(expect, text), (folder.name, expect, report.problem, text[:3000])
        if isolation == "none":
            assert "not isolated (--no-isolation)" in report.notes[0]
            assert report.as_dict()["isolation"] == "none"
        assert len(report.to_json()) < 200_000, folder.name  # a 5 MB message is capped
        for line in repr(report).splitlines()[1:]:  # one line a case, no forged rows
            assert line.startswith(("  PASS ", "  FAIL ", "  ERROR ", "  SKIPPED ", "  note: "))
        first = re.compile(rf"  [A-Z]+ +{report.rows[0].name} ")
        assert sum(1 for line in repr(report).splitlines() if first.match(line)) == 1
    for folder, alone in honest.items():
        after = graded[folder]
        assert (after.score, after.max_score, after.passed) == (
            alone.score,
            alone.max_score,
            alone.passed,
        ), folder.name
        assert [r.status for r in after.rows] == [r.status for r in alone.rows]
    assert _digest(watched) == before  # vizad's files and the outside file unchanged
    assert sorted(p.name for p in tmp_path.iterdir()) == ["class", "outside.txt"]
    assert SECRET not in "".join(r.to_json() for r in graded.values())
    if isolation != "none":  # nothing of a submission outlives it
        assert not _left_behind(copies)
    assert not Path(str(outside) + ".moved").exists()
    assert not Path("/tmp/vizad-hostile-was-here").exists()
    assert copies and not any(c.exists() for c in copies)  # every copy removed
    assert batch.exit_code(list(graded.values())) == 2
    rows = list(csv.reader(io.StringIO(batch.to_csv(list(graded.items())))))[1:]
    assert len(rows) == len(graded)  # every submission has its row, with its reason
    assert all(row[5] for row in rows if row[4] == "not graded")
    assert all(row[6] == isolation for row in rows)
