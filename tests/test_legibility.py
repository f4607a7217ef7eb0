"""The picture a stepper shows is chosen for the reader's frame: the first of the full
picture, its repeats folded, its scopes collapsed and its summary whose steps can be read
(text ≥ 9 CSS px with each step's boxes shown together), predicted without laying it out."""

from __future__ import annotations

import statistics

import pytest

import vizad as vz
from vizad.view.render.legibility import DEFAULT_FRAME, READABLE_PX, readable, step_text_px
from vizad.view.render.scene_builder import build_scene
from vizad.view.render.summary import scene_for


def _median_px(scene, frame=DEFAULT_FRAME) -> float:
    return statistics.median(step_text_px(scene, frame))


@pytest.mark.parametrize("n", [20, 45, 100])
def test_the_weight_shared_chain_is_shown_folded_one_click_from_unfolded(n):
    trace = vz.examples.rnn(n)
    stepper = vz.Stepper(trace, check=False)
    layout = stepper.layout_of("adjoint")
    assert stepper.view == "adjoint"
    assert layout.scene.folds and f"× {n}" in layout.scene.note
    assert "summarised" not in layout.scene.note and not layout.scene.layout
    assert _median_px(layout.scene) >= READABLE_PX
    full = build_scene(trace, "adjoint", 3)
    assert _median_px(full) < READABLE_PX  # in full: a grey smear at 1024×768
    assert layout.collapsed  # a fold opens on a click (the smallest one at least)
    opened = layout.opened([layout.collapsed[0]], in_browser=True)
    assert len(opened.scene.items) > len(layout.scene.items)


def test_a_picture_readable_as_it_is_stays_as_it_is():
    for trace in (vz.examples.lecture(), vz.examples.mlp()):
        for view in trace.views:
            chosen = scene_for(trace, view, 3, frame=DEFAULT_FRAME)
            assert not chosen.folds and "collapsed" not in chosen.note
            assert len(chosen.items) == len(build_scene(trace, view, 3).items)


def test_the_frame_decides():
    """The MLP's adjoint view: a step's boxes span the picture, unreadable in JupyterLab's
    592×250 px, readable in a 1,900×1,000 px one."""
    scene = build_scene(vz.examples.mlp(), "adjoint", 3)
    assert not readable(scene, DEFAULT_FRAME)
    assert readable(scene, (1900, 1000))
    assert _median_px(scene, (1900, 1000)) > _median_px(scene, DEFAULT_FRAME)


def test_what_the_reader_asks_for_is_drawn_as_asked():
    trace = vz.examples.rnn(20)
    assert not vz.render.Layout(trace, "adjoint", in_browser=True).scene.folds  # no frame
    asked = vz.Stepper(vz.examples.mlp(), collapse="layer1").layout_of("adjoint").scene
    assert "scopes collapsed: layer1" in asked.note and "layer2" not in asked.note
    folded = vz.Stepper(trace, check=False, collapse="repeats").layout_of("adjoint").scene
    assert folded.folds


def test_the_choice_is_the_same_every_time():
    a = scene_for(vz.examples.rnn(45), "adjoint", 3, frame=DEFAULT_FRAME)
    b = scene_for(vz.examples.rnn(45), "adjoint", 3, frame=DEFAULT_FRAME)
    assert [i.id for i in a.items] == [i.id for i in b.items] and a.note == b.note


def test_an_imported_lstm_is_shown_folded():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    cell = torch.nn.LSTMCell(3, 4)
    x = torch.randn(12, 1, 3)
    h, c = torch.zeros(1, 4), torch.zeros(1, 4)
    for t in range(12):
        h, c = cell(x[t], (h, c))
    trace = vz.torch_backward((h**2).sum(), cell)
    scene = vz.Stepper(trace, check=False).layout_of("adjoint").scene
    assert scene.folds and "summarised" not in scene.note
    assert len(scene.items) < len(build_scene(trace, "adjoint", 3).items) / 4
