"""The types of ops' arguments, for their signatures (and type checkers)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from vizad.engine.node import Node
from vizad.engine.tree import TupleShape

__all__ = ["Operand", "Axes", "ShapeLike", "ArrayValue", "Value", "StaticShape"]

#: What an op accepts where a node goes: a node, or a number or array (made a constant)
Operand = Node | npt.ArrayLike
#: An axis argument: one axis, several, or None for all
Axes = int | tuple[int, ...] | list[int] | None
#: A target shape: a tuple of ints, or a node whose value's shape is read at run time
ShapeLike = tuple[int, ...] | list[int] | int | Node
#: What an op's ``compute`` is given and gives for an array: a numpy array, a numpy scalar
#: (ops on scalars give scalars), or a Python number (a weakly typed constant's, ``x * 2``)
ArrayValue = npt.NDArray[Any] | np.number[Any] | np.bool_ | float
#: A node's value: an array, or a (possibly nested) tuple of values (vz.make_tuple)
Value = ArrayValue | tuple["Value", ...]
#: A static shape (what ``infer_shape`` gives): a tuple of ints, a TupleShape of shapes for a
#: tuple value, or None where unknown
StaticShape = tuple[int, ...] | TupleShape | None
