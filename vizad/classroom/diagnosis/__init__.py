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

The modules: ``report`` (:class:`Diagnosis`, :class:`Problem`), ``checker`` (the checks, the
same for every style), ``hints`` (what a report says about a wrong number or a raised
exception), and one module per style saying how to read its graph: ``autodiff_style`` (CSE
599W), ``needle_style``, ``micrograd_style``.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from vizad.errors import ArgumentTypeError
from vizad.engine.numerical import random_generator
from vizad.classroom.diagnosis.autodiff_style import AutodiffChecker
from vizad.classroom.diagnosis.checker import Checker
from vizad.classroom.diagnosis.micrograd_style import MicrogradChecker
from vizad.classroom.diagnosis.needle_style import NeedleChecker
from vizad.classroom.diagnosis.printout import Printout, adjoint_printout
from vizad.classroom.diagnosis.replay import Replay, replay
from vizad.classroom.diagnosis.report import Diagnosis, Problem

__all__ = [
    "diagnose",
    "Diagnosis",
    "Problem",
    "adjoint_printout",
    "Printout",
    "replay",
    "Replay",
]

#: The styles, in the order they are tried: a micrograd Value of vizad.classroom.courses is also a
#: node with inputs and op.
_STYLES: tuple[type[Checker], ...] = (MicrogradChecker, AutodiffChecker, NeedleChecker)


def _walk_causes(problems: list[Problem], checker: Checker, y, wrt: list, feed) -> None:
    """Final gradients wrong with every rule right: the walk's cause as the replay of the
    student's own reverse pass finds it (an adjoint used before all its partial adjoints
    arrived, a partial adjoint replaced), where the report's heuristics guessed from the
    values (a walk in forward order behind a ``.get`` fallback looks like "not summed"). A
    micrograd-style report's own hints already tell its order bugs apart."""
    wrong = [p for p in problems if p.kind == "gradient" and p.input is not None]
    if not wrong or not isinstance(checker, AutodiffChecker):  # micrograd's hints say it
        return
    try:
        causes = replay(y, wrt, feed).causes
    except Exception:  # noqa: BLE001 - the student's code: the report says what it found
        return
    if not causes:
        return
    cause = causes[0] + " (vz.diagnosis.replay shows the walk step by step)"
    for p in wrong:
        p.message = p.message.replace(p.hint, cause) if p.hint else p.message
        p.hint = cause


def diagnose(y: Any, wrt: Any, feed: dict | None = None, *, rng: int = 0) -> Diagnosis:
    """Check a student's engine on the graph of ``y`` (see the module's docs): each op's
    gradient rule in isolation, the topological order, the final gradients with respect to
    ``wrt`` (a node or a list). ``feed`` gives the placeholders' values (CSE 599W style);
    ``rng`` is the random seed of the probes.

    Examples:
        >>> from vizad.classroom.courses.micrograd.engine import Value
        >>> a, b = Value(2.0, label="a"), Value(-3.0, label="b")
        >>> L = (a * b + a).tanh()
        >>> report = vz.diagnose(L, [a, b])
        >>> report.ok
        True
    """
    wrt = list(wrt) if isinstance(wrt, (list, tuple)) else [wrt]
    style = next((s for s in _STYLES if s.reads(y)), None)
    if style is None:
        raise ArgumentTypeError(
            f"diagnose: {type(y).__name__} is not a node of a CSE 599W-, needle- or "
            "micrograd-style engine (expected inputs/op/const_attr, inputs/op/"
            "realize_cached_data, or _prev/_op/data/_backward); give the output node of such "
            "a graph"
        )
    checker = style(y, feed)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # said in the report
        problems, rules = checker.check(y, wrt, random_generator(rng, "diagnose"))
        _walk_causes(problems, checker, y, wrt, feed)
    said = [p.message for p in problems] + checker.notes
    named = re.findall(r"v[₀-₉]+", " ".join(said))
    return Diagnosis(
        checker.style, problems, rules, checker.notes, (y, wrt, feed), checker.defined(named)
    )
