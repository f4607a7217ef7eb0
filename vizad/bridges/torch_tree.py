"""Tensors given to ``torch_backward`` as PyTorch users hold them: pytrees of tensors.

A user differentiates with respect to a dict of parameters (``torch.autograd.grad(loss,
params.values())``), ``model.named_parameters()``, a module, or nested lists and tuples of
tensors. :class:`TensorTree` flattens any of these with PyTorch's own pytree module, names each
tensor by its path (a top-level key bare, ``W1`` or ``fc.weight``, the rest as
``torch.utils._pytree.keystr`` writes it: ``layers[0].w``), and lays one value per tensor back
out in the structure the tensors were given in (gradients as a dict of parameters, …).
"""

from __future__ import annotations

from collections.abc import ItemsView, Iterator, ValuesView
from typing import Any

from vizad.errors import ArgumentTypeError
from vizad.bridges.optional import require
from vizad.bridges.tree_args import path_name

torch = require("torch", "torch")
pytree = require("torch.utils._pytree", "torch")

__all__ = ["TensorTree"]


class TensorTree:
    """``given`` (a tensor, a pytree of tensors, an ``nn.Module``, or pairs ``(name,
    tensor)`` such as ``model.named_parameters()``) flattened: ``tensors`` with their
    ``names``. ``what`` names the argument in errors and a path that has no key of its own
    (``inputs[0]``)."""

    def __init__(self, given: Any, what: str, *, trainable: bool = False):
        self.what = what
        tree = _as_tree(given, trainable)
        with_paths, self._spec = pytree.tree_flatten_with_path(tree)
        #: Each tensor's name (``W1``, ``layers[0].w``), and its path as the argument
        #: (``inputs['W1']``) for messages.
        self.names: list[str] = []
        self.paths: list[str] = []
        self.tensors: list[Any] = []
        self._none = [leaf is None for _, leaf in with_paths]  # kept as None (``b=None``)
        for path, leaf in with_paths:
            where = what + pytree.keystr(path)
            if leaf is None:
                continue
            if not isinstance(leaf, torch.Tensor):
                raise ArgumentTypeError(
                    f"torch_backward: {where} is a {type(leaf).__name__}, not a torch.Tensor; "
                    "give tensors (a dict, list, tuple or NamedTuple of them, an nn.Module, "
                    "or model.named_parameters())"
                )
            self.names.append(path_name(what, path, pytree.keystr))
            self.paths.append(where)
            self.tensors.append(leaf)

    def tree(self, values: list[Any]) -> Any:
        """One value per tensor laid out as the tensors were given (a dict for a dict, a
        module, or named pairs; None where None was given)."""
        if len(values) != len(self.tensors):
            raise ArgumentTypeError(
                f"torch_backward: {self.what}: give one value per tensor "
                f"({len(self.tensors)}), got {len(values)}"
            )
        given = iter(values)
        return pytree.tree_unflatten(
            [None if none else next(given) for none in self._none], self._spec
        )


def _as_tree(given: Any, trainable: bool) -> Any:
    """``given`` as a pytree: a module as the dict of its parameters (those that require
    gradients when ``trainable``), an iterator read into a list, a list of ``(str, tensor)``
    pairs (``model.named_parameters()``) as a dict."""
    if isinstance(given, torch.nn.Module):
        return {name: p for name, p in given.named_parameters() if p.requires_grad or not trainable}
    if isinstance(given, (Iterator, ValuesView, ItemsView, list)):
        given = list(given)
        if given and all(_is_pair(item) for item in given):
            return dict(given)
    return given


def _is_pair(item: Any) -> bool:
    return (
        isinstance(item, tuple)
        and len(item) == 2
        and isinstance(item[0], str)
        and isinstance(item[1], torch.Tensor)
    )
