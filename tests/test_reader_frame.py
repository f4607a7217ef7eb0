"""The reader's frame (issue 36): a live stepper's page reports the size of its graph's frame
({"kind": "frame", ...}, static/stepper/viewport.js's reportFrame), and the stepper chooses the
picture readable there again, drawing the views anew only when that changes the choice (the
choice depends on the graph and the frame, never on the machine). The browser's side:
tests/browser/test_reader_frame.py."""

from __future__ import annotations

import pytest

import vizad as vz
from vizad.view.render.legibility import DEFAULT_FRAME
from vizad.view.widget.stepper import REFUSED


def _stepper(trace, **options):
    stepper = vz.Stepper(trace, **options)
    sent = []
    stepper.send = lambda content, buffers=None: sent.append(content)
    stepper.send_state = lambda key=None: sent.append({"state": key})
    return stepper, sent


def _report(stepper, **frame):
    stepper._handle_msg(
        {
            "content": {"data": {"method": "custom", "content": {"kind": "frame", **frame}}},
            "buffers": [],
        }
    )


def _boxes(stepper) -> int:
    return len(stepper.layout_of(stepper.view).scene.items)


def test_a_larger_frame_shows_the_full_picture_and_a_small_one_the_folded():
    # rnn(3)'s adjoint view: its steps are readable unfolded only in a frame of about 1400 px
    stepper, sent = _stepper(vz.examples.rnn(3))
    assert stepper.reader_frame == DEFAULT_FRAME and _boxes(stepper) == 10  # folded
    data = stepper.data
    _report(stepper, width=1400, height=600, scale=1, zoom=1)
    assert stepper.reader_frame == (1408, 608) and stepper.page_zoom == 1.0
    assert _boxes(stepper) == 35 and stepper.data is not data  # drawn anew, unfolded
    assert "fold" not in stepper.data["frames"]["adjoint"]["note"]
    data = stepper.data
    _report(stepper, width=1404, height=598)  # the same frame to 16 px: nothing done
    _report(stepper, width=1800, height=800, scale=1, zoom=2)  # another, the same choice
    assert stepper.data is data and stepper.page_zoom == 2.0
    # presenting at scale 2, the same frame holds half as much of the drawing
    _report(stepper, width=1184, height=500, scale=2, zoom=1)
    assert stepper.reader_frame == (592, 256) and _boxes(stepper) == 10
    assert stepper.step == 1 and not [m for m in sent if m.get("kind") == REFUSED]


def test_a_frame_changes_nothing_the_reader_chose():
    stepper, _ = _stepper(vz.examples.rnn(3), collapse=())  # nothing folded, asked for
    data = stepper.data
    _report(stepper, width=300, height=200)
    assert stepper.reader_frame == (304, 192) and stepper.data is data


@pytest.mark.parametrize(
    "frame",
    [
        {"width": "wide", "height": 300},
        {"width": 500},
        {"width": 500, "height": -3},
        {"width": 500, "height": float("nan")},
        {"width": 500, "height": 300, "scale": True},
        {"width": 500, "height": 300, "zoom": 0},
    ],
)
def test_a_wrong_frame_is_refused(frame):
    stepper, sent = _stepper(vz.examples.lecture())
    _report(stepper, **frame)
    assert sent[-1]["kind"] == REFUSED and "frame:" in sent[-1]["error"]
    assert stepper.reader_frame == DEFAULT_FRAME
