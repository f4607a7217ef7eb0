"""Pausing Python's cyclic garbage collector while building large graphs.

Building a graph allocates many small objects that all stay alive; every collection would walk
the whole graph again, which makes building quadratic-ish on graphs of 10⁵ nodes. Pausing loses
nothing: whatever becomes garbage meanwhile is collected by the next collection. (Graphs hold no
reference cycles: a node holds its inputs and its extension record, and a record refers to the
nodes it made weakly, so a graph's memory returns at ``del``.)
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
