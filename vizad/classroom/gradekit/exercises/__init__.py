"""The cases of the exercise notebooks (``notebooks/exercises/``), one module an exercise.

An exercise's check cells run these very cases in the student's kernel
(``checks.run(vz.exercises.cases("b", globals()))``), and ``vz.grade(notebook,
course="exercises")`` runs them in the notebook's jail: one definition of each case, so the
notebook says what the grader will. A case reads the notebook's names through the grader's
:class:`~vizad.classroom.gradekit.case.Api`: what the student writes (``AddOp``,
``gradients``, ``Dual``) must be the notebook's own code, and the handout the notebook
imports (``ad``, vizad's 599W API; ``vz``) is read as the notebook named it. The inputs are the
published ones the notebook's text works through (the lecture's x1 = 2, x2 = 5), the same in
every run; vizad's answers (:mod:`vizad.classroom.courses.exercises`) are compared in the
grading process.
"""

from __future__ import annotations

import numpy as np

__all__ = ["SUBMODULES", "ARRAY", "order_faults"]

#: Where a notebook keeps its names besides its top level (none: its cells' globals).
SUBMODULES: tuple[str, ...] = ()


def ARRAY(*values) -> np.ndarray:  # noqa: N802 - reads as a constructor in the cases
    """A float array of ``values``."""
    return np.array(values, dtype=float)


def order_faults(order, outputs) -> dict[str, float]:
    """How a topological order of the graph that ``outputs`` end falls short, counted: nodes
    listed twice, nodes of the graph missing, nodes listed before one of their inputs (each
    0 for a right order; vizad's own order gives the zeros compared with)."""
    wanted, stack = {}, list(outputs)
    while stack:
        node = stack.pop()
        if id(node) not in wanted:
            wanted[id(node)] = node
            stack.extend(node.inputs)
    order = list(order)
    ids = [id(n) for n in order]
    seen: set[int] = set()
    early = 0
    for node in order:
        early += any(id(x) not in seen for x in node.inputs)
        seen.add(id(node))
    return {
        "nodes listed twice": float(len(ids) - len(set(ids))),
        "nodes of the graph missing": float(len(set(wanted) - set(ids))),
        "nodes listed before one of their inputs": float(early),
    }
