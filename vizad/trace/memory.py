"""What reverse mode keeps: the values alive at each step of a reverse walkthrough.

Reverse mode trades memory for time: the backward pass reads forward values, so they are kept
from the forward pass until the last step that reads them. :func:`memory` (``trace.memory()``)
runs the forward pass and the walkthrough step by step, holding each value exactly as long as
a later step reads it, and counts what is alive at every step. With ``keep`` (checkpoints),
the forward values not kept are dropped after the forward pass and computed again, from the
nearest values still held, in the step where the walkthrough first needs them.

**What is alive.** The timeline has one step per forward value (v₁ … vₙ in the forward order;
constants are part of the program, not values), then one step per step of the walkthrough (v̄ᵢ,
in the walkthrough's order), with recomputation steps in between when checkpointing. The
values are:

- the forward values vᵢ: alive from their step to the last step that reads them — a forward
  step that takes vᵢ as input, a recomputation that takes it as input, or a walkthrough step
  whose rules read it (``tanh``'s rule reads its output, ``sin``'s its input, ``mul``'s the
  other factor; ``ones_like`` reads a shape only, which keeps nothing alive);
- the adjoints v̄ᵢ: alive from the step that sums them to the last step that reads them (the
  steps of vᵢ's inputs, whose partial adjoints v̄ₖ→ᵢ = v̄ᵢ ∂vᵢ/∂vₖ are made from v̄ᵢ); the
  gradients (the adjoints of ``wrt``) are the results, alive to the end;
- a value the graph extension computes in one step and a later step reads (rare: a rule whose
  intermediate serves two inputs).

A step counts what it holds while it runs: the values alive before it, those it reads, and
what it makes. The products a step makes and sums at once (the local partials ∂vⱼ/∂vᵢ and the
partial adjoints v̄ᵢ→ⱼ) are the step's own work and are not counted. A value with no later
reader is freed at once, inputs included.

**Checkpoints.** With ``keep``, the inputs (which nothing can recompute) are checkpoints too.
A forward value that is not a checkpoint lives in the forward pass until the forward pass has
read it, and is computed again (its op run again, from held values; further dropped values
first) at the first walkthrough step that reads it, then held until its last reader. A
checkpoint is held until its last reader and at least until the walkthrough reaches its own
step: until then a recomputation may start from it, as a checkpointing runtime keeps a
segment's input until that segment's backward pass has run.

On a chain of L ``tanh`` layers (y = tanh(… tanh(x))), storing everything holds the L values
tanh(…) plus 2 — the seed v̄ and the adjoint it is passed to — at the peak (x is freed: tanh's
rule reads its output). With a checkpoint every k layers (``keep`` the input of each segment
of k layers: x, the output of layer k, of layer 2k, …), the peak is L/k + k + 2: the L/k
checkpoints, the k values of the last segment recomputed, and the same two adjoints; smallest
at k = √L. Each dropped value is computed again once.

Every value is computed by running the ops on the values held (a read of a freed value would
fail), so the gradients it gives are those of the walkthrough, bit for bit.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from vizad.errors import ArgumentError, ArgumentTypeError, StepNotFoundError
from vizad.engine.executor import evaluate_into
from vizad.engine.node import Node
from vizad.engine.op import CONSTANT, VARIABLE, constant_value
from vizad.engine.tree import leaves
from vizad.trace.display import html_table, text_table

if TYPE_CHECKING:  # pragma: no cover
    from vizad.trace.traces import ReverseTrace

__all__ = ["Memory", "MemoryStep", "Held", "memory", "memory_plan", "forward_values", "is_input"]

#: The phases of a memory timeline's steps.
FORWARD, RECOMPUTE, REVERSE = "forward", "recompute", "reverse"
#: What a held value is: a forward value vᵢ, an adjoint v̄ᵢ, or a value of the graph
#: extension that a later step reads.
VALUE, ADJOINT, INTERMEDIATE = "value", "adjoint", "intermediate"


class Held(NamedTuple):
    """A value held in memory: ``node`` is vᵢ for a forward value (role "value") and for its
    adjoint v̄ᵢ (role "adjoint"), the extension's node for an intermediate; ``label`` its
    name (``v₃``, ``v̄₃``).

    Examples:
        >>> memory = vz.examples.lecture().memory()
        >>> [held.label for held in memory.alive(13)]
        ['v₁', 'v₂', 'v̄₅', 'v̄₄', 'v̄₃', 'v̄₂']
    """

    node: Node
    role: str
    label: str


class MemoryStep(NamedTuple):
    """One step of a memory timeline.

    ``phase`` is "forward" (vᵢ computed by the forward pass), "recompute" (vᵢ computed again
    from the values held, for a checkpointed walkthrough) or "reverse" (the walkthrough's step
    of vᵢ, which computes v̄ᵢ; ``walkthrough`` is its number in the trace, 1 … n). ``reads``
    are the held values the step reads, ``made`` what it adds, ``freed`` what is freed after
    it (its last reader; the gradients, handed back at the end, are not listed), and
    ``values``, ``bytes`` what is alive while it runs.

    Examples:
        >>> step = vz.examples.lecture().memory()[13]
        >>> step.phase, step.walkthrough, step.label, [h.label for h in step.reads], step.values
        ('reverse', 6, 'v̄₂', ['v₁', 'v₂', 'v̄₅', 'v̄₄'], 6)
    """

    index: int  # type: ignore[assignment]  # (hides tuple.index: a public field's name)
    phase: str
    node: Node
    label: str
    walkthrough: int | None
    reads: tuple[Held, ...]
    made: tuple[Held, ...]
    freed: tuple[Held, ...]
    values: int
    bytes: int


class _Life:
    """One value's stay in memory: made at step ``made``, held to step ``end``."""

    __slots__ = ("held", "made", "end", "key", "nbytes")

    def __init__(self, held: Held, made: int, key: Node) -> None:
        self.held, self.made, self.end, self.key = held, made, made, key
        self.nbytes = 0


class _Plan(NamedTuple):
    """A step before its lives are known: what it computes and the nodes it reads."""

    phase: str
    node: Node
    walkthrough: int | None
    computes: tuple[Node, ...]  # in creation order (topological)
    reads: tuple[Node, ...]  # forward nodes (values) and extension nodes of earlier steps


class Memory:
    """The memory timeline of a reverse walkthrough (see :func:`memory` and the module's
    docstring for what counts as alive): its steps (numbered 1 … n, as ``memory[1]``), the
    values and bytes alive at each, the peak, the forward ops run again, and the gradients
    computed with the values held.

    Examples:
        >>> x = vz.Variable("x")
        >>> h = x
        >>> for _ in range(4):
        ...     h = vz.tanh(h)
        >>> trace = vz.trace_reverse(h, x, {x: 0.5})
        >>> trace.memory().peak_values, trace.memory(keep=[]).peak_values
        (6, 7)
        >>> len(trace.memory(keep=[]).recomputed)
        4
    """

    def __init__(
        self,
        trace: ReverseTrace,
        keep: frozenset[Node] | None,
        steps: tuple[MemoryStep, ...],
        lives: list[_Life],
        recomputed: tuple[Node, ...],
        gradients: list[Any],
    ) -> None:
        #: The walkthrough, and the checkpoints asked for (None: every value stored).
        self.trace = trace
        self.keep = keep
        self.steps = steps
        #: The forward nodes computed again, in the order they were (empty without ``keep``).
        self.recomputed = recomputed
        #: The gradients computed with the values held (those of ``trace.gradients``).
        self.gradients = gradients
        self._lives = lives
        values = [s.values for s in steps]
        sizes = [s.bytes for s in steps]
        #: The most values alive at a step, and the most bytes.
        self.peak_values = max(values, default=0)
        self.peak_bytes = max(sizes, default=0)
        #: The number (1 … n) of the first step where each peak is reached.
        self.peak_step = values.index(self.peak_values) + 1 if steps else 0
        self.peak_bytes_step = sizes.index(self.peak_bytes) + 1 if steps else 0

    # -- the timeline -----------------------------------------------------------------------
    @property
    def alive_values(self) -> list[int]:
        """The number of values alive at each step (the timeline's curve)."""
        return [s.values for s in self.steps]

    @property
    def alive_bytes(self) -> list[int]:
        """The bytes alive at each step."""
        return [s.bytes for s in self.steps]

    def alive(self, number: int) -> tuple[Held, ...]:
        """The values alive while step ``number`` (1 … n) runs, in the order they were made."""
        k = self._index(number)
        return tuple(life.held for life in self._lives if life.made <= k <= life.end)

    @property
    def saved(self) -> tuple[Node, ...]:
        """The forward values held from the forward pass into the walkthrough (what a
        framework calls the saved residuals or saved tensors), in the forward order."""
        first = next((s.index for s in self.steps if s.phase != FORWARD), len(self.steps))
        return tuple(
            life.held.node
            for life in self._lives
            if life.held.role == VALUE and life.made < first <= life.end
        )

    @property
    def peak(self) -> MemoryStep:
        """The first step where the most values are alive."""
        return self.steps[self.peak_step - 1]

    def __len__(self) -> int:
        return len(self.steps)

    def __iter__(self) -> Iterator[MemoryStep]:
        return iter(self.steps)

    def __getitem__(self, number: int) -> MemoryStep:
        """Step ``number``: 1 … n, as the table numbers them (-1 is the last)."""
        return self.steps[self._index(number)]

    def _index(self, number: int) -> int:
        n = len(self.steps)
        if isinstance(number, bool) or not isinstance(number, int):
            raise ArgumentTypeError(
                f"a step number is an int from 1 to {n}, got {type(number).__name__} {number!r:.20}"
            )
        if 1 <= number <= n:
            return number - 1
        if -n <= number <= -1:
            return n + number
        raise StepNotFoundError(f"step {number} is out of range: steps are numbered 1 … {n}")

    # -- displays ---------------------------------------------------------------------------
    def describe(self) -> str:
        """One line: the policy, the peak and its step, the forward ops run again."""
        policy = (
            "every value stored"
            if self.keep is None
            else f"{len(self.keep)} checkpoint{'s' if len(self.keep) != 1 else ''} kept"
        )
        peak = self.peak
        # the timeline's steps count the forward pass too: the walkthrough's own step beside
        walk = ""
        if peak.walkthrough is not None:
            walk = f", the walkthrough's step {peak.walkthrough}"
        where = (
            f"step {peak.index + 1} of {len(self.steps)} ({peak.phase} {peak.label}{walk})"
            if self.steps
            else "no step"
        )
        return (
            f"Memory of the reverse walkthrough of {self.trace.label(self.trace.output)} "
            f"({policy}): peak {self.peak_values} values, {_size(self.peak_bytes)}, at "
            f"{where}; {len(self.recomputed)} forward ops run again"
        )

    def table(self) -> tuple[list[str], list[list[str]]]:
        """The timeline as a header and one row of plain text per step."""
        return list(_HEADER), [self._row(s) for s in self.steps]

    def _row(self, step: MemoryStep) -> list[str]:
        return [
            str(step.index + 1),
            step.phase + (f" {step.walkthrough}" if step.walkthrough is not None else ""),
            step.label,
            ", ".join(h.label for h in step.reads),
            ", ".join(h.label for h in step.freed),
            str(step.values) + (" ◀ peak" if step.index + 1 == self.peak_step else ""),
            _size(step.bytes),
        ]

    def __repr__(self) -> str:
        rows = [self._row(s) for s in self.steps[:_SHOWN_TEXT]]
        more = len(self.steps) - len(rows)
        return (
            self.describe()
            + "\n"
            + text_table(list(_HEADER), rows, limit=_SHOWN_TEXT)
            + (f"\n… {more} more steps" if more else "")
        )

    def _repr_html_(self) -> str:
        rows = [self._row(s) for s in self.steps[:_SHOWN_HTML]]
        more = len(self.steps) - len(rows)
        note = f"… {more} more steps (memory.table() gives them all)" if more else ""
        return html_table(self.describe(), list(_HEADER), rows, note)


_HEADER = ("step", "phase", "computes", "reads", "freed after", "values alive", "bytes")
_SHOWN_HTML, _SHOWN_TEXT = 200, 30


def _size(n: int) -> str:
    """Bytes as a person reads them: 800 B, 7.8 KiB, 1.5 MiB."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


def _nbytes(value: Any) -> int:
    """The bytes of a value: its arrays' (a Python number counts as 8)."""
    return sum(int(np.asarray(leaf).nbytes) for leaf in leaves(value))


# -- building the timeline ------------------------------------------------------------------
def memory(trace: ReverseTrace, keep: Node | Iterable[Node] | None = None) -> Memory:
    """The memory timeline of ``trace`` (a reverse walkthrough): ``keep=None`` stores every
    forward value the walkthrough reads; ``keep`` (nodes of the forward graph) keeps those as
    checkpoints and recomputes the others when the walkthrough needs them. See the module's
    docstring for what is alive when."""
    forward, position, reverse, owner, adjoint_of = _structure(trace)
    kept = _checked_keep(trace, keep, position)
    record = trace.record

    # the forward steps, then the walkthrough's with the recomputations it needs
    plans = [_Plan(FORWARD, n, None, (n,), _values_read(n, position)) for n in forward]
    dropped = (
        frozenset()
        if kept is None
        else frozenset(n for n in forward if not _leaf(n) and n not in kept)
    )
    recomputed: list[Node] = []
    again: set[Node] = set()
    for plan in reverse:
        wanted = [n for n in plan.reads if n in dropped and n not in again]
        for n in _to_recompute(wanted, dropped, again, position):
            plans.append(_Plan(RECOMPUTE, n, None, (n,), _values_read(n, position)))
            recomputed.append(n)
            again.add(n)
        plans.append(plan)

    timeline = _lives(trace, plans, owner, adjoint_of, kept, dropped)
    gradients = _run(trace, plans, timeline, record)
    steps = _steps(trace, plans, timeline)
    return Memory(trace, kept, steps, timeline[0], tuple(recomputed), gradients)


def memory_plan(trace: ReverseTrace) -> dict[str, Any]:
    """What a memory timeline is made from, as JSON-ready data, so that a page without a
    kernel can make the timeline of any set of checkpoints (the stepper's checkpoint editor,
    ``static/stepper/memory.js``, follows :func:`memory` step for step). Values are numbered:
    ``forward`` lists the forward values in the forward order (``label``, the positions of the
    values its op reads as ``inputs``, ``bytes``, ``leaf`` for an input); ``values`` the values
    the walkthrough's steps make (``label``, ``bytes``, ``result`` for a gradient); ``reverse``
    the walkthrough's steps (``label``, ``node``: the position of vᵢ, ``reads``: forward
    positions, ``takes``: values made by earlier steps, ``makes``: its own values).

    Examples:
        >>> from vizad.trace.memory import memory_plan
        >>> plan = memory_plan(vz.examples.lecture())
        >>> plan["forward"][3]["label"], plan["forward"][3]["inputs"]
        ('v₄', [0, 1])
        >>> plan["reverse"][5]["label"], plan["reverse"][5]["reads"]
        ('v̄₂', [0, 1])
    """
    forward, position, reverse, owner, adjoint_of = _structure(trace)
    names, values = trace.names, trace.values
    read_later = {n for plan in reverse for n in plan.reads if n in owner}
    results = {g for g in trace.record.gradients if g is not None}
    number: dict[Node, int] = {}
    made_values: list[dict[str, Any]] = []
    steps = []
    for plan in reverse:
        takes = [number[n] for n in plan.reads if n in owner]
        makes = []
        for node in plan.computes:
            if node not in adjoint_of and node not in read_later:
                continue
            number[node] = len(made_values)
            makes.append(number[node])
            made_values.append(
                {
                    "label": names.bar(adjoint_of[node]).text
                    if node in adjoint_of
                    else names.label(node),
                    "bytes": _nbytes(values[node]),
                    "result": node in adjoint_of and node in results,
                }
            )
        steps.append(
            {
                "label": names.bar(plan.node).text,
                "node": position.get(plan.node),
                "reads": [position[n] for n in plan.reads if n in position],
                "takes": takes,
                "makes": makes,
            }
        )
    return {
        "forward": [
            {
                "label": names.label(n),
                "inputs": [position[x] for x in _values_read(n, position)],
                "bytes": _nbytes(values[n]),
                "leaf": _leaf(n),
            }
            for n in forward
        ],
        "values": made_values,
        "reverse": steps,
    }


def _structure(trace):
    """The forward values in the forward order (constants left out) with their positions,
    the walkthrough's steps as plans (the extension nodes each computes, what each reads),
    which step computes each extension node, and which forward node each adjoint is of."""
    forward = forward_values(trace)
    position = {n: k for k, n in enumerate(forward)}
    order = list(trace.steps.nodes) if hasattr(trace.steps, "nodes") else [s.node for s in trace]
    record = trace.record
    owner: dict[Node, int] = {}  # extension node → the walkthrough step computing it
    adjoint_of: dict[Node, Node] = {}  # extension node → the forward node it is v̄ of
    for node in order:
        adjoint_of.setdefault(record.adjoint(node), node)
    reverse: list[_Plan] = []
    for j, node in enumerate(order):
        roots: list[Node] = [record.adjoint(node)]
        for p in record.partials(node):
            roots += [n for n in (p.unreduced, p.local, p.node) if isinstance(n, Node)]
        computes, reads = _walk(j, roots, position, owner)
        reverse.append(_Plan(REVERSE, node, j + 1, computes, reads))
    return forward, position, reverse, owner, adjoint_of


def forward_values(trace: ReverseTrace) -> list[Node]:
    """The forward values of a timeline, in the forward order (v₁ … vₙ: the trace's graph
    without its constants): the order of :func:`memory_plan`'s ``forward``.

    Examples:
        >>> from vizad.trace.memory import forward_values
        >>> trace = vz.examples.lecture()
        >>> [trace.label(n) for n in forward_values(trace)]
        ['v₁', 'v₂', 'v₃', 'v₄', 'v₅', 'v₆', 'v₇']
    """
    return [n for n in trace.graph if n.op is not CONSTANT]


def _leaf(node: Node) -> bool:
    """An input: a value nothing can compute again (a Variable, an eager leaf)."""
    return not node.inputs or node.op is VARIABLE


def is_input(node: Node) -> bool:
    """Whether forward value ``node`` is an input of the walkthrough: always held (nothing
    computes it again), a checkpoint whatever ``keep`` says.

    Examples:
        >>> from vizad.trace.memory import forward_values, is_input
        >>> [is_input(n) for n in forward_values(vz.examples.lecture())][:3]
        [True, True, False]
    """
    return _leaf(node)


def _checked_keep(trace, keep, position: dict[Node, int]) -> frozenset[Node] | None:
    """``keep`` as a set of forward nodes, or a clear error naming what is not one."""
    if keep is None:
        return None
    given = [keep] if isinstance(keep, Node) else keep
    try:
        items = list(given)
    except TypeError:
        raise ArgumentTypeError(
            f"memory: keep is a set of nodes of the forward graph (or None), got "
            f"{type(keep).__name__} {keep!r:.40}"
        ) from None
    out = set()
    for item in items:
        if not isinstance(item, Node):
            raise ArgumentTypeError(
                f"memory: keep holds nodes of the forward graph, got {type(item).__name__} "
                f"{item!r:.40}"
            )
        if item.op is CONSTANT and item in trace.values:
            raise ArgumentError(
                f"memory: keep holds {item.describe()}, a constant: constants are part of the "
                "program, not values the pass holds; give nodes that compute values"
            )
        if item not in position:
            raise ArgumentError(
                f"memory: keep holds {item.describe()}, which is not a node of the forward "
                f"graph of this walkthrough (of {trace.label(trace.output)}): give nodes of "
                "trace.graph"
            )
        out.add(item)
    return frozenset(out)


def _values_read(node: Node, position: dict[Node, int]) -> tuple[Node, ...]:
    """The forward values ``node``'s op reads (its inputs but constants, once each; none for
    an op that reads shapes only)."""
    if node.op.shape_only:
        return ()
    return tuple(dict.fromkeys(x for x in node.inputs if x in position))


def _walk(
    j: int, roots: list[Node], position: dict[Node, int], owner: dict[Node, int]
) -> tuple[tuple[Node, ...], tuple[Node, ...]]:
    """The extension nodes walkthrough step ``j`` computes (those of ``roots`` and their
    inputs that no earlier step computes), in creation order, and the nodes it reads: forward
    values, and extension nodes of earlier steps (adjoints, intermediates)."""
    computes: list[Node] = []
    reads: dict[Node, None] = {}
    seen: set[Node] = set()
    stack = list(reversed(roots))
    while stack:
        node = stack.pop()
        if node in seen or node.op is CONSTANT:
            continue
        seen.add(node)
        if node in position:
            reads[node] = None
            continue
        k = owner.get(node)
        if k is not None:
            if k != j:
                reads[node] = None
            continue
        owner[node] = j
        computes.append(node)
        if not node.op.shape_only:
            stack.extend(node.inputs)
    computes.sort(key=lambda n: n.id)
    # forward values in the forward order, then the earlier steps' values in their order
    ordered = sorted(reads, key=lambda n: (0, position[n]) if n in position else (1, owner[n]))
    return tuple(computes), tuple(ordered)


def _to_recompute(
    wanted: list[Node], dropped: frozenset[Node], again: set[Node], position: dict[Node, int]
) -> list[Node]:
    """The dropped values to compute again so that ``wanted`` can be read: they and the
    dropped values they are computed from, back to values held (checkpoints, inputs, values
    computed again already), in the forward order."""
    needed: set[Node] = set()
    stack = list(wanted)
    while stack:
        node = stack.pop()
        if node in needed or node in again:
            continue
        needed.add(node)
        if not node.op.shape_only:
            stack.extend(x for x in node.inputs if x in dropped)
    return sorted(needed, key=position.__getitem__)


def _lives(trace, plans, owner, adjoint_of, kept, dropped):
    """Each value's stay in memory, and each step's reads and makes as lives: ``(lives,
    reads per step, made per step)``."""
    names = trace.names
    later_read: set[Node] = set()  # extension nodes read by another walkthrough step
    for plan in plans:
        if plan.phase == REVERSE:
            later_read.update(n for n in plan.reads if n in owner)
    current: dict[Node, _Life] = {}
    lives: list[_Life] = []
    reads: list[list[_Life]] = []
    made: list[list[_Life]] = []
    backward = next((t for t, p in enumerate(plans) if p.phase != FORWARD), len(plans))
    for t, plan in enumerate(plans):
        if t == backward:
            for node in dropped:  # the forward copies the walkthrough reads no more
                current.pop(node, None)
        step_reads = []
        for node in plan.reads:
            life = current[node]
            life.end = max(life.end, t)
            step_reads.append(life)
        reads.append(step_reads)
        step_made = []
        for node in plan.computes:
            if plan.phase != REVERSE:
                held = Held(node, VALUE, names.label(node))
            elif node in adjoint_of:
                held = Held(adjoint_of[node], ADJOINT, names.bar(adjoint_of[node]).text)
            elif node in later_read:
                held = Held(node, INTERMEDIATE, names.label(node))
            else:
                continue  # the step's own work
            life = _Life(held, t, node)
            current[node] = life
            lives.append(life)
            step_made.append(life)
        made.append(step_made)
    # results and checkpoints: held to the end, and until the walkthrough reaches them
    last = len(plans) - 1
    step_of = {plan.node: t for t, plan in enumerate(plans) if plan.phase == REVERSE}
    gradients = {g for g in trace.record.gradients if g is not None}
    for life in lives:
        node = life.held.node
        if life.held.role == ADJOINT and life.key in gradients:
            life.end = last
        elif (
            kept is not None
            and life.held.role == VALUE
            and (node in kept or _leaf(node))
            and plans[life.made].phase == FORWARD
        ):
            life.end = max(life.end, step_of.get(node, life.end))
    return lives, reads, made


def _run(trace, plans, lives_of, record) -> list[Any]:
    """Run the timeline: every value computed by its op from the values held, each freed
    after its last reader (a read of a freed value would fail). The gradients' values."""
    lives, reads, made = lives_of
    free_at: dict[int, list[_Life]] = {}
    for life in lives:
        free_at.setdefault(life.end, []).append(life)
    held: dict[_Life, Any] = {}
    results: dict[Node, Any] = {}  # the gradients, as the run computes them
    wanted = {g for g in record.gradients if g is not None}
    feed = trace.feed
    for t, plan in enumerate(plans):
        known = {life.key: held[life] for life in reads[t]}
        for node in plan.computes:
            known[node] = _compute(node, known, trace, feed)
        for life in made[t]:
            value = held[life] = known[life.key]
            life.nbytes = _nbytes(value)
            if life.held.role == ADJOINT and life.key in wanted:
                results[life.key] = value
        for life in free_at.get(t, ()):
            del held[life]
    out: list[Any] = []
    for g in record.gradients:
        if g in results:
            value = results[g]
            out.append(value if isinstance(value, tuple) else np.asarray(value))
        else:  # no path from w to the output: zeros of its shape, as the walkthrough has
            out.append(trace.values[g] if g is not None else None)
    return out


def _compute(node: Node, known: dict[Node, Any], trace, feed) -> Any:
    """``node``'s value from the values ``known`` (its op run again); a shape-only op reads
    the walkthrough's values for their shapes."""
    op = node.op
    if not node.inputs or op is VARIABLE:
        values: dict[Node, Any] = {}
        evaluate_into([node], values, feed)
        return values[node]
    args = []
    for x in node.inputs:
        if x.op is CONSTANT:
            args.append(constant_value(x))
        elif op.shape_only:
            args.append(trace.values[x])
        else:
            args.append(known[x])
    return op.bind(node)(*args)


def _steps(trace, plans, lives_of) -> tuple[MemoryStep, ...]:
    """The step records, with the values and bytes alive at each."""
    lives, reads, made = lives_of
    n = len(plans)
    count = [0] * (n + 1)
    size = [0] * (n + 1)
    freed: list[list[Held]] = [[] for _ in range(n)]
    results = {g for g in trace.record.gradients if g is not None}
    for life in lives:
        count[life.made] += 1
        count[life.end + 1] -= 1
        size[life.made] += life.nbytes
        size[life.end + 1] -= life.nbytes
        if not (life.end == n - 1 and life.held.role == ADJOINT and life.key in results):
            freed[life.end].append(life.held)
    names = trace.names
    steps = []
    values = nbytes = 0
    for t, plan in enumerate(plans):
        values += count[t]
        nbytes += size[t]
        label = names.bar(plan.node).text if plan.phase == REVERSE else names.label(plan.node)
        steps.append(
            MemoryStep(
                t,
                plan.phase,
                plan.node,
                label,
                plan.walkthrough,
                tuple(life.held for life in reads[t]),
                tuple(life.held for life in made[t]),
                tuple(freed[t]),
                values,
                nbytes,
            )
        )
    return tuple(steps)
