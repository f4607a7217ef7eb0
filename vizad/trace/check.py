"""A local gradient check of every step: each op alone, at the input values the trace
recorded, against central differences. A custom op with a wrong vjp is found at its node.

The vjp is checked by :func:`vizad.gradcheck` on the op alone (seeded with a random cotangent);
the jvp, when the op has one, against central differences along a random tangent.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..executor import Executor
from ..forward import jvp
from ..gradcheck import gradcheck, random_like, value_node
from ..node import Node, Variable
from ..ops import make_tuple
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
    feed = dict(zip(xs, point))
    run = Executor([local])
    problems = []

    entrywise = sum(p.size for p in point) <= _ENTRYWISE
    report = gradcheck(local, xs, feed, eps=eps, rtol=rtol, atol=atol, seed=seed,
                       cotangent=random_like(run.run(feed)[0], rng),
                       directions=0 if entrywise else 3, coordinates=entrywise,
                       raise_on_failure=False)
    if not report.ok:
        worst = max(report.directions, key=lambda d: d.error, default=None)
        if report.worst_input is not None:
            error, detail = report.worst_error, (f"largest in the adjoint of input "
                                                 f"{xs.index(report.worst_input)}")
        else:
            error, detail = worst.error, (f"vjp gives {worst.analytic:.6g}, central "
                                          f"differences {worst.numeric:.6g}")
        problems.append(("vjp", error, detail))

    # forward: Jv against (f(x+εv) − f(x−εv)) / 2ε, when the op has a jvp
    v = [rng.standard_normal(p.shape) for p in point]
    try:
        tangent_node = jvp(local, {x: value_node(t) for x, t in zip(xs, v)})
    except NotImplementedError:
        return problems
    tangent = Executor([tangent_node]).run(feed)[0]
    up = run.run(dict(zip(xs, (p + eps * d for p, d in zip(point, v)))))[0]
    down = run.run(dict(zip(xs, (p - eps * d for p, d in zip(point, v)))))[0]
    numeric = _map2(lambda a, b: (np.asarray(a, float) - b) / (2 * eps), up, down)
    error = _max_abs(_map2(lambda a, b: np.asarray(a, float) - b, tangent, numeric))
    if error > atol + rtol * _max_abs(numeric):
        problems.append(("jvp", error, f"largest entry difference {error:.3g}"))
    return problems


# -- values that may be tuples ---------------------------------------------------------------
def _map2(fn, a, b):
    return tuple(_map2(fn, x, y) for x, y in zip(a, b)) if isinstance(a, tuple) else fn(a, b)


def _max_abs(value) -> float:
    if isinstance(value, tuple):
        return max((_max_abs(x) for x in value), default=0.0)
    return float(np.max(np.abs(value), initial=0.0))
