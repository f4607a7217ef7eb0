"""The one hook through which graphs of other engines come in.

An adapter says which objects it reads (``matches``) and gives the vizad node that stands for
one (``adopt``). The public entry points (an op applied to a value, ``gradients``,
``Executor``, the walkthroughs and drawings) read their nodes through :func:`adopt`, so a
node of a CSE 599W-style engine works wherever a vizad node does. The adapters register
themselves from the packages that know those engines (:mod:`vizad.classroom.courses`); the engine
core knows none of them. Those packages load when first needed: ``import vizad`` registers a
loader (:func:`register_loader`), run at the first object that no entry point knows as a node,
a number or an array (``import vizad`` stays numpy and the engine).
"""

from __future__ import annotations

from typing import Any, NamedTuple
from collections.abc import Callable

__all__ = ["Adapter", "register_adapter", "register_loader", "adopt", "adopt_feed"]


class Adapter(NamedTuple):
    #: Whether the adapter reads ``obj``.
    matches: Callable[[Any], bool]
    #: The vizad node that stands for ``obj`` (the same node every time).
    adopt: Callable[[Any], Any]


_ADAPTERS: list[Adapter] = []
_LOADERS: list[Callable[[], object]] = []  # run once, at the first adoption


def register_adapter(matches: Callable[[Any], bool], adopt: Callable[[Any], Any]) -> Adapter:
    """Read objects for which ``matches(obj)`` holds as ``adopt(obj)`` at every entry point."""
    adapter = Adapter(matches, adopt)
    if adapter not in _ADAPTERS:
        _ADAPTERS.append(adapter)
    return adapter


def register_loader(load: Callable[[], object]) -> None:
    """Call ``load()`` (which imports a module that registers adapters) before the first
    adoption, instead of now."""
    _LOADERS.append(load)


def _load() -> None:
    while _LOADERS:
        _LOADERS.pop(0)()


def adopt(obj: Any) -> Any:
    """The vizad node standing for ``obj`` when an adapter reads it; ``obj`` itself otherwise
    (the caller then checks it is a node)."""
    if _LOADERS:
        _load()
    for adapter in _ADAPTERS:
        if adapter.matches(obj):
            return adapter.adopt(obj)
    return obj


def adopt_feed(feed: Any) -> Any:
    """A feed dict with the keys that an adapter reads replaced by their vizad nodes."""
    if _LOADERS and feed:
        _load()
    if not feed or not _ADAPTERS or not hasattr(feed, "items"):
        return feed
    return {adopt(k): v for k, v in feed.items()}
