"""The replay of a micrograd-style ``backward()`` (see :mod:`.replay`): each ``_backward()``
the student's ``backward()`` calls, in its order, with the node's ``grad`` at the call and
what the call did to each child's ``grad``.

Each recorded call runs the node's ``_backward`` twice: once from children's grads of zero,
which gives the partial adjoints it adds (its rule), then from the grads as they were, as the
student's code runs it. A child whose grad then differs from what it held plus its partial
adjoint lost what it held: the rule sets (``=``) where it must add (``+=``). Every ``grad`` and
``_backward`` is restored afterwards."""

from __future__ import annotations

from typing import Any

import numpy as np

from vizad.errors import ArgumentTypeError
from vizad.classroom.diagnosis.checker import bar
from vizad.classroom.diagnosis.hints import exc_text, shown
from vizad.classroom.diagnosis.micrograd_style import MicrogradChecker
from vizad.classroom.diagnosis.walk import (
    Replay,
    Step,
    causes,
    differs,
    right_adjoints,
    right_order,
)

__all__ = ["replay_micrograd"]


def replay_micrograd(checker: MicrogradChecker, y, wrt: list) -> Replay:
    """Run ``y.backward()`` recording each ``_backward()`` call (see the module's docs)."""
    order = checker.order(y)
    checker.evaluate(order, [])
    adjoints = right_adjoints(checker)
    calls: list[tuple[Any, float, list, list, list]] = []
    if not all(hasattr(n, "__dict__") for n in order):  # slots: no _backward to record
        raise ArgumentTypeError(
            f"replay: {type(y).__name__} keeps no _backward of its own per node (its class has "
            "__slots__, as vizad's own micrograd Value over eager nodes): replay records a "
            "student's engine, whose backward() calls each node's _backward()"
        )
    saved = [(n, n.grad, vars(n).get("_backward", _NONE)) for n in order]
    notes: list[str] = []
    final: list[tuple[str, Any]] = []
    try:
        for n in order:
            n.grad = 0.0
            n._backward = _recorder(n, n._backward, checker.inputs(n), calls)
        try:
            y.backward()
            final = [(checker.label(x), float(x.grad)) for x in wrt]
        except Exception as exc:  # noqa: BLE001 - the student's code: said, replay stops there
            notes.append(f"backward() raised {exc_text(exc)}: the replay stops there")
    finally:
        for n, grad, backward in saved:
            n.grad = grad
            if backward is _NONE:
                vars(n).pop("_backward", None)
            else:
                n._backward = backward
    steps = _steps(checker, calls, adjoints)
    first = next((s.k for s in steps if s.wrong), None)
    return Replay(
        "micrograd", steps, right_order(checker, adjoints), causes(steps), first, final, notes
    )


_NONE = object()


def _recorder(node, backward, children: list, calls: list):
    def recorded():
        before = [c.grad for c in children]
        for c in children:
            c.grad = 0.0
        backward()
        gave = [c.grad for c in children]
        for c, b in zip(children, before):
            c.grad = b
        used = node.grad
        backward()
        calls.append((node, used, before, gave, [c.grad for c in children]))

    return recorded


def _steps(checker: MicrogradChecker, calls: list, adjoints: dict) -> list[Step]:
    """The steps, each marked where it used an adjoint too early, lost a grad, or came twice."""
    readers: dict[int, list] = {}
    for n in checker.graph:
        for c in checker.inputs(n):
            readers.setdefault(id(c), []).append(n)
    when: dict[int, list[int]] = {}
    for k, (node, *_rest) in enumerate(calls, 1):
        when.setdefault(id(node), []).append(k)
    steps = []
    for k, (node, used, before, gave, after) in enumerate(calls, 1):
        label = checker.label(node)
        children = checker.inputs(node)
        step = Step(k, label, checker.definitions.get(id(node), ""), used, adjoints.get(id(node)),
                    None, op=checker.op_name(node))  # fmt: skip
        step.gave = [(f"{bar(checker.label(c))}→{_to(label)}", g) for c, g in zip(children, gave)]
        late = [
            (when[id(r)][0], checker.label(r))
            for r in readers.get(id(node), [])
            if id(r) in when and when[id(r)][0] > k
        ]
        if late and checker.inputs(node):
            s, reader = min(late)
            step.marks.append(
                f"{bar(label)} used here before all its partial adjoints arrived: "
                f"{bar(label)}→{_to(reader)} comes at step {s}"
            )
        for c, b, g, a in zip(children, before, gave, after):
            if b != 0 and differs(a, b + g) and not differs(a, g):
                step.marks.append(
                    f"{checker.label(c)}'s grad lost what it held ({shown(np.float64(b))}): it "
                    f"is set to {shown(np.float64(a))} where {shown(np.float64(b))} + "
                    f"{shown(np.float64(g))} = {shown(np.float64(b + g))}"
                )
        if when[id(node)][0] != k:
            step.marks.append(f"{label} visited again (first at step {when[id(node)][0]})")
        steps.append(step)
    return steps


def _to(label: str) -> str:
    """The subscript a partial adjoint's name takes for its reader: ₅ of v₅, a label whole."""
    return label[1:] if label.startswith("v") and label[1:2] in "₀₁₂₃₄₅₆₇₈₉" else label
