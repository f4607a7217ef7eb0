"""What ``vz.from_torch`` and ``vz.from_jax`` return: a function as a vizad graph."""

from __future__ import annotations

import inspect
from typing import Any, NamedTuple
from collections.abc import Callable, Sequence

import numpy as np

from vizad.errors import ArgumentError
from vizad.engine.node import Node
from vizad.engine.op import Variable, constant

__all__ = ["Imported", "argument_names", "input_node"]


class Imported(NamedTuple):
    """A framework's function as a vizad graph: ``outputs`` computed from ``inputs`` (a
    Variable per floating-point argument, named after the function's parameter), and
    ``feed``, the example arguments as numpy arrays. Every view takes it apart::

        f = vz.from_torch(fn, x, w)
        vz.trace_reverse(f.output, f.inputs, f.feed)

    Examples:
        >>> import torch
        >>> def f(x, w):
        ...     return torch.tanh(w * x).sum()
        ...
        >>> imported = vz.from_torch(f, torch.tensor([1.0, 2.0]), torch.tensor(0.5))
        >>> imported.inputs
        (<Node x shape=(2,)>, <Node w shape=()>)
        >>> imported.output
        <Node sum(tanh(mul(w, x))) shape=()>
        >>> gradients = vz.gradients(imported.output, imported.inputs)
        >>> imported.tree(vz.evaluate(gradients, imported.feed))
        (array([0.39322385, 0.20998716], dtype=float32), array(1.6263964, dtype=float32))
    """

    #: A Variable per floating-point argument (and per parameter of an ``nn.Module``).
    inputs: tuple[Node, ...]
    #: The function's results as nodes, in order.
    outputs: tuple[Node, ...]
    #: {input: its example value}, for ``vz.evaluate``, ``vz.trace_reverse`` and the like.
    feed: dict[Node, np.ndarray]
    #: Lays one value per input back out as the function's arguments were given (a dict of
    #: parameters as a dict); None for a bridge whose arguments are flat.
    structure: Callable[[Sequence[Any]], Any] | None = None

    def tree(self, values: Sequence[Any]) -> Any:
        """One value per input (``vz.evaluate(vz.gradients(f.output, f.inputs), f.feed)``)
        laid out as the arguments were given: a tuple with an entry per argument (a dict for
        a dict of parameters …), as ``jax.grad(fn, argnums=(0, 1, …))`` gives gradients."""
        values = list(values)
        if len(values) != len(self.inputs):
            raise ArgumentError(
                f"Imported.tree: give one value per input ({len(self.inputs)}), got {len(values)}"
            )
        if self.structure is None:
            return tuple(values)
        return self.structure(values)

    @property
    def output(self) -> Node:
        """The function's result, when it has one."""
        if len(self.outputs) != 1:
            raise ArgumentError(
                f"the function has {len(self.outputs)} results: read imported.outputs[k]"
            )
        return self.outputs[0]


def argument_names(fn: Callable, count: int) -> list[str]:
    """The names of ``fn``'s first ``count`` positional parameters (``x``, ``w``; ``args1``,
    ``args2`` … for ``*args``; ``arg3`` where Python does not say).

    Examples:
        >>> from vizad.bridges.imported import argument_names
        >>> argument_names(lambda x, w: x * w, 2)
        ['x', 'w']
        >>> argument_names(lambda *args: args, 3)
        ['args1', 'args2', 'args3']
    """
    try:
        parameters = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):  # builtins and the like
        parameters = []
    names: list[str] = []
    for p in parameters:
        if len(names) == count:
            break
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            start = len(names)
            names += [f"{p.name}{k - start + 1}" for k in range(start, count)]
        elif p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            names.append(p.name)
    names += [f"arg{k + 1}" for k in range(len(names), count)]
    return names


def input_node(name: str, value: np.ndarray, inputs: list[Node], feed: dict) -> Node:
    """A Variable for a floating-point argument (added to ``inputs`` and ``feed``), a named
    constant for any other (integer labels are not differentiated).

    Examples:
        >>> from vizad.bridges.imported import input_node
        >>> inputs, feed = [], {}
        >>> input_node("x", np.array([1.0, 2.0]), inputs, feed)
        <Node x shape=(2,)>
        >>> input_node("label", np.array(3), inputs, feed)
        <Node label shape=()>
        >>> inputs
        [<Node x shape=(2,)>]
    """
    if value.dtype.kind in "fc":
        x = Variable(name, shape=value.shape)
        inputs.append(x)
        feed[x] = value
        return x
    return constant(value, name=name)
