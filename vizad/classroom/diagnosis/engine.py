"""A student's engine as :func:`vizad.diagnose` sees it, whatever its style: its graph read
through a few methods that a style overrides (``inputs``, ``name``, ``op_name``, ``compute``,
``stored`` …), its values at the point, the one evaluator that runs the student's compute on
any nodes from known values, the student's ``backward()`` run with every grad restored, and
where the student's code is.

The engine's own functions (``gradients``, ``find_topo_sort``) are looked up where the code
that uses them looks them up: in the module globals of the methods of the student's classes
(so a module loaded by importlib without ``sys.modules``, or code pasted into a notebook, is
found), then in ``sys.modules``."""

from __future__ import annotations

import inspect
import sys
import types
from functools import cached_property
from typing import Any

from vizad.engine.graph import post_order
from vizad.trace.text import subscript
from vizad.classroom.diagnosis.hints import exc_text, place, student_line
from vizad.classroom.diagnosis.known_ops import Known, Words
from vizad.classroom.diagnosis.report import Problem

__all__ = ["StudentEngine", "location", "lecture_numbers"]

_KEEP = object()  # backward_grads: leave the grads as they are before backward()


def _student(cls: type) -> bool:
    """Whether ``cls`` is the student's (or an engine of vizad.classroom.courses), not vizad's
    own."""
    module = getattr(cls, "__module__", "") or ""
    return cls is not object and (
        not module.startswith("vizad.") or module.startswith("vizad.classroom.courses.")
    )


def _functions(cls: type) -> list[types.FunctionType]:
    """The plain functions defined by ``cls`` and its bases (not object's nor vizad's)."""
    found = []
    for klass in getattr(cls, "__mro__", (cls,)):
        if not _student(klass):
            continue
        for value in vars(klass).values():
            value = getattr(value, "__func__", value)  # staticmethod, classmethod
            if isinstance(value, property):
                value = value.fget
            if isinstance(value, types.FunctionType):
                found.append(value)
    return found


def location(fn: Any, token: str | None = None) -> str:
    """``file:line`` of the function ``fn`` (a rule, a closure): the first line of its source
    that holds ``token`` when given and found, else its ``def`` line."""
    code = getattr(getattr(fn, "__func__", fn), "__code__", None)
    if code is None:
        return ""
    line = code.co_firstlineno
    if token is not None:
        try:
            lines, first = inspect.getsourcelines(fn)
        except (OSError, TypeError):
            lines, first = [], line
        line = next((first + k for k, text in enumerate(lines) if token in text), line)
    return place(code.co_filename, line)


def lecture_numbers(order: list, inputs) -> dict[int, int]:
    """The lecture's numbering v₁ … vₙ of a graph given in post-order (``inputs(node)`` in
    order), by id: the inputs of the graph first, then each node by depth (the longest path
    from an input), ties in post-order. A post-order of the inputs in order is the order in
    which Python built ``sub(add(log(x1), mul(x1, x2)), sin(x2))``, so this is the numbering
    vizad gives its own graphs (creation order, inputs first): v₁ = x1, v₂ = x2, v₃ = ln v₁,
    v₄ = v₁v₂, v₅ = sin v₂, v₆ = v₃ + v₄, v₇ = v₆ − v₅."""
    depth: dict[int, int] = {}
    for node in order:
        ins = inputs(node)
        depth[id(node)] = 1 + max((depth[id(x)] for x in ins), default=-1) if ins else 0
    position = {id(n): k for k, n in enumerate(order)}
    ranked = sorted(order, key=lambda n: (depth[id(n)], position[id(n)]))
    return {id(n): k for k, n in enumerate(ranked, 1)}


def _number(label: str) -> int:
    """k of a label vₖ."""
    return int(label[1:].translate(_DIGITS) or 0)


#: A node's own name longer than this is left out of the legend (599W names nest the whole
#: expression: ``SubOp(AddOp(LogOp(x1),MulOp(x1,x2)),SinOp(x2))``).
_NAMED = 24

_DIGITS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")


class StudentEngine:
    """The student's graph and code, read in one style; :class:`~.checker.Checker` checks it.
    A style says whether it ``reads(y)`` (a node of the style) and how to read ``inputs``,
    ``name``, ``op_name``, ``compute`` (the student's compute on operand values) and
    ``stored`` (a node's value as the engine keeps it) where the defaults do not fit."""

    style = ""
    words: Words
    #: Whether the stepper can show the graph (an adapter of vizad.classroom.courses reads it).
    steppable = True

    def __init__(self, y, feed: dict | None):
        self.feed = feed or {}
        self.values: dict[int, Any] = {}
        self.notes: list[str] = []
        self.labels: dict[int, str] = {}
        #: k of each node's vₖ, by id (the lecture's numbering).
        self.numbers: dict[int, int] = {}
        #: What each numbered node is (``x2``, ``SinOp(v₂)``), by id.
        self.definitions: dict[int, str] = {}
        self.graph: list = [y]
        #: The nodes the final gradients are asked for (set by the check).
        self.wrt: list = []

    # -- the student's code ------------------------------------------------------------------
    def classes(self) -> list[type]:
        """The student's classes whose methods' modules hold the engine's functions, the
        output's first."""
        return []

    @cached_property
    def spaces(self) -> list[dict]:
        """The global namespaces of the student's code: of the methods of its classes, then
        their modules in sys.modules (each once)."""
        found: list[dict] = []
        seen: set[int] = set()
        classes = [c for c in self.classes() if _student(c)]
        for cls in classes:
            for fn in _functions(cls):
                if id(fn.__globals__) not in seen:
                    seen.add(id(fn.__globals__))
                    found.append(fn.__globals__)
        for cls in classes:
            module = sys.modules.get(cls.__module__)
            if module is not None and id(vars(module)) not in seen:
                seen.add(id(vars(module)))
                found.append(vars(module))
        return found

    def function(self, name: str):
        """The student's function ``name`` (gradients, find_topo_sort …), or None."""
        for space in self.spaces:
            value = space.get(name)
            if callable(value):
                return value
        return None

    def searched(self) -> str:
        """Where :meth:`function` looked, for a report that found nothing."""
        names = sorted({str(space.get("__name__", "?")) for space in self.spaces})
        return "the module(s) " + ", ".join(names) if names else "no module of the engine"

    @cached_property
    def files(self) -> frozenset[str]:
        """The files of the student's code (where a traceback's line is theirs)."""
        return frozenset(fn.__code__.co_filename for c in self.classes() for fn in _functions(c))

    def frame(self, exc: BaseException, rule=None) -> tuple[str, str]:
        """(`` (file:line: source)``, ``file:line``) of the student's line where ``exc``
        came from: in ``rule`` when it is on the traceback, else the innermost line of their
        files ("" and "" when none is theirs)."""
        code = getattr(getattr(rule, "__func__", rule), "__code__", None)
        found = student_line(exc, self.files, code)
        if found is None:
            return "", ""
        where, line = found
        return (f" ({where}: {line})" if line else f" ({where})"), where

    # -- reading the graph: what a style does not say is read as here -----------------------
    def inputs(self, node) -> list:
        return list(node.inputs)

    def operands(self, node) -> list:
        """The values an op's compute takes, in order (the inputs, but for micrograd)."""
        return self.inputs(node)

    def is_leaf(self, node) -> bool:
        return not self.inputs(node)

    def name(self, node) -> str:
        return ""

    def describe(self, node, k: int) -> str:
        """How a report names a node without a name of its own (``k``: its place in the
        topological order, 1-based)."""
        return f"node {k} of the topological order"

    def op_name(self, node) -> str:
        return type(node.op).__name__

    def known(self, node) -> Known | None:
        """The node's op as :mod:`.known_ops` knows it (family and parameters), or None."""
        return None

    def rule(self, node):
        """The student's function computing the node's gradient rule (for file:line)."""
        return None

    def rule_flags(self, node) -> str:
        """Words a generic hint about the rule at ``node`` ends with (attributes to check)."""
        return ""

    def number(self, value):
        """A central difference as the style's gradients are (micrograd's are floats)."""
        return value

    # a post-order DFS of our own (the student's may be what is broken)
    def order(self, y) -> list:
        """The graph of ``y`` in post-order (the inputs of a node in order), each node
        labelled vₖ by the lecture's numbering (:func:`lecture_numbers`), as vizad's stepper
        and ``check()`` number the same graph."""
        out = post_order([y], self.inputs)
        self.graph = out
        numbers = self.numbers = lecture_numbers(out, self.inputs)
        self.labels = {id(node): self.numbered(node, numbers[id(node)]) for node in out}
        self.definitions = {id(node): self.define(node, numbers[id(node)]) for node in out}
        return out

    def numbered(self, node, k: int) -> str:
        """How reports call the node numbered k: vₖ, the lecture's name."""
        return "v" + subscript(str(k))

    def define(self, node, k: int) -> str:
        """What vₖ stands for in a report's legend: a leaf's name (or description), an op
        with the labels of its inputs (``SinOp(v₂)``)."""
        if self.is_leaf(node):
            return self.name(node) or self.describe(node, k)
        said = f"{self.op_name(node)}({', '.join(map(self.label, self.inputs(node)))})"
        name = self.name(node)  # the student's (micrograd's label="o"; 599W's "(x1*x2)")
        named = name and len(name) <= _NAMED and name != self.label(node)
        return f"{name} = {said}" if named else said

    def label(self, node) -> str:
        """vₖ of a node of the graph (its name, or "a node", for one outside it)."""
        return self.labels.get(id(node)) or self.name(node) or "a node"

    def called(self, node) -> str:
        """``x1 (v₁)``: a node by its own name and its label (the label alone without a
        name)."""
        name, label = self.name(node), self.label(node)
        return f"{name} ({label})" if name and name != label else label

    def defined(self, labels) -> list[str]:
        """``v₂ = x2``, ``v₅ = SinOp(v₂)``: what the labels ``labels`` stand for (the
        legend of a report), in the numbering's order."""
        by_label = {self.labels[i]: d for i, d in self.definitions.items()}
        wanted = {label for label in labels if label in by_label}
        return [f"{lab} = {by_label[lab]}" for lab in sorted(wanted, key=_number)]

    # -- values --------------------------------------------------------------------------
    def evaluate(self, order: list, problems: list[Problem]) -> bool:
        """Each node's value at the point (``values``), as the engine stored it; True when the
        student's code raised on the way (its problem added to ``problems``)."""
        for node in order:
            self.values[id(node)] = self.stored(node)
        return False

    def computed(self, node, known: dict[int, Any]):
        """The student's compute at ``node``, on the ``known`` values of its operands."""
        return self.compute(node, [known[id(i)] for i in self.operands(node)])

    def run(self, nodes: list, known: dict[int, Any]) -> list:
        """The values of ``nodes`` by the student's compute from the ``known`` values (by id;
        filled in): the one evaluator, for the nodes a rule builds and for the graph at the
        points central differences probe."""
        for node in post_order(nodes, self.inputs, known):
            known[id(node)] = self.computed(node, known)
        return [known[id(n)] for n in nodes]

    # -- the student's code at work, and the problem of it raising ---------------------------
    def backward_grads(self, y, order, wrt, read, zero: Any = _KEEP) -> list | Problem:
        """The student's ``y.backward()``: each ``read(x.grad)`` of ``wrt`` (every node's grad
        set to ``zero`` first, when given), or the problem of it raising; every grad restored
        afterwards."""
        saved = [(n, getattr(n, "grad", None)) for n in order]
        try:
            if zero is not _KEEP:
                for n in order:
                    n.grad = zero
            y.backward()
            return [read(x.grad) for x in wrt]
        except Exception as exc:  # the student's code
            return self.final_raised(y, "backward", exc)
        finally:
            for n, g in saved:
                n.grad = g

    def final_raised(self, y, call: str, exc: BaseException, why: str = "") -> Problem:
        """The problem of the student's ``call()`` (gradients, backward) raising on ``y``: a
        KeyError for a node of the graph is its adjoint read before the nodes that use it
        gave it any (a walk in the wrong order)."""
        frame, where = self.frame(exc, self.function(call))
        text = exc_text(exc)
        key = exc.args[0] if isinstance(exc, KeyError) and exc.args else None
        if key is not None and any(key is n for n in self.graph):
            text = f"KeyError: {self.label(key)}"
            if not why and key is not self.graph[-1]:
                why = (
                    f"it reads the adjoint of {self.label(key)} before the nodes that use it "
                    "have given it any: walk the nodes in reverse topological order "
                    "(reversed(find_topo_sort(...)))"
                )
        return Problem(
            "gradient", self.label(y), f"{call}()", None, None, exc, why or f"{call}() raised",
            f"{call}() raised {text}{frame}" + (f": {why}" if why else ""),
            where=where,
        )  # fmt: skip

    def raised(self, node, what: str, exc: BaseException, why: str = "") -> Problem:
        """The problem of the student's ``what`` (compute, a rule) raising at ``node``."""
        op = self.op_name(node)
        kind = "compute" if what == "compute" else "rule"
        rule = self.rule(node) if kind == "rule" else getattr(node.op, "compute", None)
        frame, where = self.frame(exc, rule)
        head = f"{op}.compute" if kind == "compute" else f"the {self.words.rule} of {op}"
        return Problem(
            kind, self.label(node), op, None, None, exc, why or f"{what} raised",
            f"{head} at {self.label(node)} raised {exc_text(exc)}{frame}"
            + (f": {why}" if why else ""),
            where=where,
        )  # fmt: skip
