"""Each view laid out when first shown, and collapsed boxes opened on request (issue 25): the
Stepper's side, without a browser (the browser's side: tests/browser/test_dense.py)."""

import base64
import gzip
import json

import numpy as np

import pytest

import vizad as vz
import vizad.view.render.dot as dot_module
from vizad.view.render import Layout
from vizad.view.render.opening import OPEN_PREFIX
from vizad.view.render.scene_builder import build_scene
from vizad.view.widget.data import frame_data, unpack_opens, walkthrough_data
from vizad.view.widget.page import page_data


@pytest.fixture
def dot_runs(monkeypatch):
    """The DOT sources laid out by the dot program, in order (every layout goes through
    vizad.view.render.dot's run_dot: Drawing.laid_out)."""
    runs = []
    real = dot_module.run_dot

    def counting(source, timeout, cpu=None):
        runs.append(source)
        return real(source, timeout, cpu)

    monkeypatch.setattr(dot_module, "run_dot", counting)
    return runs


def test_only_the_view_shown_first_is_laid_out(dot_runs):
    x1, x2 = vz.Variable("x1"), vz.Variable("x2")
    stepper = vz.step(vz.log(x1) + x1 * x2 - vz.sin(x2), [x1, x2], {x1: 2.0, x2: 5.0})
    assert len(dot_runs) == 1 and stepper.laid_out == ("adjoint",)
    assert list(stepper.data["frames"]) == ["adjoint"]
    assert [v["name"] for v in stepper.data["views"]] == ["forward", "adjoint", "backprop"]
    stepper.step = 4  # stepping lays nothing out
    assert len(dot_runs) == 1
    stepper.view = "forward"  # the view traitlet switching lays that view out, once
    assert len(dot_runs) == 2 and stepper.laid_out == ("adjoint", "forward")
    assert dot_runs[-1] == stepper.layout_of("forward").dot_source
    stepper.view = "adjoint"
    stepper.view = "forward"
    assert len(dot_runs) == 2
    vz.Stepper(stepper.trace, "backprop")
    assert len(dot_runs) == 3 and dot_runs[-1] == Layout(stepper.trace, "backprop").dot_source


def test_the_browser_asks_for_a_view_and_gets_its_frame(monkeypatch):
    x1, x2 = vz.Variable("x1"), vz.Variable("x2")
    stepper = vz.step(vz.log(x1) + x1 * x2 - vz.sin(x2), [x1, x2], {x1: 2.0, x2: 5.0})
    sent = []
    monkeypatch.setattr(stepper, "send", lambda content, buffers=None: sent.append(content))
    stepper._message(stepper, {"kind": "view", "view": "backprop"}, [])
    (reply,) = sent
    assert reply["kind"] == "view" and reply["view"] == "backprop"
    layout = stepper.layout_of("backprop")
    assert reply["frame"]["svg"] == layout.template
    assert reply["frame"]["steps"] == layout.states.steps
    json.dumps(reply)
    stepper._message(stepper, {"kind": "view", "view": "sideways"}, [])
    assert "has the views" in sent[-1]["error"] and "frame" not in sent[-1]
    stepper._message(stepper, "junk", [])  # every request answered, a malformed one too
    stepper._message(stepper, {"kind": "unknown"}, [])
    assert len(sent) == 4 and sent[2]["kind"] == "refused"
    assert "unknown request 'unknown'" in sent[3]["error"]


def _apply(base: dict, patch: dict) -> dict:
    """What the component's applyPatch (static/stepper/expand.js) does, in Python."""
    frame = {k: v for k, v in base.items() if k not in ("svg", "dot")}
    frame.update({k: patch[k] for k in ("dot", "svg", "scope", "note", "collapsed") if k in patch})
    for key in ("owner", "hides", "tips", "edgeTips", "clicks", "links"):
        frame[key] = {**base[key], **patch[key]}
    frame["steps"] = [patch["steps"].get(str(k), s) for k, s in enumerate(base["steps"])]
    frame["find"] = [patch["find"].get(str(k), e) for k, e in enumerate(base["find"])]
    return frame


def test_a_band_of_a_summary_opens_in_place():
    """A 200-layer chain is summarised into bands; opening one shows the nodes it stands for
    (each step inside it has its own box again), the rest stays collapsed."""
    trace = vz.examples.rnn(200)  # the weight-shared chain of issue 25
    layout = Layout(trace, "adjoint", in_browser=True)
    boxes = layout.collapsed
    assert len(boxes) >= 10 and all(b.startswith("band_") for b in boxes)
    # a band holding the nodes of some steps (the adjoint view's steps are its adjoints)
    band = [s["current"] for s in layout.states.steps if s["current"] in boxes][3]
    opened = layout.opened([band])
    shown = {i.id for i in opened.scene.items}
    assert band not in shown and set(boxes) - {band} <= shown
    full = build_scene(trace, "adjoint")
    inside = [i for i in full.items if layout.scene.ids.get(i.node) == band]
    assert inside and {i.id for i in inside} <= shown
    assert all(i.cluster == OPEN_PREFIX + band for i in opened.scene.items if i.id in inside)
    # every edge joins two boxes shown; edges into the band now reach its members
    assert all(e.tail in shown and e.head in shown for e in opened.scene.edges)
    assert any(
        e.head in {i.id for i in inside} and e.tail not in {i.id for i in inside}
        for e in opened.scene.edges
    )
    # a step whose node was inside the band: the band was its current box, now its own box is
    k = next(k for k, s in enumerate(layout.states.steps) if s["current"] == band)
    node = trace.steps[k].node
    assert opened.states.steps[k]["current"] == full.ids[node] != band
    assert f"opened: {next(i for i in layout.scene.items if i.id == band).lines[0]}" in (
        opened.scene.note
    )
    # the patch the browser merges gives back the opened frame
    base = frame_data(layout, trace, 3)
    frame = frame_data(opened, trace, 3)
    from vizad.view.widget.data import frame_patch

    patch = frame_patch(base, frame)
    merged = _apply(base, patch)
    for key in ("steps", "find", "dot", "note", "collapsed"):
        assert merged[key] == frame[key], key
    for key in ("owner", "tips", "clicks", "links"):
        assert {i: merged[key][i] for i in frame[key]} == frame[key], key
    assert len(json.dumps(patch)) < len(json.dumps(frame)) / 2  # a patch, not a copy
    with pytest.raises(vz.VizadError, match="no collapsed box 'v1'"):
        layout.opened(["v1"])


def test_a_collapsed_scope_opens_and_the_stepper_steps_inside_it(monkeypatch):
    x = vz.Variable("x")
    w = vz.Variable("w")
    with vz.scope("layer1"):
        a = vz.tanh(x * w)
    with vz.scope("layer2"):
        b = vz.tanh(a * w + x)
    stepper = vz.step(b, [x, w], {x: 0.5, w: -1.5}, collapse=["layer1"])
    frame = stepper.data["frames"]["adjoint"]
    assert len(frame["collapsed"]) == 2  # the scope's forward nodes, and their adjoints
    (box,) = {s["current"] for s in frame["steps"]} & set(frame["collapsed"])
    # stepping inside the collapsed scope: the collapsed box is the current step's box
    inside = [k for k, s in enumerate(frame["steps"]) if s["current"] == box]
    assert inside, "some step's node is inside the collapsed scope"
    assert [stepper.trace.steps[k].node.scope for k in inside] == [("layer1",)] * len(inside)
    sent = []
    monkeypatch.setattr(stepper, "send", lambda content, buffers=None: sent.append(content))
    stepper._message(stepper, {"kind": "open", "view": "adjoint", "boxes": [box], "key": box}, [])
    (reply,) = sent
    patch = reply["patch"]
    assert reply["key"] == box and "svg" in patch and OPEN_PREFIX + box in patch["svg"]
    merged = _apply(frame, patch)
    assert all(merged["steps"][k]["current"] != box for k in inside)
    assert box not in merged["collapsed"]
    stepper._message(stepper, {"kind": "open", "view": "adjoint", "boxes": ["v1"]}, [])
    assert "no collapsed box" in sent[-1]["error"]


def test_the_exported_page_carries_each_box_opened(tmp_path):
    """Without a kernel the page opens a box itself: each collapsed box comes as a patch
    whose picture is DOT, and the page carries Graphviz to lay it out (in a worker)."""
    trace = vz.examples.rnn(100)  # the weight-shared chain of issue 25, folded (issue 36)
    data = walkthrough_data(trace, views=["forward"], openings=True)
    frame = data["frames"]["forward"]
    opens = unpack_opens(data["opens"])["forward"]
    ids = data["opens"]["ids"]["forward"]
    assert set(opens) == set(ids) == set(frame["collapsed"]) == {"fold_v11"}
    assert all("dot" in p and "svg" not in p for p in opens.values())
    page = vz.export_html(trace, tmp_path / "chain.html").read_text()
    assert 'id="vz-graphviz"' in page and "forward" in page_data(page)["opens"]["ids"]


def _scalar_graph(ops: int):
    """bench/render.py's graph(40, ops, seed=1), traced in reverse mode at 0.3."""
    rng = np.random.default_rng(1)
    xs = [vz.Variable(f"x{k}") for k in range(40)]
    nodes = list(xs)
    for _ in range(ops):
        a, b = rng.integers(max(0, len(nodes) - 30), len(nodes), 2)
        nodes.append(nodes[a] * nodes[b] if rng.random() < 0.5 else vz.tanh(nodes[a]))
    return vz.trace_reverse(vz.ops.add_n(*nodes[-5:]), xs, {x: 0.3 for x in xs})


def test_openings_packed_once_for_every_view_are_the_patches_made():
    """A page's openings, every view's in one text (a line of DOT once, a field alike in two
    views' patches of a box once), unpack to the very patches of each view (made by
    opening_data, as the page's were one view at a time before)."""
    from vizad.view.widget.data import opening_data, pack_opens

    from vizad.view.widget.data import carried_order

    trace = _scalar_graph(1700)
    layouts = {v: Layout(trace, v, in_browser=True) for v in trace.views}
    made = {}
    for view, layout in layouts.items():
        frame = frame_data(layout, trace, 3)
        boxes = [(b,) for b in carried_order(layout)[:3]]
        made[view] = opening_data(layout, trace, 3, frame, layout.openings(boxes))
    assert all(made.values())
    packed = pack_opens(made)
    assert packed["ids"] == {view: list(boxes) for view, boxes in made.items()}
    assert unpack_opens(packed) == made
    whole = json.loads(gzip.decompress(base64.b64decode(packed["gz"])))
    same = [p["same"] for boxes in whole["patches"].values() for p in boxes.values() if "same" in p]
    assert any({"tips", "owner", "clicks"} <= set(s) for s in same)  # forward's, in backprop's
    alone = {view: pack_opens({view: boxes})["gz"] for view, boxes in made.items()}
    assert len(packed["gz"]) < 0.9 * sum(len(gz) for gz in alone.values())


def test_a_page_carries_openings_within_one_budget_the_view_shown_first():
    """PAGE_OPENINGS nodes in all over the page's views: the view shown first's boxes first
    (those the walkthrough reaches first), then the other views'; a box the page does not
    carry is sealed (it says so when clicked: tests/browser/test_export_openings.py)."""
    from collections import Counter

    from vizad.view.widget.data import PAGE_OPENINGS, carried_order

    trace = _scalar_graph(1700)  # 1,018 steps
    data = walkthrough_data(trace, openings=True)
    ids = data["opens"]["ids"]
    assert list(ids)[0] == data["view"] == "adjoint"
    total = 0
    for view, boxes in ids.items():
        layout = Layout(trace, view, in_browser=True)
        size = Counter(layout.scene.ids.values())
        assert boxes == carried_order(layout)[: len(boxes)], view
        total += sum(size[b] for b in boxes)
    assert PAGE_OPENINGS - 250 < total <= PAGE_OPENINGS
    assert set(ids) < set(trace.views)  # the budget spent before the last view


def test_search_entries_name_every_node_and_its_step():
    trace = vz.examples.rnn(200)  # the weight-shared chain of issue 25
    frame = frame_data(Layout(trace, "forward", in_browser=True), trace, 3)
    texts = [e[0] for e in frame["find"]]
    x3 = next(e for e in frame["find"] if e[0].endswith(" x3"))
    assert x3[1].startswith("band_")  # inside a band: the band shows it
    assert trace.steps[x3[2]].node is trace.wrt[3]
    assert len(texts) == len(build_scene(trace, "forward").ids)


def test_search_entries_carry_the_values_as_drawn_and_the_steps_of_adjoints():
    """Issue 44: a search finds a value as its box shows it and an adjoint at its step. Each
    entry carries the lines of its box that write out values (the very lines drawn), never a
    value in its text; an adjoint inside a fold goes to the step computing it."""
    trace = vz.examples.rnn(45)
    data = walkthrough_data(trace)
    for view, frame in data["frames"].items():
        scene = build_scene(trace, view, frame["decimals"])
        lines = {item.id: item.lines for item in scene.items}
        for text, box, _step, shown in frame["find"]:
            assert all(line in lines[box][1:] for line in shown), (view, text, shown)
            assert not any(line in text for line in shown if line.startswith("=")), (view, text)
    adjoint = {e[0]: e for e in data["frames"]["adjoint"]["find"]}
    assert adjoint["v₁ = x0"][3] == ["= 0.3"]  # an input, at 0.3
    assert adjoint["v̄₁₄₅ (seed)"][3] == ["= 1"]  # the value, not in the name
    bar73 = adjoint["v̄₇₃"]
    assert bar73[1] == "fold_a2" and bar73[3] == []  # folded: no value drawn
    assert trace.result_name(trace.steps[bar73[2]].node).text == "v̄₇₃"
    backprop = {e[0]: e for e in data["frames"]["backprop"]["find"]}
    value, laid = backprop["v₇₃ = tanh v₇₂"][3]
    assert value == "= 0.396" and laid.startswith("v̄₇₃ = ")


def test_what_a_page_carries_opened_is_bounded():
    """A box standing for more than OPEN_LIMIT nodes is not opened whole; a page carries boxes
    opened for at most PAGE_OPENINGS nodes (the first ones the walkthrough
    reaches), the rest found by search and stepped through as they are."""
    from collections import Counter

    import numpy as np

    from vizad.view.render.opening import OPEN_LIMIT
    from vizad.view.widget.data import (
        PAGE_OPENINGS,
        carried_order,
        opening_data,
    )

    rng = np.random.default_rng(3)
    xs = [vz.Variable(f"x{k}") for k in range(8)]
    nodes = list(xs)
    while len(nodes) < 6000:
        a, b = rng.integers(max(0, len(nodes) - 20), len(nodes), 2)
        nodes.append(nodes[a] * nodes[b] if rng.random() < 0.5 else vz.tanh(nodes[a]))
    trace = vz.trace_reverse(vz.ops.add_n(*nodes[-6:]), xs, {x: 0.3 for x in xs})
    for view in ("forward", "adjoint"):
        layout = Layout(trace, view, in_browser=True)
        size = Counter(layout.scene.ids.values())
        summaries = [i.id for i in layout.scene.items if i.kind == "summary"]
        assert set(layout.collapsed) == {b for b in summaries if size[b] <= OPEN_LIMIT}
        frame = frame_data(layout, trace, 3)
        opens = opening_data(layout, trace, 3, frame)
        assert sum(size[b] for b in opens) <= PAGE_OPENINGS
        assert list(opens) == carried_order(layout)[: len(opens)]
        assert sorted(carried_order(layout)) == sorted(layout.collapsed)
    assert any(size[b] > OPEN_LIMIT for b in summaries)  # the adjoint's bands are too large
    assert len(opens) < len(summaries)


def test_an_opening_keeps_the_step_states_it_leaves_alone():
    """A box opened makes again only the step states of the steps that mention a box drawn
    differently (``Layout(..., like=)``); they are the states made from scratch, and so is
    its DOT (the statements cached across a view's openings)."""
    from vizad.view.render.dot import browser_source, to_drawing
    from vizad.view.render.highlight import step_states

    rng = np.random.default_rng(1)
    xs = [vz.Variable(f"x{k}") for k in range(10)]
    nodes = list(xs)
    while len(nodes) < 400:
        a, b = rng.integers(max(0, len(nodes) - 12), len(nodes), 2)
        nodes.append(nodes[a] * nodes[b] if rng.random() < 0.5 else vz.tanh(nodes[a]))
    trace = vz.trace_reverse(vz.ops.add_n(*nodes[-4:]), xs, {x: 0.3 for x in xs})
    opened = 0
    for view in trace.views:
        layout = Layout(trace, view, in_browser=True)
        for lay in layout.openings([(b,) for b in layout.collapsed]).values():
            assert lay.states == step_states(lay.scene)
            assert lay.dot_source == browser_source(to_drawing(lay.scene, noted=False).source)
            opened += 1
    assert opened


def test_a_fold_of_repeated_blocks_opens_in_place():
    """The 45-step chain's forward view with its time steps folded ("× 45", 135 nodes): the fold
    is a box that opens like a band, its blocks' boxes shown again and the steps inside it
    lighting their own boxes."""
    trace = vz.examples.rnn(45)  # the weight-shared chain of issue 25
    layout = Layout(trace, "forward", collapse="repeats", in_browser=True)
    folds = [i.id for i in layout.scene.items if i.kind == "fold"]
    assert folds and set(folds) <= set(layout.collapsed)
    fold = folds[0]
    opened = layout.opened([fold])
    shown = {i.id for i in opened.scene.items}
    assert fold not in shown and len(shown) > 10 * len(layout.scene.items)
    assert all(e.tail in shown and e.head in shown for e in opened.scene.edges)
    # a forward node inside the fold: the fold was its box, now its own box is
    full = build_scene(trace, "forward")
    inside = [n for n, box in layout.scene.ids.items() if box == fold]
    assert inside and all(opened.scene.ids[n] == full.ids[n] != fold for n in inside)


def test_packed_json_is_utf8_and_reads_back_a_lone_surrogate():
    """Packed data is UTF-8 JSON (v₂ as its three bytes, not a six-character escape: smaller,
    and what inflateJson's TextDecoder reads); a text holding a lone surrogate, which UTF-8
    cannot encode, is packed with JSON's escapes and reads back the same."""
    from vizad.view.widget.data import packed_json

    def unpacked(packed: str) -> bytes:
        return gzip.decompress(base64.b64decode(packed))

    text = unpacked(packed_json({"label": "v₂ = x₁"}))
    assert "v₂".encode() in text and b"\\u2082" not in text
    assert json.loads(text) == {"label": "v₂ = x₁"}
    hostile = {"label": "v\ud800₂"}
    assert json.loads(unpacked(packed_json(hostile))) == hostile
