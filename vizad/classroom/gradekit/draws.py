"""The numbers a course's cases feed the engines: drawn in the grading process, replayed in
the submission's.

With no seed (the default) every case's inputs are the published ones: a student running the
grader at home sees the numbers the course sees, and an explanation names the same values on
every run. A course grading for marks gives ``vz.grade(..., seed=N)`` (``--seed N``) with a
number it keeps to itself: the inputs are then drawn anew, so a submission that carries
answers for the published inputs (rules returning memorised numbers) fails.

Only the grading process draws. It runs each case on vizad's engine with a recording
(:func:`recording`) of every array the case's generators returned; the submission's process
gets those arrays and nothing else (:func:`replay`): the seed never leaves the grading
process, and the student's graph is fed exactly what vizad's was. The seed is a context
variable: batch grading runs several submissions in threads.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

__all__ = ["seeded", "current_seed", "generator", "near", "recording", "replay"]

_SEED: ContextVar[int | None] = ContextVar("vizad_grading_seed", default=None)
_RECORD: ContextVar[dict | None] = ContextVar("vizad_grading_record", default=None)
#: In a submission's process: the arrays the grading process drew, by "case/stream".
_REPLAY: dict | None = None


@contextmanager
def seeded(seed: int | None) -> Iterator[None]:
    """Draw the cases' inputs with ``seed`` inside the block (None: the published ones)."""
    token = _SEED.set(seed)
    try:
        yield
    finally:
        _SEED.reset(token)


def current_seed() -> int | None:
    return _SEED.get()


@contextmanager
def recording() -> Iterator[dict]:
    """Inside the block, every array a case's generator returns is kept, in order, in the
    dict yielded ({"case/stream": [{"shape", "data"}, …]}: JSON, for the submission's
    process)."""
    record: dict = {}
    token = _RECORD.set(record)
    try:
        yield record
    finally:
        _RECORD.reset(token)


def replay(draws: dict | None) -> None:
    """In a submission's process: the generators return ``draws`` (a recording) from now on,
    and nothing else."""
    global _REPLAY
    _REPLAY = dict(draws or {})


def generator(name: str, stream: int = 0):
    """The random generator of case ``name``'s ``stream``-th draw (inputs 0, out_grad 1)."""
    key = f"{name}/{stream}"
    if _REPLAY is not None:
        return _Replayed(key, _REPLAY.get(key, []))
    code = zlib.crc32(name.encode())
    seed = _SEED.get()
    rng = np.random.default_rng(code + stream if seed is None else [code, stream, seed])
    record = _RECORD.get()
    return rng if record is None else _Recorder(rng, record.setdefault(key, []))


def near(name: str, values: tuple[float, ...]) -> tuple[float, ...]:
    """Hand-picked inputs (micrograd's cases: relu on both sides of 0, no denominator near
    0) as published, or with a seed each scaled by a factor in [0.8, 1.25]: every sign and
    every zero kept, so the case tests what it was written to test."""
    drawn = f"{name}/0" in _REPLAY if _REPLAY is not None else _SEED.get() is not None
    if not drawn:
        return values
    factors = generator(name).uniform(0.8, 1.25, size=len(values))
    return tuple(float(v * f) for v, f in zip(values, factors))


class _Recorder:
    """A generator whose every result is also kept (as JSON data) in a recording."""

    def __init__(self, rng: np.random.Generator, into: list):
        self._rng, self._into = rng, into

    def __getattr__(self, method: str):
        draw = getattr(self._rng, method)

        def recorded(*args, **kwargs):
            array = np.asarray(draw(*args, **kwargs), dtype=float)
            self._into.append({"shape": list(array.shape), "data": array.ravel().tolist()})
            return array

        return recorded


class _Replayed:
    """The grading process's draws for one generator, returned in order, whatever is asked."""

    def __init__(self, key: str, draws: list):
        self._key, self._draws = key, list(draws)

    def __getattr__(self, method: str):
        def replayed(*args, **kwargs):
            if not self._draws:
                raise RuntimeError(f"the grader sent no more inputs for {self._key}")
            item = self._draws.pop(0)
            return np.array(item["data"], dtype=float).reshape(item["shape"])

        return replayed
