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

EXERCISES = Path(__file__).resolve().parents[2] / "notebooks" / "exercises"
BLANKS = sorted(EXERCISES.glob("*.ipynb"))


def test_there_are_five_exercises_with_solutions():
    assert [p.stem for p in BLANKS] == [
        "a_topo_sort_and_executor", "b_gradients", "c_dual_numbers", "d_custom_vjp",
        "e_assignment_ops",
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


@pytest.mark.slow  # tools/make-exercises in a child interpreter writes every notebook again
def test_the_notebooks_are_what_make_exercises_writes(tmp_path):
    before = {p: p.read_bytes() for p in BLANKS}
    subprocess.run(
        [sys.executable, str(EXERCISES.parents[1] / "tools" / "make-exercises")], check=True
    )
    assert {p: p.read_bytes() for p in BLANKS} == before, "run tools/make-exercises and commit"


@pytest.mark.notebook
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


# -- the typed answers of the "try this" cells: judged by the digits typed ------------------------
import math  # noqa: E402

from vizad.classroom.exercises import Checks, expect, judge  # noqa: E402

V2_BAR = 2 - math.cos(5)  # 1.71633781…


@pytest.mark.parametrize(
    "answer, verdict",
    [
        (1.72, "right"),  # rounded to the 2 decimals typed
        (1.716, "right"),
        (1.7163378, "right"),
        ("1.72", "right"),  # typed text keeps its digits
        ("1.720", "close"),  # claims 3 decimals: 1.716 rounded is not 1.720
        (1.7, "close"),  # rounds right, but 2 significant digits
        (2, "close"),  # 1 significant digit
        (1.71, "close"),  # truncated, not rounded
        (1.8, "wrong"),
        (-1.72, "wrong"),
        ("2 - cos(5)", "right"),  # an exact expression, read as the quiz reads it
        ("2 - cos(5.1)", "wrong"),
        ("1,72", "right"),  # a decimal comma, as the quiz takes it
        ("v2", "wrong"),  # not a number: compared for equality
    ],
)
def test_a_number_is_judged_by_the_digits_typed(answer, verdict):
    assert judge(answer, V2_BAR) == verdict


def test_exact_answers_need_no_digits_and_shapes_must_match():
    assert judge(5.5, 5.5) == judge(4, 4.0) == judge(48, 48.0) == "right"
    assert judge((3, 2), (3, 2)) == "right"
    assert judge((2, 3), (3, 2)) == "wrong"
    assert judge((3, 3), (3,)) == "wrong"  # no broadcasting of an answer
    assert judge((0.0, 0.0), (1e-17, -2e-17)) == "right"
    assert judge((1.72, 5.5), (V2_BAR, 5.5)) == "right"
    assert judge((1.7, 5.5), (V2_BAR, 5.5)) == "close"


def test_expect_says_more_digits_when_close_and_the_hint_when_wrong():
    expect(1.72, V2_BAR, hint="v̇₄ = v₁")
    with pytest.raises(AssertionError) as close:
        expect(1.7, V2_BAR, hint="v̇₄ = v₁")
    assert "1.7 is close" in str(close.value) and "more digits" in str(close.value)
    assert "v̇₄" not in str(close.value) and "3 significant digits" in str(close.value)
    with pytest.raises(AssertionError, match=r"^1\.9 is not it: v̇₄ = v₁$"):
        expect(1.9, V2_BAR, hint="v̇₄ = v₁")
    with pytest.raises(AssertionError, match="not answered yet"):
        expect(None, V2_BAR)


def test_expect_with_a_key_shows_the_answer_as_typed():
    power = dict(key=lambda e: round(math.log10(e)), atol=1)
    expect(1e-5, 2.1e-5, **power)
    expect(1e-4, 2.1e-5, **power)  # within one power of ten
    with pytest.raises(AssertionError, match=r"^1e-08 is not it: look"):
        expect(1e-8, 2.1e-5, **power, hint="look where the curve is lowest")
    with pytest.raises(AssertionError, match=r"^-1 is not it"):
        expect(-1, 2.1e-5, **power)  # no log of a negative number: just not it


def test_a_stub_that_names_what_to_write_is_reported():
    def stub():
        raise NotImplementedError("not implemented yet: write Dual.__mul__")

    (outcome,) = Checks().run({"the product rule": stub})
    assert not outcome.ok
    assert outcome.reason == (
        "not written yet: write Dual.__mul__ (it still raises NotImplementedError)"
    )


# -- the checks say what is wrong: a KeyError from the student's own find_topo_sort, a wrong rule
SOLUTIONS = EXERCISES / "solutions"


def _run_with(name: str, replace: dict[str, str]) -> list[str]:
    """The check lines of the solved notebook ``name`` run with some solutions replaced."""
    nb = nbformat.read(SOLUTIONS / f"{name}.ipynb", as_version=4)
    for cell in nb.cells:
        for old, new in replace.items():
            if old in cell.source:
                cell.source = cell.source.replace(old, new)
                replace = {k: v for k, v in replace.items() if k != old}
    assert not replace, f"not found: {list(replace)}"
    NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=False).execute(
        cwd=str(SOLUTIONS)
    )
    lines = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            text = output.get("data", {}).get("text/plain", "")
            lines += [line for line in text.splitlines() if line[:2] in ("✓ ", "✗ ")]
    return lines


@pytest.mark.notebook
def test_a_keyerror_in_run_is_blamed_on_the_students_own_find_topo_sort():
    lines = _run_with(
        "a_topo_sort_and_executor",
        # a post-order that forgets to visit the inputs: only the nodes asked for
        {"    for node in node_list:\n        visit(node)\n    return order": (
            "    return list(node_list)"
        )},
    )  # fmt: skip
    run_checks = [line for line in lines if line.startswith("✗ run_the_course_example")]
    assert run_checks and "raised KeyError" in run_checks[0]
    assert "in the order of your own find_topo_sort" in run_checks[0]


@pytest.mark.notebook
def test_a_wrong_dual_rule_is_named():
    lines = _run_with(
        "c_dual_numbers",
        {"self.tangent * other.value + self.value * other.tangent": (
            "self.tangent * other.tangent"
        )},
    )  # fmt: skip
    failed = [line for line in lines if line.startswith("✗ ")]
    product = next(line for line in failed if line.startswith("✗ product_rule"))
    # the grader's words: what differs, then the rule the tangent follows
    assert "FAIL — the tangent of a × b is -3, expected 13" in product
    assert "(the product rule: ȧ b + a ḃ = 3·5 + 2·(−1))" in product
    passed = {line.split(" — ")[0][2:] for line in lines if line.startswith("✓ ")}
    assert {"sum_rule", "difference_rule", "log_rule", "sin_rule"} <= passed


def test_the_dual_stub_names_each_operator_to_write():
    nb = nbformat.read(EXERCISES / "c_dual_numbers.ipynb", as_version=4)
    (stub,) = [c for c in nb.cells if c.source.startswith("class Dual")]
    for method in ("__add__", "__sub__", "__mul__"):
        assert f'NotImplementedError("not implemented yet: write Dual.{method}")' in stub.source
    assert "__radd__ = __add__" in stub.source and "__rmul__ = __mul__" in stub.source
