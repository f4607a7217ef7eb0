"""The hostile-submission suite: each module of tests/classroom/hostile/ attacks the grader in
one way (exits, signals, loops, threads, memory, output floods, monkeypatches of numpy, vizad and
the grader, re-exports of vizad's reference or an installed course package, forged results,
files written outside its copy, processes, sockets, limits). Graded in one batch with honest
submissions after them: every hostile one is reported as not passed, with its reason; every
honest one scores as it does alone; the batch ends within its timeouts; no file outside the
submissions' copies changes."""

from __future__ import annotations

import hashlib
import re
import tempfile
from pathlib import Path

import pytest

from engines import source
from test_grade import SIGN, TANH_OF_X
from vizad.classroom.grading import Limits, batch, grade

pytestmark = pytest.mark.heavy  # hostile submissions graded in child processes

HOSTILE = Path(__file__).parent / "hostile"
VIZAD = Path(__file__).resolve().parents[2] / "vizad"
LIMITS = Limits(case_seconds=3.0, submission_seconds=10.0, restarts=2)
#: One bug a course's honest engine is seeded with (a hostile module with a bug must score as
#: that bug does).
BUG = {"599w": (SIGN,), "micrograd": (TANH_OF_X,)}
ENTRY = {"599w": ("student599", "autodiff.py"), "micrograd": ("minigrad", "engine.py")}


def _header(text: str, key: str) -> str:
    return re.search(rf"^# {key}: (.*)$", text, re.M).group(1)


def _build(module: Path, root: Path, outside: Path) -> tuple[Path, str, str]:
    """The hostile module as a student's folder: (the folder, course, expected reason)."""
    text = module.read_text()
    course, engine = _header(text, "course"), _header(text, "engine")
    base, entry = ENTRY[course]
    prefix = {"honest": source(base), "sign": source(base, *BUG[course]), "none": ""}[engine]
    folder = root / module.stem
    folder.mkdir()
    code = f"OUTSIDE = {str(outside)!r}\n" + text
    (folder / entry).write_text(prefix + "\n" + code)
    return folder, course, _header(text, "expect")


def _digest(paths) -> dict:
    return {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in paths if p.is_file()}


def test_the_suite_has_at_least_40_modules():
    assert len(list(HOSTILE.glob("*.py"))) >= 40


@pytest.mark.slow_family(keep=["micrograd"])  # 599w's batch grades in child processes (~1 min)
@pytest.mark.parametrize("course", ["599w", "micrograd"])
def test_hostile_submissions_in_a_batch(tmp_path, course):
    outside = tmp_path / "outside.txt"
    outside.write_text("the grader's own file")
    root = tmp_path / "class"
    root.mkdir()
    hostile = {}
    for module in sorted(HOSTILE.glob("*.py")):
        if _header(module.read_text(), "course") == course:
            folder, _, expect = _build(module, root, outside)
            hostile[folder] = expect
    base, entry = ENTRY[course]
    honest = {}
    for name, replacements in (("zz_honest", ()), ("zz_bug", BUG[course])):
        folder = root / name
        folder.mkdir()
        (folder / entry).write_text(source(base, *replacements))
        honest[folder] = grade(folder, course, limits=LIMITS)  # alone, first
    watched = sorted(VIZAD.rglob("*.py")) + [outside]
    before = _digest(watched)
    temp_before = set(Path(tempfile.gettempdir()).glob("vizad-grade-*"))

    graded = dict(batch.grade_all([root], course, LIMITS, jobs=2))

    assert set(graded) == set(hostile) | set(honest)
    for folder, expect in hostile.items():
        report = graded[folder]
        text = "\n".join([repr(report), report.problem, *report.notes])
        assert not report.passed, (folder.name, report.problem, text[:3000])
        assert re.search(expect, text), (folder.name, expect, report.problem, text[:3000])
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
    assert not Path(str(outside) + ".moved").exists()
    assert not Path("/tmp/vizad-hostile-was-here").exists()
    assert set(Path(tempfile.gettempdir()).glob("vizad-grade-*")) <= temp_before  # cleaned up
    assert batch.exit_code(list(graded.values())) == 2
