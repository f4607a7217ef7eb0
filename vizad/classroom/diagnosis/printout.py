"""The CSE 599W notes' debugging printout: for each node of a 599W-style graph, in the order
the student's ``gradients()`` visits it, its ``node_to_output_grads_list`` (the partial
adjoints it received), the summed ``grad`` and the ``input_grads`` its op's gradient rule
returns, with their values — the student's own reverse pass, recorded (:mod:`.replay`), or
vizad's loop over their rules where theirs cannot run (said on its first line). It returns
the text (no printing: show it, or ``print`` it)."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from types import SimpleNamespace

from vizad.errors import ArgumentTypeError
from vizad.trace.text import escape
from vizad.engine.graph import post_order
from vizad.classroom.diagnosis.autodiff_style import AutodiffChecker
from vizad.classroom.diagnosis.checker import bar
from vizad.classroom.diagnosis.hints import exc_text, shown
from vizad.classroom.diagnosis.replay import replay
from vizad.classroom.diagnosis.walk import Replay, value_text

__all__ = ["adjoint_printout", "Printout"]


@dataclass
class Printout:
    """The printout: one block a node, in reverse topological order."""

    blocks: list[list[str]] = field(default_factory=list)

    def __str__(self) -> str:
        return "\n".join("\n".join(block) for block in self.blocks)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        # one line a line, scrolled sideways where it is wider than the output (a notebook's
        # <pre> wraps mid-word: "v̄₂|→₅")
        return (
            '<pre class="vizad-printout" style="white-space:pre;overflow-x:auto">'
            f"{escape(str(self))}</pre>"
        )


def _engine(y, spaces: list[dict]):
    """Where a 599W engine keeps the notes' functions: ``spaces`` (a module's namespace, a
    notebook's ``globals()``) first, then the module of ``y``'s op class; each function
    where it is found."""
    own = sys.modules.get(type(getattr(y, "op", None)).__module__)
    searched = [*spaces, *([vars(own)] if own is not None else [])]
    needed = ("find_topo_sort", "sum_node_list", "oneslike_op")
    found = {n: next((s[n] for s in searched if callable(s.get(n))), None) for n in needed}
    module = SimpleNamespace(**found)
    if not all(found.values()):
        raise ArgumentTypeError(
            f"adjoint_printout: {type(y).__name__} is not a node of a CSE 599W-style engine "
            f"(its op's module must define {', '.join(needed)})"
        )
    return module


def adjoint_printout(y, feed: dict | None = None, engine=None) -> Printout:
    """The notes' printout of reverse mode on ``y`` (a 599W-style node), with the values of
    every node under ``feed`` (placeholder → array).

    It is the student's own ``gradients()`` as it ran (:func:`~.replay.replay` records it):
    for each node in the order their code visits it, ``node_to_output_grads_list[node]`` as
    their code held it, the ``grad`` it passed to the rule and the ``input_grads`` the rule
    returned, each named as the lecture names it (v̄₂→₅) — and, under a step, what went wrong
    there (an adjoint used before all its partial adjoints arrived, a partial adjoint
    replaced). Where their ``gradients()`` cannot be run (none found, no feed, it raised
    before any rule ran), it is vizad's loop over their rules, and its first line says so.
    ``engine`` (a module, or a notebook's ``globals()``) is where to find ``gradients`` and
    the notes' functions when the module of ``y``'s op does not hold them."""
    spaces = _spaces(engine)
    why = "no feed was given" if feed is None else ""
    if feed is not None:
        found = replay(y, _leaves(y), feed, spaces=spaces)
        if found.steps:
            return _from_replay(found)
        why = (found.notes or ["the recording is empty"])[0]
    ad = _engine(y, spaces)
    out = _vizads_loop(ad, y, feed)
    out.blocks.insert(0, [f"(vizad's loop over your rules, not your gradients(): {why})"])
    return out


def _spaces(engine) -> list[dict]:
    """The namespaces ``engine`` gives (a module's, a dict), first to search."""
    if engine is None:
        return []
    return [engine if isinstance(engine, dict) else vars(engine)]


def _leaves(y) -> list:
    """The inputs of the graph of ``y``, in post-order."""
    return [n for n in post_order([y], lambda n: list(n.inputs)) if not n.inputs]


def _from_replay(found: Replay) -> Printout:
    """The printout of the student's own reverse pass."""
    out = Printout()
    for step in found.steps:
        node = f"{step.label} = {step.defined}" if step.defined else step.label
        listed = (
            "(not found among gradients()' local variables)"
            if step.listed is None
            else f"[{', '.join(f'{n} = {value_text(v)}' for n, v in step.listed)}]"
        )
        block = [
            f"{step.k}. node {node}",
            f"   node_to_output_grads_list[{step.label}]: {listed}",
            f"   grad = sum_node_list(…): {bar(step.label)} = {value_text(step.used)}",
        ]
        if step.gave:
            op = step.op or "its op"
            gave = ", ".join(f"{n} = {value_text(v)}" for n, v in step.gave)
            block.append(f"   input_grads = {op}.gradient(node, grad): [{gave}]")
        else:
            block.append("   input_grads: none (an input of the graph)")
        block += [f"   ⚠ {m}" for m in step.marks]
        out.blocks.append(block)
    if found.causes:
        out.blocks.append([f"cause: {c}" for c in found.causes])
    out.blocks.append([f"note: {n}" for n in found.notes] if found.notes else [])
    return out


def _vizads_loop(ad, y, feed) -> Printout:
    """The notes' loop run by vizad over the engine's rules (names, and values with a feed)."""
    order = list(reversed(ad.find_topo_sort([y])))
    lists = {id(y): [ad.oneslike_op(y)]}
    steps = []
    for node in order:
        partials = lists.get(id(node), [])
        grad = ad.sum_node_list(partials) if partials else None
        try:
            input_grads = list(node.op.gradient(node, grad)) if node.inputs and grad else []
        except Exception as exc:  # noqa: BLE001 - the student's rule (a blank): said, skipped
            input_grads = [exc]
        for x, g in zip(node.inputs, input_grads):
            if not isinstance(g, BaseException):
                lists.setdefault(id(x), []).append(g)
        steps.append((node, partials, grad, input_grads))
    value = _values(steps, feed, y)
    out = Printout()
    for k, (node, partials, grad, input_grads) in enumerate(steps, 1):
        out.blocks.append([
            f"{k}. node {node.name}",
            f"   node_to_output_grads_list: [{', '.join(value(p) for p in partials)}]",
            f"   grad = sum_node_list(…): {value(grad) if grad is not None else 'None'}",
            f"   input_grads = {type(node.op).__name__}.gradient(node, grad): "
            f"[{', '.join(value(g) for g in input_grads)}]" if node.inputs
            else "   input_grads: none (an input of the graph)",
        ])  # fmt: skip
    return out


def _values(steps, feed, y):
    """name = value of a node (the name alone without a feed), evaluated by the engine's own
    compute (as diagnose evaluates)."""
    found: dict[int, object] = {}
    if feed is not None:
        checker = AutodiffChecker(y, feed)
        checker.evaluate(checker.order(y), [])
        found = dict(checker.values)
        for _, ps, g, gs in steps:
            for n in [*ps, g, *gs]:
                if n is not None and not isinstance(n, BaseException) and id(n) not in found:
                    try:
                        checker.run([n], found)
                    except Exception:  # noqa: BLE001 - the engine's compute: name alone
                        continue

    def value(node) -> str:
        if isinstance(node, BaseException):
            return f"raised {exc_text(node)}"
        name = getattr(node, "name", type(node).__name__)
        return f"{name} = {shown(found[id(node)])}" if id(node) in found else str(name)

    return value
