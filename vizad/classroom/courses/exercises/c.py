"""Exercise C's answers: dual numbers, and ``log`` and ``sin`` on them."""

from __future__ import annotations

import math

__all__ = ["Dual", "log", "sin"]


class Dual:
    """value + tangent·ε with ε² = 0."""

    def __init__(self, value, tangent=0.0):
        self.value, self.tangent = value, tangent

    def __repr__(self):
        return f"Dual({self.value!r}, {self.tangent!r})"

    def __add__(self, other):
        other = other if isinstance(other, Dual) else Dual(other)
        return Dual(self.value + other.value, self.tangent + other.tangent)

    __radd__ = __add__

    def __sub__(self, other):
        other = other if isinstance(other, Dual) else Dual(other)
        return Dual(self.value - other.value, self.tangent - other.tangent)

    def __mul__(self, other):
        other = other if isinstance(other, Dual) else Dual(other)
        return Dual(
            self.value * other.value, self.tangent * other.value + self.value * other.tangent
        )

    __rmul__ = __mul__


def log(x):
    """ln of a Dual: ln a + (ȧ / a) ε."""
    return Dual(math.log(x.value), x.tangent / x.value)


def sin(x):
    """sin of a Dual: sin a + (ȧ cos a) ε."""
    return Dual(math.sin(x.value), x.tangent * math.cos(x.value))
