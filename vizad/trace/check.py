"""A local gradient check of every step: each op alone, at the input values the trace
recorded, against central differences. A custom op with a wrong vjp is found at its node."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..executor import Executor
from ..forward import jvp
from ..node import Node, Variable, constant
from ..ops import make_tuple
from ..reverse import gradients
from .records import CheckFailure

__all__ = ["check_trace", "check_op"]

#: Inputs with at most this many entries in all are checked entry by entry; larger ones along
#: random directions.
_ENTRYWISE = 64

def check_trace(trace, eps: float, rtol: float, atol: float, seed: int) -> list[CheckFailure]:
    failures = []
    for step in trace.steps:
        node = step.node
        if not node.inputs:
            continue
        inputs = [trace.values[i] for i in node.inputs]
        for rule, error, detail in check_op(node, inputs, eps, rtol, atol, seed):
            args = ", ".join(trace.label(i) if i in trace.numbers else str(i) for i in node.inputs)
            failures.append(CheckFailure(
                step=step.index, node=node, label=step.label, op=node.op.name, rule=rule,
                error=error,
                message=f"step {step.index}, {step.label} = {node.op.name}({args}): the {rule} "
                        f"of op {node.op.name!r} disagrees with central differences by "
                        f"{error:.3g} ({detail})"))
    return failures


def check_op(node: Node, inputs: list[Any], eps: float = 1e-6, rtol: float = 1e-4,
             atol: float = 1e-6, seed: int = 0) -> list[tuple[str, float, str]]:
    """Check the op of ``node`` alone at ``inputs``: its vjp, and its jvp when it has one.
    Returns (rule, error, detail) for each rule that disagrees with central differences."""
    rng = np.random.default_rng(seed)
    xs: list[Node] = []        # the Variables perturbed: one per array, tuple elements too
    point: list[np.ndarray] = []
    args: list[Node] = []      # the op's inputs: a Variable, or make_tuple of Variables
    for k, value in enumerate(inputs):
        elements = value if isinstance(value, tuple) else (value,)
        leaves = [Variable(f"input{k}.{j}", shape=np.shape(e)) for j, e in enumerate(elements)]
        xs += leaves
        point += [np.array(e, dtype=np.float64) for e in elements]
        args.append(make_tuple(*leaves) if isinstance(value, tuple) else leaves[0])
    local = node.op(*args, **dict(node.attrs))
    run = Executor([local])

    def f(values):
        return run.run(dict(zip(xs, values)))[0]

    out = f(point)
    w = _random_like(out, rng)
    problems = []

    # reverse: ⟨δ, Jᵀw⟩ against (⟨w, f(x+εδ)⟩ − ⟨w, f(x−εδ)⟩) / 2ε
    grads = Executor(gradients(local, xs, seed=_constant_like(w))).run(dict(zip(xs, point)))
    if sum(p.size for p in point) <= _ENTRYWISE:
        directions = _unit_vectors(point)
    else:
        directions = [_random_like(point, rng) for _ in range(3)]
    worst, where = 0.0, ""
    for delta in directions:
        numeric = (_inner(w, f(_axpy(point, delta, eps))) -
                   _inner(w, f(_axpy(point, delta, -eps)))) / (2 * eps)
        exact = _inner(grads, delta)
        error = abs(exact - numeric)
        if error > atol + rtol * abs(numeric) and error > worst:
            worst, where = error, f"vjp gives {exact:.6g}, central differences {numeric:.6g}"
    if worst:
        problems.append(("vjp", worst, where))

    # forward: Jv against (f(x+εv) − f(x−εv)) / 2ε, when the op has a jvp
    v = _random_like(point, rng)
    try:
        tangent_node = jvp(local, dict(zip(xs, (_constant_like(t) for t in v))))
    except NotImplementedError:
        return problems
    tangent = Executor([tangent_node]).run(dict(zip(xs, point)))[0]
    numeric = _scale(_sub(f(_axpy(point, v, eps)), f(_axpy(point, v, -eps))), 1 / (2 * eps))
    error = _max_abs(_sub(tangent, numeric))
    scale = _max_abs(numeric)
    if error > atol + rtol * scale:
        problems.append(("jvp", error, f"largest entry difference {error:.3g}"))
    return problems

# -- values that may be tuples ---------------------------------------------------------------
def _floats(v):
    return tuple(_floats(x) for x in v) if isinstance(v, tuple) else np.array(v, dtype=np.float64)

def _size(v) -> int:
    return sum(_size(x) for x in v) if isinstance(v, (tuple, list)) else np.size(v)

def _random_like(v, rng):
    if isinstance(v, (tuple, list)):
        return type(v)(_random_like(x, rng) for x in v)
    return rng.standard_normal(np.shape(v))

def _constant_like(v) -> Node:
    return make_tuple(*(_constant_like(x) for x in v)) if isinstance(v, tuple) else constant(v)

def _inner(a, b) -> float:
    if isinstance(a, (tuple, list)):
        return sum(_inner(x, y) for x, y in zip(a, b))
    return float(np.sum(np.asarray(a) * np.asarray(b)))

def _axpy(point, delta, s):
    if isinstance(point, (tuple, list)):
        return type(point)(_axpy(p, d, s) for p, d in zip(point, delta))
    return point + s * delta

def _sub(a, b):
    if isinstance(a, tuple):
        return tuple(_sub(x, y) for x, y in zip(a, b))
    return np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)

def _scale(a, s):
    return tuple(_scale(x, s) for x in a) if isinstance(a, tuple) else a * s

def _max_abs(a) -> float:
    if isinstance(a, tuple):
        return max((_max_abs(x) for x in a), default=0.0)
    return float(np.max(np.abs(a), initial=0.0))

def _unit_vectors(point: list[np.ndarray]):
    """One direction per entry of the point: e₁, e₂, …"""
    for k, array in enumerate(point):
        for index in np.ndindex(array.shape):
            direction = [np.zeros_like(p) for p in point]
            direction[k][index] = 1.0
            yield direction
