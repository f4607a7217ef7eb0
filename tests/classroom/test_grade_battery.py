"""A battery of buggy submissions graded by the command (``python -m vizad grade``), as
students hand them in: the CSE 599W assignment's module (tests/classroom/engines/student599.py
with one bug planted) and each exercise notebook (its solution with one bug planted). Each
bug of the student's loop — a wrong rule (sign, swapped inputs, a transpose flag, a constant,
1/x), ``=`` where the partial adjoints must be appended, a walk in forward order (raising, or
behind a ``.get`` fallback), partial adjoints not summed or kept between calls, a pre-order
topological sort, a dual number's rule — gets its own cause, in the lecture's numbering (vₖ,
v̄ᵢ→ⱼ, with the legend ``where v₂ = x2``) and with values from the seed v̄ = 1, its place a
notebook's code cell, and the hint whole in the command's text."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from engines import source

pytestmark = pytest.mark.heavy  # each grading starts the submission's jailed processes

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "notebooks" / "exercises" / "solutions"
MUL = "return [output_grad * node.inputs[1], output_grad * node.inputs[0]]  # MUL-RULE"
REVERSED = "for node in reversed(find_topo_sort([output_node])):  # REVERSE-ORDER"
SUMMED = "grad = sum_node_list(grads_list[node])  # SUM-PARTIALS"
B_REVERSED = "for node in reversed(find_topo_sort([output_node])):"
B_SUMMED = "grad = sum_node_list(node_to_output_grads_list[node])"

#: bug → (599w or the exercise notebook, its replacements, the case, what its line says)
BUGS = {
    "599w: MulOp's sign": (
        "599w", [(MUL, MUL.replace("[0]]", "[0] * -1]"))], "mul_two_vars",
        ["MulOp at v₃ for input 1 (v₂) sign flipped", "with the seed v̄₃ = 1: v̄₂→₃ should be",
         "(where v₂ = x3, v₃ = (x2*x3) = MulOp(v₁, v₂))"],
    ),
    "599w: MulOp's inputs swapped": (
        "599w", [(MUL, MUL.replace("[1], output_grad * node.inputs[0]",
                                   "[0], output_grad * node.inputs[1]"))],
        "mul_two_vars",
        ["MulOp at v₃ for input 0 (v₁) is another input's gradient: inputs swapped"],
    ),
    "599w: trans_A ignored": (
        "599w", [("if node.matmul_attr_trans_A:  # TRANS-A", "if False:")], "matmul_transposed",
        ["the gradient rule of MatMulOp at v₃", "matmul_attr_trans_A=True"],
    ),
    "599w: MulByConst's constant ignored": (
        "599w", [("return [output_grad * node.const_attr]  # MULCONST-RULE",
                  "return [output_grad]")],
        "mul_by_const", ["ignores the constant", "v̄₁→₂ should be [5., 5., 5.]"],
    ),
    "599w: = instead of append": (
        "599w", [("grads_list.setdefault(inp, []).append(input_grads[i])",
                  "grads_list[inp] = [input_grads[i]]")],
        "add_mul_mix_1",
        ["with respect to x1 (v₁)", "a partial adjoint replaces the ones before it"],
    ),
    "599w: forward order behind .get": (
        "599w", [(REVERSED, "for node in find_topo_sort([output_node]):"),
                 (SUMMED, "grad = sum_node_list(grads_list.get(node, [zeroslike_op(node)]))")],
        "mul_two_vars", ["the walk is not in reverse topological order", "first at step 1 (v₁)"],
    ),
    "599w: forward order raising": (
        "599w", [(REVERSED, "for node in find_topo_sort([output_node]):")], "add_by_const",
        ["gradients() raised KeyError: v₁", "walk the nodes in reverse topological order"],
    ),
    "599w: partial adjoints not summed": (
        "599w", [(SUMMED, "grad = grads_list[node][-1]")], "add_mul_mix_1",
        ["the partial adjoints are not summed: x1 (v₁) is read more than once"],
    ),
    "599w: partial adjoints kept between calls": (
        "599w", [("def gradients(output_node, node_list):\n"
                  "    grads_list = {output_node: [oneslike_op(output_node)]}",
                  "_KEPT = {}\n\n\ndef gradients(output_node, node_list):\n"
                  "    grads_list = _KEPT\n"
                  "    grads_list.setdefault(output_node, []).append(oneslike_op(output_node))")],
        "grad_of_grad", ["partial adjoints are kept between calls"],
    ),
    "599w: pre-order topological sort": (
        "599w", [("    for n in node.inputs:  # TOPO-VISIT\n"
                  "        topo_sort_dfs(n, visited, order)\n"
                  "    order.append(node)  # TOPO-APPEND",
                  "    order.append(node)\n    for n in node.inputs:\n"
                  "        topo_sort_dfs(n, visited, order)")],
        "add_two_vars", ["topo_sort_dfs (called by find_topo_sort) puts v₃ before its input v₁",
                         "append a node after visiting its inputs"],
    ),
    "A: pre-order topological sort": (
        "a_topo_sort_and_executor",
        [("        visited.add(node)\n        for n in node.inputs:\n            visit(n)\n"
          "        order.append(node)",
          "        visited.add(node)\n        order.append(node)\n        for n in node.inputs:\n"
          "            visit(n)")],
        "each_node_once", ["append a node after visiting its inputs"],
    ),
    "B: SinOp's sign": (
        "b_gradients", [("return [mul(output_grad, cos(node.inputs[0]))]",
                         "return [mul(output_grad, neg(cos(node.inputs[0])))]")],
        "lecture", ["SinOp at v₅ for input 0 (v₂) sign flipped",
                    "with the seed v̄₇ = 1, v̄₅ = [-1., -1.]: v̄₂→₅ should be [-0.2837, -0.5403]",
                    "(code cell 6 of b_gradients.ipynb, line 6)"],
    ),
    "B: SubOp's sign": (
        "b_gradients",
        [("return [output_grad, neg(output_grad)]", "return [output_grad, output_grad]")],
        "sub_rule", ["SubOp at v₃ for input 1 (v₂) sign flipped", "v̄₂→₃ should be [-1., -1.]"],
    ),
    "B: MulOp's inputs swapped": (
        "b_gradients", [("return [mul(output_grad, b), mul(output_grad, a)]",
                         "return [mul(output_grad, a), mul(output_grad, b)]")],
        "mul_rule", ["inputs swapped"],
    ),
    "B: LogOp multiplies": (
        "b_gradients", [("return [mul(output_grad, reciprocal(node.inputs[0]))]",
                         "return [mul(output_grad, node.inputs[0])]")],
        "log_rule", ["LogOp at v₂ for input 0 (v₁) multiplies by x", "v̄₁→₂ should be [0.5, 2. ]"],
    ),
    "B: = instead of append": (
        "b_gradients", [("node_to_output_grads_list.setdefault(i, []).append(g)",
                         "node_to_output_grads_list[i] = [g]")],
        "x1_read_twice", ["a partial adjoint replaces the ones before it"],
    ),
    "B: forward order behind .get": (
        "b_gradients", [(B_REVERSED, "for node in find_topo_sort([output_node]):"),
                        (B_SUMMED, "grad = sum_node_list(node_to_output_grads_list.get(node, "
                                   "[ad.zeroslike_op(node)]))")],
        "mul_rule", ["the walk is not in reverse topological order"],
    ),
    "C: the product rule": (
        "c_dual_numbers", [("self.tangent * other.value + self.value * other.tangent",
                            "self.tangent * other.tangent")],
        "product_rule", ["(the product rule: ȧ b + a ḃ"],
    ),
    "C: sin's sign": (
        "c_dual_numbers", [("return Dual(math.sin(x.value), x.tangent * math.cos(x.value))",
                            "return Dual(math.sin(x.value), -x.tangent * math.cos(x.value))")],
        "sin_rule", ["the tangent of sin(b) is 0.283662, expected -0.283662"],
    ),
    "D: softplus' first attempt": (
        "d_custom_vjp", [("return [adjoint * vz.sigmoid(x)]",
                          "return [adjoint * vz.exp(x) / (1.0 + vz.exp(x * 2.0))]")],
        "softplus_times_3", ["softplus′(x) = σ(x)"],
    ),
    "E: trans_A ignored": (
        "e_assignment_ops",
        [("        if trans_A:  # Y = Aᵀ op(B): Ā = op(B) Ȳᵀ", "        if False:")],
        "matmul_trans_A", ["Ā = Ȳ op(B)ᵀ"],
    ),
    "E: MulByConst's constant ignored": (
        "e_assignment_ops", [("return [mul_byconst_op(output_grad, node.const_attr)]",
                              "return [output_grad]")],
        "mul_by_const",
        ["ignores the constant", "(code cell 3 of e_assignment_ops.ipynb, line 13)"],
    ),
    "E: OnesLike's gradient": (
        "e_assignment_ops",
        [("        return [zeroslike_op(node.inputs[0])]\n\n\nclass ZerosLikeOp",
          "        return [oneslike_op(node.inputs[0])]\n\n\nclass ZerosLikeOp")],
        "ones_and_zeros", ["their gradient is zeroslike_op(input)"],
    ),
}  # fmt: skip


def _submission(tmp_path: Path, where: str, replacements: list[tuple[str, str]]) -> tuple:
    """The planted submission's path and its course."""
    if where == "599w":
        path = tmp_path / "autodiff.py"
        path.write_text(source("student599", *replacements))
        return path, "599w"
    nb = nbformat.read(SOLUTIONS / f"{where}.ipynb", as_version=4)
    for old, new in replacements:
        (cell,) = [c for c in nb.cells if old in c.source]
        cell.source = cell.source.replace(old, new)
    path = tmp_path / f"{where}.ipynb"
    nbformat.write(nb, path)
    return path, "exercises"


def test_the_battery_is_large_enough():
    assert len(BUGS) >= 20 and len({where for where, *_ in BUGS.values()}) == 6


@pytest.mark.parametrize("bug", list(BUGS))
def test_each_planted_bug_gets_its_cause_in_the_lectures_terms(tmp_path, bug):
    where, replacements, case, says = BUGS[bug]
    path, course = _submission(tmp_path, where, replacements)
    done = subprocess.run(
        [sys.executable, "-m", "vizad", "grade", str(path), "--course", course],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    line = next(
        (ln for ln in done.stdout.splitlines() if re.match(rf"\s+FAIL\s+{case}\s", ln)), None
    )
    assert line is not None, done.stdout
    for words in says:
        assert words in line, f"{words!r} not in\n{line}"
    hint = line.split(" ↳ ", 1)[1]
    assert "more characters" not in hint.split(" — ", 1)[0], line  # the hint whole
    if "diagnose: " in hint:  # a node named as the lecture names it, and what it stands for
        assert re.search(r"\bv[₀-₉]+\b", hint) and "(where v" in hint, line
