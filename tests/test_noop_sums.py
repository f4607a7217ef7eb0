"""A sum_to_shape that sums nothing is no box of its own (issue 45, slides): gradients built
before any shape was known (``vz.gradients`` of scalar Variables, then differentiated again)
carry sum_to_shape nodes that reduce at run time, and on scalars they are the identity. Such
a node of the graph is drawn as the box it copies, which names it ("v₈ = v₁₀"); it keeps its
number and its step, and ``detail=True`` still draws it. The engine is unchanged."""

from __future__ import annotations

import re

import numpy as np

import vizad as vz
from vizad.view.render import build_scene


def _boxes(source: str) -> dict[str, str]:
    """Box id → its label's text, from a drawing's DOT."""
    found = re.findall(r"^\s*(v\d+) \[label=<(.*?)> ", source, re.M)
    return {box: re.sub(r"<[^>]+>", " | ", label) for box, label in found}


def test_no_box_sums_nothing_and_each_is_named_on_the_box_it_copies():
    trace = vz.examples.third_derivative()
    sums = [n for n in trace.graph if n.op.name == "sum_to_shape"]
    assert len(sums) == 11 and all(np.shape(trace.values[n]) == () for n in sums)
    for view in trace.views:
        boxes = _boxes(vz.draw(trace, view).source)
        assert not any("sum_to_shape" in text for text in boxes.values()), view
        assert "v10" not in boxes and boxes["v8"].startswith(" | v₈ = v₁₀ | ")
        assert "v₁₀ × v₁" in boxes["v12"]  # its consumers still read it by its number
    detailed = _boxes(vz.draw(trace, "adjoint", detail=True).source)
    assert sum("sum_to_shape" in text for text in detailed.values()) == 11


def test_numbering_steps_and_values_are_unchanged():
    trace = vz.examples.third_derivative()
    assert len(trace.steps) == 36 and trace.names.number(trace.output) == 47
    scene = build_scene(trace, "forward", 3)
    v10 = next(n for n in trace.graph if trace.names.number(n) == 10)
    assert scene.ids[v10] == "v8"  # its step lights the box that names it
    drawn = vz.draw(trace, "forward", step=trace.steps.index(trace.step_of(v10)) + 1).source
    assert re.search(r"^\s*v8 \[.*fillcolor=\"#F0E442\"", drawn, re.M)  # the current box
    x = vz.Variable("x")
    (d3,) = vz.gradients(*vz.gradients(*vz.gradients(x * x * x + vz.sin(x), [x]), [x]), [x])
    assert float(vz.evaluate(d3, {x: 0.5})) == float(6 - np.cos(0.5))


def test_a_sum_that_reduces_is_still_drawn():
    trace = vz.examples.broadcast()
    boxes = vz.draw(trace, "adjoint").source
    assert "Σ→shape" in boxes or "sum_to_shape" in boxes
