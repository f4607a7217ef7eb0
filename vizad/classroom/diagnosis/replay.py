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
from dataclasses import dataclass
from typing import Any

import numpy as np

from vizad.errors import ArgumentTypeError
from vizad.classroom.diagnosis.autodiff_style import AutodiffChecker
from vizad.classroom.diagnosis.checker import bar
from vizad.classroom.diagnosis.hints import exc_text
from vizad.classroom.diagnosis.micrograd_replay import replay_micrograd
from vizad.classroom.diagnosis.micrograd_style import MicrogradChecker
from vizad.classroom.diagnosis.walk import (
    Replay,
    Step,
    causes,
    right_adjoints,
    right_order,
    value_text,
)

__all__ = ["replay", "Replay", "Step", "record", "value_text"]


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
    steps, first = [], None
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
    found = causes(steps)
    if isinstance(returned, BaseException):
        notes.append(f"gradients() raised {exc_text(returned)}: the replay stops there")
    elif isinstance(returned, (list, tuple)):
        final = [(checker.label(x), value(g)) for x, g in zip(wrt, returned)]
    return Replay("CSE 599W", steps, right_order(checker, adjoints), found, first, final, notes)


def _partial(given: dict, partial, node, checker) -> str:
    """The name of a partial adjoint in ``node``'s list: v̄ᵢ→ⱼ, or the seed (what no rule
    gave: the output's oneslike)."""
    if (id(partial), id(node)) in given:
        return given[id(partial), id(node)][1]
    return f"{bar(checker.label(node))} (the seed)"
