"""The lazy containers a trace is made of: its steps, made when first read (:class:`Steps`),
a value made on first use (:class:`Once`), and the evaluated values, read as numpy arrays
(:class:`Values`). Recording a walkthrough of 100,000 nodes makes none of its step records
until someone reads them."""

from __future__ import annotations

from typing import Any
from collections.abc import Callable, Iterator, Mapping, Sequence

import numpy as np

from vizad.engine.node import Node
from vizad.engine.tree import Unrecorded, as_array, read_only

__all__ = ["Steps", "Once", "Values"]


class Steps(Sequence):
    """The steps of a walkthrough: a read-only sequence whose records are made the first
    time each is read, then kept (building a trace costs what evaluating its graph costs;
    labels and LaTeX are made for the steps someone looks at)."""

    __slots__ = ("nodes", "_items", "_make")

    def __init__(self, nodes: Sequence[Node], make: Callable[[int], Any]):
        #: The node of each step, in order.
        self.nodes = tuple(nodes)
        self._items: list = [None] * len(self.nodes)
        self._make = make

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return tuple(self[k] for k in range(*index.indices(len(self._items))))
        item = self._items[index]  # IndexError as a tuple gives it
        if item is None:
            if index < 0:
                index += len(self._items)
            item = self._items[index] = self._make(index)
        return item

    def __iter__(self) -> Iterator:
        for k in range(len(self._items)):
            yield self[k]

    def __eq__(self, other) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return tuple(self) == tuple(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __add__(self, other) -> tuple:
        return tuple(self) + tuple(other)

    def __radd__(self, other) -> tuple:
        return tuple(other) + tuple(self)

    def __repr__(self) -> str:
        return f"<{len(self)} steps>"


class Once:
    """``fn(*args)``, made the first time :meth:`get` is called, then kept."""

    __slots__ = ("_fn", "_args", "_value")

    def __init__(self, fn: Callable, *args: Any):
        self._fn, self._args, self._value = fn, args, None

    @classmethod
    def ready(cls, value: Any) -> Once:
        """One whose value is already made."""
        once = cls(None)
        once._value = value
        return once

    def get(self):
        if self._fn is not None:
            self._value = self._fn(*self._args)
            self._fn = self._args = None
        return self._value


class Values(Mapping):
    """Node values as the walkthrough computed them, read as numpy arrays: a scalar op gives
    a numpy scalar, which is made a 0-d array when first read (and kept). Evaluating on the
    scalars themselves is several times faster than on 0-d arrays, and most values of a large
    walkthrough are never read. The arrays are read-only (numpy's ``writeable`` flag), so
    that no write changes a trace behind its back. ``copy()`` gives a plain dict of them. A
    value another engine did not keep (:class:`~vizad.engine.tree.Unrecorded`) is read as it is."""

    __slots__ = ("_raw", "_tuples")

    def __init__(self, raw: dict[Node, Any]):
        self._raw = raw
        self._tuples: dict[Node, tuple] = {}  # tuple values, made arrays leaf by leaf

    def __getitem__(self, node: Node) -> Any:
        value = self._raw[node]
        if value.__class__ is np.ndarray and not value.flags.writeable:
            return value
        if isinstance(value, tuple):
            made = self._tuples.get(node)
            if made is None:
                made = self._tuples[node] = read_only(as_array(value))
            return made
        if value.__class__ is Unrecorded:  # a value the engine did not keep, as it is
            return value
        # a numpy scalar or a Python number (a 0-d array of its own), or a writable array (a
        # view of it): read-only from now on, since a write would change the trace behind the
        # values computed from it
        if value.__class__ is np.ndarray:
            value = read_only(value)
        else:
            value = np.asarray(value)
            value.flags.writeable = False
        self._raw[node] = value
        return value

    def __contains__(self, node: object) -> bool:
        return node in self._raw

    def __iter__(self):
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)

    def copy(self) -> dict[Node, Any]:
        """Every value as an array, in a dict of its own."""
        return dict(self.items())

    def __repr__(self) -> str:
        return f"<values of {len(self)} nodes>"
