"""The exercise notebooks graded as assignments: ``vz.grade(notebook, course="exercises")`` and
``python -m vizad grade notebook.ipynb --course exercises`` run the cases the notebook's check
cells run (vizad.classroom.gradekit.exercises), so a blank scores nothing and says what to
write, a solution scores full marks, and a planted bug loses exactly the cases its check
cells fail, saying why. The CSE 599W skeleton, blank and filled, is graded by the same
command."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

import vizad as vz
from engines import write
from vizad.classroom.grading.courses import EXERCISES as LETTERS
from vizad.errors import ArgumentError, GradeError

pytestmark = pytest.mark.heavy  # each grading starts the submission's jailed process

ROOT = Path(__file__).resolve().parents[2]
EXERCISES = ROOT / "notebooks" / "exercises"
NAMES = [stem for stem, _ in LETTERS.values()]
SIZES = dict(zip(NAMES, (4, 8, 9, 2, 10)))


def _command(path: Path, *options: str) -> tuple[int, dict]:
    """``python -m vizad grade path --course exercises --json``: its exit code and report."""
    done = subprocess.run(
        [sys.executable, "-m", "vizad", "grade", str(path), "--course", "exercises", "--json",
         *options],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )  # fmt: skip
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)


@pytest.mark.parametrize("name", NAMES)
def test_a_blank_scores_nothing_and_says_what_to_write(name):
    code, report = _command(EXERCISES / f"{name}.ipynb")
    assert (code, report["score"], report["max_score"]) == (1, 0, SIZES[name]), report
    for case in report["cases"]:
        assert case["status"] == "fail"
        assert case["explanation"].startswith("not written yet: write "), case
        assert case["explanation"].endswith("(it still raises NotImplementedError)"), case


@pytest.mark.parametrize("name", NAMES)
def test_a_solution_scores_full_marks(name):
    report = vz.grade(EXERCISES / "solutions" / f"{name}.ipynb", course="exercises")
    assert report.passed and report.score == report.max_score == SIZES[name], report
    assert report.course.startswith(f"exercise {name[0].upper()} (")
    assert report.isolation != "in process"
    # a drawing's library is not in the jail: its cell is said, and costs nothing
    assert all("No module named" in n for n in report.notes if "raised" in n), report.notes


#: A bug planted in a solution (old text → new), the cases it loses, and what one says.
BUGS = {
    "a_preorder": (
        "a_topo_sort_and_executor",
        ("        visited.add(node)\n        for n in node.inputs:\n            visit(n)\n"
         "        order.append(node)",
         "        visited.add(node)\n        order.append(node)\n        for n in node.inputs:\n"
         "            visit(n)"),
        {"order_of_the_example", "each_node_once", "run_the_course_example",
         "run_matmul_and_constants"},
        ("each_node_once", "nodes listed before one of their inputs is 6, expected 0 (append "
         "a node after visiting its inputs"),
    ),
    "b_mul_swapped": (
        "b_gradients",
        ("return [mul(output_grad, b), mul(output_grad, a)]",
         "return [mul(output_grad, a), mul(output_grad, b)]"),
        {"mul_rule", "lecture"},  # (x1+3)(x1+5) is symmetric: swapped, still right
        ("mul_rule", "diagnose: the gradient rule of MulOp"),
    ),
    "b_assigned_not_appended": (
        "b_gradients",
        ("node_to_output_grads_list.setdefault(i, []).append(g)",
         "node_to_output_grads_list[i] = [g]"),
        {"x1_read_twice", "course_notes", "lecture"},
        ("x1_read_twice", "x1's adjoint is the sum of all three partial adjoints"),
    ),
    "c_product_rule": (
        "c_dual_numbers",
        ("self.tangent * other.value + self.value * other.tangent",
         "self.tangent * other.tangent"),
        {"product_rule", "number_on_the_left", "dy_dx1", "dy_dx2", "direction"},
        ("product_rule", "the tangent of a × b is -3, expected 13 (the product rule: ȧ b + a ḃ"),
    ),
    "d_first_attempt": (
        "d_custom_vjp",
        ("return [adjoint * vz.sigmoid(x)]",
         "return [adjoint * vz.exp(x) / (1.0 + vz.exp(x * 2.0))]"),
        {"softplus_times_3", "softplus_times_x"},
        ("softplus_times_3", "softplus′(x) = σ(x)"),
    ),
    "e_trans_a_ignored": (
        "e_assignment_ops",
        ("        if trans_A:  # Y = Aᵀ op(B): Ā = op(B) Ȳᵀ", "        if False:"),
        {"matmul_trans_A", "matmul_trans_both", "hessian_vector_product"},
        ("matmul_trans_A", "for Y = op(A) op(B): Ā = Ȳ op(B)ᵀ"),
    ),
}  # fmt: skip


def _planted(tmp_path: Path, name: str, old: str, new: str) -> Path:
    nb = nbformat.read(EXERCISES / "solutions" / f"{name}.ipynb", as_version=4)
    cells = [c for c in nb.cells if old in c.source]
    assert len(cells) == 1, old
    cells[0].source = cells[0].source.replace(old, new)
    path = tmp_path / f"{name}.ipynb"
    nbformat.write(nb, path)
    return path


def _placeless(text: str) -> str:
    """``text`` without the places of lines, ``(…/1081656246.py:27)``, ``(cell In[4], line 7)``."""
    return re.sub(
        r" \((?:[^()]*\.py:\d+|cell In\[\d+\], line \d+|code cell \d+ of \S+, line \d+)\)",
        "",
        text,
    )


def _check_lines(path: Path) -> list[str]:
    """The check cells' lines of the notebook at ``path``, run."""
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3").execute(cwd=str(path.parent))
    return [
        line
        for cell in nb.cells
        for output in cell.get("outputs", [])
        for line in output.get("data", {}).get("text/plain", "").splitlines()
        if line[:2] in ("✓ ", "✗ ")
    ]


@pytest.mark.notebook
@pytest.mark.parametrize("bug", BUGS)
def test_a_planted_bug_loses_the_cases_its_check_cells_fail(tmp_path, bug):
    name, (old, new), lost, (case, says) = BUGS[bug]
    path = _planted(tmp_path, name, old, new)
    code, report = _command(path)
    failed = {c["name"]: c for c in report["cases"] if c["status"] != "pass"}
    assert code == 1 and set(failed) == lost, report
    assert report["score"] == SIZES[name] - len(lost)
    said = " — ".join(p for p in (failed[case]["hint"], failed[case]["explanation"]) if p)
    assert says in said, said
    # the notebook's own check cells: the same cases fail, with the same words
    lines = _check_lines(path)
    assert {line[2:].split(" — ")[0] for line in lines if line.startswith("✗ ")} == lost
    shown = next(line for line in lines if line.startswith(f"✗ {case} — "))
    # where the student's line is differs: the kernel's file of a cell, the jail's copy of it
    assert _placeless(shown).endswith(f": FAIL — {_placeless(said)}"), f"{shown}\n{said}"


def test_a_kernels_cells_and_a_renamed_notebook_are_graded_as_their_exercise(tmp_path):
    solved = nbformat.read(EXERCISES / "solutions" / "c_dual_numbers.ipynb", as_version=4)
    cells = [c.source for c in solved.cells if c.cell_type == "code"]
    report = vz.grade({"In": ["", *cells]}, course="exercise-c")  # a kernel's globals()
    assert report.passed and report.score == 9, report
    with pytest.raises(ArgumentError, match="give --course exercise-a … exercise-e"):
        vz.grade({"In": ["", *cells]}, course="exercises")  # cells alone do not say which
    renamed = tmp_path / "my homework (1).ipynb"  # the title says which exercise
    renamed.write_bytes((EXERCISES / "solutions" / "c_dual_numbers.ipynb").read_bytes())
    assert vz.grade(renamed, course="exercises").score == 9
    with pytest.raises(GradeError, match="has no case 'nope'"):
        vz.exercises.cases("c", {}, "nope")


def test_a_name_taken_from_vizad_is_not_written(tmp_path):
    """The handout's base class is no one's, its ops are vizad's: a notebook that imports the
    answers scores nothing for them."""
    nb = nbformat.read(EXERCISES / "solutions" / "b_gradients.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(
        "from vizad.classroom.courses.exercises.b import gradients, MulOp"
    ))  # fmt: skip
    path = tmp_path / "b_gradients.ipynb"
    nbformat.write(nb, path)
    report = vz.grade(path, course="exercises")
    assert report.score == 0, report
    assert "counts as not implemented" in report.rows[0].explanation


#: The blanks of the CSE 599W skeleton (its "TODO: Your code here"), made in vizad's own
#: filled engine (tests/classroom/engines/student599.py).
SKELETON = [
    ("return mul_op(self, other) if isinstance(other, Node) else mul_byconst_op(self, other)",
     '"""TODO: Your code here"""'),
    ("return input_vals[0] * input_vals[1]", '"""TODO: Your code here"""'),
    ("return [output_grad * node.inputs[1], output_grad * node.inputs[0]]  # MUL-RULE",
     '"""TODO: Your code here"""'),
    ("return input_vals[0] * node.const_attr", '"""TODO: Your code here"""'),
    ("return [output_grad * node.const_attr]  # MULCONST-RULE", '"""TODO: Your code here"""'),
    ("""        for node in find_topo_sort(self.eval_node_list):
            if node not in values:
                values[node] = node.op.compute(node, [values[n] for n in node.inputs])""",
     '        """TODO: Your code here"""'),
    ("""    for node in reversed(find_topo_sort([output_node])):  # REVERSE-ORDER
        grad = sum_node_list(grads_list[node])  # SUM-PARTIALS
        grad_of[node] = grad
        input_grads = node.op.gradient(node, grad)
        for i, inp in enumerate(node.inputs):
            grads_list.setdefault(inp, []).append(input_grads[i])""",
     '    """TODO: Your code here"""'),
]  # fmt: skip


def test_the_599w_skeleton_blank_filled_and_with_a_planted_bug():
    def graded(*replacements) -> dict:
        path = write("student599", "autodiff", *replacements)
        done = subprocess.run(
            [sys.executable, "-m", "vizad", "grade", str(path), "--course", "599w", "--json"],
            capture_output=True, text=True, cwd=ROOT, timeout=300,
        )  # fmt: skip
        return json.loads(done.stdout)

    blank = graded(*SKELETON)
    # find_topo_sort is given; every other case needs a blank, and says where it broke
    assert (blank["score"], blank["max_score"]) == (1, 12), blank
    assert all(c["status"] == "fail" for c in blank["cases"] if c["name"] != "topo_sort")
    assert next(c for c in blank["cases"] if c["name"] == "identity")["explanation"].startswith(
        "raised KeyError"
    )
    assert graded()["score"] == 12  # filled
    bug = graded(("if node.matmul_attr_trans_A:  # TRANS-A", "if False:"))
    assert [c["name"] for c in bug["cases"] if c["status"] != "pass"] == ["matmul_transposed"]
    assert bug["score"] == 11
