"""The student's own reverse pass, recorded and replayed beside the right one.

A wrong gradient with every rule right is a wrong *algorithm*: ``=`` where the partial
adjoints must be added (micrograd's ``self.grad = …``, a 599W ``node_to_output_grads_list[i] =
[g]``), a walk in an order that is not reverse topological (a node's adjoint used before all of
its partial adjoints arrived), a node visited twice (a recursion per path). :func:`replay` runs
the student's own code once, recording what it does:

- CSE 599W style: every call of an op's ``gradient(node, output_grad)`` that the student's
  ``gradients()`` makes, in order — the node visited, the adjoint it passes (``output_grad``),
  ``node_to_output_grads_list[node]`` as their code holds it at that moment (read from the
  caller's local variables) and the partial adjoints the rule returns;
- micrograd style: every ``_backward()`` that the student's ``backward()`` calls, in order —
  the node, its ``grad`` at the call, and what the call did to each child's ``grad`` (run once
  from zeros to know the partial adjoint, then as the student's code runs it, from the grads
  as they were: an ``=`` shows as a grad that lost what it held).

Each step is then set beside the lecture's order (v̄ₙ, v̄ₙ₋₁ … v̄₁) with the right adjoints (central
differences of the student's compute, seed v̄ = 1), and the first adjoint used before all its
partial adjoints arrived is marked. Nothing of the student's objects is left changed: the
patched methods are removed, the grads restored.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vizad.errors import ArgumentTypeError
from vizad.trace.text import escape
from vizad.classroom.diagnosis.autodiff_style import AutodiffChecker
from vizad.classroom.diagnosis.checker import Checker, bar
from vizad.classroom.diagnosis.hints import close, exc_text, shown
from vizad.classroom.diagnosis.micrograd_style import MicrogradChecker

__all__ = ["replay", "Replay", "Step", "record", "value_text"]


@dataclass
class Step:
    """One step of the student's reverse pass: the node visited and what it did."""

    #: 1-based place in the student's order.
    k: int
    #: The node's label (vₖ) and what it is (``SinOp(v₂)``).
    label: str
    defined: str
    #: The adjoint the step used (the student's ``output_grad`` / ``grad`` at the call).
    used: Any
    #: The right adjoint (seed v̄ = 1; None when it could not be had).
    right: Any
    #: The partial adjoints the node's list held at the call: (name, value) (None: unknown).
    listed: list[tuple[str, Any]] | None
    #: What the step gave its inputs: (name v̄ᵢ→ⱼ, value).
    gave: list[tuple[str, Any]] = field(default_factory=list)
    #: What is wrong at this step, in words (empty when nothing is).
    marks: list[str] = field(default_factory=list)
    #: The node's op (its class; micrograd's _op text).
    op: str = ""

    @property
    def wrong(self) -> bool:
        return bool(self.marks)


@dataclass
class Replay:
    """The student's reverse pass step by step beside the lecture's order."""

    style: str
    steps: list[Step]
    #: The lecture's order: (label, right adjoint), v̄ₙ first.
    right: list[tuple[str, Any]]
    #: The causes found, in words (empty when the walk is right).
    causes: list[str]
    #: The first step that used an adjoint before all its partial adjoints arrived (or that
    #: lost one): its k, else None.
    first_wrong: int | None
    #: What the student's code returned or set: (label, value) per node asked for.
    final: list[tuple[str, Any]] = field(default_factory=list)
    #: Said when the recording is partial (the student's code raised …).
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.causes

    def rows(self) -> list[tuple[str, str, str, str]]:
        """One row a step: (yours, its adjoint, the lecture's step, its adjoint), as text."""
        out = []
        for k in range(max(len(self.steps), len(self.right))):
            mine = self.steps[k] if k < len(self.steps) else None
            right = self.right[k] if k < len(self.right) else None
            out.append(
                (
                    f"{mine.k}. {mine.label}" + (" ⚠" if mine.wrong else "") if mine else "",
                    f"{bar(mine.label)} = {value_text(mine.used)}"
                    + (" ✗" if differs(mine.used, mine.right) else "")
                    if mine
                    else "",
                    f"{k + 1}. {right[0]}" if right else "",
                    f"{bar(right[0])} = {value_text(right[1])}" if right else "",
                )
            )
        return out

    def __repr__(self) -> str:
        head = f"replay of a {self.style}-style reverse pass: {len(self.steps)} step(s)"
        lines = [head + ("; the walk is right" if self.ok else "")]
        lines += [f"  cause: {c}" for c in self.causes]
        width = max([len(r[0]) + len(r[1]) for r in self.rows()] + [10]) + 3
        lines.append(f"  {'yours':<{width}}the lecture's order")
        for (a, b, c, d), step in zip(self.rows(), [*self.steps, *[None] * len(self.right)]):
            lines.append(f"  {(a + '  ' + b):<{width}}{c}  {d}".rstrip())
            if step is not None:
                lines += [f"      ⚠ {m}" for m in step.marks]
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        colour = "#009E73" if self.ok else "#c0392b"
        rows = []
        for (a, b, c, d), k in zip(self.rows(), range(len(self.rows()))):
            step = self.steps[k] if k < len(self.steps) else None
            marks = "".join(f"<div>⚠ {escape(m)}</div>" for m in (step.marks if step else []))
            style = " style='background:#fdecea'" if step is not None and step.wrong else ""
            rows.append(
                f"<tr{style}><td>{escape(a)}</td><td>{escape(b)}{marks}</td>"
                f"<td>{escape(c)}</td><td>{escape(d)}</td></tr>"
            )
        causes = "".join(f"<li>{escape(c)}</li>" for c in self.causes)
        notes = "".join(f"<li>{escape(n)}</li>" for n in self.notes)
        return (
            f"<div class='vizad-replay mathjax_ignore tex2jax_ignore' "
            f"style='border-left:4px solid {colour};padding-left:8px'>"
            f"<b>your reverse pass</b> ({escape(self.style)} style), step by step beside the "
            f"lecture's order<ul>{causes}</ul><table><tr><th>yours</th><th>adjoint used</th>"
            f"<th>the lecture's order</th><th>right adjoint</th></tr>{''.join(rows)}</table>"
            f"<ul>{notes}</ul></div>"
        )


def value_text(value) -> str:
    if value is None:
        return "?"
    if isinstance(value, BaseException):
        return f"raised {exc_text(value)}"
    return shown(np.asarray(value, dtype=float))


# -- recording a 599W gradients() ------------------------------------------------------------
@dataclass
class Call:
    """One ``op.gradient(node, output_grad)`` call, as the student's gradients() made it."""

    node: Any
    grad: Any
    listed: list | None
    returned: Any


def record(checker: AutodiffChecker, y, wrt: list) -> tuple[list[Call], Any, str]:
    """The calls of the op rules the student's ``gradients(y, wrt)`` makes, what it returns
    (or the exception it raised) and, when nothing could be recorded, why ("")."""
    gradients = checker.function("gradients")
    if gradients is None:
        return [], None, f"no gradients() found in {checker.searched()}"
    ops = {id(n.op): n.op for n in checker.graph if getattr(n, "op", None) is not None}
    calls: list[Call] = []
    patched = []
    try:
        for op in ops.values():
            patched.append((op, vars(op).get("gradient", _NONE)))
            op.gradient = _recorder(op.gradient, calls, checker)
    except (AttributeError, TypeError):  # an op without an instance dict (__slots__)
        _restore(patched)
        return [], None, "its ops take no attribute, so their calls cannot be recorded"
    try:
        returned = gradients(y, wrt)
    except Exception as exc:  # noqa: BLE001 - the student's code: the replay says it raised
        returned = exc
    finally:
        _restore(patched)
    return calls, returned, ""


_NONE = object()


def _restore(patched: list) -> None:
    for op, before in patched:
        if before is _NONE:
            vars(op).pop("gradient", None)
        else:
            op.gradient = before


def _recorder(rule, calls: list[Call], checker: AutodiffChecker):
    graph = {id(n) for n in checker.graph}

    def gradient(node, output_grad):
        listed = _listed(sys._getframe(1), node, graph)
        returned = rule(node, output_grad)
        calls.append(Call(node, output_grad, listed, returned))
        return returned

    return gradient


def _listed(frame, node, graph: set[int]) -> list | None:
    """``node_to_output_grads_list[node]`` as the caller holds it: the dict of the caller's
    locals whose keys are nodes of the graph and values lists (that name first)."""
    found = frame.f_locals
    candidates = [found.get("node_to_output_grads_list")] + list(found.values())
    for value in candidates:
        if isinstance(value, dict) and value and all(id(k) in graph for k in list(value)[:8]):
            if all(isinstance(v, list) for v in list(value.values())[:8]):
                held = value.get(node)
                return list(held) if held is not None else []
    return None


# -- the replay --------------------------------------------------------------------------------
def replay(y, wrt, feed: dict | None = None, *, spaces: list[dict] = ()) -> Replay:
    """Run the student's reverse pass on the graph of ``y`` (``gradients(y, wrt)`` of a CSE
    599W-style engine, ``y.backward()`` of a micrograd-style one) and replay it beside the
    lecture's order (see the module's docs). ``feed`` gives the placeholders' values (599W);
    ``spaces`` are namespaces to find ``gradients`` in first (a notebook's ``globals()``)."""
    wrt = list(wrt) if isinstance(wrt, (list, tuple)) else [wrt]
    if MicrogradChecker.reads(y):
        from vizad.classroom.diagnosis.micrograd_replay import replay_micrograd

        return replay_micrograd(MicrogradChecker(y, None), y, wrt)
    if not AutodiffChecker.reads(y):
        raise ArgumentTypeError(
            f"replay: {type(y).__name__} is not a node of a CSE 599W- or micrograd-style "
            "engine (expected inputs/op/const_attr or _prev/_op/data/_backward)"
        )
    checker = AutodiffChecker(y, feed)
    checker.spaces[:0] = list(spaces)
    order = checker.order(y)
    problems: list = []
    with np.errstate(all="ignore"):
        if checker.evaluate(order, problems):
            raise ArgumentTypeError(f"replay: the graph does not compute: {problems[0].message}")
        calls, returned, why = record(checker, y, wrt)
        return _replay_599w(checker, y, wrt, calls, returned, why)


#: Graphs of more nodes than this are replayed without the right adjoints (each is central
#: differences of the graph downstream of its node).
RIGHT_UP_TO = 200


def right_adjoints(checker: Checker) -> dict[int, Any]:
    """The right adjoint of each node (seed v̄ = 1), by id; none for a large graph."""
    if len(checker.graph) > RIGHT_UP_TO:
        return {}
    return {id(n): checker.adjoint(n) for n in checker.graph}


def right_order(checker: Checker, adjoints: dict[int, Any]) -> list[tuple[str, Any]]:
    """The lecture's reverse order (v̄ₙ … v̄₁) with each right adjoint: by the numbering,
    highest first (a micrograd label is ordered by its place)."""
    position = {id(n): k for k, n in enumerate(checker.graph)}
    numbers = checker.numbers
    ranked = sorted(checker.graph, key=lambda n: -numbers.get(id(n), position[id(n)]))
    return [(checker.label(n), adjoints.get(id(n))) for n in ranked]


def _replay_599w(checker: AutodiffChecker, y, wrt, calls, returned, why) -> Replay:
    known = dict(checker.values)

    def value(node):
        try:
            return checker.run([node], known)[0]
        except Exception as exc:  # noqa: BLE001 - the student's compute: shown as raised
            return exc

    in_graph = {id(n) for n in checker.graph}
    adjoints = right_adjoints(checker)
    # who gave each partial adjoint: (id(partial node), id(input)) → (step, v̄ᵢ→ⱼ, input) (one
    # node may be the partial of several inputs: AddOp passes output_grad on to both)
    given: dict[tuple[int, int], tuple[int, str, Any]] = {}
    for k, call in enumerate(calls, 1):
        returned_list = call.returned if isinstance(call.returned, (list, tuple)) else []
        for x, g in zip(getattr(call.node, "inputs", []), returned_list):
            if g is not None and id(x) in in_graph:
                name = f"{bar(checker.label(x))}→{checker.label(call.node)[1:]}"
                given[id(g), id(x)] = (k, name, x)
    steps, causes, first = [], [], None
    seen: dict[int, int] = {}
    for k, call in enumerate(calls, 1):
        node = call.node
        if id(node) not in in_graph:
            continue  # a rule of a node the gradients built (a gradient of a gradient)
        label = checker.label(node)
        step = Step(
            k, label, checker.definitions.get(id(node), ""), value(call.grad),
            adjoints.get(id(node)),
            None if call.listed is None else [(_partial(given, p, node, checker), value(p))
                                               for p in call.listed],
            op=checker.op_name(node),
        )  # fmt: skip
        returned_list = call.returned if isinstance(call.returned, (list, tuple)) else []
        step.gave = [
            (f"{bar(checker.label(x))}→{label[1:]}", value(g))
            for x, g in zip(getattr(node, "inputs", []), returned_list)
            if g is not None
        ]
        mine = [(s, name) for s, name, x in given.values() if x is node]
        late = sorted((s, name) for s, name in mine if s > k)
        if late:
            s, name = late[0]
            step.marks.append(
                f"{bar(label)} used here before all its partial adjoints arrived: {name} "
                f"comes at step {s}"
            )
        if call.listed is not None:
            held = {id(p) for p in call.listed}
            lost = sorted((s, name) for ((pid, _), (s, name, x)) in given.items()
                          if x is node and s < k and pid not in held)  # fmt: skip
            if lost:
                step.marks.append(
                    f"{', '.join(n for _, n in lost)} (given at step "
                    f"{', '.join(str(s) for s, _ in lost)}) is not in "
                    f"node_to_output_grads_list[{label}]: replaced, not appended"
                )
        if id(node) in seen:
            step.marks.append(f"{label} visited again (first at step {seen[id(node)]})")
        seen.setdefault(id(node), k)
        if step.wrong and first is None:
            first = k
        steps.append(step)
    notes = [f"the recording is empty: {why}; diagnose says what it can"] if why else []
    final = []
    key = returned.args[0] if isinstance(returned, KeyError) and returned.args else None
    if key is not None and id(key) in in_graph and key is not y:
        label = checker.label(key)  # its list read before anything was put in it
        step = Step(len(calls) + 1, label, checker.definitions.get(id(key), ""), returned,
                    adjoints.get(id(key)), [])  # fmt: skip
        step.marks.append(
            f"{bar(label)} used here before all its partial adjoints arrived: none has "
            f"(gradients() raised KeyError: {label})"
        )
        steps.append(step)
        first = first or step.k
    causes = _causes(steps)
    if isinstance(returned, BaseException):
        notes.append(f"gradients() raised {exc_text(returned)}: the replay stops there")
    elif isinstance(returned, (list, tuple)):
        final = [(checker.label(x), value(g)) for x, g in zip(wrt, returned)]
    return Replay("CSE 599W", steps, right_order(checker, adjoints), causes, first, final, notes)


def _partial(given: dict, partial, node, checker) -> str:
    """The name of a partial adjoint in ``node``'s list: v̄ᵢ→ⱼ, or the seed (what no rule
    gave: the output's oneslike)."""
    if (id(partial), id(node)) in given:
        return given[id(partial), id(node)][1]
    return f"{bar(checker.label(node))} (the seed)"


def _causes(steps: list[Step]) -> list[str]:
    """The causes, in words, from the steps' marks (each kind once, its first step)."""
    out = []
    kinds = (
        ("before all its partial adjoints", "the walk is not in reverse topological order: "
         "a node's adjoint is used before every node that reads it has given its partial "
         "adjoint (walk the nodes in reverse topological order)"),
        ("replaced, not appended", "a partial adjoint replaces the ones before it (= where "
         "they must be added: append to the list, or +=)"),
        ("visited again", "a node is visited more than once (a recursion per path, or a node "
         "listed twice): each node's rule must run once, after its adjoint is complete"),
        ("lost what it held", "a rule sets its inputs' grads (=) where it must add to them "
         "(+=): a node read twice keeps only one of its partial adjoints"),
    )  # fmt: skip
    for words, cause in kinds:
        first = next((s for s in steps for m in s.marks if words in m), None)
        if first is not None:
            out.append(f"{cause} — first at step {first.k} ({first.label})")
    return out


def differs(a, b) -> bool:
    """Whether two adjoints differ beyond round-off (unknown ones never do)."""
    if a is None or b is None or isinstance(a, BaseException) or isinstance(b, BaseException):
        return False
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    scale = max(1.0, float(np.max(np.abs(b), initial=0.0)))
    return a.shape != b.shape or not close(a, b, scale)
