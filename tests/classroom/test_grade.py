"""vz.grade on a correct and a buggy module of each course: the rows, the score, the
explanation (what differs, then what diagnose finds), the HTML a notebook shows, the JSON and
nbgrader forms, the command line; modules given as objects, namespaces and paths."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import vizad as vz
from engines import load, source, write
from vizad.cli import main
from vizad.classroom.grading import _in_process, jail
from vizad.classroom.grading.courses import course

pytestmark = pytest.mark.heavy  # each case grades in child processes of the sandbox

MUL_RULE = "return [output_grad * node.inputs[1], output_grad * node.inputs[0]]  # MUL-RULE"
SIGN = (MUL_RULE, MUL_RULE.replace("node.inputs[0]]", "node.inputs[0] * -1]"))
NO_RESHAPE = (
    "return broadcast_to(reshape(out_grad, shape), node.inputs[0].shape)  # SUMMATION-RULE",
    "return broadcast_to(out_grad, node.inputs[0].shape)",
)
ASSIGN_MUL = [
    ("self.grad += other.data * out.grad  # MUL-SELF", "self.grad = other.data * out.grad"),
    ("other.grad += self.data * out.grad  # MUL-OTHER", "other.grad = self.data * out.grad"),
]
TANH_OF_X = (
    "self.grad += (1 - t**2) * out.grad  # TANH-RULE",
    "self.grad += (1 - self.data**2) * out.grad",
)


def _statuses(report) -> dict[str, str]:
    return {r.name: r.status for r in report.rows}


@pytest.mark.parametrize(
    "base, course, size",
    [("student599", "599w", 12), ("needlish", "needle", 33), ("minigrad", "micrograd", 14)],
)
def test_a_correct_module_passes_every_case(base, course, size):
    report = vz.grade(load(base, f"{base}_graded", mode="importlib"), course=course)
    assert report.passed and (report.score, report.max_score) == (size, size), report
    assert report.points(10) == 10.0
    report.check()  # nothing raised


def test_vizads_own_engines_pass_their_courses():
    """The cases compare with vizad.classroom.courses: graded against itself, each course is
    full."""
    import vizad.classroom.courses.autodiff as ad
    import vizad.classroom.courses.micrograd as mg
    import vizad.classroom.courses.needle as ndl

    for module, key in ((ad, "599w"), (ndl, "needle"), (mg, "micrograd")):
        report = _in_process(module, course(key), trusted=True)
        assert report.passed, report
        # graded as a student's would be, vizad's own code counts as not implemented
        assert _in_process(module, course(key)).score == 0


def test_a_buggy_599w_module():
    report = vz.grade(load("student599", "s599_graded_sign", SIGN, mode="importlib"), "599w")
    failed = {r.name for r in report.failed}
    assert failed == {"mul_two_vars", "add_mul_mix_1", "add_mul_mix_2", "add_mul_mix_3",
                      "grad_of_grad"}  # fmt: skip
    row = next(r for r in report.rows if r.name == "mul_two_vars")
    assert row.explanation.startswith("∂y/∂x3 is [")
    assert row.hint.startswith(  # what diagnose found, apart, and first in the text
        "diagnose: the gradient rule of MulOp at v₃ for input 1 (v₂) sign flipped"
    )
    assert "s599_graded_sign.py:" in row.hint  # the student's file and line
    assert f"↳ {row.hint} — ∂y/∂x3 is [" in repr(report)
    assert (report.score, report.max_score) == (7, 12)
    assert report.points(12) == 7.0
    with pytest.raises(vz.errors.GradeError, match="7/12 CSE 599W cases pass") as caught:
        report.check()
    assert "FAIL mul_two_vars" in str(caught.value) and caught.value.report is report


def test_a_599w_module_without_gradients_fails_every_case_saying_why():
    bare = load(
        "student599",
        "s599_graded_bare",
        ("def gradients(output_node, node_list):", "def _gradients(output_node, node_list):"),
        mode="importlib",
    )
    report = vz.grade(bare, "599w")
    assert report.score == 1  # find_topo_sort's case alone
    assert "s599_graded_bare has no 'gradients'" in report.rows[0].explanation


def test_a_buggy_needle_module():
    nd = load(
        "needlish",
        "nd_graded",
        NO_RESHAPE,
        ("for x in node.inputs:  # TOPO-VISIT", "for x in reversed(node.inputs):"),
        mode="main",
    )
    report = vz.grade(nd, "needle")
    failed = {r.name: r.said for r in report.failed}
    assert set(failed) == {
        "summation_axis_1",
        "summation_square",
        "topo_sort_chain",
        "topo_sort_matmul",
    }, report
    assert "reshape out_grad to (5, 1)" in failed["summation_axis_1"]  # the rule raised
    assert "the gradient of input 0 is [" in failed["summation_square"]  # square: values
    assert "…, " in failed["summation_square"] and "(shape (4, 4))" in failed["summation_square"]
    assert "reshape it to (4, 1) first" in failed["summation_square"]
    assert "visits each node's inputs in reverse" in failed["topo_sort_chain"]


def test_a_buggy_micrograd_module_and_micrograd_itself():
    mg = load("minigrad", "mg_graded", *ASSIGN_MUL, mode="importlib")
    report = vz.grade(mg, "micrograd")
    # a * a loses a partial adjoint whatever the order of backward() (other cases fail or
    # pass by the order of the set _prev, as the student's engine does)
    row = next(r for r in report.rows if r.name == "mul_same")
    assert row.status == "fail" and row.explanation.startswith("the grad of input 0 is ")
    assert "reads" in row.hint and "twice, so one of its two partial adjoints" in row.hint
    report = vz.grade(load("minigrad", "mg_graded_tanh", TANH_OF_X, mode="importlib"), "micrograd")
    assert {r.name for r in report.failed} == {"tanh", "neuron"}
    assert "tanh's derivative is 1 − t² where t = tanh(x) is the output" in report.failed[0].hint
    sys.modules.pop("micrograd", None)
    sys.modules.pop("micrograd.engine", None)
    import micrograd  # the PyPI release: engine.Value, without tanh and exp

    report = vz.grade(micrograd, "micrograd")  # Karpathy's engine: graded from its copy
    missing = {r.name for r in report.rows if r.explanation.startswith("not implemented")}
    assert missing == {"tanh", "exp", "neuron", "tanh_by_exp"} == {r.name for r in report.failed}
    # the lecture's tanh and exp are the course's: a Value without them scores less than one
    # with a wrong tanh (12/14 above), never full marks
    assert (report.score, report.max_score, report.exit_code) == (10, 14, 1)
    assert repr(report).startswith("vz.grade: micrograd cases on micrograd: 10/14\n")
    assert next(r for r in report.rows if r.name == "tanh").explanation == (
        "not implemented: micrograd's Value has no tanh()"
    )


def test_modules_given_as_paths_and_namespaces(tmp_path):
    path = write("student599", "autodiff", SIGN)
    report = vz.grade(str(path), "cse599w")
    assert report.module == "autodiff" and report.score == 7
    namespace = {}
    exec(compile(source("minigrad"), "<cell>", "exec"), namespace)  # a notebook's globals()
    assert vz.grade(namespace, "micrograd").passed
    # a needle package with relative imports, as the homework's python/needle/
    package = tmp_path / "needle"
    package.mkdir()
    (package / "autograd.py").write_text(source("needlish"))
    (package / "ops.py").write_text(
        "from .autograd import (add, add_scalar, multiply, mul_scalar, power_scalar, divide,\n"
        "    divide_scalar, transpose, reshape, broadcast_to, summation, matmul, negate, log,\n"
        "    exp, relu)\n"
    )
    (package / "__init__.py").write_text(
        "from . import autograd, ops\nfrom .autograd import Tensor\nfrom .ops import *\n"
    )
    before = set(sys.modules)
    report = vz.grade(package, "needle")
    assert report.passed and report.module == "needle", report
    assert set(sys.modules) - before == set()  # nothing of the student's left in sys.modules


def test_what_grade_refuses():
    with pytest.raises(vz.errors.ArgumentError, match="course must be one of '599w'"):
        vz.grade({}, "cs231n")
    with pytest.raises(vz.errors.ArgumentError, match="neither a .py file, a notebook, a package"):
        vz.grade("/no/such/engine.py", "599w")
    broken = write("student599", "broken", ("class Node:", "class Node(:"))
    report = vz.grade(broken, "599w")
    assert report.problem.startswith("importing the submission raised SyntaxError")
    assert (report.graded, report.score, report.max_score, report.exit_code) == (False, 0, 12, 2)
    assert {r.status for r in report.rows} == {"error"}


def test_the_report_in_a_notebook_and_as_data():
    report = vz.grade(load("student599", "s599_html", SIGN, mode="importlib"), "599w")
    html = report._repr_html_()
    assert html.count("<tr>") == 13 and "7/12" in html
    assert "<td style='color:#c0392b;font-weight:bold'>FAIL</td><td><code>mul_two_vars" in html
    assert "v₂ = x3, v₃ = (x2*x3) = MulOp(v₁, v₂)" in html  # the legend of the numbering
    assert "&lt;" not in report.rows[0].what  # escaped where needed
    text = repr(report)
    assert text.startswith("vz.grade: CSE 599W cases on s599_html: 7/12\n  PASS    identity")
    assert (
        "\n  FAIL    mul_two_vars       y = x2 · x3 ↳ diagnose: the gradient rule of MulOp" in text
    )
    assert len(text.splitlines()) == 13  # one line a case
    data = json.loads(report.to_json())
    assert (data["score"], data["max_score"], data["passed"]) == (7, 12, False)
    assert data["cases"][4]["name"] == "mul_two_vars" and data["cases"][4]["status"] == "fail"
    assert data["cases"][4]["hint"].startswith("diagnose: the gradient rule of MulOp")
    with pytest.raises(vz.errors.ArgumentError, match="out_of must be a positive number"):
        report.points(0)


def test_the_command_line(capsys):
    good = write("student599", "autodiff_ok")
    assert main(["grade", str(good), "--course", "599w"]) == 0
    assert "12/12" in capsys.readouterr().out
    bad = write("student599", "autodiff_bad", SIGN)
    assert main(["grade", str(bad), "--course", "599w", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["score"] == 7 and data["cases"][4]["explanation"].startswith("∂y/∂x3 is")
    assert main(["grade", "/no/such.py", "--course", "599w"]) == 2
    assert capsys.readouterr().err.startswith("error: grade: /no/such.py does not exist")


def test_python_m_vizad_grade():
    bad = write("minigrad", "engine", TANH_OF_X)
    done = subprocess.run(
        [sys.executable, "-m", "vizad", "grade", str(bad), "--course", "micrograd"],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],  # the repository
    )
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith("vz.grade: micrograd cases on engine: 12/14")
    assert "\n  FAIL    neuron               tanh(x1·w1 + x2·w2 + b), the lecture's neuron ↳ " in (
        done.stdout
    )


def _micrograd_package(where: Path, *replacements) -> Path:
    """A student's micrograd/ package (engine.py and an __init__ importing from it)."""
    package = where / "micrograd"
    package.mkdir(parents=True)
    (package / "engine.py").write_text(source("minigrad", *replacements))
    (package / "__init__.py").write_text("from .engine import Value\n")
    return package


@pytest.mark.slow_family  # each case grades in a child interpreter
@pytest.mark.parametrize("hide", [(), ("micrograd",)], ids=["installed", "not-installed"])
def test_the_students_code_not_site_packages(tmp_path, hide):
    """A package directory named micrograd, a student's folder and a single file grade the
    student's code whether micrograd is installed (it is, in site-packages: without tanh) or
    not (hidden from the submission's process)."""
    import micrograd  # the installed release, which the grader must not grade

    assert "site-packages" in micrograd.__file__
    package = _micrograd_package(tmp_path / "alice", TANH_OF_X)
    single = tmp_path / "bob" / "engine.py"
    single.parent.mkdir()
    single.write_text(source("minigrad", TANH_OF_X))
    for path in (package, package.parent, single, single.parent):
        report = vz.grade(path, "micrograd", hide=hide)
        statuses = _statuses(report)
        # tanh ran (the installed micrograd has none, so it would be skipped) and failed
        assert statuses["tanh"] == "fail" and statuses["neuron"] == "fail", (path, report)
        assert (report.score, report.max_score) == (12, 14), (path, report)
        assert "tanh's derivative is 1 − t² where t = tanh(x) is the output" in (
            next(r for r in report.rows if r.name == "tanh").hint
        )
    good = _micrograd_package(tmp_path / "carol")
    assert vz.grade(good, "micrograd", hide=hide).passed


def test_a_notebook_is_graded_from_its_code_cells(tmp_path):
    engine = source("minigrad")
    half = engine.index("\nclass Value")
    cells = [
        "%matplotlib inline\n!pip install micrograd\nimport math",
        engine[:half],
        engine[half:],
        "%%bash\necho a cell magic: dropped",
        "assert False, 'a test cell that fails in the student copy'",
        "v = Value(2.0)\nprint(v)",
    ]
    notebook = {
        "cells": [{"cell_type": "code", "source": c, "metadata": {}, "outputs": []} for c in cells]
        + [{"cell_type": "markdown", "source": "# not code", "metadata": {}}],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path = tmp_path / "micrograd lecture.ipynb"
    path.write_text(json.dumps(notebook))
    report = vz.grade(path, "micrograd")
    assert report.passed and report.score == 14, report
    assert report.module == "micrograd_lecture"
    assert "notebook cell 5 raised AssertionError; the others ran" in report.notes
    # a kernel's globals(): its cells (IPython's In) graded in a process of their own
    namespace = {"In": ["", *cells, "report = vz.grade(globals(), 'micrograd')"]}
    report = vz.grade(namespace, "micrograd")
    assert report.passed and report.score == 14, report
    buggy = {"In": ["", source("minigrad", TANH_OF_X)]}
    assert vz.grade(buggy, "micrograd").score == 12


def test_reexports_count_as_not_implemented(tmp_path):
    """A name whose code is vizad's or an installed package's scores nothing, in a process of
    its own (where they cannot even be imported) and in this one."""
    path = tmp_path / "autodiff.py"
    path.write_text("from vizad.classroom.courses.autodiff import *\n")
    for isolation in ("auto", "none"):  # in a jail vizad is not there; else not on the path
        report = vz.grade(path, "599w", isolation=isolation)
        assert not report.graded and "No module named 'vizad'" in report.problem
    import vizad.classroom.courses.autodiff as ad

    report = vz.grade(dict(vars(ad)), "599w")  # a namespace: graded here, not isolated
    assert report.score == 0 and "counts as not implemented" in report.rows[0].explanation
    assert "graded in this process, not isolated" in report.notes[0]
    from micrograd.engine import Value

    report = vz.grade({"Value": Value}, "micrograd")
    assert report.score == 0 and "site-packages" in report.rows[0].explanation


def test_a_class_graded_in_batch_from_the_command_line(tmp_path, capsys):
    """A folder of students' folders: one report each, a CSV with nbgrader points, Gradescope's
    results.json, and the exit code of the worst (2: one could not be graded). A print at
    import does not break --json."""
    students = tmp_path / "students"
    for name, text in {
        "alice": "print('testing')\n" + source("minigrad"),
        "bob": source("minigrad", TANH_OF_X),
        "carol": "import sys\nsys.exit(0)\n",
    }.items():
        (students / name).mkdir(parents=True)
        (students / name / "engine.py").write_text(text)
    _micrograd_package(students / "dave")
    csv_path, results = tmp_path / "scores.csv", tmp_path / "results.json"
    args = ["grade", str(students), "--course", "micrograd", "--json", "--csv", str(csv_path)]
    code = main([*args, "--results", str(results), "--points", "10", "--case-timeout", "20"])
    assert code == 2
    data = json.loads(capsys.readouterr().out)
    assert [(d["module"], d["score"], d["graded"]) for d in data] == [
        ("engine", 14, True), ("engine", 12, True), ("engine", 0, False), ("micrograd", 14, True)
    ]  # fmt: skip
    assert "standard output: 8 bytes: testing" in data[0]["notes"][0]
    rows = csv_path.read_text().splitlines()
    assert rows[0] == "submission,score,max_score,points,status,problem,isolation"
    assert rows[1].endswith(f"alice,14,14,10.0,passed,,{jail.choose()}")
    assert ",12,14,8.571429,failed," in rows[2]
    assert ",0,14,0.0,not graded,importing the submission raised SystemExit: 0" in rows[3]
    gradescope = json.loads(results.read_text())
    bob = gradescope[str(students / "bob")]
    assert bob["score"] == 12 and len(bob["tests"]) == 14
    assert bob["extra_data"] == {"isolation": jail.choose()}
    assert next(t for t in bob["tests"] if t["name"] == "tanh")["status"] == "failed"
    one = tmp_path / "one.json"
    assert (
        main(["grade", str(students / "alice"), "--course", "micrograd", "--results", str(one)])
        == 0
    )
    assert json.loads(one.read_text())["score"] == 14


MEMORISER = '''
_LEAVES = []
_init, _backward = Value.__init__, Value.backward


def _remember(self, data, _children=(), *args, **kwargs):
    _init(self, data, _children, *args, **kwargs)
    if not _children:
        _LEAVES.append(self)


def _recite(self):
    """The published answers for the published inputs, whatever the rules say."""
    _backward(self)
    datas = [v.data for v in _LEAVES]
    for (inputs, y), grads in ANSWERS.items():
        n = len(inputs)
        runs = [i for i in range(len(datas) - n, -1, -1) if tuple(datas[i : i + n]) == inputs]
        if runs and round(self.data, 9) == y:
            for leaf, grad in zip(_LEAVES[runs[0] : runs[0] + n], grads):
                leaf.grad = grad
            return


Value.__init__, Value.backward = _remember, _recite
'''


def test_a_secret_seed_fails_answers_memorised_for_the_published_inputs(tmp_path, capsys):
    """A submission whose rules are wrong but which recites vizad's answers for the published
    inputs scores full marks without a seed; with the course's own seed its inputs are new,
    and it scores what its rules are worth. An honest engine scores the same either way."""
    import vizad.classroom.courses.micrograd
    from vizad.classroom.grading.cases import Api
    from vizad.classroom.gradekit.micrograd_cases import CASES

    mg = Api(vizad.classroom.courses.micrograd, ("engine",), trusted=True)
    answers = {}
    for case in CASES:
        y, xs, _ = graph = case.graph(mg)
        got = case.values(mg, graph)
        grads = tuple(got[f"the grad of input {k}"] for k in range(len(xs)))
        answers[(tuple(x.data for x in xs), round(y.data, 9))] = grads
    broken = source("minigrad", TANH_OF_X, *ASSIGN_MUL)
    path = tmp_path / "engine.py"
    path.write_text(broken + f"\nANSWERS = {answers!r}\n" + MEMORISER)
    assert vz.grade(path, "micrograd").score == 14  # the published inputs: recited
    report = vz.grade(path, "micrograd", seed=20261202)
    assert report.graded and report.score < 10, report
    assert "tanh" in {r.name for r in report.rows if r.status == "fail"}
    honest = write("minigrad", "engine")
    assert vz.grade(honest, "micrograd", seed=20261202).score == 14
    # the command line takes the seed, and batch grading too
    assert main(["grade", str(path), "--course", "micrograd", "--seed", "7"]) == 1
    assert main(["grade", str(path), str(honest), "--course", "micrograd", "--seed", "7"]) == 1
    assert "micrograd cases on engine: 14/14" in capsys.readouterr().out  # the honest one


def test_a_seed_draws_new_inputs_that_keep_what_each_case_tests():
    """Every course's cases still pass on vizad's own engine with a seed (no denominator
    near 0, relu's sides kept), the inputs differ from the published ones, and one seed
    draws the same inputs twice."""
    import vizad.classroom.courses.autodiff as ad
    import vizad.classroom.courses.micrograd as mg
    import vizad.classroom.courses.needle as ndl
    from vizad.classroom.grading.cases import Api
    from vizad.classroom.gradekit.draws import seeded

    for module, key in ((ad, "599w"), (ndl, "needle"), (mg, "micrograd")):
        with seeded(5):
            report = _in_process(module, course(key), trusted=True)
        assert report.passed, report
    relu = next(c for c in course("micrograd").cases() if c.name == "relu")
    mg = Api(mg, ("engine",), trusted=True)
    published = [x.data for x in relu.graph(mg)[1]]
    with seeded(5):
        drawn = [x.data for x in relu.graph(mg)[1]]
        assert drawn == [x.data for x in relu.graph(mg)[1]]
    assert drawn != published and [d > 0 for d in drawn] == [p > 0 for p in published]
    with pytest.raises(vz.errors.GradeError, match="seed must be a whole number"):
        vz.grade(write("minigrad", "engine"), "micrograd", seed=-1)


def test_the_hint_is_never_cut_in_the_commands_text(tmp_path, capsys):
    """A MatMul rule with B's gradient transposed: what diagnose says (the rule, the node, its
    flags, the student's line) comes first and whole; only what differs is cut to a line."""
    wrong = source(
        "student599",
        (
            "grad_B = matmul_op(A, output_grad, not node.matmul_attr_trans_A, False)  # GRAD-B",
            "grad_B = matmul_op(output_grad, A, True, node.matmul_attr_trans_A)",
        ),
    )
    (tmp_path / "autodiff.py").write_text(wrong)
    assert main(["grade", str(tmp_path / "autodiff.py"), "--course", "599w"]) == 1
    line = next(ln for ln in capsys.readouterr().out.splitlines() if "FAIL" in ln)
    hint = line.split(" ↳ ", 1)[1].split(" — ", 1)[0]
    assert hint.startswith("diagnose: the gradient rule of MatMulOp at v₃ for input 1 (v₂)")
    assert "matmul_attr_trans_A=False" in hint and "(autodiff.py:122)" in hint
    assert hint.endswith("(where v₂ = x3, v₃ = MatMulOp(v₁, v₂))")  # the legend
    assert "more characters" not in hint and len(line.split(" ↳ ", 1)[1]) > 400  # was cut
