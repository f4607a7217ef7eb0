"""Derivatives computed numerically score nothing: a submission whose gradients are central
finite differences agrees with vizad within the grader's tolerance (1e-5), but not to rounding
(vizad/classroom/grading/cases.py: EXACT), while its forward values do; honest rules written
other ways (tanh' as 1/cosh², pow's through the output, exp recomputed) agree to rounding."""

from __future__ import annotations

from pathlib import Path

import pytest

from engines import source
from vizad.classroom.grading import grade

pytestmark = pytest.mark.heavy  # graded in child processes

NUMERICAL_599W = '''

class NumericalOp(Op):
    """d(sum y)/dx by central differences, evaluating y's graph with the engine's Executor."""

    def __call__(self, y, x):
        node = Op.__call__(self)
        node.leaves = [n for n in find_topo_sort([y]) if isinstance(n.op, PlaceholderOp)]
        node.inputs, node.y, node.x = list(node.leaves), y, x
        node.name = f"d({y.name})/d({x.name})"
        return node

    def compute(self, node, input_vals):
        feed = dict(zip(node.leaves, input_vals))
        base = np.array(feed[node.x], dtype=float)
        grad = np.zeros_like(base)
        for i in np.ndindex(base.shape):
            h = 1e-6 * max(1.0, abs(base[i]))
            for sign in (1, -1):
                moved = base.copy()
                moved[i] += sign * h
                feed[node.x] = moved
                grad[i] += sign * np.sum(Executor([node.y]).run(feed)[0]) / (2 * h)
        return grad


numerical_op = NumericalOp()


def gradients(output_node, node_list):
    return [numerical_op(output_node, x) for x in node_list]
'''
#: Honest micrograd rules written otherwise than vizad's.
OTHERWISE = (
    (
        "self.grad += other * self.data ** (other - 1) * out.grad  # POW-RULE",
        "self.grad += out.grad * other * out.data / self.data if self.data != 0 else 0.0",
    ),
    (
        "self.grad += (1 - t**2) * out.grad  # TANH-RULE",
        "self.grad += out.grad / __import__('math').cosh(self.data) ** 2",
    ),
    (
        "self.grad += out.data * out.grad  # EXP-RULE",
        "self.grad += __import__('math').exp(self.data) * out.grad",
    ),
)
WHY = "derivatives computed numerically (finite differences), not by rules, score nothing"


@pytest.mark.parametrize("seed", [None, 7])
def test_finite_differences_score_nothing(tmp_path, seed):
    engine = Path(__file__).parent / "engines" / "numerical_micrograd.py"
    report = grade(engine, "micrograd", seed=seed)
    # central differences of a sum can come out exact, rounding and all: a lucky case passes
    assert report.graded and report.score <= 1, report
    assert sum(WHY in r.explanation for r in report.rows) >= 13, report
    (tmp_path / "autodiff.py").write_text(source("student599") + NUMERICAL_599W)
    report = grade(tmp_path, "599w", seed=seed)
    numerical = {r.name for r in report.rows if WHY in r.explanation}
    assert report.score <= 2 and {"matmul_two_vars", "add_mul_mix_3"} <= numerical
    assert "topo_sort" in [r.name for r in report.rows if r.status == "pass"]  # its own


@pytest.mark.parametrize("seed", [None, 1, 2, 3])
def test_rules_written_otherwise_agree_to_rounding(tmp_path, seed):
    (tmp_path / "engine.py").write_text(source("minigrad", *OTHERWISE))
    assert grade(tmp_path / "engine.py", "micrograd", seed=seed).score == 14
    (tmp_path / "autodiff.py").write_text(source("student599"))
    assert grade(tmp_path / "autodiff.py", "599w", seed=seed).passed


def test_derivatives_from_another_library_score_nothing(tmp_path):
    """A Value whose backward() asks another library for the derivatives (here, where the
    library is not importable, it still imports it): every case fails, saying which."""
    cheat = source("minigrad") + (
        "\ntry:\n    import torch\nexcept ImportError:\n    torch = None\n"
        "from importlib import import_module\n"
        "try:\n    jax = import_module('jax')\nexcept ImportError:\n    jax = None\n"
    )
    (tmp_path / "engine.py").write_text(cheat)
    report = grade(tmp_path / "engine.py", "micrograd")
    assert report.score == 0, report
    assert "the submission imports jax, torch, which differentiates" in report.rows[0].explanation
    (tmp_path / "engine.py").write_text(source("minigrad") + "\nimport numpy.linalg\n")
    assert grade(tmp_path / "engine.py", "micrograd").score == 14  # numpy is anyone's


def test_complex_step_scores_nothing(tmp_path):
    """Complex-step derivatives are exact (this engine scores 14/14 when not flagged): the
    grader reads complex numbers in the submission's code and fails every case, saying where."""
    engine = Path(__file__).parent / "engines" / "complex_step_micrograd.py"
    report = grade(engine, "micrograd")
    assert report.score == 0, report
    assert report.rows[0].explanation == (
        "the submission computes with complex numbers at complex_step_micrograd.py:5 (cmath): "
        "complex-step derivatives are not rules, and score nothing"
    )
    for line in ("x = 1e-20j", "x = complex(1, 2)", "y = z.imag", "t = np.complex128"):
        (tmp_path / "engine.py").write_text(source("minigrad") + f"\n{line}\n")
        assert grade(tmp_path / "engine.py", "micrograd").score == 0, line
