"""The types of ops' arguments, for their signatures (and type checkers)."""

from __future__ import annotations

import numpy.typing as npt

from ..node import Node

__all__ = ["Operand", "Axes", "ShapeLike"]

#: What an op accepts where a node goes: a node, or a number or array (made a constant)
Operand = Node | npt.ArrayLike
#: An axis argument: one axis, several, or None for all
Axes = int | tuple[int, ...] | list[int] | None
#: A target shape: a tuple of ints, or a node whose value's shape is read at run time
ShapeLike = tuple[int, ...] | list[int] | int | Node
