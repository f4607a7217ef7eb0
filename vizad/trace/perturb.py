"""Where a check by central differences may move an op's inputs, so that it does not fail
correct code:

- an infinite entry (a ``-inf`` attention mask) cannot be moved (−inf + h is −inf): it is
  held, the finite entries around it are moved, and an infinite entry of the value, which
  nothing can compare, takes no cotangent. So is an entry within 2³² of the float type's
  largest number (Hugging Face's ``torch.finfo(dtype).min`` mask): a step there is lost to
  rounding, and a sum of a few overflows;
- a symmetric or triangular matrix given to an op that reads it as one (cholesky and eigh
  read one triangle of a symmetric matrix, cholesky_solve a triangular factor) is moved
  within its structure, as PyTorch's gradcheck is asked to do: a move that leaves the
  structure changes what the op computes in a way its rule does not promise to follow;
- the arguments of an op whose rule only promises their sum (JAX's
  ``custom_linear_solve`` reads one matrix through the ``matvec`` and ``solve`` it is
  given, and differentiates the first only) are moved together where they are one node.

Each is one linear map P of the input (affine for a held entry): the check is of
op ∘ P, whose vjp is P of the op's vjp and whose jvp is the op's jvp of P.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from vizad.engine.node import Node
from vizad.engine.op import Op, constant

__all__ = [
    "unmovable",
    "within",
    "held",
    "finite_part",
    "recorded_type",
    "value_structure",
    "structure_of",
    "STRUCTURED",
    "TIED",
]

#: Ops that read a symmetric or triangular matrix argument as one (by base name, see
#: :func:`vizad.trace.check._base_name`): PyTorch's, JAX's.
STRUCTURED = frozenset(
    {
        "linalg_cholesky_ex",
        "linalg_cholesky",
        "cholesky",
        "_linalg_eigh",
        "linalg_eigh",
        "linalg_eigvalsh",
        "eigh",
        "cholesky_solve",
        "cholesky_inverse",
        "custom_linear_solve",
    }
)

#: Ops whose rule gives the derivative of the sum over arguments that are one node.
TIED = frozenset({"custom_linear_solve"})

#: Ops whose value is read as one triangle (JAX's ``cholesky`` primitive leaves what LAPACK
#: left in the other, which ``jnp.linalg.cholesky`` then zeroes; its rule says nothing of it).
_TRIANGULAR_VALUE = frozenset({"cholesky"})


class _Within(Op):
    """The input moved within a structure (``kind``): "hold" (``where(mask, x, held)``),
    "sym" ((x + xᵀ)/2 over the last two axes), "tril" or "triu" (a triangle), "cast" (to
    ``dtype``). Linear but for the held part, so its vjp and jvp are the same map, without
    the held part."""

    name = "within"

    def compute(self, x: Any, *rest: Any, kind: str, dtype: str = "") -> Any:
        x = np.asarray(x)
        if kind == "cast":
            return x.astype(dtype)
        if kind == "hold":
            mask, kept = rest
            return np.where(mask, x, kept).astype(x.dtype)  # a float32 value stays float32
        if kind == "sym":
            return (x + np.swapaxes(x, -1, -2)) / 2
        return np.tril(x) if kind == "tril" else np.triu(x)

    def infer_shape(self, shapes: Sequence[Any], attrs: Mapping[str, Any]) -> Any:
        return shapes[0]

    def _linear(self, node: Node, g: Node | None) -> Node | None:
        if g is None:
            return None
        if node.attrs["kind"] == "cast":  # tangents and adjoints in the recorded type too
            return self(g, kind="cast", dtype=node.attrs["dtype"])
        if node.attrs["kind"] == "hold":
            mask = node.inputs[1]
            return self(g, mask, constant(np.zeros(())), kind="hold")
        return self(g, kind=node.attrs["kind"])

    def vjp(self, node: Node, adjoint: Node) -> list[Node | None]:
        return [self._linear(node, adjoint)] + [None] * (len(node.inputs) - 1)

    def jvp(self, node: Node, tangents: Sequence[Node | None]) -> Node | None:
        return self._linear(node, tangents[0])


_WITHIN = _Within()


def within(x: Node, kind: str) -> Node:
    """``x`` moved only within ``kind`` ("sym", "tril", "triu")."""
    return _WITHIN(x, kind=kind)


#: How far below its float type's largest number an entry counts as infinite.
_SENTINEL = 2.0**-32


def unmovable(value: Any) -> np.ndarray:
    """Where a float array is infinite, or as good as infinite for central differences: a
    sentinel within 2³² of the largest number (``torch.finfo(dtype).min`` as a mask, and
    what adding to it gives), which a step cannot move and a sum of a few overflows."""
    a = np.asarray(value)
    if a.dtype.kind != "f":
        return np.zeros(a.shape, dtype=bool)
    with np.errstate(invalid="ignore"):
        return np.abs(a) > float(np.finfo(a.dtype).max) * _SENTINEL


def held(x: Node, value: np.ndarray) -> tuple[Node, np.ndarray]:
    """(``x`` with the infinite entries of ``value`` held (:func:`unmovable`), the value to
    feed ``x``: finite, zeros where held)."""
    keep = ~unmovable(value)
    node = _WITHIN(x, constant(keep), constant(np.where(keep, 0, value)), kind="hold")
    return node, np.where(keep, value, 0).astype(value.dtype)


def recorded_type(x: Node, dtype: np.dtype) -> Node:
    """``x`` in the float type ``dtype`` that its op was recorded with: the check moves
    inputs in float64, and a framework's op traced in float32 (JAX's
    ``dot_product_attention`` inside a float64 program) refuses float64 or computes
    another function with it."""
    return _WITHIN(x, kind="cast", dtype=str(dtype))


def finite_part(y: Node, value: np.ndarray) -> Node:
    """``y`` with zeros where ``value`` (its value) is :func:`unmovable`: those entries take
    no cotangent, and the rest can be compared."""
    return _WITHIN(y, constant(~unmovable(value)), constant(np.zeros(())), kind="hold")


def value_structure(op: str, attrs: Mapping[str, Any]) -> str | None:
    """The triangle that the value of op ``op`` (a base name) is read as, or None."""
    if op not in _TRIANGULAR_VALUE:
        return None
    return "triu" if attrs.get("upper") else "tril"


def structure_of(op: str, value: Any) -> str | None:
    """The structure an input of op ``op`` (a base name) is moved within: "sym" for a
    symmetric matrix (to round-off), "tril"/"triu" for an exactly triangular one, given to
    an op of :data:`STRUCTURED`; None otherwise."""
    if op not in STRUCTURED:
        return None
    a = np.asarray(value)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2] or a.shape[-1] < 2 or a.dtype.kind != "f":
        return None
    if not np.all(np.isfinite(a)):
        return None
    scale = float(np.max(np.abs(a), initial=0.0))
    tolerance = 100 * float(np.finfo(a.dtype).eps) * scale
    if np.all(np.abs(a - np.swapaxes(a, -1, -2)) <= tolerance):
        return "sym"  # a diagonal matrix too: read as the symmetric one it stands for
    if not np.any(np.triu(a, 1)):
        return "tril"
    if not np.any(np.tril(a, -1)):
        return "triu"
    return None
