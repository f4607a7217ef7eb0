"""trace.to_latex() and trace.derivation().to_latex(): the lecture's tables and derivations
for slides. Golden files (make golden rewrites them), balanced braces, and a real LaTeX run
when a LaTeX engine is installed."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import vizad as vz

GOLDEN = Path(__file__).parent / "golden"
REGENERATE = os.environ.get("VIZAD_REGENERATE_GOLDEN") == "1"

DOCUMENTS = {
    "lecture_reverse_table.tex": lambda: vz.examples.lecture().to_latex(),
    "lecture_reverse_derivation.tex": lambda: vz.examples.lecture().derivation().to_latex(),
    "lecture_forward_table.tex": lambda: vz.examples.lecture_forward().to_latex(),
    "lecture_forward_derivation.tex": lambda: vz.examples.lecture_forward().derivation().to_latex(),
}


@pytest.mark.parametrize("name", DOCUMENTS)
def test_golden_latex(name):
    text = DOCUMENTS[name]()
    path = GOLDEN / name
    if REGENERATE:
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{name} changed (make golden rewrites it)"


def _balanced(text: str) -> bool:
    depth = 0
    i = 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth < 0:
            return False
        i += 1
    return depth == 0


def test_table_structure_and_hostile_names():
    x = vz.Variable(r"$\href{x}{y}$ & 50% #1")
    W = vz.Variable("W")
    trace = vz.trace_reverse(vz.tanh(W * x), [x, W], {x: 0.5, W: 2.0})
    table = trace.to_latex()
    lines = table.splitlines()
    assert lines[0] == r"\begin{tabular}{rlllll}" and lines[-1] == r"\end{tabular}"
    assert [r"\toprule", r"\midrule", r"\bottomrule"] == [
        line for line in lines if line in (r"\toprule", r"\midrule", r"\bottomrule")
    ]
    body = lines[4:-2]
    assert len(body) == len(trace.steps)
    for row in body:  # six cells: no & from a name splits a row, no # or % is live
        assert _balanced(row) and row.endswith(r" \\")
        assert row.replace(r"\&", "").count("&") == 5
        assert "%" not in row.replace(r"\%", "") and "#" not in row.replace(r"\#", "")
    assert r"\href" not in table and _balanced(trace.derivation().to_latex())
    matrices = vz.trace_reverse(vz.sum(vz.tanh(W * x)), [W], {x: 0.5, W: np.ones((2, 2))})
    assert r"\begin{bmatrix}" in matrices.to_latex() and _balanced(matrices.to_latex())


LATEX = shutil.which("pdflatex")


def _greek_trace():
    """Names pdflatex reads only as TeX commands: Greek letters, subscript digits, accents,
    TeX's own characters and a character TeX has no command for."""
    names = ["α", "β_1", "ω₂", "Σx", "x̄", "a$b", "中"]
    xs = [vz.Variable(n) for n in names]
    y = xs[0]
    for x in xs[1:]:
        y = y * vz.sin(x)
    return vz.trace_reverse(y, xs, {x: 0.5 + k for k, x in enumerate(xs)})


def test_greek_and_unicode_names_are_tex_commands():
    trace = _greek_trace()
    table = trace.to_latex()
    assert r"$\alpha$" in table and r"\mathrm{\beta \_1}" in table
    assert r"\mathrm{\omega _{2}}" in table and r"\mathrm{\Sigma x}" in table
    assert r"\mathrm{\bar{x}}" in table and r"\mathrm{a\$b}" in table
    assert r"\text{U+4E2D}" in table
    everything = table + trace.derivation().to_latex()
    assert everything.isascii(), sorted({c for c in everything if not c.isascii()})


def test_the_documents_compile(tmp_path):
    """Every document vizad writes, compiled by pdflatex with the packages its docstrings
    name (amsmath for align* and bmatrix, booktabs for the rules); make test installs them."""
    assert LATEX is not None, "make test installs pdflatex (texlive-latex-base)"
    W, x = vz.Variable("W"), vz.Variable("x")
    tensors = vz.trace_reverse(vz.sum(vz.tanh(W * x)), [W], {x: 0.5, W: np.ones((2, 2))})
    greek = _greek_trace()
    documents = [make() for make in DOCUMENTS.values()]
    documents += [tensors.to_latex(), tensors.derivation().to_latex()]
    documents += [greek.to_latex(), greek.derivation().to_latex()]
    source = (
        "\\documentclass{article}\\usepackage{amsmath,booktabs}\\begin{document}\n"
        + "\n\n".join(documents)
        + "\n\\end{document}\n"
    )
    (tmp_path / "doc.tex").write_text(source, encoding="utf-8")
    done = subprocess.run(
        [LATEX, "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    log = (tmp_path / "doc.log").read_text(encoding="utf-8", errors="replace")
    assert "Missing character" not in log and (tmp_path / "doc.pdf").stat().st_size > 1000
