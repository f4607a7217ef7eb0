"""The checks of :func:`vizad.diagnose`, the same for every engine style.

From the output back (reverse topological order), each op's gradient rule alone at the node's
values, against central differences of the student's own ``compute`` (gradcheck's
:func:`~vizad.gradcheck.numerical_vjp`); then the student's topological order; then, when every
rule is right, the final gradients against central differences of the whole graph. A
:class:`Checker` subclass per style (``autodiff_style``, ``needle_style``, ``micrograd_style``)
says how to read that style's graph (the methods of :class:`~.engine.StudentEngine`) and what
the student's rules and engine give (``rule_gradients``, ``final_gradients``).
"""

from __future__ import annotations

import numpy as np

from ..numerical import numerical_vjp
from .engine import StudentEngine
from .hints import close, hint, shown, student_frame
from .report import Problem

__all__ = ["Checker", "central"]


def central(fn, xs: list[np.ndarray], w) -> list[np.ndarray]:
    """Σ w ⊙ ∂fn/∂xs[i] for each i (∂ Σ fn without ``w``), by gradcheck's central differences
    of the student's ``fn``."""
    return numerical_vjp(lambda args: np.asarray(fn(args)), xs, w)


class Checker(StudentEngine):
    """Checks a student's engine on the graph of one output. A subclass, besides reading its
    style, gives ``rule_gradients(node, w)`` (the values the student's rule gives for the
    output gradient w) and ``final_gradients(y, wrt, order)`` (the gradients the student's
    engine gives; a Problem when it raised; None, with a note, when it cannot be checked)."""

    def check(self, y, wrt: list, rng: np.random.Generator) -> tuple[list[Problem], int]:
        """The problems found on the graph of ``y``, and how many op rules were checked."""
        problems: list[Problem] = []
        order = self.order(y)
        crashed = self.evaluate(order, problems)
        rules = 0
        if not crashed:
            for node in reversed(order):
                if self.is_leaf(node):
                    continue
                rules += 1
                problems.extend(self.check_rule(node, rng))
            problems.extend(self.check_topo_sort(y, order))
            if not any(p.kind in ("rule", "compute") for p in problems):
                problems.extend(self.check_gradients(y, wrt, order))
        return problems, rules

    def check_rule(self, node, rng: np.random.Generator) -> list[Problem]:
        """The student's gradient rule at ``node`` for a random cotangent w, against
        Σ w ⊙ ∂compute/∂input by central differences of the student's compute."""
        xs = [np.asarray(self.values[id(i)], dtype=float) for i in self.operands(node)]
        out = np.asarray(self.values[id(node)], dtype=float)
        w = rng.standard_normal(out.shape)
        try:
            got = self.rule_gradients(node, w)
        except Exception as exc:  # the student's code
            return [self.raised(node, "gradient", exc)]
        expected = central(lambda args: self.compute(node, args), xs, w)
        return self.rule_problems(node, got, expected, self.rule_flags(node))

    def rule_problems(self, node, got: list, expected: list, flags: str = "") -> list[Problem]:
        """A problem for each input whose gradient from the rule disagrees, with a hint."""
        problems = []
        scale = max(
            [1.0] + [float(np.max(np.abs(e), initial=0.0)) for e in expected if e is not None]
        )
        for i, (g, e) in enumerate(zip(got, expected)):
            if e is None:
                continue
            if g is not None and close(g, e, scale):
                continue
            others = [o for k, o in enumerate(expected) if k != i]
            why = "is missing (None)" if g is None else hint(g, e, others, flags)
            op = self.op_name(node)
            problems.append(
                Problem(
                    "rule", self.label(node), op, i, e, g, why,
                    f"the gradient rule of {op} at {self.label(node)} for input {i} "
                    f"({self.label(self.inputs(node)[i])}) {why}: expected {shown(e)}, "
                    f"got {shown(g) if g is not None else None}",
                )
            )  # fmt: skip
        return problems

    def check_topo_sort(self, y, order: list) -> list[Problem]:
        """The student's find_topo_sort against the order's rule: every node once, after its
        inputs (micrograd has none: its order is inside backward())."""
        find = getattr(self.module, "find_topo_sort", None)
        if find is None:
            if self.module is not None:
                self.notes.append("no find_topo_sort in the engine's module: order not checked")
            return []
        try:
            theirs = list(find([y]))
        except Exception as exc:
            return [_topo_problem(f"find_topo_sort raised {exc!r}{student_frame(exc)}", "")]
        ids = [id(n) for n in theirs]
        if len(set(ids)) != len(ids):
            return [_topo_problem("find_topo_sort lists a node more than once", "")]
        missing = {id(n) for n in order} - set(ids)
        if missing:
            name = next(self.label(n) for n in order if id(n) in missing)
            text = f"find_topo_sort leaves out {name} (and {len(missing) - 1} more)"
            return [_topo_problem(text, name)]
        position = {id(n): k for k, n in enumerate(theirs)}
        for node in theirs:
            for x in self.inputs(node):
                if position[id(x)] > position[id(node)]:
                    name = self.label(node)
                    text = f"find_topo_sort puts {name} before its input {self.label(x)}"
                    return [_topo_problem(text, name)]
        return []

    def check_gradients(self, y, wrt: list, order: list) -> list[Problem]:
        """The final gradients the student's engine gives, against central differences of
        the whole graph (the student's compute, node by node)."""
        got = self.final_gradients(y, wrt, order)
        if got is None:  # not checked: a note says why
            return []
        if isinstance(got, Problem):
            return [got]
        leaves = {id(n): self.values[id(n)] for n in order if self.is_leaf(n)}

        def forward(args):
            return self.run([y], {**leaves, **{id(x): a for x, a in zip(wrt, args)}})[0]

        xs = [np.asarray(self.values[id(x)], dtype=float) for x in wrt]
        expected = [self.number(e) for e in central(forward, xs, None)]
        return self.final_problems(wrt, got, expected, order)

    def final_problems(self, wrt: list, got: list, expected: list, order: list) -> list[Problem]:
        """A problem for each final gradient that disagrees, naming the nodes whose partial
        adjoints must be summed (every rule being right, that is the likely slip)."""
        consumers: dict[int, int] = {}
        for node in order:
            for x in self.inputs(node):
                consumers[id(x)] = consumers.get(id(x), 0) + 1
        problems = []
        scale = max([1.0] + [float(np.max(np.abs(np.asarray(e)), initial=0.0)) for e in expected])
        for k, (x, g, e) in enumerate(zip(wrt, got, expected)):
            if g is not None and close(g, e, scale):
                continue
            used = consumers.get(id(x), 0)
            shared = [self.label(n) for n in order if consumers.get(id(n), 0) > 1]
            if shared:
                why = (
                    "every op rule is right, so the adjoints are not summed: "
                    f"{', '.join(shared[:3])} feed(s) several consumers, and a node's adjoint is "
                    "the sum of the partial adjoints from all of them (node_to_output_grads_list)"
                )
            else:
                why = "every op rule is right: look at how gradients() walks the graph"
            problems.append(
                Problem(
                    "gradient", self.label(x), "gradients", k, e, g, why,
                    f"the gradient with respect to {self.label(x)} (read by {used} node(s)) is "
                    f"{shown(g) if g is not None else None}, expected {shown(e)}: {why}",
                )
            )  # fmt: skip
        return problems


def _topo_problem(message: str, node: str) -> Problem:
    return Problem(
        "topo_sort", node, "find_topo_sort", None, None, None,
        "a node must come after all of its inputs (post-order: append a node after visiting "
        "its inputs)", message,
    )  # fmt: skip
