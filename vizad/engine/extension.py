"""What reverse and forward mode share: the state of one graph extension and its records.

While a mode extends a graph (:func:`extending`), every node built belongs to that mode's
record (``node.origin``) and :func:`vizad.engine.node.static_shape` sees the shapes known from an
evaluation. A record refers to the nodes it made weakly (:func:`alive` reads such a
reference), so dropping the results frees the extension; :class:`AdjointRole` says what an
extension node computes, for drawings and walkthroughs.
"""

from __future__ import annotations

import contextvars
import weakref
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NamedTuple
from collections.abc import Iterator, Mapping

from vizad.engine._gc import gc_paused

if TYPE_CHECKING:  # pragma: no cover
    from vizad.engine.node import Node

__all__ = ["AdjointRole", "Extension", "extending", "current", "alive", "ACTIVE"]

#: How many graph extensions and scopes are open, in any thread or task: while it is 0 (eager
#: code, almost always) a new node needs no context variable read (:class:`vizad.engine.node.Node`
#: reads them only when it is not). A shared list, changed by :func:`entered`.
ACTIVE = [0]


@contextmanager
def entered() -> Iterator[None]:
    """Count an open extension or scope in :data:`ACTIVE` while the block runs."""
    ACTIVE[0] += 1
    try:
        yield
    finally:
        ACTIVE[0] -= 1


class Extension(NamedTuple):
    #: The record (an ``Adjoints`` or ``Tangents``) whose construction is creating nodes.
    record: Any
    #: Shapes known from an evaluation, read by ``static_shape`` while building.
    hints: Mapping[Node, Any] | None


_EXTENSION: contextvars.ContextVar = contextvars.ContextVar("vizad_extension", default=None)

#: The extension being built now, or None.
current = _EXTENSION.get


@contextmanager
def extending(record: Any, shapes: Mapping[Node, Any] | None = None) -> Iterator[None]:
    """The state of one graph extension: nodes built inside belong to ``record``
    (``node.origin``) and ``static_shape`` sees ``shapes``; the cyclic GC is paused while the
    many new nodes are built."""
    token = _EXTENSION.set(Extension(record, shapes))
    try:
        with entered(), gc_paused():
            yield
    finally:
        _EXTENSION.reset(token)


def alive(ref: Any) -> Any:
    """What a weak reference (or None, or a plain value such as ONE) refers to now."""
    return ref() if ref.__class__ is weakref.ref else ref


class AdjointRole(NamedTuple):
    """What a node made by a graph extension computes, for drawings.

    ``kind`` is "seed" (v̄ of the output), "adjoint" (the sum v̄ᵢ), "partial" (v̄ᵢ→ⱼ),
    "unreduced" (v̄ⱼ ∂vⱼ/∂vᵢ before a sum-to-shape step) or "local" (∂vⱼ/∂vᵢ); in forward
    mode "seed" (v̇ of a seeded input), "tangent" (v̇ᵢ) or "local".

    Examples:
        >>> trace = vz.examples.lecture()
        >>> role = trace.roles()[trace.steps[5].adjoint_node][0]
        >>> type(role).__name__, role.kind
        ('AdjointRole', 'adjoint')
    """

    kind: str
    #: vᵢ, the forward node this is about.
    of: Node
    #: vⱼ for partials, unreduced partials and locals; None otherwise.
    consumer: Node | None = None
    #: The position of vᵢ among vⱼ's inputs (``v₁ × v₁`` has a partial for each).
    index: int = 0
