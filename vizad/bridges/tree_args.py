"""Arguments given as pytrees, for every bridge: names by path and values laid back out.

A user passes ``loss(params, x)`` with ``params`` a dict (a list, a NamedTuple …) of arrays.
The framework's own pytree module flattens the arguments (JAX's ``tree_util``, PyTorch's
``torch.utils._pytree``: both give key paths and write them with ``keystr`` the same way);
this module names each leaf by its path after the parameter's name (``params['W1']``,
``params.layers[0].b``) and lays one value per imported input back out in the structure the
arguments were given in (``Imported.tree``), whichever framework flattened them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from vizad.engine.node import Node

__all__ = ["leaf_names", "path_name", "placed"]


def leaf_names(
    parameters: Sequence[str],
    paths: Sequence[Sequence[Any]],
    keystr: Callable[[tuple[Any, ...]], str],
) -> list[str]:
    """The name of each leaf of the arguments flattened as one tuple: the parameter's name
    (``paths[k][0]`` is the position among the arguments) and the rest of the path as
    ``keystr`` writes it (``params['W1']``; ``x`` for an argument that is a leaf itself)."""
    return [parameters[path[0].idx] + keystr(tuple(path[1:])) for path in paths]


def placed(inputs: Sequence[Node], leaves: Sequence[Any], unflatten: Callable) -> Callable:
    """``Imported.structure``: one value per input (in the order of ``inputs``) put at the
    input's leaf among ``leaves`` (the node each leaf became), None at a leaf that is not an
    input (an integer array), and the leaves unflattened by ``unflatten``."""
    position = {node: k for k, node in enumerate(inputs)}

    def structure(values: Sequence[Any]) -> Any:
        values = list(values)
        return unflatten([values[position[x]] if x in position else None for x in leaves])

    return structure


def path_name(what: str, path: Sequence[Any], keystr: Callable[[tuple[Any, ...]], str]) -> str:
    """The name of the leaf at ``path`` in a tree given as the argument ``what``: a first key
    that is a string bare (``W1``, ``fc.weight``, ``layers[0].w``), any other path after
    ``what`` (``inputs[0]``; ``inputs`` for a tree that is one leaf)."""
    if path:
        key = getattr(path[0], "key", None)
        if isinstance(key, str):
            return key + keystr(tuple(path[1:]))
    return what + keystr(tuple(path))
