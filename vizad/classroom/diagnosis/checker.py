"""The checks of :func:`vizad.diagnose`, the same for every engine style.

First what each op of a known name computes (:mod:`.known_ops`); then, from the output back
(reverse topological order), each op's gradient rule alone at the node's values, against
central differences of the student's own ``compute`` (:func:`~vizad.engine.numerical.central_vjp`;
entries at a kink are left out as gradcheck leaves them out); then the student's topological
order; then, when every rule is right, the final gradients against central differences of the
whole graph. A check that cannot run is a problem of its own, saying how to make it run: a
report says "nothing wrong" only when everything was checked.

A :class:`Checker` subclass per style (``autodiff_style``, ``needle_style``,
``micrograd_style``) says how to read that style's graph (the methods of
:class:`~.engine.StudentEngine`) and what the student's rules and engine give
(``rule_gradients``, ``final_gradients``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vizad.errors import ArgumentError
from vizad.engine.graph import post_order
from vizad.engine.numerical import NumericVJP, central_vjp
from vizad.classroom.diagnosis.engine import StudentEngine, location
from vizad.classroom.diagnosis.hints import close, exc_text, hint, shown
from vizad.classroom.diagnosis.known_ops import (
    candidate_hint,
    formula,
    raised_hint,
    reference,
    rule_text,
)
from vizad.classroom.diagnosis.report import Problem, grouped

__all__ = ["Checker", "Raised", "Probe", "bar"]


@dataclass
class Raised:
    """A gradient the student's rule built that raised when evaluated."""

    exc: BaseException


class Probe:
    """The student's function of a list of arrays, as central differences call it: a
    call that raises gives NaN (a smaller step is tried) and its first exception is kept."""

    def __init__(self, fn, shape: tuple):
        self.fn, self.shape = fn, shape
        self.exc: BaseException | None = None

    def __call__(self, args: list) -> np.ndarray:
        try:
            return np.asarray(self.fn(args), dtype=float)
        except Exception as exc:  # the student's code, at a point near theirs
            self.exc = self.exc or exc
            return np.full(self.shape, np.nan)

    def vjp(self, xs: list[np.ndarray], w) -> NumericVJP:
        """Σ w ⊙ ∂fn/∂xs[i] for each i (∂ Σ fn without ``w``) by central differences."""
        return central_vjp(self, xs, w)


class Checker(StudentEngine):
    """Checks a student's engine on the graph of one output. A subclass, besides reading its
    style, gives ``rule_gradients(node, w)`` (the values the student's rule gives for the
    output gradient w, a :class:`Raised` for one that raised when evaluated) and
    ``final_gradients(y, wrt, order)`` (the gradients the student's engine gives, or the
    Problem of it raising or not being there)."""

    #: Whether the style has a find_topo_sort of its own (micrograd's is inside backward()).
    sorts = True
    #: Whether two calls of the final gradients must give the same values (gradients()
    #: builds new nodes each call; backward() adds into grad by design).
    repeatable = False
    #: Whether the course's tests compare the exact post-order of find_topo_sort (needle).
    exact_order = False

    def check(self, y, wrt: list, rng: np.random.Generator) -> tuple[list[Problem], int]:
        """The problems found on the graph of ``y``, and how many op rules were checked."""
        problems: list[Problem] = []
        self.wrt = wrt
        order = self.order(y)
        placed = {id(n) for n in order}
        for k, x in enumerate(wrt):
            if id(x) not in placed:
                raise ArgumentError(
                    f"diagnose: wrt[{k}] ({x!r:.60}) is not in the graph of the output "
                    f"{self.label(y)}: give nodes the output depends on"
                )
        crashed = self.evaluate(order, problems)
        rules = 0
        if not crashed:
            problems.extend(self.check_computes(order))
            for node in reversed(order):
                if self.is_leaf(node):
                    continue
                rules += 1
                problems.extend(self.check_rule(node, rng))
            if self.sorts:
                problems.extend(self.check_topo_sort(y, order))
            if any(p.kind == "topo_sort" for p in problems):
                self.notes.append(
                    f"the final gradients were not checked: {self.words.walk} walks the order "
                    "find_topo_sort gives, which is wrong"
                )
            elif not any(p.kind in ("rule", "compute", "accumulate") for p in problems):
                problems.extend(self.check_gradients(y, wrt, order))
        return grouped(problems), rules

    # -- what an op computes -------------------------------------------------------------
    def check_computes(self, order: list) -> list[Problem]:
        """Each op of a known name against what that op computes (a rule is checked against
        the student's compute, so a wrong compute is found here or nowhere)."""
        problems = []
        for node in order:
            known = None if self.is_leaf(node) else self.known(node)
            if known is None:
                continue
            args = [np.asarray(self.values[id(x)]) for x in self.operands(node)]
            try:
                with np.errstate(all="ignore"):
                    right = np.asarray(reference(known, args), dtype=float)
                got = np.asarray(self.values[id(node)], dtype=float)
            except (ValueError, TypeError, KeyError):
                continue  # parameters the reference cannot read: the rules are still checked
            scale = max(1.0, float(np.max(np.abs(np.nan_to_num(right)), initial=0.0)))
            if close(got, right, scale) or not np.all(np.isfinite(right)):
                continue
            op, where = self.op_name(node), location(getattr(node.op, "compute", None))
            problems.append(
                Problem(
                    "compute", self.label(node), op, None, right, got,
                    f"does not compute {formula(known)}",
                    f"{op} at {self.label(node)} computes {shown(got)} where {op} gives "
                    f"{formula(known)} = {shown(right)}" + (f" ({where})" if where else ""),
                    where=where,
                )
            )  # fmt: skip
        return problems

    # -- each rule alone -----------------------------------------------------------------
    def check_rule(self, node, rng: np.random.Generator) -> list[Problem]:
        """The student's gradient rule at ``node`` for a random cotangent w, against
        Σ w ⊙ ∂compute/∂input by central differences of the student's compute."""
        xs = [np.asarray(self.values[id(i)], dtype=float) for i in self.operands(node)]
        out = np.asarray(self.values[id(node)], dtype=float)
        w = rng.standard_normal(out.shape)
        probe = Probe(lambda args: self.compute(node, args), out.shape)
        numeric = probe.vjp(xs, w)
        try:
            got = self.rule_gradients(node, w)
        except Exception as exc:  # the student's code
            known = self.known(node)
            why = raised_hint(known, xs, w, numeric.gradients) if known else ""
            return [self.raised(node, "gradient", exc, why)]
        wrong = self.count_problem(node, got)
        if wrong is not None:
            return [wrong]
        problems = self.rule_problems(node, got, numeric, xs, out, w, probe)
        if any(p.kind == "rule" and p.input is not None for p in problems):
            self.seeded(node, problems, xs, probe)
        return problems

    # -- what a wrong rule gives in the lecture's reverse pass ------------------------------
    def seeded(self, node, problems: list[Problem], xs: list, probe: Probe) -> None:
        """Say each wrong partial adjoint of ``node`` as the lecture's reverse pass meets it:
        with the seed v̄ = 1 at the output, the node's adjoint v̄ⱼ (by central differences of
        the student's compute, downstream of the node), what v̄ᵢ→ⱼ should be and what the rule
        gives. The rule is judged at a random output gradient (a seeded adjoint may be zero
        or hide a wrong factor); these are the numbers a student's printout shows. Nothing is
        changed when the adjoint cannot be had (a node of more than 64 numbers, an adjoint
        of zeros, a rule raising)."""
        adjoint = self.adjoint(node)
        if adjoint is None or not np.any(adjoint):
            return
        try:
            got = self.rule_gradients(node, adjoint)
            expected = probe.vjp(xs, adjoint).gradients
        except Exception:  # noqa: BLE001 - the student's rule: its problem is already said
            return
        y = self.graph[-1]
        seed = np.ones(np.shape(self.values[id(y)]))
        head = f"with the seed {bar(self.label(y))} = {_ones(seed)}"
        if node is not y:
            head += f", {bar(self.label(node))} = {shown(adjoint)}"
        for p in problems:
            if p.kind != "rule" or p.input is None or not isinstance(p.got, np.ndarray):
                continue
            g = got[p.input] if isinstance(got, (list, tuple)) else None
            if not isinstance(g, np.ndarray) and not np.isscalar(g):
                continue
            partial = f"{bar(self.label(self.inputs(node)[p.input]))}→{self.label(node)[1:]}"
            said = (
                f"{head}: {partial} should be {shown(expected[p.input])}, "
                f"yours gives {shown(np.asarray(g, dtype=float))}"
            )
            cut = p.message.rfind(": expected ")
            tail = p.message[p.message.rfind(" (") :] if p.where else ""
            p.message = p.message[:cut] + ": " + said + tail
            p.expected, p.got = expected[p.input], np.asarray(g, dtype=float)

    def adjoint(self, node) -> np.ndarray | None:
        """∂y/∂(node's value) by central differences of the student's compute from the node
        down to the output y (the seed: ones of y's shape), or None for a node of more than
        64 numbers or one whose differences do not settle."""
        y = self.graph[-1]
        value = np.asarray(self.values[id(node)], dtype=float)
        if node is y:
            return np.ones_like(value)
        if value.size > 64:
            return None
        leaves = {id(n): self.values[id(n)] for n in self.graph if self.is_leaf(n)}

        def downstream(args):
            return self.run([y], {**leaves, id(node): args[0]})[0]

        numeric = Probe(downstream, np.shape(self.values[id(y)])).vjp([value], None)
        if numeric.not_settled:
            return None
        return np.asarray(numeric.gradients[0], dtype=float)

    def count_problem(self, node, got) -> Problem | None:
        """The problem of a rule that does not give one gradient per input."""
        n = len(self.inputs(node))
        if isinstance(got, (list, tuple)) and len(got) == n:
            return None
        op, where = self.op_name(node), location(self.rule(node), "return")
        if got is None:
            why = f"returns None: return a list with one gradient per input ({n} here)"
        else:
            given = len(got) if isinstance(got, (list, tuple)) else "not a list of"
            why = f"returns {given} gradient(s) for {n} input(s): return one per input"
        return Problem(
            "rule", self.label(node), op, None, None, got, why,
            f"the {self.words.rule} of {op} at {self.label(node)} {why}"
            + (f" ({where})" if where else ""),
            where=where,
        )  # fmt: skip

    def rule_problems(self, node, got: list, numeric: NumericVJP, xs, out, w, probe):
        """A problem for each input whose gradient from the rule disagrees, with a hint."""
        problems = []
        expected = numeric.gradients
        scale = max([1.0] + [_largest(e) for e in expected])
        known = self.known(node)
        unsettled = self.unsettled(node, numeric, probe)
        problems += unsettled
        for i, (g, e) in enumerate(zip(got, expected)):
            where = location(self.rule(node), "return")
            if isinstance(g, Raised):
                why = raised_hint(known, xs, w, expected) if known else ""
                frame, _ = self.frame(g.exc, self.rule(node))
                text = f"builds a gradient that raised {exc_text(g.exc)}{frame}"
                text += f": {why}" if why else ""
                problems.append(self.rule_problem(node, i, e, g.exc, text, where))
                continue
            if g is not None:
                g, e = _settled(g, e, numeric, i)
                if close(g, e, scale):
                    continue
            others = [o for k, o in enumerate(expected) if k != i]
            why = None
            if g is None:
                why = "is missing (None)"
            elif known is not None:
                why = candidate_hint(known, xs, out, w, i, g, e)
            if why is None:
                why = hint(g, e, others, self.rule_flags(node))
                rule = rule_text(known, i) if known is not None else None
                if rule and (why == "wrong values" or why.startswith("off by a factor")):
                    why = f"does not follow {rule}: yours gives other values ({why})"
            problems.append(self.rule_problem(node, i, e, g, why, where))
        return problems

    def rule_problem(self, node, i: int, e, g, why: str, where: str) -> Problem:
        op, label = self.op_name(node), self.label(node)
        got = shown(g) if isinstance(g, np.ndarray) else g
        text = (
            f"the {self.words.rule} of {op} at {label} for input {i} "
            f"({self.label(self.inputs(node)[i])}) {why}"
        )
        if isinstance(g, np.ndarray) or g is None:
            text += f": expected {shown(e)}, got {got}"
        return Problem(
            "rule", label, op, i, e, g, why, text + (f" ({where})" if where else ""), where=where
        )

    def unsettled(self, node, numeric: NumericVJP, probe: Probe) -> list[Problem]:
        """Entries central differences could not measure: a kink is noted and left out, as
        gradcheck leaves it out; the student's compute raising near the point is a problem
        (that gradient could not be checked)."""
        if not numeric.not_settled:
            return []
        op, label = self.op_name(node), self.label(node)
        kinks = sorted({k for k, _, why in numeric.not_settled if why == "kink"})
        if kinks:
            self.notes.append(
                f"{op} at {label} is not differentiable at the point (a kink) for input(s) "
                f"{', '.join(map(str, kinks))}: those entries are not checked, as gradcheck "
                "leaves them out"
            )
        if probe.exc is None:
            if any(why != "kink" for _, _, why in numeric.not_settled):
                self.notes.append(f"central differences did not settle at {label}: not checked")
            return []
        frame, where = self.frame(probe.exc, getattr(node.op, "compute", None))
        why = (
            "the compute raised at a point near this one, so its gradient could not be checked "
            "there: make the compute work for any input near the point (numpy functions give "
            "NaN outside their domain where math's raise)"
        )
        return [
            Problem(
                "unchecked", label, op, None, None, probe.exc, why,
                f"{op} at {label}: {op}'s compute raised {exc_text(probe.exc)}{frame} at a point "
                f"that central differences probe near this one: {why.split(': ', 1)[1]}",
                where=where,
            )
        ]  # fmt: skip

    # -- the topological order -----------------------------------------------------------
    def check_topo_sort(self, y, order: list) -> list[Problem]:
        """The student's find_topo_sort against the order's rule: every node once, after its
        inputs; for needle, the exact post-order its course's tests compare."""
        find = self.function("find_topo_sort")
        if find is None:
            return [
                Problem(
                    "unchecked", self.label(y), "find_topo_sort", None, None, None,
                    "define find_topo_sort(node_list) where your classes are defined (or "
                    "import it there), so that it can be run",
                    f"no find_topo_sort found in {self.searched()}: the topological order was "
                    "not checked; define find_topo_sort(node_list) where your classes are "
                    "defined (or import it there)",
                )
            ]  # fmt: skip
        where = location(find)
        try:
            theirs = list(find([y]))
        except Exception as exc:  # the student's code
            _, at = self.frame(exc, find)
            return [_topo_problem(f"find_topo_sort raised {exc_text(exc)}", "", at)]
        wrong = self.invalid_order(theirs, order)
        if wrong is None:
            if self.exact_order and [id(n) for n in theirs] != [id(n) for n in order]:
                return [self.order_problem(theirs, order, where)]
            return []
        text, name = wrong
        helper = self.faulty_helper(find, y, order)
        if helper is not None:  # the skeleton's helper holds the bug, not find_topo_sort
            text = text.replace("find_topo_sort", "topo_sort_dfs (called by find_topo_sort)", 1)
            problem = _topo_problem(text, name, location(helper))
            problem.op = "topo_sort_dfs"
            return [problem]
        return [_topo_problem(text, name, where)]

    def invalid_order(self, theirs: list, order: list) -> tuple[str, str] | None:
        """(what is wrong, the node) when ``theirs`` is no topological order of ``order``'s
        nodes: a node twice, one left out, or one before its input."""
        ids = [id(n) for n in theirs]
        if len(set(ids)) != len(ids):
            return "find_topo_sort lists a node more than once", ""
        missing = {id(n) for n in order} - set(ids)
        if missing:
            name = next(self.label(n) for n in order if id(n) in missing)
            return f"find_topo_sort leaves out {name} (and {len(missing) - 1} more)", name
        position = {id(n): k for k, n in enumerate(theirs)}
        for node in theirs:
            for x in self.inputs(node):
                if position.get(id(x), -1) > position[id(node)]:
                    name = self.label(node)
                    return f"find_topo_sort puts {name} before its input {self.label(x)}", name
        return None

    def faulty_helper(self, find, y, order: list):
        """The skeleton's ``topo_sort_dfs`` when find_topo_sort calls it and, run alone as
        the skeleton calls it, it already gives a wrong order (else None: the bug is in
        find_topo_sort itself)."""
        code = getattr(find, "__code__", None)
        if code is None or "topo_sort_dfs" not in code.co_names:
            return None
        helper = getattr(find, "__globals__", {}).get("topo_sort_dfs")
        if not callable(helper):
            return None
        visited, alone = set(), []
        try:
            helper(y, visited, alone)
        except Exception:  # noqa: BLE001 - the student's helper: the order's problem says it
            return helper
        return helper if self.invalid_order(alone, order) is not None else None

    def order_problem(self, theirs: list, order: list, where: str) -> Problem:
        """A valid order that is not the post-order depth-first search the course's tests
        compare exactly."""
        k = next(k for k, (a, b) in enumerate(zip(theirs, order)) if a is not b)
        backwards = [id(n) for n in theirs] == [
            id(n) for n in _post_order_reversed_inputs(order[-1], self.inputs)
        ]
        how = "visits each node's inputs in reverse" if backwards else "is another order"
        hint_text = (
            "the course's test compares the exact order of a post-order depth-first search "
            "that visits each node's inputs in order (node.inputs[0] first)"
        )
        message = (
            f"find_topo_sort gives a valid topological order, but {how}: position {k + 1} is "
            f"{self.label(theirs[k])} where the post-order depth-first search has "
            f"{self.label(order[k])}; {hint_text}" + (f" ({where})" if where else "")
        )
        return Problem(
            "topo_sort", self.label(theirs[k]), "find_topo_sort", None, None, None,
            hint_text, message, where=where,
        )  # fmt: skip

    # -- the final gradients -------------------------------------------------------------
    def check_gradients(self, y, wrt: list, order: list) -> list[Problem]:
        """The final gradients the student's engine gives, against central differences of
        the whole graph (the student's compute, node by node)."""
        got = self.final_gradients(y, wrt, order)
        if isinstance(got, Problem):
            return [got]
        if self.repeatable:  # a second call must agree (partials kept between calls do not)
            again = self.final_gradients(y, wrt, order)
            if not isinstance(again, Problem):
                got = again
        leaves = {id(n): self.values[id(n)] for n in order if self.is_leaf(n)}

        def forward(args):
            return self.run([y], {**leaves, **{id(x): a for x, a in zip(wrt, args)}})[0]

        xs = [np.asarray(self.values[id(x)], dtype=float) for x in wrt]
        probe = Probe(forward, np.shape(self.values[id(y)]))
        numeric = probe.vjp(xs, None)
        expected = [self.number(e) for e in numeric.gradients]
        return self.final_problems(y, wrt, got, expected, order, numeric)

    def final_problems(self, y, wrt, got, expected, order, numeric) -> list[Problem]:
        """A problem for each final gradient that disagrees, with what is likely wrong."""
        problems = []
        scale = max([1.0] + [float(np.max(np.abs(np.asarray(e)), initial=0.0)) for e in expected])
        why = None
        for k, (x, g, e) in enumerate(zip(wrt, got, expected)):
            if g is not None:
                g, e = _settled(g, e, numeric, k)
                if close(g, e, scale):
                    continue
            why = why or self.final_hint(y, wrt, order, expected, got, scale)
            shown_got = shown(g) if g is not None else None
            problems.append(
                Problem(
                    "gradient", self.label(x), self.words.walk, k, e, g, why,
                    f"the gradient with respect to {self.called(x)} is {shown_got}, expected "
                    f"{shown(e)}: {why}",
                )
            )  # fmt: skip
        return problems

    def final_hint(self, y, wrt, order, expected, got=(), scale=1.0) -> str:
        """Why final gradients are wrong when every rule is right: returned in another order
        than asked, partial adjoints kept across calls and summed again, the partial adjoints
        of a node read several times not summed (or summed too often), or the walk is wrong."""
        swapped = _permutation(got, expected, scale)
        if swapped:
            return (
                f"every op rule is right, but {self.words.walk} returns the gradients in another "
                f"order than the list it is given: entry {swapped[0] + 1} is the gradient of "
                f"{self.called(wrt[swapped[1]])}; return them in node_list's order "
                "([node_to_grad[node] for node in node_list])"
            )
        if self.repeatable:
            again = self.final_gradients(y, wrt, order)
            if not isinstance(again, Problem) and any(
                a is not None and g is not None and not close(a, g, scale)
                for a, g in zip(again, got)
            ):
                return (
                    f"every op rule is right, but two calls of {self.words.walk} give different "
                    "gradients: partial adjoints are kept between calls (a dict or list at "
                    "module level, or a default argument such as node_to_output_grads_list={}) "
                    "and summed again; make a new one in each call"
                )
        reads: dict[int, int] = {}
        for node in order:
            for x in self.inputs(node):
                reads[id(x)] = reads.get(id(x), 0) + 1
        shared = [self.called(n) for n in order if reads.get(id(n), 0) > 1]
        if shared and _too_big(got, expected, scale):
            return (
                "every op rule is right, but the gradients are too large: a partial adjoint is "
                f"summed more than once ({self.words.partials}: append each once, sum once)"
            )
        if shared:
            return (
                "every op rule is right, so the partial adjoints are not summed: "
                f"{', '.join(shared[:3])} {'is' if len(shared) == 1 else 'are'} read more than "
                "once, and a node's adjoint is the sum of the partial adjoints from all of its "
                f"reads ({self.words.partials})"
            )
        return f"every op rule is right: look at how {self.words.walk} walks the graph"


def bar(label: str) -> str:
    """v̄ₖ of a label vₖ."""
    return label[:1] + "\u0304" + label[1:]


def _ones(seed: np.ndarray) -> str:
    """``1`` for a seed of ones (the lecture's v̄ = 1 at every entry)."""
    return "1" if seed.size <= 1 or np.all(seed == 1) else shown(seed)


def _permutation(got, expected, scale: float) -> tuple[int, int] | None:
    """(k, j) when the gradients ``got`` are ``expected`` in another order (entry k is the
    gradient of input j ≠ k), else None."""
    if len(got) < 2 or any(g is None for g in got):
        return None
    used, first = set(), None
    for k, g in enumerate(got):
        j = next((j for j, e in enumerate(expected) if j not in used and _same(g, e, scale)), None)
        if j is None:
            return None
        used.add(j)
        if j != k and first is None:
            first = (k, j)
    return first


def _same(a, b, scale: float) -> bool:
    return np.shape(a) == np.shape(b) and close(a, b, scale)


def _too_big(got, expected, scale: float) -> bool:
    """Whether every wrong gradient is the right one times a factor above 1."""
    factors = []
    for g, e in zip(got, expected):
        if g is None or np.shape(g) != np.shape(e) or close(g, e, scale):
            continue
        g, e = np.asarray(g, dtype=float), np.asarray(e, dtype=float)
        mask = np.abs(e) > 1e-9 * scale
        if not mask.any():
            return False
        factors += list(np.abs(g[mask] / e[mask]))
    return bool(factors) and min(factors) > 1.0 + 1e-6


def _largest(value) -> float:
    """The largest finite magnitude of ``value`` (0 when it has none)."""
    value = np.abs(np.asarray(value, dtype=float))
    return float(np.max(value[np.isfinite(value)], initial=0.0))


def _settled(got, expected, numeric: NumericVJP, k: int) -> tuple:
    """``got`` and ``expected`` without the entries of input ``k`` that central differences
    could not measure (a kink, a compute raising near the point): those are not checked."""
    skipped = [index for j, index, _ in numeric.not_settled if j == k]
    got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    if not skipped or got.shape != expected.shape:
        return got, expected
    got, expected = got.copy(), expected.copy()
    for index in skipped:
        got[index] = expected[index] = 0.0
    return got, expected


def _post_order_reversed_inputs(root, inputs) -> list:
    """The post-order of a depth-first search visiting each node's inputs last first."""
    return post_order([root], lambda n: list(reversed(inputs(n))))


def _topo_problem(message: str, node: str, where: str = "") -> Problem:
    why = (
        "a node must come after all of its inputs (post-order: append a node after visiting "
        "its inputs)"
    )
    return Problem(
        "topo_sort", node, "find_topo_sort", None, None, None, why,
        f"{message}: {why}" + (f" ({where})" if where else ""), where=where,
    )  # fmt: skip
