"""Pausing Python's cyclic garbage collector while building large graphs.

Building a graph allocates many small objects that all stay alive; every collection would walk
the whole graph again, which makes building quadratic-ish on graphs of 10⁵ nodes. Nodes hold
no reference cycles, so nothing is lost by collecting once afterwards instead.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def gc_paused():
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
