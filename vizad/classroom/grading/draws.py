"""The numbers a course's cases feed the engines: drawn from the case's name, and from the
grading run's seed when it has one.

With no seed (the default) every case's inputs are the published ones: a student running the
grader at home sees the numbers the course sees, and an explanation names the same values on
every run. A course grading for marks gives ``vz.grade(..., seed=N)`` (``--seed N``) with a
number it keeps to itself: the inputs are then drawn anew, so a submission that carries
answers for the published inputs (rules returning memorised numbers) fails. Both processes
draw alike: the submission's process builds the student's graphs, the grading process
vizad's, each with the same seed (a context variable: batch grading runs several seeds'
submissions in threads).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

__all__ = ["seeded", "use_seed", "current_seed", "generator", "near"]

_SEED: ContextVar[int | None] = ContextVar("vizad_grading_seed", default=None)


@contextmanager
def seeded(seed: int | None) -> Iterator[None]:
    """Draw the cases' inputs with ``seed`` inside the block (None: the published ones)."""
    token = _SEED.set(seed)
    try:
        yield
    finally:
        _SEED.reset(token)


def use_seed(seed: int | None) -> None:
    """Draw with ``seed`` from now on in this context (a submission's process, for life)."""
    _SEED.set(seed)


def current_seed() -> int | None:
    return _SEED.get()


def generator(name: str, stream: int = 0) -> np.random.Generator:
    """The random generator of case ``name``'s ``stream``-th draw (inputs 0, out_grad 1)."""
    key = zlib.crc32(name.encode())
    seed = _SEED.get()
    if seed is None:
        return np.random.default_rng(key + stream)
    return np.random.default_rng([key, stream, seed])


def near(name: str, values: tuple[float, ...]) -> tuple[float, ...]:
    """Hand-picked inputs (micrograd's cases: relu on both sides of 0, no denominator near
    0) as published, or with a seed each scaled by a factor in [0.8, 1.25]: every sign and
    every zero kept, so the case tests what it was written to test."""
    if _SEED.get() is None:
        return values
    factors = generator(name).uniform(0.8, 1.25, size=len(values))
    return tuple(float(v * f) for v, f in zip(values, factors))
