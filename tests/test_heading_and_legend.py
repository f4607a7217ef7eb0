"""The drawing options for slides (issue 45): ``legend=False`` drops the legend of the step
states, ``heading`` replaces the title line (a string, escaped) or drops it with its note
(False), and ``reads=True`` draws the edges by which the extended graph reads forward values
without ``detail=True``; in vz.draw, the frames (laid out by the real ``dot``), the stepper's
data and the command line."""

from __future__ import annotations

import re

import pytest

import vizad as vz
from vizad.cli import main
from vizad.view.render.options import DrawOptions
from vizad.view.widget.data import walkthrough_data

EXPRESSION = ["log(x1) + x1*x2 - sin(x2)", "--at", "x1=2", "x2=5"]
HOSTILE = 'Lecture 4 <b>"x"</b> & ]'


def _label(source: str) -> str:
    """The graph's label in a drawing's DOT ("" when it has none)."""
    found = re.search(r"^\tgraph \[.*? label=(<.*?>|\"\") labeljust", source, re.M)
    assert found, source[:400]
    return found.group(1)


def test_legend_false_drops_the_legend_only():
    trace = vz.examples.lecture()
    drawn, plain = vz.draw(trace, legend=False).source, vz.draw(trace).source
    assert "vz_legend" in plain and "vz_legend" not in drawn
    assert _label(drawn) == _label(plain) == "<Adjoint graph of v₇ (reverse mode)>"


def test_heading_replaces_the_title_and_keeps_the_note():
    trace = vz.examples.mlp()  # its adjoint view folds copying steps: the note says so
    plain = _label(vz.draw(trace).source)
    assert "copying steps merged" in plain
    own = _label(vz.draw(trace, heading="Backprop through a layer").source)
    assert own.startswith("<Backprop through a layer<BR/>") and "copying steps merged" in own
    assert "Reverse" not in own and "Adjoint graph" not in own


def test_heading_false_drops_the_title_and_its_note():
    trace = vz.examples.mlp()
    assert _label(vz.draw(trace, heading=False).source) == '""'
    # a step's drawing keeps its step line: it is the frame's caption, not the heading
    stepped = _label(vz.draw(trace, step=3, heading=False).source)
    assert stepped.startswith("<step 3 of 11") and "copying" not in stepped


def test_a_heading_is_escaped():
    source = vz.draw(vz.examples.lecture(), heading=HOSTILE).source
    label = _label(source)
    assert "&lt;b&gt;" in label and "&amp;" in label and "<b>" not in label
    assert source.count("digraph") == 1 and "vz_legend" in source  # nothing else changed


def test_the_options_are_checked():
    with pytest.raises(vz.errors.ArgumentTypeError, match="legend must be True or False"):
        DrawOptions(legend="no")
    with pytest.raises(vz.errors.ArgumentTypeError, match="heading must be a string"):
        vz.draw(vz.examples.lecture(), heading=3)
    assert DrawOptions(heading=True) == DrawOptions()  # True: vizad's own


def test_frames_take_the_legend_the_heading_and_the_reads(tmp_path):
    """Laid out by Graphviz's dot: the reads are drawn as dashed edges from forward boxes
    to adjoint boxes without detail=True; no legend, no title."""
    trace = vz.examples.lecture()
    (plain, *_) = vz.export_frames(trace, tmp_path / "plain")
    (slide, *_) = vz.export_frames(
        trace, tmp_path / "slide", reads=True, legend=False, heading=False, caption=False
    )
    plain, slide = plain.read_text(), slide.read_text()
    reads = re.findall(r'<g id="(e_v\d+_a\d+_\d+)" class="edge">(.*?)</g>', slide, re.S)
    assert len(reads) == 4 and all("stroke-dasharray" in body for _, body in reads)
    assert not re.search(r'<g id="e_v\d+_a\d+_\d+" class="edge">', plain)  # laid, not drawn
    assert "vz_legend" in plain and "vz_legend" not in slide
    assert "Adjoint graph of" in plain and "Adjoint graph of" not in slide


def test_the_stepper_takes_the_heading_and_the_legend():
    trace = vz.examples.lecture()
    data = walkthrough_data(trace, options=DrawOptions(heading=HOSTILE, legend=False))
    assert data["title"] == HOSTILE  # the component sets it as text
    frame = data["frames"]["adjoint"]
    picture = frame.get("svg") or frame["dot"]
    assert "vz_legend" not in picture
    assert walkthrough_data(trace, options=DrawOptions(heading=False))["title"] == ""
    assert walkthrough_data(trace)["title"] == trace.describe()


def test_the_command_line_takes_them(tmp_path, capsys):
    out = tmp_path / "frames"
    args = ["frames", *EXPRESSION, "-o", str(out), "--reads", "--no-legend"]
    assert main([*args, "--heading", "Lecture 4"]) == 0
    first = (out / "step-1.svg").read_text()
    assert "Lecture 4" in first and "vz_legend" not in first
    assert re.search(r'<g id="e_v\d+_a\d+_\d+" class="edge">', first)
    assert main([*args, "--no-heading"]) == 0
    assert "Lecture 4" not in (out / "step-1.svg").read_text()
    with pytest.raises(SystemExit):  # one or the other
        main([*args, "--no-heading", "--heading", "x"])
    capsys.readouterr()
    pages = [tmp_path / "a.html", tmp_path / "b.html"]
    assert main(["walkthrough", *EXPRESSION, "-o", str(pages[0])]) == 0
    assert main(["walkthrough", *EXPRESSION, "-o", str(pages[1]), "--no-legend"]) == 0
    assert pages[0].read_text() != pages[1].read_text()  # the page's data carries the option
