"""Mutation check: for every registered op, a deliberately wrong vjp and a deliberately wrong
jvp must be caught — the vjp by ``trace.check()`` and by ``gradcheck`` with default settings,
the jvp by ``trace.check()`` — and the correct op must raise no alarm over its cases."""

import pytest

import vizad as vz
from vizad.engine import tree
from opcases import all_cases, sample_inputs
from vizad.trace.check import STOP_GRADIENT

# A stop-gradient's derivative is zero on purpose (its forward is the identity): neither
# central differences nor check() can judge its rules, and check() skips it saying so
# (tests/test_check_false_alarms.py); every other registered op is mutated here.
CASES = [(name, case) for name, case in all_cases() if name not in STOP_GRADIENT]
FIRST_CASE = {}
for _name, _case in CASES:
    FIRST_CASE.setdefault(_name, _case)


class _Perturb(vz.Op):
    """v ↦ 1.1 v + 0.05, leaf by leaf: what a wrong rule returns instead of the right one."""

    name, arity = "perturb", 1

    def compute(self, value):
        return tree.tree_map(lambda v: v * 1.1 + 0.05, value)

    def infer_shape(self, shapes, attrs):
        return shapes[0]


_perturb = _Perturb()


class Mutated(vz.Op):
    """``op`` with its vjp (or jvp) made wrong; compute and shapes are the op's own."""

    def __init__(self, op: vz.Op, rule: str):
        self.op, self.rule = op, rule
        self.name = f"{rule}_mutant_of_{op.name}"

    def compute(self, *values, **attrs):
        return self.op.compute(*values, **attrs)

    def infer_shape(self, shapes, attrs):
        return self.op.infer_shape(shapes, attrs)

    def vjp(self, node, adjoint):
        grads = self.op.vjp(node, adjoint)
        if self.rule != "vjp":
            return grads
        return [
            _perturb(g if g is not None else vz.ops.zeros_like(x))
            for g, x in zip(grads, node.inputs)
        ]

    def jvp(self, node, tangents):
        t = self.op.jvp(node, tangents)
        if self.rule != "jvp":
            return t
        return _perturb(t if t is not None else vz.ops.zeros_like(node))


def _setup(name, case, rule=None):
    xs = [vz.Variable(f"x{k}", shape=s) for k, s in enumerate(case.shapes)]
    y = case.build(*xs)
    target = [n for n in vz.topo_sort(y) if n.op.name == name][-1]
    if rule is not None:
        target = Mutated(target.op, rule)(*target.inputs, **dict(target.attrs))
    feed = dict(zip(xs, sample_inputs(case, seed=3)))
    return target, xs, feed


@pytest.mark.parametrize("name", sorted(FIRST_CASE))
def test_a_wrong_vjp_is_caught(name):
    node, xs, feed = _setup(name, FIRST_CASE[name], "vjp")
    failures = vz.trace_reverse(node, xs, feed).check()
    assert [(f.op, f.rule) for f in failures] == [(node.op.name, "vjp")]
    assert not vz.gradcheck(node, xs, feed, raise_on_failure=False).ok


@pytest.mark.parametrize("name", sorted(FIRST_CASE))
def test_a_wrong_jvp_is_caught(name):
    node, xs, feed = _setup(name, FIRST_CASE[name], "jvp")
    failures = vz.trace_reverse(node, xs, feed).check()
    assert [(f.op, f.rule) for f in failures] == [(node.op.name, "jvp")]
    assert vz.gradcheck(node, xs, feed).ok  # its vjp is the right one


@pytest.mark.parametrize("name,case", CASES, ids=[str(c) for _, c in CASES])
def test_no_false_alarm_on_the_correct_op(name, case):
    node, xs, feed = _setup(name, case)
    assert vz.trace_reverse(node, xs, feed).check() == []
    assert vz.gradcheck(node, xs, feed).ok


@pytest.mark.slow_family  # 300 random graphs, each checked against central differences
@pytest.mark.parametrize("start", range(0, 300, 50), ids=lambda s: f"seeds-{s}-{s + 49}")
def test_no_false_alarm_over_random_graphs(start):
    """The checkers pass every correct graph of the differential test's generator."""
    differential = pytest.importorskip("differential")
    for seed in range(start, start + 50):
        g = differential.make_graph(seed)
        feed = {x: g.values[x] for x in g.inputs}
        report = vz.gradcheck(g.output, g.inputs, feed, raise_on_failure=False)
        assert report.ok, f"seed {seed}:\n{report}"
        failures = vz.trace_reverse(g.output, g.inputs, feed).check()
        assert failures == [], f"seed {seed}: {[f.message for f in failures]}"
