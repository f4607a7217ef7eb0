"""The evaluation trace with values only (issue 45, slides): ``trace.table(values_only=True)``,
``trace.to_latex(values_only=True)`` and ``trace.values_table()`` give the lecture's first
table (v₁ = x₁ = 2, v₂ = x₂ = 5, v₃ = ln v₁ = 0.693 …) without the tangent or adjoint columns,
in the forward order whatever the mode; text escaped in HTML, TeX compiled by pdflatex."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

import vizad as vz

LECTURE = [
    ["v₁", "x₁", "2"],
    ["v₂", "x₂", "5"],
    ["v₃", "ln v₁", "0.693"],
    ["v₄", "v₁ × v₂", "10"],
    ["v₅", "sin v₂", "-0.959"],
    ["v₆", "v₃ + v₄", "10.693"],
    ["v₇", "v₆ - v₅", "11.652"],
]


@pytest.mark.parametrize("make", [vz.examples.lecture, vz.examples.lecture_forward])
def test_the_lectures_evaluation_trace_in_either_mode(make):
    trace = make()
    header, rows = trace.table(values_only=True)
    assert header == ["vᵢ", "definition", "value"]
    assert rows == LECTURE  # forward order, even for reverse mode (whose steps run v₇ … v₁)
    full_header, _ = trace.table()
    assert len(full_header) == 6 and ("v̇ᵢ" in full_header or "v̄ᵢ" in full_header)


def test_decimals_apply_to_the_values():
    _, rows = vz.examples.lecture().table(2, values_only=True)
    assert [r[2] for r in rows] == ["2", "5", "0.69", "10", "-0.96", "10.69", "11.65"]


def test_the_latex_has_no_tangent_or_adjoint_column():
    for trace in (vz.examples.lecture(), vz.examples.lecture_forward()):
        table = trace.to_latex(values_only=True)
        assert r"\begin{tabular}{lll}" in table
        assert r"\dot" not in table and r"\bar" not in table
        assert r"$v_{3}$ & $\ln v_{1}$ & $0.693$ \\" in table
        assert table.count(r" \\") == 1 + 7  # the header and one row per node
    assert r"\bar v_i" in vz.examples.lecture().to_latex()  # the full table keeps them


def test_the_values_table_shows_itself():
    shown = vz.examples.lecture().values_table()
    assert shown.header == ["vᵢ", "definition", "value"] and shown.rows == LECTURE
    text = repr(shown)
    assert text.startswith("Evaluation trace of v₇: 7 values")
    assert "v̇" not in text and "v̄" not in text and "ln v₁" in text
    html = shown._repr_html_()
    assert "<th" in html and "0.693" in html and "v̄" not in html
    assert shown.to_latex() == vz.examples.lecture().to_latex(values_only=True)


def test_names_are_escaped_in_the_html():
    x = vz.Variable("<img src=x onerror=alert(1)>")
    html = vz.trace_reverse(vz.sin(x), [x], {x: 1.0}).values_table()._repr_html_()
    assert "<img" not in html and "&lt;img" in html


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="make test installs pdflatex")
def test_the_values_only_tables_compile(tmp_path):
    W, x = vz.Variable("W"), vz.Variable("x")
    tensors = vz.trace_reverse(vz.sum(vz.tanh(W * x)), [W], {x: 0.5, W: np.ones((2, 2))})
    a = vz.Variable("a$b_1")
    odd = vz.trace_reverse(vz.log(a) * a, [a], {a: 2.0})
    documents = [t.to_latex(values_only=True) for t in (vz.examples.lecture(), tensors, odd)]
    source = (
        "\\documentclass{article}\\usepackage{amsmath,booktabs}\\begin{document}\n"
        + "\n\n".join(documents)
        + "\n\\end{document}\n"
    )
    (tmp_path / "doc.tex").write_text(source, encoding="utf-8")
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-3000:]
