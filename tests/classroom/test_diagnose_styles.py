"""vz.diagnose as a TA uses it, on student engines of each style (tests/classroom/engines): a
correct engine gets a clean report however it was loaded (imported, by importlib without
sys.modules, pasted into a notebook's __main__) and at a kink; each seeded bug is found and named
at the right op and input, with the hint that bug deserves and the student's own file and line;
a check that cannot run is a problem of its own, never a silent pass."""

from __future__ import annotations

import math
import random
import re

import numpy as np
import pytest

import vizad as vz
from engines import MODES, line_of, load, softsign_op

# -- CSE 599W ---------------------------------------------------------------------------------
MUL_RULE = "return [output_grad * node.inputs[1], output_grad * node.inputs[0]]  # MUL-RULE"


def graph599(ad):
    """y = log(x1)·x2 + 3·x1 + Σ₀(AᵀB) + 2: x1 read twice, a matmul with trans_A."""
    x1, x2, A, B = ad.Variable("x1"), ad.Variable("x2"), ad.Variable("A"), ad.Variable("B")
    y = ad.log_op(x1) * x2 + x1 * 3 + ad.sum_axis_op(ad.matmul_op(A, B, True, False), 0) + 2
    rng = np.random.default_rng(1)
    feed = {
        x1: rng.uniform(0.5, 2, size=3),
        x2: rng.normal(size=3),
        A: rng.normal(size=(2, 4)),
        B: rng.normal(size=(2, 3)),
    }
    return y, [x1, x2, A, B], feed


def matmul599(shape_a, shape_b):
    def build(ad):
        A, B = ad.Variable("A"), ad.Variable("B")
        rng = np.random.default_rng(2)
        feed = {A: rng.normal(size=shape_a), B: rng.normal(size=shape_b)}
        return ad.matmul_op(A, B), [A, B], feed

    return build


GRAD_B = "grad_B = matmul_op(A, output_grad, not node.matmul_attr_trans_A, False)  # GRAD-B"
WRONG_B = "grad_B = matmul_op(A, output_grad, node.matmul_attr_trans_A, False)"

#: bug: (replacements, graph, (kind, op, input, words of the hint), the line at fault)
BUGS_599 = {
    "sign flipped": (
        [(MUL_RULE, MUL_RULE.replace("node.inputs[0]]", "node.inputs[0] * -1]"))],
        graph599, ("rule", "MulOp", 1, "sign flipped"), "MUL-RULE",
    ),
    "inputs swapped": (
        [(MUL_RULE, "return [output_grad * node.inputs[0], output_grad * node.inputs[1]]")],
        graph599, ("rule", "MulOp", 0, "inputs swapped"), "output_grad * node.inputs[0], ",
    ),
    "too few gradients": (
        [(MUL_RULE, "return [output_grad * node.inputs[1]]")],
        graph599, ("rule", "MulOp", None, "returns 1 gradient(s) for 2 input(s)"),
        "return [output_grad * node.inputs[1]]",
    ),
    "returns None": (
        [("return [output_grad]  # ADDCONST-RULE", "return None  # forgot the list")],
        graph599, ("rule", "AddByConstOp", None, "returns None"), "forgot the list",
    ),
    "const_attr forgotten": (
        [("return [output_grad * node.const_attr]  # MULCONST-RULE",
          "return [output_grad]  # the constant?")],
        graph599, ("rule", "MulByConstOp", 0, "multiply output_grad by node.const_attr (3)"),
        "the constant?",
    ),
    "log times x": (
        [("return [output_grad * reciprocal_op(node.inputs[0])]  # LOG-RULE",
          "return [output_grad * node.inputs[0]]")],
        graph599, ("rule", "LogOp", 0, "log's derivative is 1/x"),
        "return [output_grad * node.inputs[0]]",
    ),
    "trans_A ignored": (
        [("if node.matmul_attr_trans_A:  # TRANS-A", "if False:")],
        graph599,
        ("rule", "MatMulOp", 0, "gives output_grad·Bᵀ where the gradient of A is "
         "B·output_gradᵀ (this node has matmul_attr_trans_A=True, matmul_attr_trans_B=False"),
        "TRANS-A",
    ),
    "transpose missing, square": (
        [(GRAD_B, WRONG_B)], matmul599((3, 3), (3, 3)),
        ("rule", "MatMulOp", 1, "gives A·output_grad where the gradient of B is Aᵀ·output_grad"),
        "TRANS-A",
    ),
    "transpose missing, not square": (
        [(GRAD_B, WRONG_B)], matmul599((2, 3), (3, 4)),
        ("rule", "MatMulOp", 1, "the gradient of A is output_grad·Bᵀ, of B Aᵀ·output_grad"),
        "TRANS-A",
    ),
    "partial adjoints not summed": (
        [("grad = sum_node_list(grads_list[node])  # SUM-PARTIALS", "grad = grads_list[node][-1]")],
        graph599, ("gradient", "gradients()", 0, "not summed: x1 (v₁) is read more"), None,
    ),
    "gradients() in topological order": (
        [("for node in reversed(find_topo_sort([output_node])):  # REVERSE-ORDER",
          "for node in find_topo_sort([output_node]):")],
        graph599, ("gradient", "gradients()", None, "walk the nodes in reverse topological"),
        "SUM-PARTIALS",
    ),
    "pre-order topological sort": (
        [("    for n in node.inputs:  # TOPO-VISIT\n        topo_sort_dfs(n, visited, order)\n"
          "    order.append(node)  # TOPO-APPEND",
          "    order.append(node)\n    for n in node.inputs:\n"
          "        topo_sort_dfs(n, visited, order)")],
        graph599, ("topo_sort", "topo_sort_dfs", None, "post-order"), None,
    ),
}  # fmt: skip


def _slug(text: str) -> str:
    return re.sub(r"\W+", "_", text)


def _named(report, kind, op, index, words):
    """The first problem, checked to be the bug named (kind, op, input, hint words)."""
    assert not report.ok, report
    first = report.first
    assert (first.kind, first.op, first.input) == (kind, op, index), report
    assert words in first.message, report
    return first


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("bug", list(BUGS_599))
def test_599w_bugs_are_named_at_their_op_with_their_hint(bug, mode):
    replacements, graph, (kind, op, index, words), line = BUGS_599[bug]
    ad = load("student599", f"s599_{_slug(bug)}_{mode}", *replacements, mode=mode)
    first = _named(vz.diagnose(*graph(ad)), kind, op, index, words)
    if line is not None:  # the student's file and line: the rule (or the line that raised)
        assert first.where.startswith(ad.__file__ + ":"), first
        if kind == "rule" and "raised" not in first.message and line != "TRANS-A":
            assert first.where == f"{ad.__file__}:{line_of(ad, line)}", first
        assert first.where in first.message


#: The 599W bugs whose rule fails on its shapes or gives another number of gradients: (the
#: error the default path raises, the words and the shapes the failing step names).
FAILING_599 = {
    "too few gradients": (vz.errors.GraphError, "returned 1 adjoint(s) for 2 input(s)", []),
    "trans_A ignored": (vz.errors.ShapeError, "gives v̄", ["(4, 2)", "(2, 4)"]),
    "transpose missing, not square": (
        vz.errors.EvaluationError, "raised ValueError: matmul", ["(2, 4)", "(2, 3)", "(3, 4)"],
    ),
}  # fmt: skip


@pytest.mark.parametrize("bug", list(BUGS_599))
def test_the_stepper_opens_on_every_599w_bug(bug):
    from vizad.view.widget import Stepper

    replacements, graph, (kind, op, index, words), line = BUGS_599[bug]
    ad = load("student599", f"s599_step_{_slug(bug)}", *replacements)
    y, wrt, feed = graph(ad)
    stepper = vz.diagnose(y, wrt, feed).step()
    assert isinstance(stepper, Stepper)
    if bug in FAILING_599:  # a lazy graph's rule fails when built or evaluated: both tolerated
        error, said, shapes = FAILING_599[bug]
        with pytest.raises(error):
            vz.trace_reverse(y, wrt, feed)
        (message,) = stepper.failures.values()
        assert said in message and "#" not in message, message
        assert all(f"of shape {shape}" in message for shape in shapes), message


@pytest.mark.parametrize("mode", MODES)
def test_a_correct_599w_engine_is_clean_however_it_is_loaded(mode):
    ad = load("student599", f"s599_ok_{mode}", mode=mode)
    report = vz.diagnose(*graph599(ad))
    assert report.ok and report.rules_checked == 8, report
    assert not report.notes
    x = ad.Variable("x")  # ReLU exactly at its kink: left out, as gradcheck leaves it out
    report = vz.diagnose(ad.relu_op(x) * 2, [x], {x: np.array([0.0, 1.5, -2.0])})
    assert report.ok, report
    assert "kink" in report.notes[0]


def test_599w_functions_missing_are_problems_not_a_pass():
    """An engine whose module has no gradients() or find_topo_sort: never "nothing wrong"."""
    ad = load(
        "student599",
        "s599_bare",
        ("def gradients(output_node, node_list):", "def _gradients(output_node, node_list):"),
        ("def find_topo_sort(node_list):", "def _find_topo_sort(node_list):"),
        mode="importlib",
    )
    report = vz.diagnose(*graph599(ad))
    assert not report.ok
    assert [(p.kind, p.op) for p in report.problems] == [
        ("unchecked", "find_topo_sort"),
        ("unchecked", "gradients()"),
    ]
    assert "no gradients() found in the module(s) s599_bare" in report.problems[1].message
    assert "define gradients(output_node, node_list)" in report.problems[1].hint


def test_python_numbers_in_the_feed_are_named_as_the_problem():
    import vizad.classroom.courses.autodiff as ad

    x1, x2 = ad.Variable("x1"), ad.Variable("x2")
    report = vz.diagnose(x1 * x2 + x1, [x1, x2], {x1: 2.0, x2: 3.0})
    (problem,) = report.problems
    assert "the feed gives x1 (v₁) as a float (2.0)" in problem.message
    assert "feed np.array(2.0)" in problem.message and "AssertionError" in problem.message
    assert "gradients() raised" not in problem.message  # it built its nodes; they failed


def test_a_compute_raising_near_the_point_is_a_check_that_could_not_run():
    """math.sqrt at 0: every probe on one side raises. The report says so, with the line."""
    ad = load("student599", "s599_sqrt", mode="importlib")

    class SqrtOp(ad.Op):
        def __call__(self, a):
            n = ad.Op.__call__(self)
            n.inputs, n.name = [a], f"Sqrt({a.name})"
            return n

        def compute(self, node, input_vals):
            return np.array(math.sqrt(input_vals[0]))

        def gradient(self, node, output_grad):
            return [output_grad * ad.reciprocal_op(node) * 0.5]

    x = ad.Variable("x")
    report = vz.diagnose(SqrtOp()(x) * 2, [x], {x: np.array(0.0)})
    unchecked = [p for p in report.problems if p.kind == "unchecked"]
    assert unchecked and unchecked[0].op == "SqrtOp", report
    assert "math domain error" in unchecked[0].message
    assert "return np.array(math.sqrt(input_vals[0]))" in unchecked[0].message


# -- needle -----------------------------------------------------------------------------------
def composite(nd):
    """Every op of the homework in one graph (log and a division need positive c)."""
    rng = np.random.default_rng(3)
    a, b = nd.Tensor(rng.normal(size=(5, 4))), nd.Tensor(rng.normal(size=(4, 3)))
    c = nd.Tensor(rng.uniform(0.5, 2, size=(5, 3)))
    rows = nd.broadcast_to(nd.summation(c, axes=(1,)).reshape((5, 1)), (5, 3))
    z = nd.log(c) * nd.exp(a @ b / 3) + rows
    y = nd.summation(nd.relu(z - 1) ** 2 + nd.transpose(z).transpose() * 2 - z / c)
    return y, [a, b, c]


def summed_rows(shape):
    def build(nd):
        x = nd.Tensor(np.random.default_rng(4).normal(size=shape))
        return nd.summation(nd.summation(x, axes=(1,)) ** 2), [x]

    return build


def square_matmul(nd):
    rng = np.random.default_rng(5)
    a, b = nd.Tensor(rng.normal(size=(4, 4))), nd.Tensor(rng.normal(size=(4, 4)))
    return nd.summation((a @ b) ** 2), [a, b]


def swapped_axes(nd):
    rng = np.random.default_rng(6)
    x, w = nd.Tensor(rng.normal(size=(3, 4, 2))), nd.Tensor(rng.normal(size=(4, 3, 2)))
    return nd.summation(nd.transpose(x, (0, 1)) * w), [x]


SUM_RULE = "return broadcast_to(reshape(out_grad, shape), node.inputs[0].shape)  # SUMMATION-RULE"
NO_RESHAPE = "return broadcast_to(out_grad, node.inputs[0].shape)"
MATMUL_A = "grad_a = matmul(out_grad, transpose(b))  # MATMUL-A"

BUGS_NEEDLE = {
    "EWiseMul inputs swapped": (
        [("return out_grad * rhs, out_grad * lhs  # EWISEMUL-RULE",
          "return out_grad * lhs, out_grad * rhs")],
        composite, ("rule", "EWiseMul", 0, "inputs swapped"),
        "EWiseMul (5, 3), (5, 3)→(5, 3)",
    ),
    "Summation without reshape, square": (
        [(SUM_RULE, NO_RESHAPE)], summed_rows((4, 4)),
        ("rule", "Summation", 0, "reshape it to (4, 1) first (1 at the summed axes), then "
         "broadcast_to (4, 4)"),
        "Summation(axes=(1,)) (4, 4)→(4,)",
    ),
    "Summation without reshape, not square": (
        [(SUM_RULE, NO_RESHAPE)], summed_rows((5, 4)),
        ("rule", "Summation", None, "reshape out_grad to (5, 1) (1 at the summed axes) before "
         "broadcast_to (5, 4)"),
        "Summation(axes=(1,)) (5, 4)→(5,)",
    ),
    "MatMul transpose missing, square": (
        [(MATMUL_A, "grad_a = matmul(out_grad, b)")], square_matmul,
        ("rule", "MatMul", 0, "gives out_grad·b where the gradient of a is out_grad·bᵀ"),
        "MatMul (4, 4), (4, 4)→(4, 4)",
    ),
    "MatMul transpose missing, not square": (
        [(MATMUL_A, "grad_a = matmul(out_grad, b)")], composite,
        ("rule", "MatMul", None, "the gradient of a is out_grad·bᵀ, of b aᵀ·out_grad"),
        "MatMul (5, 4), (4, 3)→(5, 3)",
    ),
    "BroadcastTo not summed": (
        [("return reshape(summation(out_grad, axes), in_shape)  # BROADCAST-RULE",
          "return out_grad")],
        composite, ("rule", "BroadcastTo", 0, "not summed back"),
        "BroadcastTo(shape=(5, 3)) (5, 1)→(5, 3)",
    ),
    "Log times x": (
        [("return out_grad / node.inputs[0]  # LOG-RULE", "return out_grad * node.inputs[0]")],
        composite, ("rule", "Log", 0, "log's derivative is 1/x"), "Log (5, 3)→(5, 3)",
    ),
    "DivScalar multiplies": (
        [("return out_grad / self.scalar  # DIVSCALAR-RULE", "return out_grad * self.scalar")],
        composite, ("rule", "DivScalar", 0, "multiplies by self.scalar: divide by it"),
        "DivScalar(scalar=3)",
    ),
    "PowerScalar without n": (
        [("return out_grad * self.scalar * a ** (self.scalar - 1)  # POWER-RULE",
          "return out_grad * a ** (self.scalar - 1)")],
        composite, ("rule", "PowerScalar", 0, "misses the factor n = 2"), "PowerScalar(scalar=2)",
    ),
    "Exp from its input": (
        [("return out_grad * node  # EXP-RULE", "return out_grad * node.inputs[0]")],
        composite, ("rule", "Exp", 0, "exp's derivative is exp(x), its output"), "Exp",
    ),
    "EWiseDiv sign": (
        [("return out_grad / b, -out_grad * a / (b * b)  # EWISEDIV-RULE",
          "return out_grad / b, out_grad * a / (b * b)")],
        composite, ("rule", "EWiseDiv", 1, "∂(a/b)/∂b = −a/b²: yours misses the minus sign"),
        "EWiseDiv",
    ),
    "Log divides by its output": (
        [("return out_grad / node.inputs[0]  # LOG-RULE", "return out_grad / node")],
        composite, ("rule", "Log", 0, "d/dx log x = 1/x: yours divides by the output"), "Log",
    ),
    "EWiseDiv b divided once": (
        [("return out_grad / b, -out_grad * a / (b * b)  # EWISEDIV-RULE",
          "return out_grad / b, -out_grad * a / b")],
        composite, ("rule", "EWiseDiv", 1, "∂(a/b)/∂b = −a/b²: yours divides by b once"),
        "EWiseDiv",
    ),
    "EWiseDiv a times b": (
        [("return out_grad / b, -out_grad * a / (b * b)  # EWISEDIV-RULE",
          "return out_grad * b, -out_grad * a / (b * b)")],
        composite, ("rule", "EWiseDiv", 0, "∂(a/b)/∂a = 1/b: yours multiplies by b"), "EWiseDiv",
    ),
    "ReLU times its output": (
        [("return out_grad * positive  # RELU-RULE", "return out_grad * node")],
        composite, ("rule", "ReLU", 0, "yours multiplies by the output relu(x)"), "ReLU",
    ),
    "Reshape not back": (
        [("return reshape(out_grad, node.inputs[0].shape)  # RESHAPE-RULE", "return out_grad")],
        composite, ("rule", "Reshape", 0, "reshape out_grad back to the input's shape (5,)"),
        "Reshape(shape=(5, 1)) (5,)→(5, 1)",
    ),
    "Transpose with the default axes": (
        [("return transpose(out_grad, self.axes)  # TRANSPOSE-RULE", "return transpose(out_grad)")],
        swapped_axes, ("rule", "Transpose", 0, "this op swaps axes (0, 1)"),
        "Transpose(axes=(0, 1)) (3, 4, 2)→(4, 3, 2)",
    ),
    "find_topo_sort visits inputs in reverse": (
        [("for x in node.inputs:  # TOPO-VISIT", "for x in reversed(node.inputs):")],
        composite, ("topo_sort", "find_topo_sort", None, "visits each node's inputs in reverse"),
        None,
    ),
    "partial adjoints not summed": (
        [("node.grad = sum_node_list(node_to_output_grads_list[node])  # SUM-PARTIALS",
          "node.grad = node_to_output_grads_list[node][-1]")],
        composite, ("gradient", "compute_gradient_of_variables", 0, "not summed"), None,
    ),
    "walked in topological order": (
        [("reverse_topo_order = list(reversed(find_topo_sort([output_tensor])))  # REVERSE-ORDER",
          "reverse_topo_order = find_topo_sort([output_tensor])")],
        composite, ("gradient", "backward()", None, "walk the nodes in reverse topological"),
        None,
    ),
}  # fmt: skip


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("bug", list(BUGS_NEEDLE))
def test_needle_bugs_are_named_in_needles_words(bug, mode):
    replacements, graph, (kind, op, index, words), node = BUGS_NEEDLE[bug]
    nd = load("needlish", f"nd_{_slug(bug)}_{mode}", *replacements, mode=mode)
    report = vz.diagnose(*graph(nd))
    first = _named(report, kind, op, index, words)
    if node is not None:  # needle's words: the op, its attributes, its shapes
        op_text, _, shapes = node.partition(" (")  # the legend says what vₖ is
        legend = dict(entry.split(" = ", 1) for entry in report.legend)
        assert legend[first.node].startswith(op_text + " of v"), report
        assert legend[first.node].endswith("(" + shapes) if shapes else "→" in legend[first.node]
        assert first.where.startswith(nd.__file__ + ":"), first  # the student's line
        assert "numpy" not in first.where


#: The needle bugs whose rule gives a gradient of the wrong shape, or raises on its shapes:
#: (the error the default path raises, the shapes the failing step's message names, whether
#: it is marked at the step of the input that got the wrong shape, else at the op's own).
WRONG_SHAPES = {
    "Summation without reshape, not square": (vz.errors.EvaluationError, ["(5,)", "(5, 4)"], 0),
    "MatMul transpose missing, not square": (
        vz.errors.EvaluationError, ["(5, 3)", "(5, 4)", "(4, 3)"], 0,
    ),
    "BroadcastTo not summed": (vz.errors.ShapeError, ["(5, 3)", "(5, 1)"], 1),
    "Reshape not back": (vz.errors.ShapeError, ["(5, 1)", "(5,)"], 1),
    "Transpose with the default axes": (vz.errors.ShapeError, ["(4, 2, 3)", "(3, 4, 2)"], 1),
}  # fmt: skip


@pytest.mark.slow_family  # each bug is diagnosed and a stepper opened on it
@pytest.mark.parametrize("bug", list(BUGS_NEEDLE))
def test_the_stepper_opens_on_every_needle_bug(bug):
    from vizad.view.widget import Stepper

    replacements, graph, (kind, op, index, words), node = BUGS_NEEDLE[bug]
    nd = load("needlish", f"nd_step_{_slug(bug)}", *replacements)
    y, wrt = graph(nd)
    stepper = vz.diagnose(y, wrt).step()
    assert isinstance(stepper, Stepper)
    if bug not in WRONG_SHAPES:
        if kind == "rule":  # a wrong value: red where central differences disagree
            assert any(f"the vjp of op {op!r} disagrees" in m for m in stepper.failures.values())
        return
    error, shapes, at_input = WRONG_SHAPES[bug]
    with pytest.raises(error):  # the default path still raises
        vz.trace_reverse(y, wrt)
    # the one rule that failed is red at its own step, with the shapes, instead of raising
    (k,) = [k for k, m in stepper.failures.items() if f"the vjp of op {op!r}" in m]
    assert stepper.step == min(stepper.failures) + 1  # it opens at the first red step
    message, marked = stepper.failures[k], stepper.trace.steps[k].node
    for shape in shapes:
        assert f"of shape {shape}" in message, message
    (fault,) = stepper.trace.record.faults
    assert fault.node.op.name == op and isinstance(fault.error, error)
    assert marked is (fault.node.inputs[fault.index] if at_input else fault.node)
    assert ("raised" in message) != bool(at_input), message
    assert "#" not in message  # no internal node id
    panel = stepper.data["steps"][k]["panel"]  # what the student reads there, in red
    assert k in stepper.data["failed"] and panel["fail"].startswith("✗ ")
    assert all(f"of shape {shape}" in panel["fail"] for shape in shapes), panel


@pytest.mark.parametrize("mode", MODES)
def test_a_correct_needle_engine_is_clean_however_it_is_loaded(mode):
    nd = load("needlish", f"nd_ok_{mode}", mode=mode)
    for graph in (composite, summed_rows((5, 4)), square_matmul, swapped_axes):
        report = vz.diagnose(*graph(nd))
        assert report.ok and not report.notes, report
    # notebook 12's example: ReLU exactly at 0 in the first row is a kink, not a wrong rule
    X = nd.Tensor(np.array([[1.0, 2.0], [3.0, -1.0]]))
    W = nd.Tensor(np.array([[0.5], [-0.25]]))
    report = vz.diagnose(nd.summation(nd.relu(X @ W) ** 2) / 2, [X, W])
    assert report.ok, report
    assert report.notes == [
        "ReLU at v₄ is not differentiable at the point (a kink) for input(s) 0: "
        "those entries are not checked, as gradcheck leaves them out"
    ]


# -- micrograd --------------------------------------------------------------------------------
def expression(mg):
    a, b, c = mg.Value(0.7, label="a"), mg.Value(-0.4, label="b"), mg.Value(1.3, label="c")
    d = a * b + c
    d.label = "d"
    e = d.tanh()
    e.label = "e"
    f = (e * c).exp() + a**3 - b / c
    f.label = "f"
    g = (f - 2).relu() + f * a
    g.label = "g"
    return g, [a, b, c]


def square(mg):
    p = mg.Value(1.7, label="p")
    q = p * p
    q.label = "q"
    return q + 1, [p]


def twice(mg):
    a = mg.Value(-2.0, label="a")
    b = a + a
    b.label = "b"
    return b * 3, [a]


def zero_factor(mg):
    a, z = mg.Value(1.5, label="a"), mg.Value(0.0, label="z")
    c = a * z
    c.label = "c"
    return c + a, [a, z]


def mlp(mg):
    """A layer of 8 tanh neurons on 3 inputs and a weighted sum: 32 products."""
    rng = random.Random(0)
    xs = [mg.Value(rng.uniform(-1, 1)) for _ in range(3)]
    rows = [[mg.Value(rng.uniform(-1, 1)) for _ in range(3)] for _ in range(8)]
    hidden = [sum((w * x for w, x in zip(row, xs)), mg.Value(0.0)).tanh() for row in rows]
    return sum((h * mg.Value(0.5) for h in hidden), mg.Value(0.0)), xs


MUL_SELF, MUL_OTHER = (
    "self.grad += other.data * out.grad  # MUL-SELF",
    "other.grad += self.data * out.grad  # MUL-OTHER",
)
ASSIGN_MUL = [
    (MUL_SELF, "self.grad = other.data * out.grad"),
    (MUL_OTHER, "other.grad = self.data * out.grad"),
]

BUGS_MICROGRAD = {
    "= instead of += on p*p": (
        ASSIGN_MUL, square,
        ("accumulate", "'*'", 0, "q reads p twice, so one of its two partial adjoints is lost"),
        "self.grad = other.data",
    ),
    "Karpathy's b = a + a": (
        [("self.grad += out.grad  # ADD-SELF", "self.grad = 1.0 * out.grad"),
         ("other.grad += out.grad  # ADD-OTHER", "other.grad = 1.0 * out.grad")],
        twice, ("accumulate", "'+'", 0, "b reads a twice"), "self.grad = 1.0",
    ),
    "= instead of += on a zero partial": (
        ASSIGN_MUL, zero_factor, ("accumulate", "'*'", 0, "assigns instead of adding (+=)"),
        "self.grad = other.data",
    ),
    "tanh from its input": (
        [("self.grad += (1 - t**2) * out.grad  # TANH-RULE",
          "self.grad += (1 - self.data**2) * out.grad")],
        expression, ("rule", "'tanh'", 0, "tanh's derivative is 1 − t² where t = tanh(x) is the "
                     "output (out.data)"),
        "self.grad += (1 - self.data**2)",
    ),
    "exp from its input": (
        [("self.grad += out.data * out.grad  # EXP-RULE", "self.grad += self.data * out.grad")],
        expression, ("rule", "'exp'", 0, "exp's derivative is exp(x), its output (out.data)"),
        "self.grad += self.data * out.grad",
    ),
    "power without n": (
        [("self.grad += other * self.data ** (other - 1) * out.grad  # POW-RULE",
          "self.grad += self.data ** (other - 1) * out.grad")],
        expression, ("rule", "'**-1'", 0, "misses the factor n = -1"), "self.grad += self.data **",
    ),
    "power lowered twice": (
        [("self.grad += other * self.data ** (other - 1) * out.grad  # POW-RULE",
          "self.grad += other * self.data ** (other - 2) * out.grad")],
        expression, ("rule", "'**-1'", 0, "d/dx xⁿ = n·xⁿ⁻¹: yours lowers the power twice"),
        "self.grad += other * self.data ** (other - 2)",
    ),
    "power with n − 1 for n": (
        [("self.grad += other * self.data ** (other - 1) * out.grad  # POW-RULE",
          "self.grad += (other - 1) * self.data ** (other - 1) * out.grad")],
        expression, ("rule", "'**-1'", 0, "d/dx xⁿ = n·xⁿ⁻¹: yours has n − 1 for n"),
        "self.grad += (other - 1)",
    ),
    "ReLU times its output": (
        [("self.grad += (out.data > 0) * out.grad  # RELU-RULE",
          "self.grad += out.data * out.grad")],
        expression, ("rule", "'ReLU'", 0, "yours multiplies by the output relu(x)"),
        "self.grad += out.data * out.grad",
    ),
    "tanh squares 1 − t": (
        [("self.grad += (1 - t**2) * out.grad  # TANH-RULE",
          "self.grad += (1 - t) ** 2 * out.grad")],
        expression, ("rule", "'tanh'", 0, "d/dx tanh x = 1 − t²: yours squares (1 − t)"),
        "self.grad += (1 - t) ** 2",
    ),
    "ReLU the wrong way": (
        [("self.grad += (out.data > 0) * out.grad  # RELU-RULE",
          "self.grad += (out.data <= 0) * out.grad")],
        expression, ("rule", "'ReLU'", 0, "ReLU's is 1 where x > 0"), "(out.data <= 0)",
    ),
    "mul reads its own input": (
        [(MUL_SELF, "self.grad += self.data * out.grad")],
        expression, ("rule", "'*'", 0, "inputs swapped"), "self.grad += self.data",
    ),
    "add's sign": (
        [("other.grad += out.grad  # ADD-OTHER", "other.grad -= out.grad")],
        expression, ("rule", "'+'", 1, "sign flipped"), "other.grad -= out.grad",
    ),
    "backward() in topological order": (
        [("for v in reversed(topo):  # BACKWARD-ORDER", "for v in topo:")],
        expression, ("gradient", "backward()", 0, "backward() calls them in another order"), None,
    ),
    "backward() without the seed": (
        [("self.grad = 1.0  # SEED", "pass")],
        expression, ("gradient", "backward()", 0, "set self.grad = 1.0"), None,
    ),
}  # fmt: skip


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("bug", list(BUGS_MICROGRAD))
def test_micrograd_bugs_are_named_at_their_line(bug, mode):
    replacements, graph, (kind, op, index, words), line = BUGS_MICROGRAD[bug]
    mg = load("minigrad", f"mg_{_slug(bug)}_{mode}", *replacements, mode=mode)
    y, wrt = graph(mg)
    report = vz.diagnose(y, wrt)
    first = _named(report, kind, op, index, words)
    assert "0.375" not in repr(report)  # the starting grad of a probing run is never shown
    if line is not None:  # the line of _backward that updates that input's grad
        assert first.where == f"{mg.__file__}:{line_of(mg, line)}", first
    else:  # every rule right: one problem for every input, not one each
        assert len(report.problems) == 1 and first.nodes == ["a", "b", "c"], report
    assert all(v.grad == 0.0 for v in wrt)  # restored


def test_an_accumulation_bug_in_an_mlp_is_one_problem_per_input_not_one_per_node():
    mg = load("minigrad", "mg_mlp", *ASSIGN_MUL, mode="importlib")
    report = vz.diagnose(*mlp(mg))
    assert [(p.kind, p.op, p.input, len(p.nodes)) for p in report.problems] == [
        ("accumulate", "'*'", 0, 32),
        ("accumulate", "'*'", 1, 32),
    ]
    assert "(the same at 31 more '*' node(s):" in report.problems[0].message
    assert "every op rule is right" not in repr(report)


@pytest.mark.parametrize("mode", MODES)
def test_a_correct_micrograd_engine_is_clean_however_it_is_loaded(mode):
    mg = load("minigrad", f"mg_ok_{mode}", mode=mode)
    for graph in (expression, square, twice, zero_factor, mlp):
        report = vz.diagnose(*graph(mg))
        assert report.ok and not report.notes, report
    x = mg.Value(0.0, label="x")  # ReLU at its kink
    report = vz.diagnose((x * 2).relu() + x, [x])
    assert report.ok and "kink" in report.notes[0], report


def test_micrograd_children_are_in_the_order_of_the_closure_whatever_their_ids():
    """a * b reports b as input 1 on every run (the set _prev has no order; the closure's
    self and other have)."""
    mg = load("minigrad", "mg_order", (MUL_OTHER, "other.grad -= self.data * out.grad"))
    texts = set()
    for _ in range(20):
        values = [mg.Value(float(k), label=f"v{k}") for k in range(1, 9)]  # ids vary
        a, b = values[3], values[6]
        report = vz.diagnose(a * b, [a, b])
        texts.add(report.first.message.split(": expected")[0])
    assert texts == {"the _backward of '*' at v₃ for input 1 (v7) sign flipped"}


def test_an_op_diagnose_does_not_know_is_a_check_that_could_not_run():
    mg = load("minigrad", "mg_unknown")

    softsign = softsign_op(mg)
    a = mg.Value(0.5, label="a")
    report = vz.diagnose(softsign(a) * 2, [a])
    assert not report.ok
    assert [(p.kind, p.op) for p in report.problems] == [("unchecked", "'softsign'")]
    assert "could not be checked" in report.first.message
