"""vz.diagnose on students' engines: clean reports for correct ones (CSE 599W, needle and
micrograd styles, vizad's compat modules and micrograd itself), and each seeded bug named at
the right node and op with the right hint."""

from __future__ import annotations

import sys
import tempfile
import types
from pathlib import Path

import numpy as np
import pytest

import vizad as vz

ENGINES = Path(__file__).parent / "engines"


def engine(base: str, name: str, *replacements: tuple[str, str]) -> types.ModuleType:
    """The student engine ``base`` (tests/classroom/engines/<base>.py) with lines replaced, as a
    module named ``name`` (registered: vz.diagnose finds gradients() and find_topo_sort there)."""
    source = (ENGINES / f"{base}.py").read_text()
    for old, new in replacements:
        assert old in source, old
        source = source.replace(old, new)
    module = types.ModuleType(name)
    path = Path(tempfile.mkdtemp()) / f"{name}.py"  # on disk: tracebacks show its lines
    path.write_text(source)
    module.__file__ = str(path)
    sys.modules[name] = module
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    return module


def graph599(ad):
    """y = x1·x2 + x1 (x1 read twice) and a matmul with a transposed operand."""
    x1, x2 = ad.Variable("x1"), ad.Variable("x2")
    A, B = ad.Variable("A"), ad.Variable("B")
    y = x1 * x2 + x1 * 3 + ad.sum_axis_op(ad.matmul_op(A, B, True, False), 0)
    rng = np.random.default_rng(1)
    feed = {
        x1: rng.normal(size=3),
        x2: rng.normal(size=3),
        A: rng.normal(size=(2, 4)),
        B: rng.normal(size=(2, 3)),
    }
    return y, [x1, x2, A, B], feed


def test_a_correct_599w_engine_gets_a_clean_report():
    ad = engine("student599", "student599_ok")
    report = vz.diagnose(*graph599(ad))
    assert report.ok, report
    assert report.rules_checked == 6 and report.style == "CSE 599W"
    assert "nothing wrong" in repr(report) and "nothing wrong" in report._repr_html_()


def test_vizad_compat_engines_and_micrograd_itself_are_clean():
    import vizad.classroom.courses.autodiff as ad
    import vizad.classroom.courses.needle as ndl
    from vizad.classroom.courses.micrograd.engine import Value

    x1, x2 = ad.Variable("x1"), ad.Variable("x2")
    y = ad.matmul_op(x1, x2, True, True) * 2 + ad.oneslike_op(ad.matmul_op(x1, x2, True, True))
    rng = np.random.default_rng(0)
    feed = {x1: rng.normal(size=(3, 2)), x2: rng.normal(size=(2, 3))}
    assert vz.diagnose(y, [x1, x2], feed).ok

    a, b = ndl.Tensor(rng.normal(size=(3, 2))), ndl.Tensor(rng.normal(size=(2, 2)))
    t = ndl.summation(ndl.exp(a @ b) / 3, axes=(1,)) ** 2
    report = vz.diagnose(t.sum(), [a, b])
    assert report.ok and report.style == "needle", report

    p, q = Value(0.5), Value(-1.5)
    out = (p * q + p).tanh() * p + q.exp()
    assert vz.diagnose(out, [p, q]).ok
    assert p.grad == 0.0  # restored

    sys.modules.pop("micrograd", None)
    sys.modules.pop("micrograd.engine", None)
    from micrograd.engine import Value as Real  # the PyPI release

    p, q = Real(0.5), Real(-1.5)
    assert vz.diagnose((p * q + p).relu() * p + q**2, [p, q]).ok


@pytest.mark.parametrize(
    "bug, replacement, node, op, index, hint",
    [
        (
            "wrong sign",
            ("return [output_grad * node.inputs[1], output_grad * node.inputs[0]]  # MUL-RULE",
             "return [output_grad * node.inputs[1], output_grad * node.inputs[0] * -1]"),
            "v₅", "MulOp", 1, "sign flipped",
        ),
        (
            "swapped inputs",
            ("return [output_grad * node.inputs[1], output_grad * node.inputs[0]]  # MUL-RULE",
             "return [output_grad * node.inputs[0], output_grad * node.inputs[1]]"),
            "v₅", "MulOp", 0, "inputs swapped",
        ),
        (
            "missing trans flag",
            ("if node.matmul_attr_trans_A:  # TRANS-A", "if False:"),
            "v₇", "MatMulOp", 0,
            "this node has matmul_attr_trans_A=True, matmul_attr_trans_B=False",
        ),
        (
            "wrong reduction axis",
            ("return [sum_axis_op(output_grad, 0)]  # ROWS-RULE",
             "return [sum_axis_op(output_grad, 1)]"),
            "v₃", "BroadcastRowsOp", 0, "summed over the wrong axis",
        ),
    ],
)  # fmt: skip
def test_seeded_bugs_in_a_rule_are_named(bug, replacement, node, op, index, hint):
    ad = engine("student599", "student599_" + bug.replace(" ", "_"), replacement)
    if bug == "wrong reduction axis":
        w = ad.Variable("w")
        y = ad.sum_axis_op(ad.sum_axis_op(ad.rows_op(w, 2) * ad.rows_op(w, 2), 0), 0)
        args = (y, [w], {w: np.array([1.0, -2.0, 3.0])})
    else:
        args = graph599(ad)
    report = vz.diagnose(*args)
    assert not report.ok
    first = report.first
    assert (first.kind, first.node, first.op, first.input) == ("rule", node, op, index), report
    assert hint in first.hint, first
    assert op in str(first) and node in str(first)


def test_not_summing_partial_adjoints_is_found_in_gradients():
    ad = engine(
        "student599",
        "student599_no_sum",
        ("grad = sum_node_list(grads_list[node])  # SUM-PARTIALS", "grad = grads_list[node][-1]"),
    )
    report = vz.diagnose(*graph599(ad))
    kinds = {(p.kind, p.node) for p in report.problems}
    assert ("gradient", "v₁") in kinds and not any(p.kind == "rule" for p in report.problems)
    first = next(p for p in report.problems if p.node == "v₁")
    assert "not summed" in first.hint and "x1 (v₁)" in first.hint
    assert "where v₁ = x1" in repr(report)  # the legend of the lecture's numbering


def test_a_broken_topological_sort():
    ad = engine(
        "student599",
        "student599_preorder",
        ("    for n in node.inputs:  # TOPO-VISIT\n        topo_sort_dfs(n, visited, order)\n"
         "    order.append(node)  # TOPO-APPEND",
         "    order.append(node)\n"
         "    for n in node.inputs:\n        topo_sort_dfs(n, visited, order)"),
    )  # fmt: skip
    report = vz.diagnose(*graph599(ad))
    topo = [p for p in report.problems if p.kind == "topo_sort"]
    assert topo and "before its input" in topo[0].message and "post-order" in topo[0].hint


def test_a_crashing_compute_points_at_the_students_line():
    ad = engine(
        "student599",
        "student599_crash",
        ("return np.log(input_vals[0])  # LOG-COMPUTE", "return np.log(input_vals[0]).nope"),
    )
    x = ad.Variable("x")
    report = vz.diagnose(ad.log_op(x) * 2, [x], {x: np.array([1.0, 2.0])})
    (problem,) = report.problems
    assert problem.kind == "compute" and problem.op == "LogOp" and problem.node == "v₂"
    assert report.legend == ["v₂ = Log(x) = LogOp(v₁)"], report.legend
    assert "student599_crash.py" in problem.message and ".nope" in problem.message


def test_micrograd_tanh_with_the_wrong_derivative():
    mg = engine(
        "minigrad", "minigrad_tanh", ("(1 - t**2) * out.grad  # TANH-RULE", "(1 - t) * out.grad")
    )
    a, b = mg.Value(0.7, label="a"), mg.Value(-0.4, label="b")
    n = a * b + a
    n.label = "n"
    o = n.tanh()
    o.label = "o"
    report = vz.diagnose(o, [a, b])
    first = report.first
    assert (first.kind, first.node, first.op, first.input) == ("rule", "o", "'tanh'", 0), report
    assert not report.legend  # micrograd's own labels need no legend
    assert a.grad == 0.0 and o.grad == 0.0  # restored


def test_micrograd_backward_that_assigns_instead_of_adding():
    mg = engine(
        "minigrad",
        "minigrad_assign",
        ("self.grad += other.data * out.grad  # MUL-SELF", "self.grad = other.data * out.grad"),
    )
    a, b = mg.Value(1.5, label="a"), mg.Value(-2.0, label="b")
    c = a * b
    c.label = "c"
    y = c + a
    report = vz.diagnose(y, [a, b])
    accumulate = [p for p in report.problems if p.kind == "accumulate"]
    assert accumulate and accumulate[0].node == "c" and "+=" in accumulate[0].hint


def test_needle_style_wrong_reduction_axis():
    import vizad.classroom.courses.needle as ndl

    class BadSummation(ndl.ops.Summation):
        def gradient(self, out_grad, node):  # forgot to restore the summed axis
            return ndl.broadcast_to(
                ndl.reshape(out_grad, (1, node.inputs[0].shape[1])), node.inputs[0].shape
            )

    x = ndl.Tensor(np.arange(6.0).reshape(2, 3))
    y = ndl.summation(BadSummation(axes=(1,))(x) ** 2)
    report = vz.diagnose(y, [x])
    first = report.first
    assert first.kind == "rule" and first.op == "BadSummation", report


def test_the_stepper_shows_the_wrong_rule_in_red():
    ad = engine(
        "student599",
        "student599_sign_stepper",
        ("return [output_grad * node.inputs[1], output_grad * node.inputs[0]]  # MUL-RULE",
         "return [output_grad * node.inputs[1], output_grad * node.inputs[0] * -1]"),
    )  # fmt: skip
    report = vz.diagnose(*graph599(ad))
    stepper = report.step()
    (k,) = stepper.failures  # one failing step, drawn red: where the wrong partial shows
    assert stepper.step == k + 1  # and the stepper opens there
    assert stepper.trace.steps[k].label == "x₂" or stepper.trace.steps[k].node.name == "x2"
    assert "the vjp of op 'Mul' disagrees with central differences" in stepper.failures[k]
    assert "should be" in stepper.failures[k]


def test_not_a_graph():
    with pytest.raises(
        vz.errors.ArgumentTypeError, match="not a node of a CSE 599W-, needle- or micrograd-style"
    ):
        vz.diagnose(3.0, [])


def _599w_final_problem(ad):
    x1, x2 = ad.Variable("x1"), ad.Variable("x2")
    y = x1 * x2 + x1
    report = vz.diagnose(y, [x1, x2], {x1: np.array([2.0, -1.0]), x2: np.array([3.0, 0.5])})
    return [p for p in report.problems if p.kind == "gradient"]


def test_gradients_returned_in_the_wrong_order_are_named_as_such():
    ad = engine(
        "student599", "s599_order",
        ("return [grad_of[n] for n in node_list]", "return [grad_of[n] for n in node_list][::-1]"),
    )  # fmt: skip
    problems = _599w_final_problem(ad)
    assert problems and "returns the gradients in another order than the list it is given" in (
        problems[0].message
    ), problems
    assert "entry 1 is the gradient of x2 (v₂)" in problems[0].message


def test_partials_kept_across_calls_are_named_as_such():
    ad = engine(
        "student599", "s599_kept",
        ("def gradients(output_node, node_list):\n    grads_list = {output_node: "
         "[oneslike_op(output_node)]}",
         "def gradients(output_node, node_list, grads_list={}):\n    grads_list.setdefault("
         "output_node, []).append(oneslike_op(output_node))"),
    )  # fmt: skip
    problems = _599w_final_problem(ad)
    assert problems and "two calls of gradients() give different gradients" in (
        problems[0].message
    ), problems
    assert "not summed" not in problems[0].message


@pytest.mark.parametrize(
    "replacement, blamed",
    [
        # the helper visits a node twice (no visited check): the helper holds the bug
        (("    if node in visited:\n        return\n", ""), "topo_sort_dfs"),
        # find_topo_sort itself lists the output again: find_topo_sort holds it
        (("    return order\n", "    return order + [node_list[0]]\n"), "find_topo_sort"),
    ],
)
def test_the_function_holding_a_topo_sort_bug_is_blamed(replacement, blamed):
    ad = engine("student599", f"s599_topo_{blamed}", replacement)
    x1, x2 = ad.Variable("x1"), ad.Variable("x2")
    y = (x1 * x2 + x1) * x2
    report = vz.diagnose(y, [x1, x2], {x1: np.array([2.0]), x2: np.array([3.0])})
    topo = [p for p in report.problems if p.kind == "topo_sort"]
    assert topo and topo[0].op == blamed, report
    function = getattr(ad, blamed)
    assert topo[0].where.endswith(f":{function.__code__.co_firstlineno}"), topo[0]
    if blamed == "topo_sort_dfs":
        assert topo[0].message.startswith("topo_sort_dfs (called by find_topo_sort) lists")
