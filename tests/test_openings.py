"""Boxes opened from what they change (issue 36, exports): a view with boxes opened is made by
``BoxOpener`` (what every opening shares made once) and sent as a patch by ``Openings`` (made
from the boxes, edges, steps and search entries the opening changes). Both must give exactly
what the plain ways give: the edges merged by ``merge_edges`` over the whole scene, and the
diff of the two views' whole data (``frame_patch(frame, frame_data(opened))``)."""

import itertools

import numpy as np
import pytest

import vizad as vz
from vizad.view.render import Layout
from vizad.view.render.opening import BoxOpener
from vizad.view.render.scene_builder import build_scene
from vizad.view.render.summary import merge_edges
from vizad.view.widget.frames import Openings, frame_data, frame_patch, memory_boxes


def _random_trace(seed: int, size: int = 400):
    rng = np.random.default_rng(seed)
    xs = [vz.Variable(f"x{k}") for k in range(10)]
    nodes = list(xs)
    while len(nodes) < size:
        a, b = rng.integers(max(0, len(nodes) - 12), len(nodes), 2)
        nodes.append(nodes[a] * nodes[b] if rng.random() < 0.5 else vz.tanh(nodes[a]))
    return vz.trace_reverse(vz.ops.add_n(*nodes[-4:]), xs, {x: 0.3 for x in xs})


def _scoped_trace():
    x, w = vz.Variable("x"), vz.Variable("w")
    with vz.scope("layer1"):
        a = vz.tanh(x * w)
    with vz.scope("layer2"):
        b = vz.tanh(a * w + x)
    return vz.trace_reverse(b, [x, w], {x: 0.5, w: -1.5})


CASES = {
    "random graph, summarised": (lambda: _random_trace(1), {}),
    "rnn(20), folded": (lambda: vz.examples.rnn(20), {"collapse": "repeats"}),
    "scopes collapsed": (_scoped_trace, {"collapse": ["layer1", "layer2"]}),
}


def _sets(boxes: list[str]) -> list[tuple[str, ...]]:
    """Each box alone, pairs of the first few, and the first four together."""
    return [(b,) for b in boxes] + list(itertools.combinations(boxes[:5], 2)) + [tuple(boxes[:4])]


@pytest.mark.parametrize("case", list(CASES))
def test_an_opening_is_what_opening_the_whole_scene_gives(case):
    make, options = CASES[case]
    trace = make()
    opened = 0
    for view in trace.views:
        layout = Layout(trace, view, in_browser=True, **options)
        if not layout.collapsed:
            continue
        full = build_scene(trace, view, 3)
        opener = BoxOpener(full, layout.scene)
        for boxes in _sets(layout.collapsed):
            scene = opener.open(boxes)
            # the plain way: every box of full drawn in its shown box, every edge merged
            shown = {i.id for i in scene.items}
            group_of = {}
            for item in full.items:
                box = item.id if item.id in shown else scene.ids.get(item.node)
                if box is not None:  # else hidden by the summary (a constant)
                    group_of[item.id] = box
            edges = [
                e
                for e in full.edges
                if e.tail in group_of and e.head in group_of and e.kind != "anchor"
            ]
            assert scene.edges == merge_edges(edges, group_of), boxes
            assert set(boxes) & shown == set()
            opened += 1
    assert opened


def _frame(layout, trace, memory: bool) -> dict:
    """A view's data, with the memory timeline's boxes (vz.step(..., memory=True)) or not."""
    frame = frame_data(layout, trace, 3)
    if memory:
        frame["memoryBoxes"] = memory_boxes(layout, trace)
    return frame


@pytest.mark.parametrize("memory", [False, True], ids=["plain", "memory"])
@pytest.mark.parametrize("case", list(CASES))
def test_an_openings_patch_is_the_diff_of_the_two_views(case, memory):
    make, options = CASES[case]
    trace = make()
    patched = moved = 0
    for view in trace.views:
        layout = Layout(trace, view, in_browser=True, **options)
        if not layout.collapsed:
            continue
        frame = _frame(layout, trace, memory)
        patches = Openings(layout, frame, trace, 3)
        for boxes, lay in layout.openings(_sets(layout.collapsed)).items():
            patch = patches.patch(lay)
            diff = frame_patch(frame, _frame(lay, trace, memory))
            # with the memory timeline, the forward values inside a box opened get their own
            # boxes (issue 49: the stepper outlines those alive at the step)
            assert ("memoryBoxes" in patch) == memory
            moved += len(patch.get("memoryBoxes", ()))
            assert patch == diff, boxes
            assert list(patch) == list(diff)  # the same text once written as JSON
            assert all(list(patch[k]) == list(diff[k]) for k in patch if isinstance(diff[k], dict))
            patched += 1
    assert patched
    assert bool(moved) == memory


def test_a_layout_shown_in_the_browser_carries_its_boxes_titles_unescaped(monkeypatch):
    # a Layout keeps its drawing's escaped titles and unescapes them only when shown: the
    # picture gets the very titles of the drawing, as text (an edge's "v₁->v₃", not
    # "v₁&#45;&gt;v₃")
    from vizad.view.render import dot, picture

    x, w = vz.Variable("x"), vz.Variable("w")
    trace = vz.trace_reverse(vz.tanh(x * w), [x, w], {x: 0.5, w: -1.5})
    layout = Layout(trace, "adjoint", in_browser=True)
    shown = {}

    def bundle(source, text, titles=None):
        shown.update(titles)
        return {"text/plain": text}

    monkeypatch.setattr(picture, "picture_bundle", bundle)
    layout._repr_mimebundle_()
    assert shown == dot.to_drawing(layout.scene).titles()
    assert "v₁->v₃" in shown.values() and not any("&" in t for t in shown.values())


def test_quoting_once_per_process_writes_graphvizs_text(monkeypatch):
    # Drawing quotes node names and edge ends through a cache: the same DOT as graphviz's own
    # quoting writes (names that need quotes, ports, keywords included)
    import graphviz

    from vizad.view.render.dot import Drawing, to_drawing

    scene = build_scene(_random_trace(3, 120), "adjoint", 3)
    cached = to_drawing(scene).source
    for name in ("x1", "a b", "v:3", "v:3:n", "é", "1.5", "edge", "-2", 'say "hi"'):
        assert Drawing._quote(name) == graphviz.quoting.quote(name)
        assert Drawing._quote_edge(name) == graphviz.quoting.quote_edge(name)
    monkeypatch.setattr(Drawing, "_quote", staticmethod(graphviz.quoting.quote))
    monkeypatch.setattr(Drawing, "_quote_edge", staticmethod(graphviz.quoting.quote_edge))
    assert to_drawing(scene).source == cached


@pytest.mark.parametrize("case", list(CASES))
def test_the_laid_view_takes_the_forward_views_states_only_when_they_are_its_own(case):
    # Layout(twin=) and openings(twins=): the laid view (its results written in the forward
    # view's boxes) takes the forward view's step states instead of making them again, and
    # they are exactly the states step_states makes for it; the extended view never does
    from vizad.view.render.highlight import step_states
    from vizad.view.render.layout import alike

    make, options = CASES[case]
    trace = make()
    forward = Layout(trace, "forward", in_browser=True, **options)
    laid = Layout(trace, trace.laid_view, in_browser=True, twin=forward, **options)
    assert alike(laid.scene, forward.scene)
    assert laid.states is forward.states
    assert laid.states == step_states(laid.scene)
    extended = Layout(trace, trace.extended_view, in_browser=True, twin=forward, **options)
    assert not alike(extended.scene, forward.scene)
    assert extended.states == step_states(extended.scene)
    sets = _sets(forward.collapsed)
    if not sets:
        return
    twins = forward.openings(sets)
    for boxes, lay in laid.openings(sets, twins=twins).items():
        assert lay.states is twins[boxes].states, boxes
        assert lay.states == step_states(lay.scene), boxes
    # a twin that is not alike (another box opened) is not taken
    other = {boxes: twins[sets[(k + 1) % len(sets)]] for k, boxes in enumerate(sets)}
    for boxes, lay in laid.openings(sets, twins=other).items():
        assert lay.states == step_states(lay.scene), boxes
