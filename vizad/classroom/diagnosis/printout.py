"""The CSE 599W notes' debugging printout: for each node of a 599W-style graph, in reverse
topological order, its ``node_to_output_grads_list`` (the partial adjoints it received), the
summed ``grad`` and the ``input_grads`` its op's gradient rule returns, with their values.
It runs the engine's own ``find_topo_sort``, ``sum_node_list``, ``oneslike_op``, gradient
rules and ``Executor`` (a student's, or vizad's :mod:`vizad.classroom.courses.autodiff`), as the
notes' ``gradients()`` does, and returns the text (no printing: show it, or ``print`` it)."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from types import SimpleNamespace

from vizad.errors import ArgumentTypeError
from vizad.trace.text import escape
from vizad.classroom.diagnosis.hints import shown

__all__ = ["adjoint_printout", "Printout"]


@dataclass
class Printout:
    """The printout: one block a node, in reverse topological order."""

    blocks: list[list[str]] = field(default_factory=list)

    def __str__(self) -> str:
        return "\n".join("\n".join(block) for block in self.blocks)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        return f'<pre class="vizad-printout">{escape(str(self))}</pre>'


def _engine(y, engine):
    """Where a 599W engine keeps its functions: ``engine`` (a module, or a namespace such as
    a notebook's ``globals()``), else the module of ``y``'s op class."""
    module = (
        engine if engine is not None else sys.modules.get(type(getattr(y, "op", None)).__module__)
    )
    if isinstance(module, dict):
        module = SimpleNamespace(**module)
    needed = ("find_topo_sort", "sum_node_list", "oneslike_op", "Executor")
    if module is None or not all(hasattr(module, n) for n in needed):
        raise ArgumentTypeError(
            f"adjoint_printout: {type(y).__name__} is not a node of a CSE 599W-style engine "
            f"(its op's module must define {', '.join(needed)})"
        )
    return module


def adjoint_printout(y, feed: dict | None = None, engine=None) -> Printout:
    """The notes' printout of reverse mode on ``y`` (a 599W-style node), with the values of
    every node under ``feed`` (placeholder → array; names only without one). ``engine`` gives
    find_topo_sort, sum_node_list, oneslike_op and Executor when the module of ``y``'s op
    does not (ops written in a notebook)."""
    ad = _engine(y, engine)
    order = list(reversed(ad.find_topo_sort([y])))
    lists = {id(y): [ad.oneslike_op(y)]}
    steps = []
    for node in order:
        partials = lists.get(id(node), [])
        grad = ad.sum_node_list(partials) if partials else None
        input_grads = list(node.op.gradient(node, grad)) if node.inputs and grad else []
        for x, g in zip(node.inputs, input_grads):
            lists.setdefault(id(x), []).append(g)
        steps.append((node, partials, grad, input_grads))
    value = _values(ad, steps, feed)
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


def _values(ad, steps, feed):
    """name = value of a node (the name alone without a feed)."""
    nodes = {id(n): n for _, ps, g, gs in steps for n in [*ps, g, *gs] if n is not None}
    found = {}
    if feed is not None and nodes:
        listed = list(nodes.values())
        for node, result in zip(listed, ad.Executor(listed).run(feed_dict=feed)):
            found[id(node)] = result

    def value(node) -> str:
        name = getattr(node, "name", type(node).__name__)
        return f"{name} = {shown(found[id(node)])}" if id(node) in found else str(name)

    return value
