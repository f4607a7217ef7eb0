"""The lecture's names for every node a view shows: one object per trace or drawing.

Forward nodes are v₁ … vₙ in display order. The nodes a graph extension added are named by
what they compute, in the lecture's notation:

=================  ==============  ==========================================
v̄ᵢ                 adjoint         Σⱼ v̄ᵢ→ⱼ (the seed for the output)
v̄ᵢ→ⱼ               partial adjoint v̄ⱼ ∂vⱼ/∂vᵢ
v̄ᵢ→ⱼ before Σ      unreduced       v̄ⱼ ∂vⱼ/∂vᵢ before a sum-to-shape step
∂vⱼ/∂vᵢ            local partial
v̇ᵢ                 tangent         Σₖ v̇ₖ ∂vᵢ/∂vₖ (given for a seeded input)
u₁, u₂, …          intermediate    a part of a rule's formula
=================  ==============  ==========================================

Gradients of gradients: a node that a *later* extension differentiates again is a forward node
of that extension, so it gets its own number vₖ (after every node of the graph it extends:
numbers go generation by generation), and its role in the earlier extension is kept as its
alias, marked with that extension's generation (``v₉`` is ``v̄₃⁽¹⁾``, the first gradient's v̄₃).
The last extension's nodes are then v̄₉, v̄₉→₁₂, ∂v₁₂/∂v₉, unmarked: one notation at every
order, and a name from an earlier generation never reads like one of the last. Labels are
unique within one :class:`Names`; where two extensions of the same generation would give the
same name (two gradients of one output drawn together), the extension's number is added as a
superscript, and where a consumer reads a node twice (v₁ × v₁) the second partial is v̄₁→₂′.
Constants are shown by their name or value. No label holds an internal id.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from vizad.engine.forward import Tangents
from vizad.engine.graph import number_ranked, topo_sort
from vizad.engine.eager import EagerNode
from vizad.engine.node import Node
from vizad.engine.op import CONSTANT, VARIABLE
from vizad.trace.text import (
    BAR,
    DOT,
    format_value,
    latex_name,
    latex_value,
    subscript,
    superscript,
)

if TYPE_CHECKING:  # pragma: no cover
    from vizad.engine.extension import AdjointRole
    from vizad.engine.reverse import Adjoints

__all__ = ["Name", "Names"]


class Name(NamedTuple):
    """A name as plain text (``v̄₃→₅``) and as LaTeX (``\\bar{v}_{3\\to 5}``).

    Examples:
        >>> trace = vz.examples.lecture()
        >>> name = trace.result_name(trace.steps[5].node)
        >>> name.text
        'v̄₂'
    """

    text: str
    latex: str


class Names:
    """Names of the nodes of one view.

    ``graph`` is the part of the graph that is numbered (a topological order, usually
    :func:`vizad.engine.graph.ranked_order`); ``extension`` the nodes an extension added that are
    named by their role in ``records`` (the Adjoints/Tangents records drawn or traced).

    Examples:
        >>> trace = vz.examples.lecture()
        >>> names = trace.names
        >>> type(names).__name__, names.number(trace.output)
        ('Names', 7)
    """

    def __init__(
        self, graph: Iterable[Node], extension: Iterable[Node] = (), records: Sequence = ()
    ) -> None:
        self.records = tuple(records)
        self._record_index = {id(r): k for k, r in enumerate(self.records, start=1)}
        graph = list(graph)
        #: The display number k of each numbered node vₖ.
        self.numbers, generation = _numbering(graph)
        #: Numbered nodes shown by the name their user gave them (``e``, ``loss``) instead of
        #: vₖ: named nodes other than symbolic Variables (which read v₁ = x1, as the lecture
        #: writes them). Their adjoints are ē (or (loss)̄) and partial adjoints ā→e.
        self.titles = {
            n: n.name
            for n in self.numbers
            if n.name is not None and (n.op is not VARIABLE or isinstance(n, EagerNode))
        }
        self._roles: dict[Node, tuple] = {}
        origins = dict.fromkeys(n.origin for n in graph if n.origin is not None)
        # the records drawn, and those that made numbered nodes (for their aliases)
        records = list(dict.fromkeys([*self.records, *origins]))
        #: The generation of each extension (1 for a gradient of the graph, 2 for a gradient
        #: of that gradient …): names from an earlier generation than the last one shown
        #: carry it as a superscript (v̄₁⁽¹⁾), so that they never read like the last one's.
        self._generation = {id(r): generation(r) for r in records}
        self._last = max(self._generation.values(), default=0)
        for record in records:
            for node, roles in record.roles().items():
                if node.origin is record:  # not a forward node that a rule reuses (v₁ in v₁v₂)
                    if len(roles) > 1:
                        roles = tuple(sorted(roles, key=_priority))
                    self._roles.setdefault(node, roles)
        self._temps: dict[Node, int] = {}
        numbers, roles_of = self.numbers, self._roles
        for node in extension:
            if node not in numbers and node not in roles_of and node.op is not CONSTANT:
                self._temps[node] = len(self._temps) + 1
        self._cache: dict[Node, Name] = {}
        self._args: dict[Node, list[str]] = {}
        # names are unique by construction within a generation shown once; only two
        # extensions of one generation (two gradients of one output) can give the same name
        generations = [self._generation[id(r)] for r in records]
        if len(set(generations)) < len(generations):
            self._dedupe([*self.numbers, *(n for n in extension if n not in self.numbers)])

    # -- names of forward nodes and of what the extensions compute for them ---------------
    def number(self, node: Node) -> int | None:
        return self.numbers.get(node)

    def bar(self, node: Node) -> Name:
        """v̄ᵢ, the adjoint of ``node``."""
        return self._accented(node, BAR, r"\bar")

    def dot(self, node: Node) -> Name:
        """v̇ᵢ, the tangent of ``node``."""
        return self._accented(node, DOT, r"\dot")

    def partial(self, node: Node, consumer: Node, index: int | None = None) -> Name:
        """v̄ᵢ→ⱼ, the partial adjoint that consumer vⱼ passes back to vᵢ (through its input
        ``index``: when vⱼ reads vᵢ twice, as v₁ × v₁ does, the second is v̄ᵢ→ⱼ′)."""
        i, j = self._index(node), self._index(consumer)
        prime = _operand_prime(node, consumer, index)
        if i is not None and j is not None:
            return Name(
                f"v{BAR}{subscript(i)}→{subscript(j)}{prime}",
                rf"\bar{{v}}_{{{i}\to {j}}}" + "'" * len(prime),
            )
        b, c = self.bar(node), self.name(consumer)
        return Name(f"{b.text}→{c.text}{prime}", rf"{b.latex}_{{\to {c.latex}}}" + "'" * len(prime))

    def partial_sum(self, node: Node) -> Name:
        """Σₜ v̄ᵢ→ₜ, the adjoint of ``node`` as the sum of its partial adjoints, one term per
        use (in a recurrence, one per time step): how a walkthrough writes a long sum."""
        i = self._index(node)
        if i is not None:
            return Name(f"Σₜ v{BAR}{subscript(i)}→ₜ", rf"\sum_{{t}} \bar{{v}}_{{{i}\to t}}")
        b = self.bar(node)
        return Name(f"Σₜ {b.text}→ₜ", rf"\sum_{{t}} {b.latex}_{{\to t}}")

    def local(self, consumer: Node, node: Node, index: int | None = None) -> Name:
        """∂vⱼ/∂vᵢ, the local partial of consumer vⱼ with respect to its input vᵢ (the second
        of two reads of vᵢ is ∂vⱼ/∂vᵢ′)."""
        j, i = self.name(consumer), self.name(node)
        prime = _operand_prime(node, consumer, index)
        ticks = "'" * len(prime)
        return Name(
            f"∂{j.text}/∂{i.text}{prime}",
            rf"\frac{{\partial {j.latex}}}{{\partial {i.latex}{ticks}}}",
        )

    # -- any node ------------------------------------------------------------------------
    def name(self, node: Node) -> Name:
        """The name of ``node`` in this view."""
        name = self._cache.get(node)
        if name is None:
            name = self._cache[node] = self._make(node)
        return name

    def label(self, node: Node) -> str:
        """The plain-text name: ``v₄``, ``v̄₃→₅``, ``∂v₅/∂v₂``, ``u₁``, or a constant's value."""
        return self.name(node).text

    def symbol(self, node: Node) -> str:
        """The LaTeX name: ``v_{4}``, ``\\bar{v}_{3\\to 5}``."""
        return self.name(node).latex

    def role(self, node: Node) -> Name | None:
        """What an extension node computes (``v̄₃ = v̄₃→₅``), also for a node numbered as a
        forward node of a later extension; None for other nodes."""
        roles = self._roles.get(node)
        if not roles:
            return None
        first = self.name(node) if node not in self.numbers else self._role_name(roles[0], node)
        names = list(dict.fromkeys([first, *(self._role_name(r, node) for r in roles[1:])]))
        return Name(" = ".join(n.text for n in names), " = ".join(n.latex for n in names))

    def roles(self, node: Node) -> tuple:
        """The AdjointRole records of an extension node (empty for others)."""
        return self._roles.get(node, ())

    def is_intermediate(self, node: Node) -> bool:
        """Whether ``node`` is an unnamed part of a rule's formula (u₁, u₂ …)."""
        return node in self._temps

    def args(self, node: Node) -> list[str]:
        """The LaTeX names of a node's inputs."""
        args = self._args.get(node)
        if args is None:
            args = self._args[node] = [self.symbol(i) for i in node.inputs]
        return args

    def definition(self, node: Node) -> str:
        """The right-hand side of ``node``'s definition in LaTeX: ``v_{1} \\times v_{2}``; a
        Variable's name; a constant's value."""
        if node.op is VARIABLE:
            if node.name is None:  # an unnamed eager leaf (a Variable has a name): its value
                assert isinstance(node, EagerNode)
                return latex_value(node.value)
            return latex_name(node.name)
        if node.op is CONSTANT:
            return self.symbol(node)
        return node.op.latex(self.args(node), node.attrs)

    # -- internals -----------------------------------------------------------------------
    def _index(self, node: Node) -> str | None:
        """k of vₖ (None for nodes that are not numbered or go by their own name)."""
        k = self.numbers.get(node)
        return None if k is None or node in self.titles else str(k)

    def _accented(self, node: Node, mark: str, accent: str) -> Name:
        k = self._index(node)
        if k is not None:
            return Name(f"v{mark}{subscript(k)}", rf"{accent}{{v}}_{{{k}}}")
        title = self.titles.get(node)
        match = _ONE_LETTER.match(title) if title is not None else None
        if match:  # ē for a node named e, x̄₁ for x1
            letter, digits = match.groups()
            tail = f"_{{{digits}}}" if digits else ""
            return Name(f"{letter}{mark}{subscript(digits)}", rf"{accent}{{{letter}}}{tail}")
        inner = self.name(node)
        return Name(f"({inner.text}){mark}", rf"\overline{{{inner.latex}}}")

    def _make(self, node: Node) -> Name:
        title = self.titles.get(node)
        if title is not None:
            match = _ONE_LETTER.match(title)  # x1 reads x₁, as latex_name writes it
            text = match.group(1) + subscript(match.group(2)) if match else title
            return Name(text, latex_name(title))
        k = self.numbers.get(node)
        if k is not None:
            return Name(f"v{subscript(str(k))}", f"v_{{{k}}}")
        roles = self._roles.get(node)
        if roles:  # its first role in the order of _KINDS: v̄₃ before v̄₃→₆
            return self._role_name(roles[0], node)
        if node.op is CONSTANT:
            if node.name is not None:
                return Name(node.name, latex_name(node.name))
            value = node.attrs["value"]
            return Name(_constant_text(value), latex_value(value))
        if node not in self._temps:  # a node outside this view's graph
            self._temps[node] = len(self._temps) + 1
        t = str(self._temps[node])
        return Name(f"u{subscript(t)}", f"u_{{{t}}}")

    def _role_name(self, role: AdjointRole, node: Node) -> Name:
        unreduced = role.kind == "unreduced"
        name = self._plain_role_name(role._replace(kind="partial") if unreduced else role, node)
        g = self._generation.get(id(node.origin), self._last)
        if g < self._last:
            name = Name(name.text + superscript(f"({g})"), rf"{name.latex}^{{({g})}}")
        if unreduced:
            name = Name(f"{name.text} before Σ", rf"{name.latex}\,\text{{before }}\Sigma")
        return name

    def _plain_role_name(self, role: AdjointRole, node: Node) -> Name:
        kind = role.kind
        if kind in ("seed", "adjoint"):
            return self.dot(role.of) if isinstance(node.origin, Tangents) else self.bar(role.of)
        if kind == "tangent":
            return self.dot(role.of)
        consumer = role.consumer
        assert consumer is not None  # a partial's and a local partial's role names theirs
        if kind == "partial":
            return self.partial(role.of, consumer, role.index)
        return self.local(consumer, role.of, role.index)

    def _dedupe(self, nodes: list[Node]) -> None:
        """Make the labels of ``nodes`` unique: an extension's number as a superscript where
        two extensions give the same name, then primes for anything left."""
        names = {n: self.name(n) for n in nodes if n.op is not CONSTANT or n in self._roles}
        counts = Counter(name.text for name in names.values())
        for node, name in names.items():
            if counts[name.text] > 1 and node.origin is not None and node not in self.numbers:
                k = self._record_index.get(id(node.origin))
                if k is not None:
                    self._cache[node] = Name(
                        name.text + superscript(f"({k})"), rf"{name.latex}^{{({k})}}"
                    )
        seen: set[str] = set()
        for node in names:
            name = self._cache[node]
            while name.text in seen:
                name = Name(name.text + "′", name.latex + "'")
            self._cache[node] = name
            seen.add(name.text)


def _operand_prime(node: Node, consumer: Node, index: int | None) -> str:
    """ "′" for each earlier read of ``node`` by ``consumer`` before input ``index``."""
    if index is None:
        return ""
    return "′" * sum(1 for x in consumer.inputs[:index] if x is node)


#: A name that is one letter and perhaps digits (e, x1): accented on the letter (ē, x̄₁).
_ONE_LETTER = re.compile(r"([A-Za-z\u0391-\u03c9])(\d*)\Z")

_KINDS = ("seed", "adjoint", "tangent", "partial", "unreduced", "local")


def _priority(role: AdjointRole) -> int:
    return _KINDS.index(role.kind)


def _constant_text(value: Any) -> str:
    array = np.asarray(value) if not isinstance(value, tuple) else None
    if array is not None and array.ndim > 0 and array.size > 4:
        return "const " + "×".join(map(str, array.shape))
    return format_value(value, 3)


def _numbering(graph: list[Node]) -> tuple[dict[Node, int], Callable[[Any], int]]:
    """v₁ … vₙ over the non-constant nodes of ``graph`` (a topological order), generation by
    generation: the graph first, then the nodes of the first extension that is differentiated
    again, and so on; within a generation, in the order given. Returns the numbers and the
    function giving an extension record's generation."""
    generations = _Generations()
    if all(n.origin is None for n in graph):  # no extension differentiated again
        return number_ranked(graph), generations.of_record
    of_node = generations.of_node
    for node in graph:
        of_node(node)
    generation = generations.nodes
    position = {n: k for k, n in enumerate(graph)}
    by_generation = sorted(graph, key=lambda n: (generation[n], position[n]))
    return number_ranked(by_generation), generations.of_record


class _Generations:
    """The generation of nodes (0 for the graph, 1 for its first extension's nodes …) and of
    extension records (1 + their output's). A class, not closures calling each other: those
    would be a reference cycle holding the graph until the garbage collector runs."""

    def __init__(self) -> None:
        self.nodes: dict[Node, int] = {}
        self._records: dict[int, int] = {}

    def of_record(self, record: Adjoints | Tangents) -> int:
        g = self._records.get(id(record))
        if g is None:
            generation = self.nodes
            for n in topo_sort(record.output):
                if n not in generation:
                    generation[n] = self._compute(n)
            g = self._records[id(record)] = 1 + generation[record.output]
        return g

    def of_node(self, node: Node) -> int:
        g = self.nodes.get(node)
        if g is None:
            g = self.nodes[node] = self._compute(node)
        return g

    def _compute(self, node: Node) -> int:
        generation = self.nodes
        g = 0
        for i in node.inputs:
            gi = generation.get(i)
            if gi is None:  # an input outside ``graph`` (drawn without its ancestors)
                gi = generation[i] = 0
            if gi > g:
                g = gi
        if node.origin is not None:
            g = max(g, self.of_record(node.origin))
        return g
