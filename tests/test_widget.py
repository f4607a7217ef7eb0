"""The stepper without a browser: clicks, the step, the panels, errors shown in the widget."""

import base64
import gzip
import json
import math
import re

import numpy as np
import pytest

import vizad as vz
from vizad.view.assets import component_module
from vizad.view.widget.page import page_data


@pytest.fixture
def stepper():
    x1, x2 = vz.Variable("x1"), vz.Variable("x2")
    y = vz.log(x1) + x1 * x2 - vz.sin(x2)
    return vz.step(y, [x1, x2], {x1: 2.0, x2: 5.0})


def test_step_is_one_based_and_drives_python(stepper):
    assert stepper.n_steps == 7 and stepper.step == 1
    assert stepper.current.label == "v₇" and stepper.view == "adjoint"
    stepper.next()
    stepper.next()
    assert stepper.step == 3 and stepper.current.label == "v₅"
    stepper.step = 99
    assert stepper.step == 7
    stepper.next()  # stays on the last
    assert stepper.step == 7
    stepper.step = -3
    assert stepper.step == 1
    stepper.prev()
    assert stepper.step == 1
    assert repr(stepper) == "<vizad Stepper: reverse mode, step 1 of 7, adjoint view>"
    stepper.view = "backprop"
    assert stepper.view == "backprop"
    with pytest.raises(ValueError, match="has the views"):
        stepper.view = "sideways"


def test_the_walkthrough_is_sent_once(stepper, monkeypatch):
    """Everything the browser shows is in ``data``: stepping and switching views never lay
    out again, and each step's panel and highlights are there for the browser to apply."""
    data = stepper.data
    assert data["n"] == 7 and data["view"] == "adjoint" and data["mode"] == "reverse"
    assert [v["name"] for v in data["views"]] == ["forward", "adjoint", "backprop"]
    # each step's panel as data (vizad.trace.panel), its table's rows as lists of cells
    assert data["steps"][5]["panel"] == {
        "head": "Step 6 of 7: v₂ = x₂",
        "about": ["op variable · scalar · value ", "5"],
        "rows": [
            [["v₅"], ["cos v₂"], ["0.284"], ["v̄₂→₅ = v̄₅ cos v₂ = ", "-0.284"]],
            [["v₄"], ["v₁"], ["2"], ["v̄₂→₄ = v̄₄ v₁ = ", "2"]],
        ],
        "sum": "v̄₂ = Σ v̄ᵢ→ⱼ = ",
        "total": "1.716",
        "line": "v̄₂ = v̄₅ ∂v₅/∂v₂ + v̄₄ ∂v₄/∂v₂ = v̄₅ cos v₂ + v̄₄ v₁ = -0.284 + 2 = 1.716",
    }
    assert data["steps"][5]["row"] == {"cells": [["v̄₂"], ["1.716"], []], "bad": False}
    # the head of the table of contributions is the same in every step: sent once
    assert data["contributionsHead"][3] == "partial adjoint v̄ᵢ→ⱼ"
    stepper.step = 6
    snapshot = stepper._repr_mimebundle_()[0]["text/html"]  # no script: the whole panel
    assert '<div class="vz-head">Step 6 of 7: v₂ = x₂</div>' in snapshot
    # the table's heads as the component has them (panel.js): each word whole in a span, a
    # fraction in two, so that stepper.css breaks them between words only
    word = '<span class="vz-word">{}</span>'.format
    head = " ".join(map(word, ["partial", "adjoint", "v̄ᵢ→ⱼ"]))
    assert f"<th>{head}</th>" in snapshot and "<b>1.716</b>" in snapshot
    assert f"<th>{word('∂vⱼ/')}{word('∂vᵢ')}</th>" in snapshot
    assert "<td>v̄₂→₅ = v̄₅ cos v₂ = -0.284</td>" in snapshot
    stepper.step = 1
    frame = data["frames"]["adjoint"]
    assert frame["steps"][5]["current"] == "v2"
    assert set(frame["steps"][5]["consumer"]) == {"v5", "v4"}
    assert frame["owner"]["v7"] == 0 and frame["owner"]["v1"] == 6
    assert frame["tips"]["v2"]["result"] == "v̄₂ = 1.716" and frame["tips"]["v2"]["at"] == 5
    assert frame["clicks"]["v2"] == 5
    assert "vz-s-current" in data["css"]
    # the backprop view is laid out when first shown (see test_lazy_views.py)
    assert "v̄₂ = 1.716" in stepper._views.frame("backprop")["svg"]
    json.dumps(data)  # JSON-ready
    import vizad.view.render.dot as dot_module

    monkeypatch.setattr(dot_module, "run_dot", lambda *a: pytest.fail("dot ran again"))
    for k in range(1, 8):
        stepper.step = k
    stepper.view = "backprop"  # laid out once already
    stepper.view = "adjoint"
    assert stepper.layout_of("backprop").scene.view == "backprop"


def test_step_states_are_sent_once_for_views_that_share_them(stepper):
    """The backprop view lays results on the forward graph's boxes: its per-step states are
    the forward view's, sent once ("stepsOf"); every view's states, resolved, are its own."""
    from vizad.view.widget.data import walkthrough_data

    layouts = {v: stepper.layout_of(v) for v in stepper.trace.views}
    frames = walkthrough_data(stepper.trace, layouts=layouts)["frames"]
    assert frames["backprop"].get("stepsOf") == "forward" and "steps" not in frames["backprop"]
    assert "stepsOf" not in frames["adjoint"] and "stepsOf" not in frames["forward"]
    for view, frame in frames.items():
        steps = frame["steps"] if "steps" in frame else frames[frame["stepsOf"]]["steps"]
        assert steps == stepper.layout_of(view).states.steps, view
    assert frames["backprop"]["svg"] != frames["forward"]["svg"]  # only the states are shared


def test_search_entries_are_sent_once_for_views_that_share_them():
    """A summarised graph draws no value in its bands: the backprop view's search entries
    are the forward view's, sent once ("findOf"); resolved, each view has its own again."""
    from vizad.view.render import Layout
    from vizad.view.widget.data import frame_data, resolved, walkthrough_data

    rng = np.random.default_rng(1)
    xs = [vz.Variable(f"x{k}") for k in range(20)]
    nodes = list(xs)
    for _ in range(1200):
        a, b = rng.integers(max(0, len(nodes) - 30), len(nodes), 2)
        nodes.append(nodes[a] * nodes[b] if rng.random() < 0.5 else vz.tanh(nodes[a]))
    trace = vz.trace_reverse(vz.ops.add_n(*nodes[-5:]), xs, {x: 0.3 for x in xs})
    layouts = {v: Layout(trace, v, in_browser=True) for v in trace.views}
    frames = walkthrough_data(trace, layouts=layouts)["frames"]
    assert frames["backprop"].get("findOf") == "forward" and "find" not in frames["backprop"]
    for view, frame in resolved(frames).items():
        assert frame["find"] == frame_data(layouts[view], trace, 3)["find"], view
    lecture = vz.examples.lecture()  # values drawn: each view's own entries
    assert "findOf" not in walkthrough_data(lecture)["frames"]["backprop"]


def test_the_component_is_real_files():
    from vizad.view.assets import STATIC, component_module
    from vizad.view.render.picture import Picture
    from vizad.view.widget.stepper import Stepper

    assert str(Stepper._esm) == str(Picture._esm) == component_module()
    assert str(Stepper._css) == (STATIC / "stepper.css").read_text()
    source = component_module()
    assert "var mount_default = { render };" in source and "function localModel(" in source


def test_the_component_is_carried_by_one_widget_model_per_process(monkeypatch):
    """The first stepper's model carries the component (module and CSS); the next ones' a
    few lines that use it (static/shim.js), so that a notebook's widget state holds it once;
    once that stepper is closed, the next one made carries it. Where each output is a page
    of its own (display "widget": Colab) or marimo is running, every model carries it."""
    import sys
    import types

    import vizad.view.widget.stepper as module
    from vizad.view.assets import STATIC, component_module, style, widget_shim

    monkeypatch.setattr(module, "_carrier", None)
    monkeypatch.delitem(sys.modules, "marimo", raising=False)  # a test before imported it
    lecture = vz.examples.lecture()
    first, second = vz.Stepper(lecture), vz.Stepper(lecture)
    assert (first._esm, first._css) == (component_module(), style())
    assert (second._esm, second._css) == (widget_shim(), "")
    assert widget_shim() == (STATIC / "shim.js").read_text() and len(widget_shim()) < 5000
    assert second.get_state()["_esm"] == widget_shim()  # what the page (and nbclient) gets
    first.close()
    third, fourth = vz.Stepper(lecture), vz.Stepper(lecture)
    assert third._esm == component_module() and fourth._esm == widget_shim()
    monkeypatch.setitem(sys.modules, "marimo", types.ModuleType("marimo"))
    assert vz.Stepper(lecture)._esm == component_module()
    monkeypatch.delitem(sys.modules, "marimo")
    assert vz.Stepper(lecture)._esm == widget_shim()
    monkeypatch.setattr(vz.config, "display", "widget")
    assert vz.Stepper(lecture)._esm == component_module()


def test_the_walkthrough_is_synced_packed(stepper):
    """The browser gets ``data`` as ``_data``: its JSON gzip-compressed in base64 (so is it
    stored in a notebook's widget state), which unpacks to the data Python holds; sent again
    when the data changes (a walkthrough traced again), emptied when the stepper closes."""
    state = stepper.get_state()
    assert "data" not in state and isinstance(stepper.data, dict)
    unpacked = json.loads(gzip.decompress(base64.b64decode(state["_data"])))
    assert unpacked == json.loads(json.dumps(stepper.data)) and unpacked["n"] == 7
    assert len(state["_data"]) < len(json.dumps(stepper.data)) / 3
    stepper.inputs = {**stepper.inputs, "x1": 3.0}  # what-if: traced again, data sent anew
    again = json.loads(gzip.decompress(base64.b64decode(stepper._data)))
    assert again == json.loads(json.dumps(stepper.data)) and again != unpacked
    stepper.set_state({"_data": ""})  # the page cannot set it
    assert stepper._data
    stepper.close()
    assert stepper._data == ""


def test_a_widget_without_the_component_gets_it_from_the_kernel(stepper, monkeypatch):
    """A model without the component (its shim found none in the page) asks for it: the
    answer carries the component's module and CSS."""
    from vizad.view.assets import component_module, style

    sent = []
    monkeypatch.setattr(stepper, "send", lambda content, buffers=None: sent.append(content))
    stepper._message(stepper, {"kind": "component"}, [])
    assert sent == [{"kind": "component", "module": component_module(), "css": style()}]


def test_failing_steps_are_marked(tmp_path, monkeypatch):
    class WrongSquare(vz.Op):
        name = "wrong_square_widget"

        def compute(self, x):
            return x * x

        def vjp(self, node, adjoint):
            return [adjoint * node.inputs[0]]

    x = vz.Variable("x")
    square = WrongSquare()(x)
    s = vz.Stepper(vz.trace_reverse(vz.sin(square), [x], {x: 0.7}))
    bad = s.trace.step_of(x).index  # where the wrong partial adjoint of x shows
    assert list(s.failures) == [bad] and s.data["failed"] == [bad]
    record = s.data["steps"][bad]
    assert record["panel"]["fail"].startswith("✗ ") and record["row"]["bad"]
    assert "wrong_square_widget" in record["panel"]["fail"] and record["row"]["cells"][2] == ["✗"]
    assert f"step {bad + 1}, " in s.failures[bad]  # check() numbers steps as the stepper does
    # an exported page checks as the stepper does: small traces by default, large ones if asked
    trace = s.trace
    page = page_data(vz.export_html(trace, tmp_path / "small.html").read_text(encoding="utf-8"))
    assert "✗ " in json.dumps(page, ensure_ascii=False) and "wrong_square_widget" in str(page)
    monkeypatch.setattr(vz.export, "CHECK_LIMIT", len(trace.steps) - 1)  # now a "large" trace
    page = page_data(vz.export_html(trace, tmp_path / "large.html").read_text(encoding="utf-8"))
    assert "✗ " not in json.dumps(page, ensure_ascii=False) and page["failed"] == []
    page = vz.export_html(trace, tmp_path / "asked.html", check=True).read_text(encoding="utf-8")
    assert page_data(page)["failed"] == [bad]
    assert page_data(vz.export.page_html(s))["failed"] == [bad]  # what the stepper checked
    with pytest.raises(ValueError, match="check= is for a trace"):
        vz.export_html(s, tmp_path / "no.html", check=False)


def test_forward_mode_stepper():
    x1, x2 = vz.Variable("x1"), vz.Variable("x2")
    y = vz.log(x1) + x1 * x2 - vz.sin(x2)
    s = vz.step(y, [x1, x2], {x1: 2.0, x2: 5.0}, mode="forward", scale=1.5)
    assert s.view == "tangent" and s.scale == 1.5
    assert [v["name"] for v in s.data["views"]] == ["forward", "tangent", "tangents"]
    panel = s.data["steps"][3]["panel"]
    assert (panel["sum"], panel["total"]) == ("v̇₄ = Σ v̇ₖ ∂vᵢ/∂vₖ = ", "5")
    assert "1 × 5 + 0 × 2 = 5" in panel["line"] and "rows" not in panel
    assert s.data["steps"][6]["panel"]["total"] == "5.5"
    with pytest.raises(ValueError, match="mode"):
        vz.step(y, [x1], {x1: 2.0, x2: 5.0}, mode="sideways")
    with pytest.raises(ValueError, match="scale"):
        vz.Stepper(s.trace, scale=10)


def test_bad_arguments():
    with pytest.raises(TypeError, match="steps through a trace"):
        vz.Stepper("not a trace")
    x = vz.Variable("x")
    with pytest.raises(ValueError, match="has the views"):
        vz.Stepper(vz.trace_reverse(x * 2, [x], {x: 1.0}), view="sideways")
    with pytest.raises(ValueError, match="no steps"):
        vz.Stepper(vz.trace_reverse(vz.constant(2.0) * 3, [x], {x: 1.0}))


def test_export_html_is_self_contained(tmp_path):
    x = vz.Variable("<script>alert(1)</script>")
    trace = vz.trace_reverse(vz.tanh(x * np.ones(3)), [x], {x: 0.5})
    path = vz.export_html(trace, tmp_path / "page.html")
    page = path.read_text()
    assert page.startswith("<!DOCTYPE html>")
    assert "http://" not in page.replace("http://www.w3.org", "") and "https://" not in page
    assert "<script>alert(1)</script>" not in page  # user text escaped everywhere
    assert page.count("<script") == 3  # our data, what to mount and our stepper only
    assert component_module() in page  # the component itself (the bundle), inlined
    assert math.isclose(trace.adjoint(x), 3 * (1 - np.tanh(0.5) ** 2))
    with pytest.raises(ValueError, match="no steps"):
        vz.export_html(vz.trace_reverse(vz.constant(1.0) + 1, [x], {x: 0.0}), tmp_path / "e.html")
    with pytest.raises(TypeError, match="trace or a Stepper"):
        vz.export_html(x, tmp_path / "e.html")


def test_a_one_step_walkthrough():
    x = vz.Variable("x")
    s = vz.Stepper(vz.trace_reverse(x, [x], {x: 2.0}))
    assert s.n_steps == 1 and s.step == 1 and s.data["n"] == 1
    s.next()
    assert s.step == 1
    bundle, _ = s._repr_mimebundle_()
    assert (
        "Step 1 of 1" in bundle["text/html"]
        and "tex2jax_ignore mathjax_ignore" in bundle["text/html"]
    )


def test_quiz_data_and_its_encoding(tmp_path):
    import base64
    import json

    from vizad.view.widget.data import conceal, quiz_data

    from vizad.trace.quiz import questions as quiz_questions

    trace = vz.examples.lecture()
    questions = quiz_data(quiz_questions(trace))
    assert [q["q"] for q in questions[5]] == ["∂v₅/∂v₂", "v̄₂→₅", "∂v₄/∂v₂", "v̄₂→₄", "v̄₂"]
    assert [qs[-1]["q"] for qs in questions] == ["v̄₇", "v̄₆", "v̄₅", "v̄₄", "v̄₃", "v̄₂", "v̄₁"]

    def reveal(code: str, salt: int) -> str:  # what helpers.js does
        data = base64.b64decode(code)
        return bytes(b ^ ((31 + 7 * salt + 13 * j) % 251) for j, b in enumerate(data)).decode()

    last = questions[5][-1]
    secret = json.loads(reveal(last["code"], last["salt"]))
    assert secret["a"] == pytest.approx(1.71634, abs=1e-5) and secret["shown"] == "1.71634"
    assert reveal(conceal("v̄ = 1.5", 3), 3) == "v̄ = 1.5"
    # tensors are asked their shape and an entry; forward mode asks for tangents
    mlp = quiz_data(quiz_questions(vz.examples.mlp()))
    assert any(q["kind"] == "shape" for qs in mlp for q in qs)
    assert quiz_data(quiz_questions(vz.examples.lecture_forward()))[2][-1]["q"] == "v̇₃"
    stepper = vz.Stepper(trace, quiz=True)
    assert stepper.data["quiz"] == questions
    assert stepper.score == {"right": 0, "asked": 0, "questions": 15}
    page = vz.export_html(stepper, tmp_path / "q.html").read_text(encoding="utf-8")
    script = page.split('id="vz-data">')[1].split("</script>")[0]
    hidden = json.loads(script)["hidden"]
    assert json.loads(reveal(hidden, 0))["quiz"] == questions and "1.716" not in page
    assert "vz-data" in vz.export_html(trace, tmp_path / "plain.html").read_text(encoding="utf-8")


def test_the_panel_says_shapes_in_words():
    from vizad.trace.panel import panel_text, shape_words, step_panel

    assert shape_words(()) == "scalar"
    assert shape_words((2, 3)) == "shape (2, 3)"
    assert shape_words(vz.extend.TupleShape([(), (3,)])) == "tuple of (scalar, shape (3,))"
    assert shape_words(vz.extend.TupleShape([])) == "tuple of ()"
    trace = vz.examples.tuples()
    panels = [panel_text(step_panel(trace, k)) for k in range(len(trace.steps))]
    assert any("tuple of (scalar, scalar)" in p for p in panels)
    assert not any("TupleShape" in p for p in panels)


def test_output_bundle_survives_without_the_kernel(stepper):
    """The output: vizad's MIME type with the step to reopen at (the model's id in its
    metadata, out of nbval's comparison), the component's HTML at that step with the widget's
    own data, and no widget-view MIME type (nbconvert would prefer it whenever widget state
    is stored, and show it blank without its CDN)."""
    from vizad.view.widget.page import WALKTHROUGH

    stepper.step = 6
    data, metadata = stepper._repr_mimebundle_()
    # the picture of the step once, in the HTML (no image/svg+xml beside it: every renderer
    # that shows HTML passes over it, and it doubled the output's size)
    assert set(data) == {WALKTHROUGH, "text/html", "text/plain"}
    picture = re.search(r'src="data:image/svg\+xml;base64,([^"]+)"', data["text/html"])
    assert base64.b64decode(picture.group(1)).decode() == stepper.layout_of(stepper.view).svg(6)
    assert data[WALKTHROUGH] == {"step": 6}
    assert metadata[WALKTHROUGH] == {"model_id": stepper.model_id}
    html = data["text/html"]
    assert html.count('data-vizad-step="6"') == 1 and "Step 6 of 7" in html
    stored = _stored(html)
    widget = json.loads(json.dumps(stepper.data))
    # the data once, as the widget's, with every view (a small walkthrough: reopened without
    # its kernel, the page switches views too)
    assert {k: v for k, v in stored.items() if k != "frames"} == {
        k: v for k, v in widget.items() if k != "frames"
    }
    assert set(stored["frames"]) == set(stepper.trace.views) != set(widget["frames"])
    assert stored["frames"][stepper.view] == widget["frames"][stepper.view]


def _stored(html: str) -> dict:
    """The walkthrough's data an output's HTML carries (packed: read as the component reads
    it)."""
    return page_data(html, re.search(r'id="([^"]+-data)"', html).group(1))


def test_an_output_carries_its_data_packed(stepper):
    """The output's data script is the walkthrough's JSON gzip-compressed (about a tenth of
    it), which the component inflates; unpacked, it is the data."""
    html = stepper._repr_mimebundle_()[0]["text/html"]
    script = json.loads(re.search(r'-data">(.*?)</script>', html).group(1))
    assert set(script) == {"gz"}
    data = _stored(html)
    assert data["n"] == 7 and data["steps"] == json.loads(json.dumps(stepper.data["steps"]))
    assert len(script["gz"]) < len(json.dumps(data, ensure_ascii=False).encode()) / 3


def test_a_big_walkthrough_saves_the_views_laid_out(stepper, monkeypatch):
    """Past SAVED_VIEWS steps the output's HTML carries only the views laid out so far (no
    layout of every view for the saved copy), the first one and any shown since."""
    import vizad.view.widget.output as module

    monkeypatch.setattr(module, "SAVED_VIEWS", 3)

    def saved_views():
        html = stepper._repr_mimebundle_()[0]["text/html"]
        return set(_stored(html)["frames"])

    first = stepper.view
    assert saved_views() == {first} and stepper.laid_out == (first,)
    other = next(v for v in stepper.trace.views if v != first)
    stepper.view = other
    assert saved_views() == {first, other}
