"""Memory returns when a graph is dropped: no reference cycles between nodes and the records of
the extensions that made them, so ``del`` frees a graph at once, without the cyclic GC."""

from __future__ import annotations

import gc
import tracemalloc
import weakref
from contextlib import contextmanager

import numpy as np
import pytest

import vizad as vz
from vizad.engine._gc import gc_paused


@contextmanager
def gc_off():
    """The cyclic GC off (after a collection): only reference counting frees anything."""
    gc.collect()
    with gc_paused():
        yield


def chain(n: int):
    x = vz.Variable("x")
    y = x
    for k in range(n):
        y = vz.sin(y) * 1.5 if k % 2 else vz.tanh(y) + x
    return x, y


def test_gradients_are_freed_at_del_without_the_garbage_collector():
    with gc_off():
        x, y = chain(200)
        (g,) = vz.gradients(y, [x])
        record = weakref.ref(g.origin)
        some_adjoint = weakref.ref(g.origin.adjoint(y.inputs[0]))
        assert record() is not None and some_adjoint() is not None
        del g
        assert record() is None and some_adjoint() is None  # freed by reference counting
        assert gc.collect() == 0


@pytest.mark.slow_family(keep=["reverse"])  # each mode builds and drops graphs many times
@pytest.mark.parametrize("mode", ["reverse", "forward", "second order", "jvp", "draw"])
def test_no_reference_cycles(mode):
    x, y = chain(60)
    feed = {x: 0.3}

    def build():
        if mode == "reverse":
            return vz.trace_reverse(y, [x], feed)
        if mode == "forward":
            return vz.trace_forward(y, x, feed)
        if mode == "second order":
            (g,) = vz.gradients(y, [x])
            return vz.trace_reverse(vz.gradients(g, [x])[0], [x], feed)
        if mode == "jvp":
            return vz.evaluate(vz.jvp(y, {x: 1.0}), feed)
        return vz.draw(vz.trace_reverse(y, [x], feed), "adjoint").source

    build()  # first use: lazy imports, caches
    with gc_off():
        result = build()
        del result
        assert gc.collect() == 0


def test_the_record_keeps_its_nodes_until_released():
    x, y = chain(10)
    record = vz.extend.build_adjoints(y, [x])
    (g,) = record.gradients
    assert g.origin is record and record.adjoint(x) is g
    del g
    assert record.gradients[0] is not None  # kept by the record
    record.release()
    with gc_off():
        assert record.gradients == [None] and record.adjoint(x) is None
        assert record.partials(x) == ()
    # what someone else holds stays reported
    record = vz.extend.build_adjoints(y, [x])
    (g,) = record.gradients
    record.release()
    assert record.adjoint(x) is g and g.origin is record
    assert [p.consumer for p in record.partials(x)]


def test_the_origin_of_a_gradient_lives_as_long_as_the_gradient():
    x, y = chain(6)
    (d1,) = vz.gradients(y, [x])
    (d2,) = vz.gradients(d1, [x])
    gc.collect()
    assert d1.origin is not d2.origin and d2.origin.output is d1
    assert d1.origin.adjoint(x) is d1
    t = vz.jvp(y, {x: 1.0})
    assert t.origin.tangent_of_output is t and t.origin.tangent(y) is t


@pytest.mark.slow  # 28 rounds of ~1,500 nodes under tracemalloc (about 45 s)
def test_building_and_dropping_graphs_in_a_loop_does_not_grow_memory():
    """The traced memory after many build/drop rounds stays where it was after the first few
    (which fill CPython's free lists of tuples and dicts): a round builds ~1,500 nodes, so
    keeping even one node of each round alive would show."""

    def one_round():
        x, y = chain(100)
        grads = vz.gradients(y, [x])
        vz.Executor([y, *grads]).run({x: np.float64(0.2)})
        vz.trace_reverse(y, [x], {x: 0.2})
        vz.trace_forward(y, x, {x: 0.2})

    one_round()
    with gc_off():
        tracemalloc.start()
        try:
            for _ in range(8):
                one_round()
            start, _ = tracemalloc.get_traced_memory()
            for _ in range(20):
                one_round()
            end, _ = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert end - start < 8 * 1024, f"memory grew by {(end - start) / 1024:.1f} KiB"
