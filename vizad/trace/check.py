"""A local gradient check of every step: each op alone, at the input values the trace
recorded, against central differences. A custom op with a wrong vjp is found at its node.

The vjp is checked by :func:`vizad.gradcheck` on the op alone (seeded with a random cotangent);
the jvp, when the op has one, against central differences along a random tangent. The inputs
are moved only where correct code is answerable (:mod:`vizad.trace.perturb`: infinite entries
held, structured matrices within their structure, a framework's op in its own float type).
"""

from __future__ import annotations

import math
import re
from typing import Any, NamedTuple

import numpy as np

from vizad.errors import RuleNotDefinedError, StepNotFoundError
from vizad.engine.executor import Executor
from vizad.engine.forward import jvp
from vizad.engine.reverse import gradients
from vizad.engine.numerical import (
    central_derivative,
    default_tolerances,
    gradcheck,
    check_eps,
    not_finite,
    numerical_gradient,
    random_generator,
    rounding_epsilon,
    value_node,
)
from vizad.engine.node import Node
from vizad.engine.op import CONSTANT, Variable, constant
from vizad.engine.ops import make_tuple
from vizad.trace.text import format_difference, format_value, roundoff_tolerance
from vizad.engine.tree import (
    floating_dtype,
    inner,
    inner_abs,
    leaves,
    max_abs,
    random_like,
    shape_of,
    tree_map,
)
from vizad.trace.nonfinite import finite, nonfinite_words, value_mark
from vizad.trace.perturb import (
    TIED,
    finite_part,
    held,
    unmovable,
    recorded_type,
    structure_of,
    value_structure,
    within,
)
from vizad.trace.records import CheckFailure

__all__ = [
    "check_trace",
    "check_op",
    "CheckSkip",
    "STOP_GRADIENT",
    "not_checked",
    "by_differences",
    "differences_report",
]

#: Inputs with at most this many entries in all are checked entry by entry; larger ones along
#: random directions.
_ENTRYWISE = 64


#: Ops whose vjp is zero by definition, not the derivative of their value: central
#: differences cannot check them (JAX's ``stop_gradient``, PyTorch's ``detach``).
STOP_GRADIENT = frozenset({"stop_gradient", "detach", "detach_", "lift_fresh"})


class CheckSkip(NamedTuple):
    """A step whose rule :func:`check_trace` did not check, and why."""

    step: int
    node: Node
    label: str
    op: str
    reason: str

    def __str__(self) -> str:
        return f"step {self.step}, {self.label} = {self.op}(…): not checked: {self.reason}"


def check_trace(
    trace,
    eps: float,
    rtol: float | None,
    atol: float | None,
    seed: int,
    skipped: list[CheckSkip] | None = None,
) -> list[CheckFailure]:
    """The failures of every step's rule (see :func:`check_op`); the steps that cannot be
    checked, with the reason, are appended to ``skipped`` (:func:`not_checked`): stop-gradient
    ops, whose vjp is zero by definition, and ops at NaN or infinite values, where central
    differences cannot check anything (not a failure: the values are told apart as
    produced there or received, :mod:`vizad.trace.nonfinite`). A constant input that is not
    finite (logsumexp's ``max(-inf, x)``) is held fixed, and an output of a multi-output op
    that nothing reads takes no cotangent (layer norm's mean and rstd), as the framework's own
    vjp treats them. A rule that failed while a tolerant trace was built
    (``trace.record.faults``) is a failure at its step."""
    check_eps(eps, "check")
    random_generator(seed, "check")
    faults = getattr(trace.record, "faults", ())
    failures = [_fault_failure(trace, fault) for fault in faults]
    consumers = _tuple_reads(trace)
    skips = not_checked(trace, consumers)
    if skipped is not None:
        skipped.extend(skips)
    passed = {s.node for s in skips} | {fault.node for fault in faults}
    ran: list[CheckSkip] = []  # the rules found not checkable when run
    for step in trace.steps:
        node = step.node
        if not node.inputs or node in passed:
            continue
        inputs = [trace.values[i] for i in node.inputs]
        fixed = frozenset(
            k for k, x in enumerate(node.inputs) if _nonfinite_constant(trace, x, inputs[k])
        )
        used = consumers.get(node) if isinstance(trace.values.get(node), tuple) else None
        found = check_op(node, inputs, eps, rtol, atol, seed, indices=True, fixed=fixed, used=used)
        for rule, error, detail, k, shown in found:
            if shown == NOT_CHECKED:  # no failure: said by not_checked()
                reason = f"its {rule}: {detail}"
                ran.append(CheckSkip(step.index + 1, node, step.label, node.op.name, reason))
                continue
            args = ", ".join(trace.label(i) for i in node.inputs)
            where, label = step, step.label
            wrong = ""
            if rule == "vjp" and k is not None and trace.mode == "reverse":
                # the wrong partial adjoint v̄ₖ→ⱼ is shown at the step of input k: mark that
                # step, with the value the rule should have given beside the one it gave
                try:
                    target = trace.step_of(node.inputs[k])
                except StepNotFoundError:  # an input that is not differentiated
                    target = None
                if target is not None:
                    where, label = target, target.label
                    wrong = _expected_beside_got(trace, node, inputs, k, decimals=trace.decimals)
            failures.append(
                CheckFailure(
                    step=where.index + 1,
                    node=node,
                    label=label,
                    op=node.op.name,
                    rule=rule,
                    error=error,
                    message=f"step {where.index + 1}, {label}: from {step.label} = "
                    f"{node.op.name}({args}): "
                    + (
                        f"the {rule} of op {node.op.name!r} {detail}"
                        if math.isnan(error)
                        else f"the {rule} of op {node.op.name!r} disagrees with central "
                        f"differences by {shown} ({detail})"
                    )
                    + wrong,
                )
            )
    trace._ran_not_checked = ran
    if skipped is not None:
        skipped.extend(ran)
    return failures


#: The longest error text a fault's message quotes (a student's exception can be long).
_QUOTED = 200


def _fault_failure(trace, fault) -> CheckFailure:
    """The failure of a rule that failed while the trace was built (a :class:`RuleFault`):
    an adjoint of the wrong shape at the step of its input, naming both shapes; a rule that
    raised at the step of its node, naming the shapes it was given."""
    node = fault.node
    step = trace.step_of(node)
    args = ", ".join(trace.label(i) for i in node.inputs)
    head = f"{step.label} = {node.op.name}({args}): the vjp of op {node.op.name!r}"
    where = step
    if fault.index is not None:
        inp = node.inputs[fault.index]
        try:
            where = trace.step_of(inp)
        except StepNotFoundError:  # an input that is not differentiated
            pass
        name = trace.names.partial(inp, node, fault.index).text
        detail = (
            f" gives {name} of shape {fault.shape} for {trace.label(inp)} of shape "
            f"{shape_of(trace.values[inp])}: an adjoint must have its input's shape (zeros "
            "stand in for it here)"
        )
    else:
        cause = fault.error.__cause__ or fault.error
        text = re.sub(r"node #\d+ ", "", " ".join(f"{type(cause).__name__}: {cause}".split()))
        if len(text) > _QUOTED:
            text = text[: _QUOTED - 1] + "…"
        shapes = ", ".join(
            f"{trace.label(i)} of shape {shape_of(trace.values[i])}" for i in node.inputs
        )
        detail = (
            f", given {trace.names.bar(node).text} of shape {shape_of(step.adjoint)} and "
            f"{shapes}, raised {text} (zeros stand in for the partial adjoints it owed)"
        )
    return CheckFailure(
        step=where.index + 1,
        node=node,
        label=where.label,
        op=node.op.name,
        rule="vjp",
        error=math.nan,
        message=f"step {where.index + 1}, {where.label}: from {head}{detail}",
    )


def not_checked(trace, consumers: dict[Node, set[int]] | None = None) -> list[CheckSkip]:
    """The steps that :func:`check_trace` does not check, each with the reason: stop-gradient
    ops (their vjp is zero by definition, not the derivative of their value), and ops at a
    point with NaN or infinite values (inputs or value: central differences there are not
    finite, so no rule can be compared with them; this is no failure of the rule). Each says
    where the non-finite numbers come from: produced at this node, or received from its
    inputs. ``consumers``: :func:`_tuple_reads` of ``trace``, when made already."""
    if consumers is None:
        consumers = _tuple_reads(trace)
    out = []
    for step in trace.steps:
        node = step.node
        if not node.inputs:
            continue
        if _base_name(node.op.name) in STOP_GRADIENT:
            reason = f"{node.op.name} passes no gradient by definition (a stop-gradient op)"
            out.append(CheckSkip(step.index + 1, node, step.label, node.op.name, reason))
            continue
        complex_ = _complex_point(trace, node)
        if complex_:
            reason = (
                f"complex values ({complex_}): central differences here move real numbers, "
                "and frameworks differ in what the adjoint of a complex value is"
            )
            out.append(CheckSkip(step.index + 1, node, step.label, node.op.name, reason))
            continue
        bad = _nonfinite_point(trace, node, consumers)
        if bad:
            reason = (
                f"non-finite values ({'; '.join(bad)}): central differences cannot check a "
                "rule there"
            )
            out.append(CheckSkip(step.index + 1, node, step.label, node.op.name, reason))
    return out


def _complex_point(trace, node: Node) -> str:
    """The first complex input or value of ``node`` ("input v₂ is complex128"), or ""."""
    for x in (*dict.fromkeys(node.inputs), node):
        value = trace.values.get(x)
        if value is None:
            continue
        kinds = [np.asarray(v).dtype for v in leaves(value) if np.iscomplexobj(v)]
        if kinds:
            what = "its value" if x is node else f"input {trace.label(x)}"
            return f"{what} is {kinds[0]}"
    return ""


def _nonfinite_point(trace, node: Node, consumers: dict[Node, set[int]]) -> list[str]:
    """What is not finite at the point where ``node``'s rule would be checked: its inputs
    that are (but a constant held fixed, :func:`_nonfinite_constant`) and its value (the
    elements of a tuple that are read), each as where it comes from (``[]``: all finite)."""
    said, held_only = [], True
    for x in dict.fromkeys(node.inputs):
        value = trace.values.get(x)
        if value is None or finite(value) or _nonfinite_constant(trace, x, value):
            continue
        held_only &= _infinite_only(value)  # infinite entries are held by the check
        said.append(f"input {trace.label(x)} = {nonfinite_words(value)}")
    value = trace.values.get(node)
    used = consumers.get(node) if isinstance(value, tuple) else None
    if value is not None and not finite(_used_part(value, used)):
        held_only &= _infinite_only(value)  # and take no cotangent
        mark = value_mark(trace, node)
        if mark is not None:
            said.append(str(mark))
    return [] if held_only else said


def _nonfinite_constant(trace, x: Node, value: Any) -> bool:
    """Whether input ``x`` holds NaN or infinite numbers and nothing is differentiated
    through it (a constant, or computed from constants only: logsumexp's -inf, jnp.var's
    NaN for a zero divisor): held fixed, it cannot make the check fail."""
    if isinstance(value, tuple) or np.asarray(value).dtype.kind not in "fc":
        return False
    if np.all(np.isfinite(value)):
        return False
    if x.op is CONSTANT:
        return True
    try:
        trace.step_of(x)
    except StepNotFoundError:
        return True
    return False


def _base_name(name: str) -> str:
    """An op's name without the framework's decoration (``aten.detach.default`` → detach)."""
    name = name.split(" ", 1)[0]
    parts = [p for p in name.split(".") if p not in ("aten", "default", "prim", "lax")]
    return parts[0] if parts else name


def _tuple_reads(trace) -> dict[Node, set[int]]:
    """For each node of the trace with a tuple value, the elements that some node of the
    forward graph reads (with ``tuple_get``): the others take no cotangent."""
    reads: dict[Node, set[int]] = {}
    for n in trace.graph:
        for x in n.inputs:
            if isinstance(trace.values.get(x), tuple):
                index = n.attrs.get("index") if n.op.name == "tuple_get" else None
                if index is None:  # read whole: every element
                    reads.setdefault(x, set()).update(range(len(trace.values[x])))
                else:
                    reads.setdefault(x, set()).add(index)
    if trace.output in trace.values and isinstance(trace.values[trace.output], tuple):
        reads.setdefault(trace.output, set()).update(range(len(trace.values[trace.output])))
    return reads


def _expected_beside_got(trace, node: Node, inputs: list[Any], k: int, decimals: int) -> str:
    """ "; v̄₃→₄ = got, should be expected": the partial adjoint that ``node``'s vjp passed
    to input ``k`` in the walkthrough, and what central differences of its op give at the
    walkthrough's adjoint of ``node``."""
    step = trace.step_of(node.inputs[k])
    contribution = next(
        (c for c in step.contributions if c.consumer is node and c.index == k), None
    )
    if contribution is None:
        return ""
    xs: list[Node] = []
    args = [_variables(value, f"input{j}", xs) for j, value in enumerate(inputs)]
    local = node.op(*args, **dict(node.attrs))
    feed = {x: _leaf_value(x, inputs) for x in xs}
    position = [_input_of(x) for x in xs].index(k)
    expected = numerical_gradient(local, xs, feed, cotangent=trace.adjoint(node))[position]
    name = trace.names.partial(node.inputs[k], node, k).text
    return (
        f"; {name} = {format_value(contribution.partial, decimals)}, "
        f"should be {format_value(expected, decimals)}"
    )


def _leaf_value(x: Node, inputs: list[Any]) -> np.ndarray:
    """The value a Variable made by :func:`_variables` stands for ("input3.1": element 1 of
    the tuple value of input 3)."""
    path = [int(p) for p in x.name.removeprefix("input").split(".")]
    value = inputs[path[0]]
    for j in path[1:]:
        value = value[j]
    return np.asarray(value)


def _input_of(x: Node) -> int:
    """The input position of a Variable made by :func:`_variables` ("input3" or "input3.1")."""
    return int(x.name.split(".")[0].removeprefix("input"))


def check_op(
    node: Node,
    inputs: list[Any],
    eps: float = 1e-3,
    rtol: float | None = None,
    atol: float | None = None,
    seed: int = 0,
    *,
    indices: bool = False,
    fixed: frozenset[int] = frozenset(),
    used: set[int] | None = None,
) -> list[tuple]:
    """Check the op of ``node`` alone at ``inputs``: its vjp and its jvp, each when the op
    has it. Returns (rule, error, detail) for each rule that disagrees with central
    differences, or that raises (error NaN, detail naming the exception): a rule that fails
    is reported, never propagated, so that a walkthrough's other steps keep working. With
    ``indices``, each tuple ends with the input the vjp is worst at (or None) and the error as
    a person reads it (:func:`vizad.engine.text.format_difference`: "round-off" when it is
    within round-off of the values compared, else the number). The inputs
    at the positions ``fixed`` are held fixed (not checked); ``used``, for an op giving a
    tuple, the elements that are read (the others take a zero cotangent). A rule that cannot
    be checked here (the framework has none, NaN values, a custom_linear_solve over several
    nodes) comes with the shown error :data:`NOT_CHECKED`: no failure, a reason."""
    rng = random_generator(seed, "check")
    name = _base_name(node.op.name)
    if name in TIED and len(set(node.inputs[:-1])) > 1:
        return [("vjp and jvp", math.nan, _UNTIED, None, NOT_CHECKED)]
    xs: list[Node] = []  # the Variables perturbed: one per array, tuple elements too
    point: list[np.ndarray] = []  # their values: finite (infinite entries are held)
    args: list[Node] = []
    first: dict[Node, int] = {}  # for an op of TIED: each input node's first position
    for k, value in enumerate(inputs):
        same = node.inputs[k] if k < len(node.inputs) else None
        if k in fixed:
            args.append(constant(np.asarray(value)))
        elif name in TIED and same in first:
            args.append(args[first[same]])
        else:
            first.setdefault(same, k)  # type: ignore[arg-type]
            kind = structure_of(name, value)
            args.append(_movable(value, f"input{k}", xs, point, kind, not node.op._builtin))
    if not point:  # nothing floating to differentiate
        return []
    held_any = any(
        unmovable(leaf).any()
        for k, value in enumerate(inputs)
        if k not in fixed
        for leaf in leaves(value)
        if np.asarray(leaf).dtype.kind == "f"
    )
    local = node.op(*args, **dict(node.attrs))
    shaped = value_structure(name, node.attrs)
    if shaped:
        local = within(local, shaped)
    feed = dict(zip(xs, point))
    output = Executor([local]).run(feed)[0]
    infinite = output if _infinite_only(output) else None
    if infinite is not None:  # infinite entries of the value take no cotangent
        local = finite_part(local, output)
    run = Executor([local])
    output = run.run(feed)[0]
    default_rtol, default_atol = default_tolerances(output, *point)
    rtol = default_rtol if rtol is None else rtol
    atol = default_atol if atol is None else atol
    w = random_like(output, rng)
    if used is not None and isinstance(w, tuple):
        w = tuple(v if j in used else zeros_like_value(v) for j, v in enumerate(w))
    problems = []
    context = (local, xs, feed, point, w, run, eps, rtol, atol, seed, rng)
    # NaN inputs or value (infinite ones in a tuple): no rule can be compared with anything
    blocked = not_finite(
        [(f"input {k} is", v) for k, v in enumerate(point)]
        + [("its value is", _used_part(output, used))]
    )
    for rule, check in (("vjp", _check_vjp), ("jvp", _check_jvp)):
        try:
            found = check(*context)
        except RuleNotDefinedError:  # the op has no such rule: nothing to check
            continue
        except Exception as exc:  # the rule itself fails: report it at this step
            missing = _missing_rule(exc)
            if missing:  # the framework has no such rule: not checked, not a failure
                problems.append((rule, math.nan, missing, None, NOT_CHECKED))
            else:
                detail = f"it raised {type(exc).__name__}: {exc}"
                problems.append((rule, math.nan, detail, None, "nan"))
            continue
        if blocked and found:
            reason = f"cannot be checked here: {'; '.join(blocked)}"
            found = [(rule, math.nan, reason, None, NOT_CHECKED)]
        elif rule == "vjp" and not found and held_any:
            found = _flat_at_infinity(node, inputs, fixed, w, infinite, atol)
        problems += found
    return problems if indices else [p[:3] for p in problems]


def _used_part(value: Any, used: set[int] | None) -> Any:
    """The elements of a tuple value that are read (all of a value that is not a tuple)."""
    if used is None or not isinstance(value, tuple):
        return value
    return tuple(v for j, v in enumerate(value) if j in used)


#: Why JAX's custom_linear_solve over several nodes is not checked alone.
_UNTIED = (
    "they hold only while the solve it is given inverts its matvec, and their "
    "arguments are different nodes here (jnp.linalg.inv's LU factors of the matrix): moved "
    "apart, they no longer do; the steps that computed them are checked"
)

#: The shown error of a rule that :func:`check_op` could not check (no failure): the
#: framework has no such rule, or the values there are not finite.
NOT_CHECKED = "not checked"


def _movable(
    value: Any, name: str, xs: list[Node], point: list, kind: str | None, typed: bool
) -> Node:
    """:func:`_variables` of ``value`` (their values appended to ``point``), each moved
    only within ``kind`` (:func:`vizad.trace.perturb.structure_of`), its infinite entries
    held (:func:`vizad.trace.perturb.held`), and, if ``typed``, given to the op in its own
    float type (:func:`vizad.trace.perturb.recorded_type`; vizad's own ops take the float64
    of the check, which keeps its differences accurate)."""
    if isinstance(value, tuple):
        return make_tuple(
            *(_movable(v, f"{name}.{j}", xs, point, None, typed) for j, v in enumerate(value))
        )
    a = np.asarray(value)
    if a.dtype.kind not in "fc":  # integers are not differentiated
        return constant(a)
    x = Variable(name, shape=a.shape)
    xs.append(x)
    moved: Node = x
    if a.dtype.kind == "f" and unmovable(a).any() and not np.isnan(a).any():
        moved, a = held(x, a)
    point.append(a)
    if typed and a.dtype != np.float64:
        moved = recorded_type(moved, a.dtype)
    return within(moved, kind) if kind else moved


def _infinite_only(value: Any) -> bool:
    """Whether an array value holds infinite entries and no NaN."""
    if isinstance(value, tuple):
        return False
    a = np.asarray(value)
    return a.dtype.kind == "f" and bool(unmovable(a).any()) and not np.isnan(a).any()


def _missing_rule(exc: BaseException) -> str:
    """Why a rule that raised ``exc`` is missing from its framework ("": it is not; it
    failed): PyTorch's ops without forward-mode AD (grid_sample) raise NotImplementedError
    or say they do not support it."""
    cause: BaseException | None = exc
    said = ""
    while cause is not None:  # the innermost cause that says so: the framework's words
        text = " ".join(str(cause).split())
        if isinstance(cause, NotImplementedError) or "does not support it" in text:
            said = re.sub(r".*(?:RuntimeError|NotImplementedError): ", "", text)
        cause = cause.__cause__
    if len(said) > _QUOTED:
        said = said[: _QUOTED - 1] + "…"
    return f"the framework has no such rule for this op ({said})" if said else ""


def _flat_at_infinity(
    node: Node, inputs: list[Any], fixed: frozenset[int], w: Any, output: Any, atol: float
) -> list[tuple]:
    """The vjp at the infinite entries of ``node``'s inputs (held by the check), with the
    cotangent ``w`` (zero where ``output``, when given, is infinite): a function that stays
    finite as an input goes to ±∞ is flat there, so its rule must give 0 (what central
    differences say too: −inf + h is −inf). Returns the problem, or []."""
    if output is not None:
        w = np.where(unmovable(output), 0, w)
    xs: list[Node] = []
    args = [
        constant(np.asarray(value)) if k in fixed else _variables(value, f"input{k}", xs)
        for k, value in enumerate(inputs)
    ]
    local = node.op(*args, **dict(node.attrs))
    feed = {x: _leaf_value(x, inputs) for x in xs}
    with np.errstate(all="ignore"):
        got = Executor(gradients(local, xs, cotangent=value_node(w))).run(feed)
    for x, g in zip(xs, got):
        at = unmovable(feed[x])
        if not at.any():
            continue
        g = np.asarray(g, dtype=np.float64)
        worst = float(np.max(np.abs(np.where(at, g, 0.0)), initial=0.0))
        if math.isnan(worst) or worst > atol * (1 + float(np.max(np.abs(g), initial=0.0))):
            k = _input_of(x)
            index = [int(i) for i in np.argwhere(at & ~(np.abs(g) <= 0))[0]]
            return [
                (
                    "vjp",
                    worst,
                    f"gives {float(g[tuple(index)]):.6g} at entry {index} of input {k}, which "
                    f"is {float(feed[x][tuple(index)])}: where the op's value stays finite, "
                    "it is flat as that input goes to ±∞ and central differences give 0",
                    k,
                    f"{worst:.3g}",
                )
            ]
    return []


def zeros_like_value(value: Any) -> Any:
    """Zeros shaped like ``value`` (leaf by leaf) in its float type."""
    return tree_map(lambda v: np.zeros(np.shape(v), dtype=floating_dtype(v)), value)


def _check_vjp(local, xs, feed, point, w, run, eps, rtol, atol, seed, rng):
    problems = []

    entrywise = sum(p.size for p in point) <= _ENTRYWISE
    report = gradcheck(
        local,
        xs,
        feed,
        eps=eps,
        rtol=rtol,
        atol=atol,
        rng=seed,
        cotangent=w,
        directions=0 if entrywise else 3,
        coordinates=entrywise,
        raise_on_failure=False,
    )
    if report.not_finite:  # NaN or infinite values: nothing can be compared (not ok)
        problems.append(
            (
                "vjp",
                math.nan,
                "cannot be checked here: it gives NaN or infinite values",
                None,
                "nan",
            )
        )
    elif not report.ok:
        worst = max(report.directions, key=lambda d: d.error, default=None)
        index = None
        tolerance = roundoff_tolerance(*report.gradients)
        if report.worst_input is not None:
            index = _input_of(report.worst_input)
            error, detail = report.worst_error, f"largest in the adjoint of input {index}"
            gradient = report.gradients[[x is report.worst_input for x in xs].index(True)]
            shown = format_difference(error, gradient, tolerance=tolerance)
        else:
            error, detail = (
                worst.error,
                (f"vjp gives {worst.analytic:.6g}, central differences {worst.numeric:.6g}"),
            )
            shown = format_difference(error, worst.analytic, worst.numeric, tolerance=tolerance)
        problems.append(("vjp", error, detail, index, shown))

    return problems


def _check_jvp(local, xs, feed, point, w, run, eps, rtol, atol, seed, rng):
    """⟨w, J v⟩ against the central derivative of t ↦ ⟨w, f(x + t v)⟩."""
    problems = []
    v = [random_like(p, rng) for p in point]
    tangent_node = jvp(local, {x: value_node(t) for x, t in zip(xs, v)})
    exact_value = Executor([tangent_node]).run(feed)[0]  # J v, in the op's float type
    exact = inner(w, exact_value)
    wide = [np.asarray(p, dtype=np.float64) for p in point]

    def along_v(t: float) -> float:
        with np.errstate(all="ignore"):  # probes outside the domain: a smaller step
            return inner(w, run.run(dict(zip(xs, (p + t * d for p, d in zip(wide, v)))))[0])

    value = run.run(feed)[0]
    numeric = central_derivative(
        along_v,
        rtol=rtol,
        atol=atol,
        first_step=eps,
        magnitude=inner_abs(w, value),
        epsilon=rounding_epsilon(value),
    )
    if not (math.isfinite(exact) and math.isfinite(numeric.value)):
        # NaN or infinite values: nothing can be compared, which is not a pass
        which = "it" if not math.isfinite(exact) else "central differences"
        detail = f"cannot be checked here: {which} give NaN or infinite values"
        problems.append(("jvp", math.nan, detail, None, "nan"))
        return problems
    size = max_abs(w) * sum(float(np.sum(np.abs(d))) for d in v)
    error = abs(exact - numeric.value)
    if (
        numeric.status == "ok"
        and error > atol * (1 + size) + rtol * abs(numeric.value) + 3 * numeric.error
    ):
        shown = format_difference(
            error, exact, numeric.value, tolerance=roundoff_tolerance(exact_value, *point)
        )
        problems.append(
            (
                "jvp",
                error,
                f"jvp gives ⟨w, J v⟩ = {exact:.6g}, central differences {numeric.value:.6g}",
                None,
                shown,
            )
        )
    return problems


def _variables(value: Any, name: str, into: list[Node]) -> Node:
    """A Variable per array of ``value`` (appended to ``into``), assembled with make_tuple
    where ``value`` is a (nested) tuple."""
    if isinstance(value, tuple):
        return make_tuple(*(_variables(v, f"{name}.{j}", into) for j, v in enumerate(value)))
    if np.asarray(value).dtype.kind not in "fc":  # integers are not differentiated
        return constant(np.asarray(value))
    x = Variable(name, shape=np.shape(value))
    into.append(x)
    return x


def by_differences(trace, k: int, eps: float = 1e-6, rng: Any = 0) -> tuple[float, float]:
    """Step ``k``'s result checked against the function itself: (its value by central
    differences, the walkthrough's), both along a direction d (all ones for a scalar, random
    for a tensor). Reverse mode: the output ⟨ȳ, y⟩ with vᵢ moved to vᵢ + h·d, against
    ⟨v̄ᵢ, d⟩; forward mode: vᵢ with the seeded inputs moved along their tangents, against
    ⟨v̇ᵢ, d⟩. Not a check of one rule (that is :func:`check_trace`) but of the whole chain
    from the output (or the seeds) to this node."""
    from vizad.engine.executor import evaluate_into

    check_eps(eps, "by_differences")
    step = trace.steps[k]
    node = step.node
    generator = random_generator(rng, "by_differences")
    if trace.mode == "reverse":
        start = np.asarray(trace.values[node], dtype=float)
        d = np.ones_like(start) if start.ndim == 0 else generator.standard_normal(start.shape)
        seed = np.asarray(trace.steps[0].adjoint, dtype=float)

        def f(h: float) -> float:
            values: dict = {node: start + h * d}
            evaluate_into([trace.output], values, trace.feed)
            return float(np.sum(seed * np.asarray(values[trace.output], dtype=float)))

        computed = float(np.sum(np.asarray(step.adjoint, dtype=float) * d))
    else:
        result = np.asarray(step.tangent, dtype=float)
        d = np.ones_like(result) if result.ndim == 0 else generator.standard_normal(result.shape)
        seeds = {s: np.asarray(trace.values[t], dtype=float) for s, t in trace.seeds.items()}

        def f(h: float) -> float:
            feed = dict(trace.feed)
            for s, tangent in seeds.items():
                feed[s] = np.asarray(feed[s], dtype=float) + h * tangent
            values: dict = {}
            evaluate_into([node], values, feed)
            return float(np.sum(d * np.asarray(values[node], dtype=float)))

        computed = float(np.sum(result * d))
    return (f(eps) - f(-eps)) / (2 * eps), computed


def differences_report(trace, k: int) -> dict:
    """Step ``k``'s result checked by :func:`by_differences`, as the stepper's panel says it:
    {"numeric", "computed", "agree" (to a relative 1e-4, an absolute 1e-6; None when either
    is NaN or infinite: nothing was compared, and that number is None, as JSON has no NaN),
    "text"}."""
    with np.errstate(all="ignore"):  # NaN at the point: said below, not warned
        numeric, computed = by_differences(trace, k)
    step = trace.steps[k]
    name = trace.result_name(step.node).text
    along = "" if np.ndim(trace.result(step)) == 0 else " along a random d"
    head = (
        f"{name}{along} by central differences: {numeric:.6g}, the walkthrough's {computed:.6g}: "
    )
    if not (math.isfinite(numeric) and math.isfinite(computed)):
        return {
            "numeric": numeric if math.isfinite(numeric) else None,
            "computed": computed if math.isfinite(computed) else None,
            "agree": None,
            "text": head + "not compared (non-finite values: nothing can be checked here)",
        }
    agree = bool(np.isclose(numeric, computed, rtol=1e-4, atol=1e-6))
    text = head + ("they agree" if agree else "they DIFFER")
    return {"numeric": numeric, "computed": computed, "agree": agree, "text": text}
