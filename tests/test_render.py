"""Drawings: golden DOT, determinism, escaping, real Graphviz, no Graphviz, large graphs,
and per-step restyling without a new layout.

Regenerate the golden files deliberately with ``make golden`` (VIZAD_REGENERATE_GOLDEN=1).
"""

import os
import html
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import vizad as vz
from vizad.view.render import dot as dot_module
from drawn import shown_svg

GOLDEN = Path(__file__).parent / "golden"
REGENERATE = os.environ.get("VIZAD_REGENERATE_GOLDEN") == "1"


def lecture_trace():
    x1, x2 = vz.Variable("x1"), vz.Variable("x2")
    y = vz.log(x1) + x1 * x2 - vz.sin(x2)
    return vz.trace_reverse(y, [x1, x2], {x1: 2.0, x2: 5.0})


def course_trace():
    x1 = vz.Variable("x1")
    x2, x3 = x1 + 3, x1 + 5
    return vz.trace_reverse(x2 * x3, [x1, x2, x3], {x1: 2.0})


def _forward_of(trace):
    return vz.trace_forward(trace.output, feed=trace.feed)


CASES = {
    "lecture_forward": lambda: vz.draw(lecture_trace(), "forward"),
    "lecture_adjoint": lambda: vz.draw(lecture_trace(), "adjoint"),
    "lecture_backprop": lambda: vz.draw(lecture_trace(), "backprop"),
    "lecture_adjoint_step5": lambda: vz.draw(lecture_trace(), "adjoint", step=5),
    "lecture_forward_mode_step3": lambda: vz.draw(_forward_of(lecture_trace()), "tangent", step=3),
    "course_adjoint": lambda: vz.draw(course_trace(), "adjoint"),
}
# every view of every example graph of the tutorials, at their middle step
for _name, _make in vz.examples.ALL.items():
    for _k, _view in enumerate(("forward", "extended", "laid")):  # each mode's own view names
        CASES[f"example_{_name}_{_view}"] = lambda make=_make, k=_k: vz.draw(
            (t := make()), t.views[k], step=len(t.steps) // 2
        )
CASES["example_mlp_adjoint_detail"] = lambda: vz.draw(vz.examples.mlp(), "adjoint", detail=True)
# the drawings of vz.examples.rnn's weight-shared recurrence: unfolded, folded, one run opened
CASES["bptt_unfolded_forward"] = lambda: vz.draw(vz.examples.rnn(steps=4), "forward")
CASES["bptt_unfolded_adjoint"] = lambda: vz.draw(vz.examples.rnn(steps=4), "adjoint")
CASES["bptt_folded_forward"] = lambda: vz.draw(
    vz.examples.rnn(steps=45), "forward", collapse="repeats"
)
CASES["bptt_folded_adjoint"] = lambda: vz.draw(
    vz.examples.rnn(steps=45), "adjoint", collapse="repeats"
)
CASES["bptt_folded_adjoint_step"] = lambda: vz.draw(
    vz.examples.rnn(steps=45), "adjoint", step=100, collapse="repeats"
)
CASES["bptt_adjoint_run_opened"] = lambda: vz.draw(
    vz.examples.rnn(steps=10), "adjoint", collapse=["fold_v11"]
)


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_dot(name):
    source = CASES[name]().source
    path = GOLDEN / f"{name}.dot"
    if REGENERATE or not path.exists():
        if not REGENERATE:
            pytest.fail(f"no golden file {path.name}: run `make golden` to create it")
        path.write_text(source)
    assert source == path.read_text(), f"{name} differs from {path}; `make golden` if deliberate"


def test_golden_lecture_content():
    """What the lecture's pictures must show, independent of the golden files."""
    forward = vz.draw(lecture_trace(), "forward").source
    for k in range(1, 8):
        assert re.search(rf"\bv{k} \[label=<<B>v{chr(0x2080 + k)}</B>", forward)
    assert "v₁ × v₂" in forward and "rankdir=LR" in forward
    adjoint = vz.draw(lecture_trace(), "adjoint").source
    for text in (
        "v̄₂→₅",
        "v̄₂→₄",
        "v̄₁→₄",
        "v̄₁→₃",
        "v̄₇ (seed)",
        "∂v₅/∂v₂",
        "= 1.716",
        "cluster_forward",
        "adjoint graph (built by gradients)",
    ):
        assert text in adjoint, text
    backprop = vz.draw(lecture_trace(), "backprop").source
    assert "v̄₂ = 1.716" in backprop and "v̄₁ = 5.5" in backprop


def test_same_graph_gives_byte_identical_dot_in_fresh_processes():
    code = (
        "import vizad as vz\n"
        "x1, x2 = vz.Variable('x1'), vz.Variable('x2')\n"
        "y = vz.log(x1) + x1 * x2 - vz.sin(x2)\n"
        "t = vz.trace_reverse(y, [x1, x2], {x1: 2.0, x2: 5.0})\n"
        "print(vz.draw(t, 'adjoint', step=4).source)\n"
        "print(vz.draw(vz.gradients(y, [x1, x2]), 'adjoint').source)\n"
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout
        for _ in range(2)
    ]
    assert runs[0] == runs[1] and "digraph vizad" in runs[0]


EVIL = [
    "<img src=x onerror=alert(1)>",
    'say "hi"',
    "{brace}",
    "back\\slash",
    "new\nline",
    "a & b",
    "x</B><BR/>",
]


@pytest.mark.parametrize("name", EVIL)
def test_user_text_is_escaped_in_dot_and_svg(name):
    x = vz.Variable(name)
    trace = vz.trace_reverse(vz.sin(x) * 2, [x], {x: 1.0})
    drawing = vz.draw(trace, "adjoint")
    source = drawing.source
    shown = vz.render.dot.visible(name)  # a line end drawn as "\n"
    # the one escaping function was applied (a backslash doubled: Graphviz reads \N) …
    assert vz.text.escape(shown).replace("&#92;", "&#92;&#92;") in source
    assert name not in source  # … and the raw text appears nowhere
    svg = drawing.pipe(format="svg").decode()
    root = ET.fromstring(svg)  # well-formed: nothing broke out of the label
    texts = "".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    assert shown.replace(" ", "") in texts.replace(" ", "").replace("\xa0", "")
    assert not list(root.iter("{http://www.w3.org/2000/svg}img")) and "<img" not in svg


def test_renders_with_the_real_dot_to_svg_and_png(tmp_path):
    drawing = vz.draw(lecture_trace(), "adjoint", step=2)
    svg = drawing.pipe(format="svg").decode()
    assert svg.lstrip().startswith("<?xml") and 'id="v7"' in svg
    png = Path(drawing.render(tmp_path / "lecture", format="png", cleanup=True))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    bundle = drawing._repr_mimebundle_()
    assert 'id="v7"' in shown_svg(bundle) and bundle["text/plain"].startswith("<vizad drawing:")


def test_layout_once_then_restyle_without_dot(monkeypatch):
    layout = vz.render.Layout(lecture_trace(), "adjoint")
    calls = []
    monkeypatch.setattr(dot_module.subprocess, "Popen", lambda *a, **k: calls.append(a))
    plain = layout.svg()
    step5 = layout.svg(6)  # step 6 of 7: v₂
    assert not calls  # stepping never runs dot
    assert "<style>" not in plain and "<style>" in step5
    assert re.sub(r"<style>.*?</style>", "", step5, flags=re.S) == plain  # same layout
    css = re.search(r"<style>(.*?)</style>", step5, re.S).group(1)
    assert f"#{layout.scope} #v2>path" in css  # v₂ is the current node
    assert "#F0E442" in css
    assert layout.svg(1) != step5 and layout.steps == 7
    # values that later steps compute are hidden: v̄₁ (a9, pending at step 5), not v̄₂ (current)
    scene_ids = layout.scene.ids
    trace = layout.scene.trace
    v1_adjoint = scene_ids[trace.steps[6].adjoint_node]
    v2_adjoint = scene_ids[trace.steps[5].adjoint_node]
    assert (
        f"#{v1_adjoint} text:last-of-type" in css and f"#{v2_adjoint} text:last-of-type" not in css
    )
    assert layout.svg(7) == layout.svg(-1)  # steps are numbered 1 … 7
    with pytest.raises(vz.errors.StepNotFoundError, match="out of range"):
        layout.svg(8)
    with pytest.raises(vz.errors.StepNotFoundError, match="the first step is 1"):
        layout.svg(0)


def test_highlight_states_follow_the_walkthrough():
    trace = lecture_trace()
    scene = vz.render.build_scene(trace, "adjoint")
    lit = vz.render.highlight(scene, 5)  # v̄₂
    assert lit.states["v2"] == "current"
    assert lit.states["v5"] == lit.states["v4"] == "consumer"
    assert lit.states["v7"] == lit.states["v6"] == "done" and lit.states["v1"] == "pending"
    involved = {scene.ids[c.partial_node] for c in trace.steps[5].contributions}
    involved.add(scene.ids[trace.steps[5].adjoint_node])
    assert involved <= {i for i, s in lit.states.items() if s == "involved"}


def test_large_graph_is_summarised():
    x = vz.Variable("x")
    y = x
    for k in range(5000):
        y = vz.sin(y) if k % 2 else y * 1.001
    drawing = vz.draw(y)
    assert "summarised" in drawing.source and "chains collapsed" in drawing.source
    boxes = [
        line for line in drawing.source.splitlines() if "[label=<" in line and "->" not in line
    ]
    assert len(boxes) < 50
    assert drawing.pipe(format="svg")


def test_large_wide_graph_is_grouped_into_bands():
    rng = np.random.default_rng(0)
    xs = [vz.Variable(f"x{k}") for k in range(40)]
    nodes = list(xs)
    for _ in range(3000):
        a, b = rng.integers(0, len(nodes), 2)
        nodes.append(nodes[a] * nodes[b])
    drawing = vz.draw(vz.ops.add_n(*nodes[-30:]), max_boxes=120)
    assert "grouped by depth" in drawing.source
    boxes = [
        line for line in drawing.source.splitlines() if "[label=<" in line and "->" not in line
    ]
    assert 10 < len(boxes) <= 120


def test_summaries_never_format_the_boxes_they_collapse(monkeypatch):
    """A summarised walkthrough formats the text of the boxes it keeps, not of the thousands
    of nodes it collapses (that once was most of the time of opening a large stepper)."""
    from vizad.view.render import scene_builder

    rng = np.random.default_rng(1)
    xs = [vz.Variable(f"x{k}") for k in range(20)]
    nodes = list(xs)
    for _ in range(1500):
        a, b = rng.integers(max(0, len(nodes) - 30), len(nodes), 2)
        nodes.append(nodes[a] * nodes[b] if rng.random() < 0.5 else vz.tanh(nodes[a]))
    trace = vz.trace_reverse(vz.ops.add_n(*nodes[-5:]), xs, {x: 0.3 for x in xs})
    made = []
    real = scene_builder.latex_to_text
    monkeypatch.setattr(scene_builder, "latex_to_text", lambda t: made.append(t) or real(t))
    for view in ("forward", "adjoint"):  # (the backprop view writes ∂vⱼ/∂vᵢ on its edges)
        made.clear()
        scene = vz.render.scene_for(trace, view, 3, max_boxes=400)
        texts = [line for item in scene.items for line in item.lines]  # what is drawn
        assert "summarised" in scene.note and len(scene.items) < 60
        assert any("nodes at depth" in t for t in texts)
        assert len(made) <= len(scene.items), (view, len(made))
    # the boxes of the full scene are written when asked for
    full = vz.render.build_scene(trace, "adjoint")
    assert len(full.items) > 2000
    made.clear()
    formulas = [i.lines[-2] for i in full.items if i.kind == "adjoint" and len(i.lines) > 2]
    assert len(formulas) > 1000 and all(f.startswith("= ") for f in formulas)
    assert len(made) >= len(formulas)


def test_a_scene_is_freed_without_the_cyclic_collector():
    """Scenes are built with the garbage collector paused (vizad.engine._gc): a summary's
    unsummarised scene, whose boxes' text is written on first use, must be freed by reference
    counting."""
    import gc
    import weakref

    trace = vz.examples.lecture()
    enabled = gc.isenabled()
    gc.disable()
    try:
        scene = vz.render.build_scene(trace, "adjoint")
        kept = scene.items[2]  # a box that outlives its scene, its text not written yet
        box = weakref.ref(scene.items[-1])
        del scene
        assert box() is None
        assert kept.lines[0] == kept.name
    finally:
        if enabled:
            gc.enable()


def test_bad_arguments():
    trace = lecture_trace()
    with pytest.raises(ValueError, match="has the views"):
        vz.draw(trace, "sideways")
    with pytest.raises(TypeError, match="needs a trace"):
        vz.draw(trace.output, "forward", step=1)
    with pytest.raises(ValueError, match="need a trace"):
        vz.draw(trace.output, "backprop")
    with pytest.raises(ValueError, match="nothing to draw"):
        vz.draw([])


def test_drawing_nodes_of_a_gradient_of_gradient():
    x = vz.Variable("x")
    (g,) = vz.gradients(x * x * x, [x])
    (h,) = vz.gradients(g, [x])
    source = vz.draw(h, "adjoint").source
    assert "adjoint graph 1" in source and "adjoint graph 2" in source


def test_tangent_graph_matches_the_tangent_table():
    """The lecture's tangent graph reads like its v̇ table: v̇₇ = v̇₆ − v̇₅ with the zero tangent
    v̇₅ drawn as a box "v̇₅ = 0", and no node that feeds nothing (the local partial cos v₂ of
    the zero tangent v̇₅ is not drawn)."""
    trace = vz.examples.lecture_forward()
    scene = vz.render.build_scene(trace, "tangent")
    by_name = {item.name: item for item in scene.items}
    assert by_name["v̇₇"].lines[1] == "= v̇₆ - v̇₅"
    assert by_name["v̇₄"].lines[1] == "= v̇₁ v₂ + v̇₂ v₁"
    assert {"v̇₅ = 0", "v̇₂ = 0"} <= set(by_name)
    zero_edges = {(e.tail, e.head) for e in scene.edges if e.kind == "zero"}
    ids = {item.name: item.id for item in scene.items}
    assert (ids["v̇₅ = 0"], ids["v̇₇"]) in zero_edges and (ids["v̇₂ = 0"], ids["v̇₄"]) in zero_edges
    assert "∂v₅/∂v₂" not in by_name
    fed = {e.tail for e in scene.edges}
    output = ids["v̇₇"]
    dangling = [
        i.name
        for i in scene.items
        if i.kind in ("tangent", "zero") and i.id not in fed and i.id != output
    ]
    assert dangling == []
    assert scene.title == "Tangent graph of v₇ (forward mode)"
    assert set(scene.clusters.values()) == {"forward graph", "tangent graph (built by jvp)"}


def test_names_in_the_lecture_notation():
    trace = vz.examples.lecture()
    scene = vz.render.build_scene(trace, "adjoint")
    names = [item.name for item in scene.items]
    for name in ("v̄₇ (seed)", "v̄₆ = v̄₆→₇", "v̄₂→₅", "∂v₅/∂v₂", "v̄₂", "v̄₁"):
        assert name in names
    by_name = {item.name: item for item in scene.items}
    assert by_name["v̄₂"].lines[1] == "= v̄₂→₅ + v̄₂→₄"
    assert by_name["v̄₂→₅"].lines[1] == "= v̄₅ × ∂v₅/∂v₂"
    # reads edges shape the layout but are drawn only when asked for
    assert {e.kind for e in scene.edges} == {"forward", "extension", "anchor"}
    drawn = vz.render.build_scene(trace, "adjoint", reads=True)
    assert "reads" in {e.kind for e in drawn.edges}
    assert "style=invis" in vz.draw(trace, "adjoint").source


def test_second_order_names_number_the_first_extension():
    """In the Hessian-vector product's trace, the first adjoint graph is part of the forward
    graph: its nodes get numbers after the original nodes, and say which adjoint they are."""
    trace = vz.examples.hvp()
    scene = vz.render.build_scene(trace, "forward")
    lines = {item.name: item.lines for item in scene.items}
    assert lines["v₁"][1] == "= v"
    aliases = [ls[1] for ls in lines.values() if ls[1].startswith("is ")]
    assert "is v̄₁⁽¹⁾" in aliases  # the first gradient's v̄₁, not this trace's
    numbers = trace.names.numbers
    first = [n for n in numbers if n.origin is None and not any(i.origin for i in vz.topo_sort(n))]
    later = [n for n in numbers if n.origin is not None]
    assert max(numbers[n] for n in first) < min(numbers[n] for n in later)


def test_simplified_and_detailed_adjoint_views():
    trace = vz.examples.broadcast()
    simple = vz.render.build_scene(trace, "adjoint")
    detail = vz.render.build_scene(trace, "adjoint", detail=True)
    assert len(simple.items) < len(detail.items)
    assert "merged into the box" in simple.note and detail.note == ""
    # the folded identity partial is listed in the box it copies, and highlights it
    step = trace.step_of(trace.wrt[1])
    (c,) = step.contributions
    assert simple.ids[c.unreduced_node] == simple.ids[trace.step_of(c.consumer).adjoint_node]
    assert any("before Σ" in line for item in simple.items for line in item.lines)


def _scoped_mlp():
    rng = np.random.default_rng(0)
    x = vz.Variable("X")
    with vz.scope("layer1"):
        w1, b1 = vz.Variable("W1"), vz.Variable("b1")
        h = vz.tanh(vz.matmul(x, w1) + b1)
    with vz.scope("layer2") as path:
        assert path == ("layer2",)
        w2 = vz.Variable("W2")
        with vz.scope("dense"):
            out = vz.matmul(h, w2)
    feed = {
        x: rng.standard_normal((8, 4)),
        w1: rng.standard_normal((4, 16)),
        b1: rng.standard_normal(16),
        w2: rng.standard_normal((16, 3)),
    }
    return vz.trace_reverse(vz.sum(out**2), [w1, b1, w2], feed), out


def test_scopes_are_clusters_mirrored_in_the_adjoint_graph():
    trace, out = _scoped_mlp()
    assert out.scope == ("layer2", "dense") and trace.output.scope == ()
    scene = vz.render.build_scene(trace, "adjoint")
    titles = list(scene.clusters.values())
    assert titles.count("layer1") == 2 and titles.count("layer2") == 2  # forward and adjoint
    by_title = {}
    for cluster, title in scene.clusters.items():
        by_title.setdefault(title, []).append(cluster)
    dense = by_title["dense"]
    assert {scene.clusters[scene.parents[c]] for c in dense} == {"layer2"}
    in_dense = {i.name for i in scene.items if i.cluster in dense}
    assert "v₈" in in_dense and "v̄₈ = v̄₈→₉" in in_dense  # the adjoint of a node in its scope
    source = vz.draw(trace, "adjoint").source
    assert source.count("subgraph cluster_s") == 6


def test_collapse_scopes():
    trace, _ = _scoped_mlp()
    scene = vz.render.collapse_scopes(vz.render.build_scene(trace, "adjoint"), ["layer1"])
    boxes = {i.name: i for i in scene.items if i.kind == "summary"}
    assert set(boxes) == {"layer1: 5 forward nodes", "layer1: 6 adjoint nodes"}
    assert "layer1" not in scene.clusters.values() and "scopes collapsed: layer1" in scene.note
    w1 = trace.wrt[0]
    assert scene.ids[w1] == boxes["layer1: 5 forward nodes"].id
    # the step of W1 highlights the box it is folded into
    lit = vz.render.highlight(scene, trace.step_of(w1).index)
    assert lit.states[boxes["layer1: 5 forward nodes"].id] == "current"
    by_depth = vz.render.collapse_scopes(vz.render.build_scene(trace, "adjoint"), 1)
    assert {i.name for i in by_depth.items if i.kind == "summary"} == {
        "layer1: 5 forward nodes",
        "layer2: 2 forward nodes",
        "layer1: 6 adjoint nodes",
        "layer2: 3 adjoint nodes",
    }
    svg = vz.render.Layout(trace, "adjoint", collapse=["layer2/dense"]).svg(2)
    assert "dense: 1 forward nodes" in svg
    with pytest.raises(ValueError, match="no scope named 'nope'"):
        vz.draw(trace, collapse=["nope"])
    with pytest.raises(ValueError, match="at least 1"):
        vz.draw(trace, collapse=0)


def test_large_graphs_collapse_scopes_first():
    trace, _ = _scoped_mlp()
    scene = vz.render.summarize(vz.render.build_scene(trace, "adjoint"), max_boxes=20)
    assert scene.note.endswith("scopes collapsed: layer1, layer2")
    assert len(scene.items) <= 20


def test_names_with_dot_syntax_stay_one_node():
    a = vz.Variable("a:b\\")
    c = vz.constant(2.0, name='c:"x"')
    with vz.scope("s:1"):
        y = a * c + vz.sin(a)
    trace = vz.trace_reverse(y, [a], {a: 1.0})
    for view in trace.views:
        drawing = vz.draw(trace, view, step=1)
        svg = drawing.pipe("svg").decode()
        scene = vz.render.build_scene(trace, view)
        assert svg.count('class="node"') == len(scene.items) + 1  # and the legend


@pytest.mark.parametrize("name", sorted(vz.examples.ALL))
def test_svg_tooltips_name_boxes_at_every_view_and_several_steps(name):
    """The laid-out SVG of every example, in every view: each box's tooltip (its SVG <title>)
    is its unique name, never an internal id; steps only restyle, and every step's CSS hides
    no box's name."""
    from naming import INTERNAL_ID

    trace = vz.examples.ALL[name]()
    for view in trace.views:
        layout = vz.render.Layout(trace, view)
        svg = layout.svg()
        titles = re.findall(r'<g id="[^"]*" class="node">\s*<title>([^<]*)</title>', svg)
        assert len(titles) == len(layout.scene.items) + 1  # the boxes and the legend
        assert len(set(titles)) == len(titles)
        assert not [t for t in titles if INTERNAL_ID.search(t)]
        edges = re.findall(r'class="edge">\s*<title>([^<]*)</title>', svg)
        assert not [t for t in edges if INTERNAL_ID.search(t.replace("&#45;&gt;", " "))]
        n = len(trace.steps)
        for step in sorted({1, n // 2 + 1, n}):
            styled = layout.svg(step)
            assert re.sub(r"<style>.*?</style>", "", styled, flags=re.S) == svg


def test_step_states_differ_without_colour():
    """Every pair of step states differs in border width, pattern or opacity, not only in
    colour (readable under colour-vision deficiencies and in greyscale)."""
    from vizad.view.render.palette import STATE_STYLE

    looks = {
        state: (look.get("width", "1"), look.get("dash", ""), look.get("opacity", "1"))
        for state, look in STATE_STYLE.items()
        if state != "failed"  # failed is also marked ✗ in the table and the panel
    }
    pairs = [(a, b) for a in looks for b in looks if a < b and looks[a] == looks[b]]
    assert pairs == []


def test_drawings_in_a_notebook_are_sized_to_read():
    """Small drawings keep their natural size; wide ones are shown narrower, but never below
    70 % of their natural size (then the notebook scrolls)."""

    def natural(drawing) -> float:
        svg = drawing.pipe("svg").decode()
        return float(re.search(r'<svg[^>]*width="([\d.]+)pt"', svg).group(1)) * 4 / 3

    def shown(drawing) -> float:
        svg = shown_svg(drawing._repr_mimebundle_())
        return float(re.search(r'<svg[^>]*width="([\d.]+)px"', svg).group(1))

    small = vz.draw(lecture_trace(), "forward")
    assert natural(small) < 1000 and shown(small) == pytest.approx(natural(small), abs=1)
    wide = vz.draw(vz.examples.mlp(), "adjoint")
    assert natural(wide) > 1000
    assert shown(wide) == pytest.approx(max(1000, 0.7 * natural(wide)), abs=1)


def test_a_drawing_in_a_notebook_fits_the_output_and_a_click_shows_it_whole():
    """The output's HTML (which JupyterLab, nbconvert, VS Code prefer to the SVG beside it):
    the same SVG as an image no wider than the output, which a click (the image is a
    ``<details>``'s summary, no script) shows at its actual size; no form control (a sanitizer
    shows one disabled); Graphviz's version comment is left out."""
    import base64

    drawing = vz.draw(vz.examples.mlp(), "adjoint")
    bundle = drawing._repr_mimebundle_()
    page = bundle["text/html"]
    assert page.startswith('<details class="vizad-drawing"><style>') and "<script" not in page
    assert 'style="max-width:100%;height:auto"' in page  # fitted, even with the sheet dropped
    assert "<input" not in page and "[open] > summary > img { max-width: none" in page
    assert '<summary title="click: actual size' in page and page.endswith("</summary></details>")
    shown = base64.b64decode(re.search(r'src="data:image/svg\+xml;base64,([^"]+)"', page)[1])
    assert set(bundle) == {"text/html", "text/plain"}  # the picture stored once
    assert shown.decode().startswith("<svg") and "<!--" not in shown.decode()
    svg = dot_module.notebook_size(drawing.pipe("svg").decode())
    assert shown.decode() == dot_module._PROLOG.sub("", svg)  # Graphviz's, less its comments
    assert html.escape(repr(drawing), quote=True) in page  # its alt text, escaped


def test_each_step_names_its_result_box():
    """The step states name the box of each step's result (issue 44: the browser keeps it in
    view first): v̄ᵢ's own box in the adjoint view, the node's box in the forward view (which
    draws no adjoint), and a step of forward mode its v̇ᵢ."""
    from vizad.view.render.highlight import step_states
    from vizad.view.render.scene_builder import build_scene

    trace = vz.examples.lecture()
    adjoint = build_scene(trace, "adjoint")
    forward = build_scene(trace, "forward")
    by_id = {item.id: item for item in adjoint.items}
    for step, states in zip(trace.steps, step_states(adjoint).steps):
        result = by_id[states["result"]]
        assert result.node is step.adjoint_node, (states, result.lines)
        assert result.lines[0].startswith(trace.result_name(step.node).text)
    for step, states in zip(trace.steps, step_states(forward).steps):
        assert states["result"] == states["current"] == forward.ids[step.node]
    tangents = vz.examples.lecture_forward()
    scene = build_scene(tangents, "tangent")  # the forward graph with its tangent nodes
    shown = 0
    for step, states in zip(tangents.steps, step_states(scene).steps):
        if step.tangent_node is not None and step.tangent_node in scene.ids:
            assert states["result"] == scene.ids[step.tangent_node]
            shown += 1
    assert shown
