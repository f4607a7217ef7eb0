"""Every tutorial ends with a "try this" cell whose check says FAIL until answered (as stored)
and pass with the right answer: executed here with the answer filled in."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
ANSWERS = {
    "01_computational_graph": "6",
    "02_numerical_differentiation": "1e-5",
    "03_symbolic_differentiation": "198",
    "04_forward_mode": "1.7163",
    "05_reverse_mode": "4.0",
    "06_extending_the_graph": "2",
    "07_tensors": "(3, 2)",
    "08_gradients_of_gradients": "48",
    "09_tuple_values": "4.0",
    "10_debugging_a_custom_op": "0.5",
    "11_training": "(0.0, 0.0)",
    "12_eager_code": "(100.3, -31.1)",  # W̄ = Xᵀ e^{2XW} = (100.346…, -31.115…), to 4 digits
    "13_which_mode_when": "(1000, 10)",
    "15_backpropagation_through_time": "9",
    "16_more_reverse_mode": "(10, 20)",
}
# try-this cells that ask for more than one answer: the other blanks, filled in
MORE = {
    "12_eager_code": {
        "neuron = None": (
            "from vizad.classroom.courses.micrograd.engine import Value\n"
            "def neuron(w):\n"
            "    xs, ws = [2.0, -1.0, 0.5], [Value(w), Value(0.3), Value(-0.7)]\n"
            "    out = (ws[0] * xs[0] + ws[1] * xs[1] + ws[2] * xs[2] + Value(0.1)).tanh()\n"
            "    return out, ws[0]\n"
        ),
    },
}


@pytest.mark.notebook
@pytest.mark.parametrize("name", ANSWERS)
def test_the_try_this_check_passes_with_the_right_answer(name):
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    last = nb.cells[-1]
    assert nb.cells[-2].source.startswith("## Try this") and "answer = None" in last.source
    stored = "".join(o.get("data", {}).get("text/plain", "") for o in last.outputs)
    assert "FAIL — not answered yet" in stored
    last.source = last.source.replace("answer = None", f"answer = {ANSWERS[name]}", 1)
    for blank, filled in MORE.get(name, {}).items():
        assert blank in last.source
        last.source = last.source.replace(blank, filled, 1)
    for cell in nb.cells:  # widgets and plots are not needed here
        cell.source = cell.source.replace("plt.show()", "plt.close('all')")
    NotebookClient(nb, timeout=300, kernel_name="python3").execute(cwd=str(NOTEBOOKS))
    text = "".join(o.get("data", {}).get("text/plain", "") for o in nb.cells[-1].outputs)
    assert ": pass" in text and "FAIL" not in text, text


@pytest.mark.notebook
@pytest.mark.parametrize(
    "name, answer, says",
    [
        ("04_forward_mode", "1.72", ": pass"),  # the value rounded to the 2 decimals typed
        ("04_forward_mode", "1.7", "is close, but not to the digits typed: give more digits"),
        ("04_forward_mode", "1.9", "1.9 is not it: v̇₄ = v₁"),
        ("02_numerical_differentiation", "1e-8", "1e-08 is not it"),  # echoed as typed
    ],
)
def test_a_wrong_or_short_answer_is_told_which(name, answer, says):
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    nb.cells[-1].source = nb.cells[-1].source.replace("answer = None", f"answer = {answer}", 1)
    for cell in nb.cells:
        cell.source = cell.source.replace("plt.show()", "plt.close('all')")
    NotebookClient(nb, timeout=300, kernel_name="python3").execute(cwd=str(NOTEBOOKS))
    text = "".join(o.get("data", {}).get("text/plain", "") for o in nb.cells[-1].outputs)
    assert says in text, text
