"""Reading a micrograd-style engine (Karpathy's micrograd, as in
:mod:`vizad.classroom.courses.micrograd`) for :func:`vizad.diagnose`.

Its values have ``_prev`` (a set of children), ``_op`` (the op's text), ``data``, ``grad`` and
``_backward()`` (one node's local step, adding to its children's ``grad``); ``backward()``
runs them all. There is no separate compute: an op is known by its ``_op`` text (micrograd's
``+ * **n tanh exp ReLU``, and ``log``, ``sigmoid`` …), and an op of another text is a check
that cannot run, reported as such. The children's order is read from the ``_backward``
closure (micrograd's ``self`` and ``other``), so reports are the same on every run.

A rule is checked by running the node's ``_backward()`` alone twice, from two starting grads:
what it adds is its partial adjoint, and a grad that ends the same whatever it started from
was assigned (``=``) instead of added to (``+=``): an accumulation bug, explained as one
(``a + a`` and ``a * a`` read ``a`` twice and lose a partial adjoint).
"""

from __future__ import annotations

import math
import re

import numpy as np

from vizad.classroom.courses.foreign_eager import closure_name, micrograd_children
from vizad.classroom.diagnosis.checker import Checker, Probe
from vizad.classroom.diagnosis.engine import location
from vizad.classroom.diagnosis.hints import exc_text, hint
from vizad.classroom.diagnosis.known_ops import Known, Words, candidate_hint, known_op, reference
from vizad.classroom.diagnosis.report import Problem

__all__ = ["MicrogradChecker"]

#: micrograd's op texts (and common additions) by family.
_FAMILIES = {
    "+": "add",
    "*": "mul",
    "tanh": "tanh",
    "exp": "exp",
    "ReLU": "relu",
    "relu": "relu",
    "log": "log",
    "sigmoid": "sigmoid",
    "sin": "sin",
    "cos": "cos",
}

WORDS = Words(
    grad="out.grad",
    output="out.data",
    inputs=("self", "other"),
    const="other",
    rule="_backward",
    walk="backward()",
    partials="+= in every _backward",
)

#: A child's grad before a probing run of _backward (never shown: two runs are compared).
_START = 0.375


def _text(node) -> str:
    return str(getattr(node, "_op", "") or "")


class MicrogradChecker(Checker):
    """Checks a micrograd-style engine: each node's _backward() and backward()."""

    style = "micrograd"
    words = WORDS
    sorts = False

    @staticmethod
    def reads(y) -> bool:
        return hasattr(y, "_prev") and hasattr(y, "_backward") and hasattr(y, "data")

    def classes(self) -> list[type]:
        return [type(self.graph[-1])]

    def inputs(self, node) -> list:
        """The children in order: as ``self``, ``other`` in the ``_backward`` closure (a
        vizad node's inputs), then by label and data (never by id: the same on every run)."""
        return micrograd_children(node)

    def operands(self, node) -> list:
        """The operands in order: micrograd's _prev is a set (a·a has one child)."""
        known = self.known(node)
        children = self.inputs(node)
        if known is not None and known.family in ("add", "mul") and len(children) == 1:
            return children * 2
        return children

    def name(self, node) -> str:
        return str(getattr(node, "label", "") or "")

    def numbered(self, node, k: int) -> str:
        """A Value by its label when it has one (``a``, ``L``: micrograd's lectures label
        what they draw), else vₖ."""
        return self.name(node) or super().numbered(node, k)

    def describe(self, node, k: int) -> str:
        data = f"{float(node.data):.6g}"
        return f"Value(data={data})" if not _text(node) else f"{_text(node)!r} (data={data})"

    def op_name(self, node) -> str:
        return repr(_text(node))

    def known(self, node) -> Known | None:
        text = _text(node)
        power = re.fullmatch(r"\*\*(-?[\d.]+(?:e-?\d+)?)", text)
        if power:
            return known_op("power", {"n": float(power.group(1))}, WORDS, 1)
        arity = 2 if _FAMILIES.get(text) in ("add", "mul") else len(self.inputs(node))
        return known_op(_FAMILIES.get(text), {}, WORDS, arity)

    def rule(self, node):
        return getattr(node, "_backward", None)

    def number(self, value) -> float:
        return float(value)

    def stored(self, node) -> float:
        return float(node.data)

    def compute(self, node, args: list):
        return reference(self.known(node), args)

    def _run_backward(self, node, children, w: float, start: float) -> dict[int, float]:
        """The children's grads after the node's ``_backward()`` alone, from ``out.grad`` =
        ``w`` and every child's grad at ``start`` (every grad restored afterwards)."""
        saved = [(n, n.grad) for n in [node, *children]]
        try:
            node.grad = w
            for c in children:
                c.grad = start
            node._backward()
            return {id(c): float(c.grad) for c in children}
        finally:
            for n, g in saved:
                n.grad = g

    def check_rule(self, node, rng) -> list[Problem]:
        """The node's ``_backward()`` alone, for a random output grad w, run from two
        starting grads of its children: what it adds against central differences of the op,
        and whether it adds at all."""
        known = self.known(node)
        op, label = self.op_name(node), self.label(node)
        if known is None:
            why = (
                "diagnose does not know what this op computes (micrograd's are + * **n tanh "
                "exp ReLU; also log, sigmoid, sin, cos), so its _backward could not be "
                "checked: write it with those ops, or give it one of those _op texts"
            )
            return [
                Problem(
                    "unchecked", label, op, None, None, None, why,
                    f"op {op} at {label}: {why}", where=location(self.rule(node)),
                )
            ]  # fmt: skip
        operands, children = self.operands(node), self.inputs(node)
        w = float(rng.standard_normal())
        try:
            first = self._run_backward(node, children, w, 0.0)
            second = self._run_backward(node, children, w, _START)
        except Exception as exc:  # the student's code
            return [self.raised(node, "_backward", exc)]
        xs = [np.asarray(self.values[id(c)], dtype=float) for c in operands]
        probe = Probe(lambda a: self.compute(node, a), ())
        numeric = probe.vjp(xs, np.asarray(w))
        expected: dict[int, float] = {}
        kinked: set[int] = set()
        for k, (c, e) in enumerate(zip(operands, numeric.gradients)):
            expected[id(c)] = expected.get(id(c), 0.0) + float(e)
            if any(j == k for j, _, _ in numeric.not_settled):
                kinked.add(id(c))
        problems = self.unsettled(node, numeric, probe)
        for i, c in enumerate(children):
            added, e = first[id(c)], expected[id(c)]
            assigns = _same(second[id(c)], added) and not _same(second[id(c)] - _START, added)
            where = location(self.rule(node), f"{closure_name(node, c)}.grad")
            if assigns:
                problems.append(self.assign_problem(node, i, c, added, e, where, id(c) in kinked))
                continue
            if id(c) in kinked or _same(second[id(c)] - _START, e) or not math.isfinite(e):
                continue
            got = second[id(c)] - _START
            others = [expected[id(o)] for o in children if o is not c]
            why = None if not _same(got, added) else self.candidate(known, node, i, got, e, w)
            if why is None:
                why = (
                    "changes with the grad it adds to: add the partial adjoint (+=) and nothing "
                    "else"
                    if not _same(got, added)
                    else hint(np.asarray(got), np.asarray(e), [np.asarray(o) for o in others])
                )
            problems.append(
                Problem(
                    "rule", label, op, i, e, got, why,
                    f"the _backward of {op} at {label} for input {i} ({self.label(c)}) {why}: "
                    f"expected {e:.6g}, got {got:.6g} ({where})",
                    where=where,
                )
            )  # fmt: skip
        return problems

    def candidate(self, known: Known, node, i: int, got: float, e: float, w: float):
        """The op-aware hint for a wrong partial adjoint (tanh from its input …), or None."""
        xs = [np.asarray(self.values[id(c)], dtype=float) for c in self.operands(node)]
        out = np.asarray(self.values[id(node)], dtype=float)
        return candidate_hint(known, xs, out, np.asarray(w), i, np.asarray(got), np.asarray(e))

    def assign_problem(self, node, i, child, added, e, where, kinked) -> Problem:
        """The problem of a _backward that assigns a child's grad instead of adding to it."""
        op, label, name = self.op_name(node), self.label(node), self.label(child)
        twice = sum(1 for x in self.operands(node) if x is child) > 1
        if twice:
            why = (
                f"assigns the grad of {name} (=) instead of adding to it (+=): {label} reads "
                f"{name} twice, so one of its two partial adjoints is lost"
            )
            text = f"{why} (its grad ends at {added:.6g} where the two add up to {e:.6g})"
        elif kinked or _same(added, e):
            why = (
                "assigns instead of adding (+=): right here, but a value read by several "
                "nodes keeps only the last partial adjoint it is given"
            )
            text = why
        else:
            why = "assigns instead of adding (+=), and the value it assigns is wrong"
            text = f"{why}: expected {e:.6g} added, got its grad set to {added:.6g}"
        return Problem(
            "accumulate", label, op, i, e, added, why,
            f"the _backward of {op} at {label} for input {i} ({name}) {text} ({where})",
            where=where,
        )  # fmt: skip

    def final_gradients(self, y, wrt, order):
        """The grads ``backward()`` leaves on ``wrt``, every grad starting at 0."""
        return self.backward_grads(y, order, wrt, float, zero=0.0)

    def final_hint(self, y, wrt, order, expected, got=(), scale=1.0) -> str:
        """With every _backward right, what backward() does wrong: the output's grad not set
        to 1, or the _backward calls in another order than reverse topological."""
        saved = [(n, n.grad) for n in order]
        try:
            for n in order:
                n.grad = 0.0
            y.grad = 1.0
            for n in reversed(order):
                n._backward()
            ours = [float(x.grad) for x in wrt]
            for n in order:
                n.grad = 0.0
            y.backward()
            seeded = float(y.grad)
        except Exception as exc:  # the student's code: said by the check itself
            return f"backward() raised {exc_text(exc)}"
        finally:
            for n, g in saved:
                n.grad = g
        if not all(_same(a, b) for a, b in zip(ours, expected)):
            return super().final_hint(y, wrt, order, expected, got, scale)
        if not _same(seeded, 1.0):
            return (
                "every _backward is right, but backward() leaves the output's grad at "
                f"{seeded:.6g}: set self.grad = 1.0 before calling the _backward of each node"
            )
        return (
            "every _backward is right and gives these gradients when called in reverse "
            "topological order: backward() calls them in another order (build topo by a "
            "post-order depth-first search, then call v._backward() for v in reversed(topo))"
        )


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-6)
