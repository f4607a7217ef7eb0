"""Every tutorial has a "try this" cell whose check says FAIL until answered and pass with the
right answer: executed here with the answer filled in. It is stored without an output (tagged
``skip-execution`` for `make notebooks` and ``nbval-skip``), so no notebook ships a failing
check, and it is asked before any cell that prints its answer. A tutorial may ask more (a
section's own question, as 07's element of b̄₁): every cell with ``answer = None`` is held to
the same rules and answered here, in the notebook's order."""

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
    "07_tensors": ("0.7355", "(3, 2)"),  # b̄₁[5] = Σᵢ v̄₇[i, 5] to 4 digits; then W̄'s shape
    "08_gradients_of_gradients": "48",
    "09_tuple_values": "4.0",
    "10_debugging_a_custom_op": "0.5",
    "11_training": "(0.0, 0.0)",
    "12_eager_code": "(100.3, -31.1)",  # W̄ = Xᵀ e^{2XW} = (100.346…, -31.115…), to 4 digits
    "13_which_mode_when": "(1000, 10)",
    "14_pytorch_and_jax": "3",
    "15_backpropagation_through_time": "2",
    "16_more_reverse_mode": "(10, 22)",  # k = 10: 100/10 + 10 + 2 values
    "17_jax_pytrees_and_loops": "8",
    "18_what_reverse_mode_returns": "(0.25, 0.25, -0.75, 0.25)",
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
    "16_more_reverse_mode": {
        "peak_step = None": "peak_step = 47",  # the seed, v̄₃₇, six recomputations, the read
    },
    "17_jax_pytrees_and_loops": {
        "softclip_rule = None": "softclip_rule = lambda x, g: (2 * g * (1 - jnp.tanh(x) ** 2),)",
    },
}


def asks(nb) -> list[int]:
    """The indices of the cells that ask (``answer = None``), their tags checked and dropped so
    that they run; the last of them is the "try this" check, under its heading."""
    found = [
        i for i, c in enumerate(nb.cells) if c.cell_type == "code" and "answer = None" in c.source
    ]
    assert found and nb.cells[found[-1] - 1].source.startswith("## Try this")
    for index in found:
        cell = nb.cells[index]
        assert {"skip-execution", "nbval-skip"} <= set(cell.metadata.get("tags", []))
        assert cell.outputs == [], "stored with an output: a check that says FAIL"
        cell.metadata["tags"] = []
    return found


def test_every_tutorial_asks_and_no_stored_output_is_a_failed_check():
    tutorials = sorted(NOTEBOOKS.glob("[0-9]*.ipynb"))
    assert sorted(ANSWERS) == [p.stem for p in tutorials]
    for path in tutorials:
        nb = nbformat.read(path, as_version=4)
        asks(nb)
        for cell in nb.cells:
            for output in cell.get("outputs", []):
                data = output.get("data", {}).get("text/plain", "")
                text = str(output.get("text", "")) + str(data)
                assert "FAIL — " not in text, f"{path.name} stores {text!r:.200}"


@pytest.mark.notebook
@pytest.mark.parametrize("name", ANSWERS)
def test_the_try_this_check_passes_with_the_right_answer(name):
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    found = asks(nb)
    answers = ANSWERS[name] if isinstance(ANSWERS[name], tuple) else (ANSWERS[name],)
    assert len(answers) == len(found), f"{name} asks {len(found)} times"
    for index, answer in zip(found, answers):
        cell = nb.cells[index]
        cell.source = cell.source.replace("answer = None", f"answer = {answer}", 1)
    for blank, filled in MORE.get(name, {}).items():
        assert blank in nb.cells[found[-1]].source
        nb.cells[found[-1]].source = nb.cells[found[-1]].source.replace(blank, filled, 1)
    for cell in nb.cells:  # widgets and plots are not needed here
        cell.source = cell.source.replace("plt.show()", "plt.close('all')")
    NotebookClient(nb, timeout=300, kernel_name="python3").execute(cwd=str(NOTEBOOKS))
    for index in found:
        text = "".join(o.get("data", {}).get("text/plain", "") for o in nb.cells[index].outputs)
        assert ": pass" in text and "FAIL" not in text, text
