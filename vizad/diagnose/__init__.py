"""``vz.diagnose``: find what is wrong in a student's own autodiff engine.

It reads the student's graph by duck typing, in one of three styles:

- CSE 599W (``inputs``, ``op``, ``name``, ``const_attr``; ``op.compute(node, input_vals)``,
  ``op.gradient(node, output_grad)``), the module of the op's class giving ``find_topo_sort``,
  ``gradients`` and ``Executor``;
- needle (``inputs``, ``op``, ``realize_cached_data()``; ``op.compute(*arrays)``,
  ``op.gradient(out_grad, node)``), the module of the tensor's class giving
  ``find_topo_sort``; ``backward()`` filling ``grad``;
- micrograd (``_prev``, ``_op``, ``data``, ``grad``, ``_backward``).

It evaluates the graph with the student's code, then checks, from the output back (reverse
topological order), **each op's gradient rule in isolation** at the node's actual values: the
student's rule against central differences of the student's own ``compute`` (micrograd has no
separate compute: its ops are known by their ``_op`` text), then the student's topological
order, then the final gradients against central differences of the whole graph. Each problem
names the node, the op, the input and a one-line hint. Nothing of the student's module is
modified; fields the checks write (``grad``) are restored.
"""

from __future__ import annotations

import math
import re
import sys
import traceback
from typing import Any

import numpy as np

from ..errors import ArgumentError
from ..gradcheck import numerical_vjp
from ..graph import post_order
from .report import Diagnosis, Problem

__all__ = ["diagnose", "Diagnosis", "Problem"]


def diagnose(y: Any, wrt: Any, feed: dict | None = None, *, seed: int = 0) -> Diagnosis:
    """Check a student's engine on the graph of ``y`` (see the module's docs): each op's
    gradient rule in isolation, the topological order, the final gradients with respect to
    ``wrt`` (a node or a list). ``feed`` gives the placeholders' values (CSE 599W style)."""
    wrt = list(wrt) if isinstance(wrt, (list, tuple)) else [wrt]
    engine = _engine_for(y, feed)
    rng = np.random.default_rng(seed)
    problems: list[Problem] = []
    order = engine.order(y)
    crashed = engine.evaluate(order, problems)
    rules = 0
    if not crashed:
        for node in reversed(order):
            if engine.is_leaf(node):
                continue
            rules += 1
            problems.extend(engine.check_rule(node, rng))
        problems.extend(engine.check_topo_sort(y, order))
        if not any(p.kind in ("rule", "compute") for p in problems):
            problems.extend(engine.check_gradients(y, wrt, order))
    graph = (y, wrt, feed) if engine.style == "CSE 599W" else None
    return Diagnosis(engine.style, problems, rules, engine.notes, graph)


# -- comparing arrays -------------------------------------------------------------------------
def _close(a, b, scale: float) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-4, atol=1e-6 * scale))


def _hint(got, expected, others: list, node_flags: str = "") -> str:
    """A one-line guess at what is wrong with ``got`` (the student's gradient) against
    ``expected``; ``others`` are the expected gradients of the node's other inputs."""
    got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    scale = max(1.0, float(np.max(np.abs(expected), initial=0.0)))
    if got.shape != expected.shape:
        if got.T.shape == expected.shape and _close(got.T, expected, scale):
            return "looks transposed" + node_flags
        if got.ndim == expected.ndim or got.size < expected.size:
            return (
                f"has shape {got.shape} where the input has {expected.shape}: summed over the "
                "wrong axis (or not broadcast back to the input's shape)"
            )
        return f"has shape {got.shape} where the input has shape {expected.shape}" + node_flags
    if _close(got, -expected, scale):
        return "sign flipped"
    if not np.any(got) and np.any(expected):
        return "is zero where it should not be"
    for other in others:
        if other is not None and _close(got, other, scale):
            return "is another input's gradient: inputs swapped"
    if got.ndim == 2 and got.shape[0] == got.shape[1] and _close(got.T, expected, scale):
        return "looks transposed" + node_flags
    mask = np.abs(expected) > 1e-9 * scale
    if mask.any():
        ratios = got[mask] / expected[mask]
        r = float(np.median(ratios))
        if np.allclose(ratios, r, rtol=1e-4) and r != 0:
            if math.isclose(r, 0.5, rel_tol=1e-4):
                return "missing factor 2"
            if math.isclose(r, 2.0, rel_tol=1e-4):
                return "an extra factor 2"
            return f"off by a factor {r:.4g}"
    return "wrong values"


def _central(fn, xs: list[np.ndarray], w) -> list[np.ndarray]:
    """Σ w ⊙ ∂fn/∂xs[i] for each i, by gradcheck's central differences."""
    return numerical_vjp(lambda args: np.asarray(fn(args)), xs, w)


def _student_frame(exc: BaseException) -> str:
    """``file:line`` of the innermost frame of the traceback outside vizad."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/vizad/" not in f.filename]
    if not frames:
        return ""
    f = frames[-1]
    line = f": {f.line}" if f.line else ""
    return f" ({f.filename}:{f.lineno}{line})"


def _exc_text(exc: BaseException) -> str:
    """``KeyError: 'x'``, or just ``NotImplementedError`` when it has no message."""
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _shown(value) -> str:
    return np.array2string(np.asarray(value), precision=4, threshold=8, separator=", ")


# -- the three styles ----------------------------------------------------------------------------
_KEEP = object()  # backward_grads: leave the grads as they are before backward()


class _Engine:
    style = ""

    def __init__(self, feed):
        self.feed = feed or {}
        self.values: dict[int, Any] = {}
        self.notes: list[str] = []
        self.labels: dict[int, str] = {}

    # a post-order DFS of our own (the student's may be what is broken)
    def order(self, y) -> list:
        out = post_order([y], self.inputs)
        for k, node in enumerate(out, 1):
            self.labels[id(node)] = self.name(node) or f"node {k} of the topological order"
        return out

    def label(self, node) -> str:
        return self.labels.get(id(node)) or self.name(node) or "a node"

    def is_leaf(self, node) -> bool:
        return not self.inputs(node)

    def rule_problems(self, node, got: list, expected: list, flags: str = "") -> list[Problem]:
        problems = []
        scale = max(
            [1.0] + [float(np.max(np.abs(e), initial=0.0)) for e in expected if e is not None]
        )
        for i, (g, e) in enumerate(zip(got, expected)):
            if e is None:
                continue
            if g is not None and _close(g, e, scale):
                continue
            others = [o for k, o in enumerate(expected) if k != i]
            hint = "is missing (None)" if g is None else _hint(g, e, others, flags)
            op = self.op_name(node)
            problems.append(
                Problem(
                    "rule",
                    self.label(node),
                    op,
                    i,
                    e,
                    g,
                    hint,
                    f"the gradient rule of {op} at {self.label(node)} for input {i} "
                    f"({self.label(self.inputs(node)[i])}) {hint}: expected {_shown(e)}, "
                    f"got {_shown(g) if g is not None else None}",
                )
            )
        return problems

    #: The module of the student's engine (its find_topo_sort, gradients), if it has one.
    module = None

    def check_topo_sort(self, y, order) -> list[Problem]:
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
            return [_topo_problem(f"find_topo_sort raised {exc!r}{_student_frame(exc)}", "")]
        return _check_order(theirs, order, self.inputs, self.label)

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
        except Exception as exc:
            return Problem(
                "gradient", self.label(y), "backward", None, None, exc, "backward() raised",
                f"backward() raised {_exc_text(exc)}{_student_frame(exc)}",
            )  # fmt: skip
        finally:
            for n, g in saved:
                n.grad = g

    def raised(self, node, what: str, exc: BaseException) -> Problem:
        """The problem of the student's ``what`` (compute, gradient) raising at ``node``."""
        op = self.op_name(node)
        kind = "compute" if what == "compute" else "rule"
        return Problem(
            kind,
            self.label(node),
            op,
            None,
            None,
            exc,
            f"{what} raised",
            f"{op}.{what} at {self.label(node)} raised {_exc_text(exc)}{_student_frame(exc)}",
        )


class _Style599W(_Engine):
    style = "CSE 599W"

    def __init__(self, feed, module):
        super().__init__(feed)
        self.module = module

    def inputs(self, node):
        return list(node.inputs)

    def name(self, node):
        return str(node.name) if getattr(node, "name", "") else ""

    def op_name(self, node):
        return type(node.op).__name__

    def evaluate(self, order, problems) -> bool:
        for node in order:
            if node in self.feed:
                self.values[id(node)] = self.feed[node]
                continue
            if self.is_leaf(node):
                raise ArgumentError(f"diagnose: placeholder {self.label(node)!r} is not in feed")
            try:
                self.values[id(node)] = node.op.compute(
                    node, [self.values[id(i)] for i in node.inputs]
                )
            except Exception as exc:  # the student's code
                problems.append(self.raised(node, "compute", exc))
                return True
        return False

    def _run(self, nodes, values: dict[int, Any]) -> list:
        """Evaluate foreign nodes with the student's compute, from known ``values``."""
        known = dict(values)
        for node in post_order(nodes, self.inputs, known):
            known[id(node)] = node.op.compute(node, [known[id(i)] for i in node.inputs])
        return [known[id(n)] for n in nodes]

    def check_rule(self, node, rng) -> list[Problem]:
        xs = [np.asarray(self.values[id(i)], dtype=float) for i in node.inputs]
        out = np.asarray(self.values[id(node)], dtype=float)
        w = rng.standard_normal(out.shape)
        grad = object.__new__(type(node))
        grad.inputs, grad.op, grad.const_attr, grad.name = [], None, None, "output_grad"
        try:
            grads = node.op.gradient(node, grad)
            got = self._run(list(grads), {**self.values, id(grad): w})
        except Exception as exc:
            return [self.raised(node, "gradient", exc)]

        def fn(args):
            return node.op.compute(node, args)

        expected = _central(fn, xs, w)
        flags = ""
        if hasattr(node, "matmul_attr_trans_A"):
            flags = " (check the matmul_attr_trans_A/B flags)"
        return self.rule_problems(node, got, expected, flags)

    def check_gradients(self, y, wrt, order) -> list[Problem]:
        grads_fn = getattr(self.module, "gradients", None)
        if grads_fn is None:
            self.notes.append("no gradients() in the op's module: final gradients not checked")
            return []
        try:
            grads = grads_fn(y, wrt)
            got = self._run(list(grads), dict(self.values))
        except Exception as exc:
            return [
                Problem(
                    "gradient",
                    self.label(y),
                    "gradients",
                    None,
                    None,
                    exc,
                    "gradients() raised",
                    f"gradients() raised {_exc_text(exc)}{_student_frame(exc)}",
                )
            ]

        def forward(args):
            known = {id(x): a for x, a in zip(wrt, args)}
            return self._run([y], {**{k: v for k, v in self._leaves(order)}, **known})[0]

        xs = [np.asarray(self.values[id(x)], dtype=float) for x in wrt]
        w = np.ones(np.shape(self.values[id(y)]))
        return _final_problems(self, y, wrt, got, _central(forward, xs, w), order)

    def _leaves(self, order):
        return [(id(n), self.values[id(n)]) for n in order if self.is_leaf(n)]


class _StyleNeedle(_Engine):
    style = "needle"

    def __init__(self, module):
        super().__init__(None)
        self.module = module

    def inputs(self, node):
        return list(node.inputs)

    def name(self, node):
        return ""

    def op_name(self, node):
        return type(node.op).__name__ if node.op is not None else "leaf"

    def is_leaf(self, node):
        return not node.inputs

    def evaluate(self, order, problems) -> bool:
        for node in order:
            self.values[id(node)] = np.asarray(node.realize_cached_data())
        return False

    def _tensor(self, node, array):
        cls = type(node)
        make = getattr(cls, "make_const", None)
        return make(array) if make is not None else cls(array, requires_grad=False)

    def check_rule(self, node, rng) -> list[Problem]:
        xs = [np.asarray(self.values[id(i)], dtype=float) for i in node.inputs]
        out = np.asarray(self.values[id(node)], dtype=float)
        w = rng.standard_normal(out.shape)
        try:
            grads = node.op.gradient(self._tensor(node, w), node)
            grads = grads if isinstance(grads, (tuple, list)) else (grads,)
            got = [None if g is None else np.asarray(g.realize_cached_data()) for g in grads]
        except Exception as exc:
            return [self.raised(node, "gradient", exc)]

        def fn(args):
            return node.op.compute(*args)

        expected = _central(fn, xs, w)
        return self.rule_problems(node, got, expected)

    def check_gradients(self, y, wrt, order) -> list[Problem]:
        got = self.backward_grads(
            y, order, wrt, lambda g: None if g is None else np.asarray(g.realize_cached_data())
        )
        if isinstance(got, Problem):
            return [got]

        def forward(args):
            known = {id(x): a for x, a in zip(wrt, args)}
            values = dict(known)
            for node in order:
                if id(node) in values:
                    continue
                if self.is_leaf(node):
                    values[id(node)] = self.values[id(node)]
                else:
                    values[id(node)] = node.op.compute(*[values[id(i)] for i in node.inputs])
            return values[id(y)]

        xs = [np.asarray(self.values[id(x)], dtype=float) for x in wrt]
        w = np.ones(np.shape(self.values[id(y)]))
        expected = _central(forward, xs, w)
        return _final_problems(self, y, wrt, got, expected, order)


#: micrograd's ops by their _op text: (arity, function of the operands' data).
_MICROGRAD_OPS = {
    "+": (2, lambda a, b: a + b),
    "*": (2, lambda a, b: a * b),
    "tanh": (1, np.tanh),
    "exp": (1, np.exp),
    "ReLU": (1, lambda a: np.maximum(a, 0.0)),
    "relu": (1, lambda a: np.maximum(a, 0.0)),
}


def _micrograd_op(text: str):
    match = re.fullmatch(r"\*\*(-?[\d.]+)", text)
    if match:
        p = float(match.group(1))
        return 1, lambda a: a**p
    return _MICROGRAD_OPS.get(text)


class _StyleMicrograd(_Engine):
    style = "micrograd"

    def inputs(self, node):
        return sorted(node._prev, key=id)

    def name(self, node):
        return str(getattr(node, "label", "") or "")

    def op_name(self, node):
        return repr(node._op)

    def evaluate(self, order, problems) -> bool:
        for node in order:
            self.values[id(node)] = float(node.data)
        return False

    def _operands(self, node) -> list:
        """The operands in order: micrograd's _prev is a set (a·a has one child)."""
        known = _micrograd_op(node._op)
        children = self.inputs(node)
        if known is not None and known[0] == 2 and len(children) == 1:
            return children * 2
        return children

    def check_rule(self, node, rng) -> list[Problem]:
        known = _micrograd_op(node._op)
        if known is None:
            self.notes.append(
                f"op {node._op!r} at {self.label(node)} is not micrograd's: not checked"
            )
            return []
        arity, fn = known
        operands = self._operands(node)
        children = self.inputs(node)
        w = float(rng.standard_normal())
        sentinel = 0.375
        saved = [(n, n.grad) for n in [node, *children]]
        try:
            node.grad = w
            for c in children:
                c.grad = sentinel
            node._backward()
            after = {id(c): c.grad for c in children}
        finally:
            for n, g in saved:
                n.grad = g
        xs = [np.asarray(self.values[id(c)]) for c in operands]
        expected_by_operand = _central(lambda a: fn(*a), xs, np.asarray(w))
        expected = {}
        for c, e in zip(operands, expected_by_operand):
            expected[id(c)] = expected.get(id(c), 0.0) + float(e)
        problems = []
        for i, c in enumerate(children):
            got_total = after[id(c)]
            e = expected[id(c)]
            if math.isclose(got_total - sentinel, e, rel_tol=1e-4, abs_tol=1e-6):
                continue
            op = self.op_name(node)
            if math.isclose(got_total, e, rel_tol=1e-4, abs_tol=1e-6) and abs(e) > 1e-9:
                problems.append(
                    Problem(
                        "accumulate", self.label(node), op, i, e, got_total,
                        "assigns instead of adding (+=)",
                        f"_backward of {op} at {self.label(node)} assigns the gradient of "
                        f"input {i} ({self.label(c)}) instead of adding to it (use +=): a "
                        "value read twice loses one of its partial adjoints",
                    )
                )  # fmt: skip
                continue
            got = got_total - sentinel
            others = [expected[id(o)] for o in children if o is not c]
            hint = _hint(np.asarray(got), np.asarray(e), [np.asarray(o) for o in others])
            problems.append(
                Problem(
                    "rule", self.label(node), op, i, e, got, hint,
                    f"the _backward of {op} at {self.label(node)} for input {i} "
                    f"({self.label(c)}) {hint}: expected {e:.6g}, got {got:.6g}",
                )
            )  # fmt: skip
        return problems

    def check_gradients(self, y, wrt, order) -> list[Problem]:
        got = self.backward_grads(y, order, wrt, float, zero=0.0)
        if isinstance(got, Problem):
            return [got]

        def forward(args):
            values = {id(x): float(a) for x, a in zip(wrt, args)}
            for node in order:
                if id(node) in values:
                    continue
                if self.is_leaf(node):
                    values[id(node)] = self.values[id(node)]
                else:
                    _, fn = _micrograd_op(node._op)
                    values[id(node)] = fn(*[values[id(c)] for c in self._operands(node)])
            return values[id(y)]

        if any(not self.is_leaf(n) and _micrograd_op(n._op) is None for n in order):
            self.notes.append("ops that are not micrograd's: final gradients not checked")
            return []
        xs = [np.asarray(self.values[id(x)]) for x in wrt]
        expected = [float(e) for e in _central(forward, xs, np.asarray(1.0))]
        return _final_problems(self, y, wrt, got, expected, order)


def _topo_problem(message: str, node: str) -> Problem:
    return Problem(
        "topo_sort", node, "find_topo_sort", None, None, None,
        "a node must come after all of its inputs (post-order: append a node after visiting "
        "its inputs)", message,
    )  # fmt: skip


def _check_order(theirs: list, ours: list, inputs, label) -> list[Problem]:
    ids = [id(n) for n in theirs]
    if len(set(ids)) != len(ids):
        return [_topo_problem("find_topo_sort lists a node more than once", "")]
    missing = {id(n) for n in ours} - set(ids)
    if missing:
        name = next(label(n) for n in ours if id(n) in missing)
        return [
            _topo_problem(f"find_topo_sort leaves out {name} (and {len(missing) - 1} more)", name)
        ]
    position = {id(n): k for k, n in enumerate(theirs)}
    for node in theirs:
        for x in inputs(node):
            if position[id(x)] > position[id(node)]:
                return [
                    _topo_problem(
                        f"find_topo_sort puts {label(node)} before its input {label(x)}",
                        label(node),
                    )
                ]
    return []


def _final_problems(engine, y, wrt, got, expected, order) -> list[Problem]:
    consumers: dict[int, int] = {}
    for node in order:
        for x in engine.inputs(node):
            consumers[id(x)] = consumers.get(id(x), 0) + 1
    problems = []
    scale = max([1.0] + [float(np.max(np.abs(np.asarray(e)), initial=0.0)) for e in expected])
    for k, (x, g, e) in enumerate(zip(wrt, got, expected)):
        if g is not None and _close(g, e, scale):
            continue
        used = consumers.get(id(x), 0)
        shared = [engine.label(n) for n in order if consumers.get(id(n), 0) > 1]
        if shared:
            hint = (
                f"every op rule is right, so the adjoints are not summed: {', '.join(shared[:3])} "
                "feed(s) several consumers, and a node's adjoint is the sum of the partial "
                "adjoints from all of them (node_to_output_grads_list)"
            )
        else:
            hint = "every op rule is right: look at how gradients() walks the graph"
        problems.append(
            Problem(
                "gradient", engine.label(x), "gradients", k, e, g, hint,
                f"the gradient with respect to {engine.label(x)} (read by {used} node(s)) is "
                f"{_shown(g) if g is not None else None}, expected {_shown(e)}: {hint}",
            )
        )  # fmt: skip
    return problems


def _engine_for(y, feed) -> _Engine:
    if hasattr(y, "_prev") and hasattr(y, "_backward") and hasattr(y, "data"):
        return _StyleMicrograd(feed)
    if hasattr(y, "inputs") and hasattr(y, "op") and hasattr(y, "const_attr"):
        module = sys.modules.get(type(y.op).__module__) if y.op is not None else None
        return _Style599W(feed, module)
    if hasattr(y, "inputs") and hasattr(y, "op") and hasattr(y, "realize_cached_data"):
        return _StyleNeedle(sys.modules.get(type(y).__module__))
    raise ArgumentError(
        f"diagnose: {type(y).__name__} is not a node of a CSE 599W-, needle- or micrograd-style "
        "engine (expected inputs/op/const_attr, inputs/op/realize_cached_data, or "
        "_prev/_op/data/_backward)"
    )
