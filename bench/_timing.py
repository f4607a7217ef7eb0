"""Small timing helpers shared by the benchmarks: medians of repeated runs."""

from __future__ import annotations

import platform
import statistics
import time
from collections.abc import Callable


def median_time(fn: Callable[[], object], repeat: int = 7, warmup: int = 1) -> float:
    """The median wall time of ``fn()`` in seconds over ``repeat`` runs."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
        del result  # freeing what fn built is not part of building it
    return statistics.median(times)


def paired_medians(
    fns: dict[str, Callable[[], object]], repeat: int = 5, warmup: int = 1
) -> dict[str, float]:
    """The median wall time of each function, run in turns (one of each per round, so that
    a change of machine load affects them alike); each result is freed outside the timing."""
    for _ in range(warmup):
        for fn in fns.values():
            result = fn()
            del result
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            start = time.perf_counter()
            result = fn()
            times[name].append(time.perf_counter() - start)
            del result
    return {name: statistics.median(t) for name, t in times.items()}


def load() -> str:
    """The load average now, for the record."""
    import os

    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def machine() -> str:
    import os

    import numpy as np

    try:
        from threadpoolctl import threadpool_info

        blas = ", ".join(
            f"{i['internal_api']} {i.get('version')} ({i['num_threads']} threads)"
            for i in threadpool_info()
            if i["user_api"] == "blas"
        )
    except ImportError:
        blas = "BLAS unknown"
    return (
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"numpy {np.__version__}, {blas}"
    )
