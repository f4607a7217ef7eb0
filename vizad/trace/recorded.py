"""Walkthroughs of another engine's backward pass, recorded as it ran.

PyTorch's ``loss.backward()`` computes the adjoints with its own rules, in its own order. A
bridge (:mod:`vizad.bridges`) watches it and hands over a :class:`Recording`: the engine's
nodes with their inputs, the forward values it saved, the order in which it ran them, the
gradient each one received (summed by the engine) and the partial adjoint it passed back along
each edge. :func:`recorded_trace` makes that a vizad graph (a forward node per engine node; an
adjoint node per partial adjoint v̄ᵢ→ⱼ and per sum v̄ᵢ = Σⱼ v̄ᵢ→ⱼ, built by the graph extension
of :mod:`vizad.engine.reverse`) and a reverse trace whose every value is the engine's own: nothing
is computed again, and a value the engine did not keep is shown as such
(:class:`~vizad.engine.tree.Unrecorded`), never filled in.
"""

from __future__ import annotations

import re
from contextlib import ExitStack
from typing import Any, NamedTuple
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from vizad.engine._gc import gc_paused
from vizad.errors import ArgumentError, RuleNotDefinedError
from vizad.engine.graph import ranked_order
from vizad.engine.node import Node, scope, source_line
from vizad.engine.op import VARIABLE, Op, Variable
from vizad.engine.reverse import extend_reverse
from vizad.trace.text import (
    check_decimals,
    format_difference,
    format_value,
    latex_name,
    roundoff_tolerance,
)
from vizad.engine.tree import is_tuple
from vizad.trace.build import reverse_trace
from vizad.trace.lazy import Once
from vizad.trace.records import CheckFailure
from vizad.trace.traces import ReverseTrace

__all__ = ["RecordedNode", "Recording", "RecordedReverseTrace", "recorded_trace"]


class RecordedNode(NamedTuple):
    """One node of the engine's backward graph, as the engine ran it."""

    #: The op's name as shown ("mul"); None for a leaf (an input that gradients flow to).
    op: str | None
    #: Per input of the engine's function: (the position in ``Recording.nodes`` of the node
    #: it reads, which output of that node), or None where the input needs no gradient.
    inputs: tuple = ()
    #: The name the user gave it (a leaf's name is needed: "W1", "leaf1").
    name: str | None = None
    #: The forward value, or an :class:`~vizad.engine.tree.Unrecorded` saying why there is none.
    value: Any = None
    #: The gradient the engine summed for this node before running its backward (a tuple
    #: when several of its outputs received one).
    adjoint: Any = None
    #: Per input: the partial adjoint its backward passed back (None where it passed none).
    partials: tuple = ()
    #: The nodes whose saved values its backward read (positions in ``Recording.nodes``).
    reads: tuple = ()
    #: The engine's name of its backward function ("MulBackward0").
    backward: str = ""
    #: A vizad op whose LaTeX writes this one (mul: v₁ × v₂, and its partials), or None.
    like: Op | None = None
    #: How many outputs its forward function has (a consumer of one of several reads
    #: ``v₃[1]``).
    outputs: int = 1
    #: The line of the user's code that made it (``"model.py:12  h = self.lstm(x)"``), or
    #: None: the node's ``source``.
    source: str | None = None
    #: The scopes it ran in, outermost first (``("scan t=3",)``: a loop's time step), drawn
    #: as clusters that fold into a "× T" box like ``vz.scope``'s.
    scope: tuple[str, ...] = ()


class Recording(NamedTuple):
    """What another engine's backward pass did, as data (see :class:`RecordedNode`)."""

    #: The engine's name, as views say it ("PyTorch").
    engine: str
    #: The nodes, every input before its consumers.
    nodes: tuple[RecordedNode, ...]
    #: The positions of the nodes in the order the engine ran their backward.
    order: tuple[int, ...]
    #: The position of the output, and v̄ of it (the seed); ``ones`` whether the seed is
    #: ones, as ``backward()`` of a scalar makes it.
    output: int
    seed: Any
    ones: bool = True
    #: The engine's own backward program as it prints it (JAX's transposed jaxpr), or "";
    #: or a function that makes it when the trace's ``program`` is first read.
    program: str | Callable[[], str] = ""
    #: The hooks on the tensor that node k computed, by name, which the engine ran on its
    #: summed gradient before its backward (PyTorch's ``register_hook``): looked up when a
    #: check finds a sum changed (None: the engine has none).
    hooks: Callable[[int], tuple[str, ...]] | None = None


class RecordedOp(Op):
    """An op of another engine's graph: its name, and what its backward passed back (the
    values are the engine's, recorded; vizad has no ``compute`` for it)."""

    wiring_attrs = ("positions", "outputs", "sent", "reads")

    def places(self, attrs):
        return tuple(zip(attrs["positions"], attrs["outputs"]))

    def __init__(self, name: str, engine: str, like: Op | None = None):
        self.name, self.engine, self.like = name, engine, like

    def compute(self, *values, **attrs):
        raise RuleNotDefinedError(
            f"op {self.name!r} was recorded from {self.engine}'s backward pass: its values are "
            f"{self.engine}'s, read from the run, and vizad cannot compute it (import the "
            "function with vz.from_torch(fn, *args) or vz.from_jax(fn, *args) for a graph "
            "that vizad evaluates)"
        )

    def vjp(self, node: Node, adjoint: Node) -> list[Node | None]:
        """The engine's partial adjoints as nodes: the backward function (with the forward
        values it read) applied to v̄ of ``node``, one per input it passed a gradient to."""
        attrs = node.attrs
        backward, reads = attrs["backward"], attrs["reads"]
        if attrs["reads_itself"]:  # its own output, saved (exp, tanh)
            reads = (node, *reads)
        return [
            backward(adjoint, *reads, input=position) if sent else None
            for position, sent in zip(attrs["positions"], attrs["sent"])
        ]

    def _full(self, args: Sequence[str], attrs: Mapping[str, Any]) -> tuple[list[str], bool]:
        """The arguments at the engine's input positions (· where an input needs no
        gradient; ``v_{3}[1]`` for output 1 of a node with several), and whether all are
        there."""
        full = [r"\cdot"] * attrs["arity"]
        for position, arg, output in zip(attrs["positions"], args, attrs["outputs"]):
            full[position] = arg if output is None else f"{arg}[{output}]"
        return full, len(args) == attrs["arity"]

    def latex(self, args, attrs):
        full, complete = self._full(args, attrs)
        if complete and self.like is not None:
            return self.like.latex(full, {})
        return rf"{_operator(self.name)}\left({', '.join(full)}\right)"

    def partial_latex(self, args, attrs, index):
        full, complete = self._full(args, attrs)
        return self.like.partial_latex(full, {}, index) if complete and self.like else None


#: Backward functions of ops whose arguments are alike (stacked or concatenated): the one
#: for input t passes back slice t of the adjoint, so time step t's matches step t − 1's.
_SLICES = frozenset({"stack_transpose", "concatenate_transpose", "StackBackward0", "CatBackward0"})


class RecordedBackward(Op):
    """The backward function of an engine's node (``MulBackward0``): what passed v̄ᵢ→ⱼ back
    to input ``input`` from v̄ⱼ and the forward values it saved."""

    def __init__(self, name: str, engine: str):
        self.name, self.engine = name, engine
        if name in _SLICES:  # the partial to input t is slice t of v̄ⱼ: which t is wiring
            self.wiring_attrs = ("input",)

    compute = RecordedOp.compute

    def latex(self, args, attrs):
        adjoint, reads = args[0], ", ".join(args[1:])
        read = f"; {reads}" if reads else ""
        return rf"{_operator(self.name)}\left({adjoint}{read}\right)[{attrs['input']}]"


def _operator(name: str) -> str:
    """An engine's op name in LaTeX as it is written (``MulBackward0``, ``log_softmax``):
    an identifier upright, anything else as :func:`~vizad.engine.text.latex_name` writes a name."""
    if re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name):
        return r"\operatorname{" + name.replace("_", r"\_") + "}"
    return latex_name(name)


def recorded_trace(recording: Recording, decimals: int = 3) -> RecordedReverseTrace:
    """The reverse trace of ``recording``: one step per node in the order the engine ran
    them, with the engine's own values."""
    decimals = check_decimals(decimals, "recorded_trace")
    with gc_paused():
        nodes = _forward_nodes(recording)
        y = nodes[recording.output]
        leaves = [n for n in nodes if n.op is VARIABLE]
        ranked = ranked_order(y)
        # the seed as a Variable, not a constant: a backward function of the seed alone
        # (``w * 2``'s) is then a node, not computed at once (vizad cannot compute it)
        seed = None if recording.ones else Variable("seed", shape=np.shape(recording.seed))
        record = extend_reverse(y, leaves, seed, None, ranked)
        raw = _values(recording, nodes, record)
        extension = list(dict.fromkeys(record.nodes()))
        order = [nodes[k] for k in recording.order if record.adjoint(nodes[k]) is not None]
        trace = reverse_trace(
            y,
            leaves,
            {},
            record,
            raw,
            extension,
            ranked,
            decimals,
            order=order,
            kind=RecordedReverseTrace,
            engine=recording.engine,
            program=recording.program,
        )
    if recording.hooks is not None:
        position, hooks = {n: k for k, n in enumerate(nodes)}, recording.hooks
        trace.hooks_of = lambda node: hooks(position[node]) if node in position else ()
    return trace


def _forward_nodes(recording: Recording) -> list[Node]:
    """A vizad node per engine node: Variables for the leaves, recorded ops for the others.
    Each is built in its scopes and with its source line, entered when they change from the
    node before's (a loop's time step is a run of nodes in one scope)."""
    with _Context() as context:
        return _built(recording, context)


def _built(recording: Recording, context: _Context) -> list[Node]:
    engine = recording.engine
    ops: dict[tuple[str, Op | None], RecordedOp] = {}
    backwards: dict[str, RecordedBackward] = {}
    nodes: list[Node] = []
    for k, r in enumerate(recording.nodes):
        context.enter(r.scope, r.source)
        if r.op is None:
            nodes.append(Variable(r.name or f"leaf{k + 1}", shape=np.shape(r.value)))
            continue
        op = ops.get((r.op, r.like))
        if op is None:
            op = ops[(r.op, r.like)] = RecordedOp(r.op, engine, r.like)
        backward = backwards.get(r.backward)
        if backward is None:
            backward = backwards[r.backward] = RecordedBackward(r.backward, engine)
        given = [(p, edge) for p, edge in enumerate(r.inputs) if edge is not None]
        attrs = {
            "arity": len(r.inputs),
            "positions": tuple(p for p, _ in given),
            "outputs": tuple(
                output if recording.nodes[j].outputs > 1 else None for _, (j, output) in given
            ),
            "sent": tuple(r.partials[p] is not None for p, _ in given),
            "backward": backward,
            "reads": tuple(nodes[j] for j in r.reads if j != k),
            "reads_itself": k in r.reads,
        }
        nodes.append(op(*(nodes[j] for _, (j, _output) in given), name=r.name, **attrs))
    return nodes


class _Context:
    """The scopes and the source line that nodes are built in, changed only when they
    differ from those entered (each ``vz.scope`` and ``source_line`` costs a context
    variable's set and reset, per node otherwise)."""

    def __init__(self) -> None:
        self._scopes: tuple[str, ...] = ()
        self._source: str | None = None
        self._scope_stack = ExitStack()
        self._source_stack = ExitStack()

    def enter(self, scopes: tuple[str, ...], source: str | None) -> None:
        if scopes != self._scopes:
            self._source_stack.close()  # the line is entered inside the scopes
            self._source = None
            self._scope_stack.close()
            for name in scopes:
                self._scope_stack.enter_context(scope(name))
            self._scopes = scopes
        if source != self._source:
            self._source_stack.close()
            if source is not None:
                self._source_stack.enter_context(source_line(source))
            self._source = source

    def __enter__(self) -> _Context:
        return self

    def __exit__(self, *exc: object) -> None:
        self._source_stack.close()
        self._scope_stack.close()


def _values(recording: Recording, nodes: list[Node], record) -> dict[Node, Any]:
    """Every node's value as the engine gave it: forward values (or why there is none), the
    partial adjoints, then the sums (a sum of one partial adjoint is that partial adjoint)."""
    raw: dict[Node, Any] = dict(zip(nodes, (r.value for r in recording.nodes)))
    position = {node: k for k, node in enumerate(nodes)}
    for x in nodes:
        for p in record.partials(x):
            consumer = recording.nodes[position[p.consumer]]
            raw[p.node] = consumer.partials[p.consumer.attrs["positions"][p.index]]
    for node, r in zip(nodes, recording.nodes):
        total = record.adjoint(node)
        if total is not None:
            raw[total] = recording.seed if node is nodes[recording.output] else r.adjoint
    return raw


class RecordedReverseTrace(ReverseTrace):
    """The reverse walkthrough of another engine's backward pass (see :func:`recorded_trace`):
    its steps in the order the engine ran them, its values the engine's own. ``check()``
    checks what a recording can show: that each adjoint the engine summed is the sum of the
    partial adjoints it passed (v̄ᵢ = Σⱼ v̄ᵢ→ⱼ)."""

    #: The gradients laid out as the function's arguments were given (a dict of parameters
    #: as a dict), when the recorder knows that layout (``vz.jax_backward``,
    #: ``vz.torch_backward(..., inputs=...)``); else None.
    grads: Any = None

    @staticmethod
    def hooks_of(node: Node) -> tuple[str, ...]:
        """The names of the hooks the engine ran on ``node``'s summed gradient (see
        :attr:`Recording.hooks`)."""
        return ()

    def __init__(self, *args: Any, engine: str, program: str | Callable[[], str] = ""):
        super().__init__(*args)
        self.engine = engine
        self._program = Once(program) if callable(program) else Once.ready(program)
        self.view_titles = {
            **self.view_titles,
            "adjoint": f"the graph extended with the adjoint nodes of {engine}'s backward pass",
            "backprop": f"each node's adjoint, as {engine} computed it, laid on the forward graph",
        }

    @property
    def program(self) -> str:
        """The engine's own backward program as it prints it (JAX's transposed linearized
        jaxpr), when it has one (made when first read); "" otherwise."""
        return self._program.get()

    def memory(self, keep: Any = None) -> Any:
        """Refused: vizad cannot run a recorded engine's ops again, and the engine's own
        memory is its own (import the function with vz.from_torch or vz.from_jax, then
        ``vz.trace_reverse(...).memory()``; see vizad.bridges for the saved values)."""
        raise ArgumentError(
            f"memory: this walkthrough was recorded from {self.engine}'s backward pass, whose "
            f"ops vizad cannot run again; import the function (vz.from_torch or vz.from_jax) "
            "and take vz.trace_reverse(...).memory() of the graph vizad evaluates"
        )

    def _checked(
        self, eps: float, rtol: float | None, atol: float | None, rng: int
    ) -> list[CheckFailure]:
        """The steps where the engine's sum v̄ᵢ is not the sum of the partial adjoints v̄ᵢ→ⱼ
        it passed (to ``rtol``, by default round-off: :data:`vizad.engine.text.ROUNDOFF`, 1e-5
        for float32 and 1e-12 for float64; ``atol`` 0).
        The engine's rules themselves are its own: a recording has no op to check alone
        (``eps`` and ``rng`` are not used)."""
        from vizad.trace.check import CheckSkip

        failures, hooked, d = [], [], self.decimals
        for step in self.steps:
            if step.is_output or is_tuple(step.adjoint):
                continue
            parts = [np.asarray(c.partial, dtype=np.float64) for c in step.contributions]
            total = sum(parts)
            got = np.asarray(step.adjoint, dtype=np.float64)
            tol = roundoff_tolerance(step.adjoint) if rtol is None else rtol
            error = float(np.max(np.abs(total - got), initial=0.0))
            # round-off is that of the terms added, not of a sum that cancels to nothing
            scale = max(
                float(np.max(np.abs(got), initial=0.0)),
                float(np.max(sum(np.abs(p) for p in parts), initial=0.0)),
            )
            if np.shape(total) != np.shape(got) or error > (atol or 0.0) + tol * scale:
                said = " + ".join(format_value(c.partial, d) for c in step.contributions)
                off = format_difference(
                    error, total, got, tolerance=roundoff_tolerance(step.adjoint)
                )
                head = (
                    f"{self.engine} summed the partial adjoints to "
                    f"{format_value(step.adjoint, d)}, but {said} is {format_value(total, d)} "
                    f"(off by {off})"
                )
                hooks = self.hooks_of(step.node)
                if hooks:  # the user's hook changed the sum: what it gave is not checkable
                    before = (
                        "it reached .grad"
                        if step.node.op is VARIABLE
                        else f"the backward of {step.node.op.name}"
                    )
                    reason = (
                        f"{head}: a hook on the tensor {step.label}, {', '.join(hooks)} "
                        f"(register_hook), changed {self.engine}'s sum before {before}; the "
                        "sum before the hook is not recorded"
                    )
                    hooked.append(
                        CheckSkip(step.index + 1, step.node, step.label, step.node.op.name, reason)
                    )
                    continue
                failures.append(
                    CheckFailure(
                        step=step.index + 1,
                        node=step.node,
                        label=step.label,
                        op=step.node.op.name,
                        rule="sum",
                        error=error,
                        message=f"step {step.index + 1}, {step.label}: {head}",
                    )
                )
        self._ran_not_checked = hooked
        return failures

    def _title(self) -> str:
        return (
            f"{self.engine}'s backward pass of {self.label(self.output)}: "
            f"{len(self.steps)} steps, in the order {self.engine} ran them"
        )
