"""The layout budget (vizad.view.render.budget): the predicted cost chooses full, bounded or
summary; a dot that runs long is stopped and replaced, and the picture says so; vz.step, Stepper,
export_html, export_frames and the CLI draw with max_boxes=, collapse= and detail= like
vz.draw."""

from __future__ import annotations

import json
import re

import os
import stat
import time
from pathlib import Path

import pytest

import vizad as vz
from vizad.view.widget.page import page_data
from vizad.cli import main
from vizad.errors import ArgumentError, LayoutTimeoutError
from vizad.view.render import budget
from vizad.view.render.summary import scene_for
from drawn import shown_svg


def chain(levels: int):
    """The weight-shared chain (an unrolled RNN) of issue 25, traced in reverse mode."""
    return vz.examples.rnn(levels)


@pytest.fixture(scope="module")
def chain45():
    return chain(45)


@pytest.mark.parametrize("example", ["lecture", "mlp"])
def test_small_graphs_are_laid_out_in_full_and_their_dot_is_unchanged(example):
    trace = getattr(vz.examples, example)()
    for view in trace.views:
        scene = scene_for(trace, view, 3)
        assert budget.layout_cost(scene).seconds() < budget.LAYOUT_BUDGET / 4
        assert budget.planned(scene) is scene
        source = vz.draw(trace, view).source
        assert source == vz.draw(trace, view, budget=None).source
        assert "nslimit" not in source and "time budget" not in source


def test_cost_counts_the_long_edges_of_the_shared_weights(chain45):
    cost = budget.layout_cost(scene_for(chain45, "adjoint", 3))
    # ten weight-adjoint sums, each fed from every level: edges spanning up to ~270 ranks
    assert cost.boxes == 381 and cost.ranks > 250
    assert cost.helpers > 20 * cost.boxes and cost.long_edges > 250
    short = budget.layout_cost(scene_for(chain(10), "adjoint", 3))
    assert cost.seconds() > 100 * short.seconds()
    assert cost.seconds() > 10 * budget.LAYOUT_BUDGET


def test_the_45_level_chain_is_bounded_or_cheaper_and_says_so(chain45):
    for view in chain45.views:
        scene = scene_for(chain45, view, 3)
        chosen = budget.planned(scene)
        assert chosen is not scene, view
        assert budget.predicted(chosen) <= budget.LAYOUT_BUDGET
        assert chosen.layout == budget.BOUNDED or "summarised" in chosen.note
    source = vz.draw(chain45, "adjoint").source
    assert ("nslimit=0.1" in source and "bounded effort" in source) or (
        "summarised to fit the time budget" in source
    )
    full = vz.draw(chain45, "adjoint", budget=None).source
    assert "nslimit" not in full and "bounded effort" not in full


def test_the_bounded_layout_is_drawn_and_its_note_shown_once(chain45):
    """The stepper's picture (a Layout) leaves the note to the component's text row, which
    shows the scene's note; a plain drawing has no text row, so its graph label says it."""
    layout = vz.render.Layout(chain45, "forward")
    assert layout.scene.layout == budget.BOUNDED
    assert "bounded effort" in layout.scene.note  # the stepper's text row (frames.py)
    assert "bounded effort" not in layout.svg() and "bounded effort" not in layout.dot_source
    assert layout.scene.title in layout.dot_source  # the title stays in the graph label
    assert "bounded effort" in vz.draw(chain45, "forward").source


def test_the_ladder_ends_in_a_summary_and_every_rung_is_cheaper(chain45):
    rungs = list(budget.ladder(scene_for(chain45, "adjoint", 3), budget=0.0))
    assert [name for name, _ in rungs] == ["summary"]  # nothing fits 0 s but the last rung
    rungs = list(budget.ladder(scene_for(chain45, "backprop", 3)))
    names = [name for name, _ in rungs]
    assert names[0] == "bounded" and names[-1] == "summary"
    costs = [budget.predicted(scene) for _, scene in rungs]
    assert all(cost < costs[0] for cost in costs[1:])  # each fallback cheaper than the choice


def test_the_folding_rung_comes_before_the_summary(chain45, monkeypatch):
    """When the folding rung folds (here a stand-in scene), a graph too slow to lay out even
    bounded is folded rather than summarised."""
    scene = scene_for(chain45, "adjoint", 3)
    stand_in = scene_for(chain(2), "adjoint", 3)
    monkeypatch.setattr(budget, "folded", lambda s, b: stand_in)
    assert [name for name, _ in budget.ladder(scene, budget=1.0)] == ["folded", "summary"]


@pytest.fixture(autouse=True)
def _fresh_choices(monkeypatch):
    """Each test starts with no remembered rungs (budget._CHOSEN is per process)."""
    monkeypatch.setattr(budget, "_CHOSEN", {})


@pytest.fixture
def slow_dot(tmp_path, monkeypatch):
    """A ``dot`` on PATH that sleeps (recording its pid) on a DOT without nslimit and runs the
    real dot on any other: a full layout that runs long, a bounded one that does not."""
    real = next(
        str(Path(d) / "dot")
        for d in os.environ["PATH"].split(os.pathsep)
        if (Path(d) / "dot").is_file()
    )
    pids = tmp_path / "pids"
    script = tmp_path / "bin" / "dot"
    script.parent.mkdir()
    script.write_text(
        "#!/bin/sh\n"
        f'input=$(cat); case "$input" in *nslimit*) printf "%s" "$input" | {real} "$@"; exit;; '
        f"esac; echo $$ >> {pids}; exec sleep 60\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{script.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("VIZAD_LAYOUT", "dot")
    return pids


def _gone(pid: int) -> bool:
    for _ in range(50):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


@pytest.mark.heavy  # dot run until stopped by its budget
def test_a_layout_that_runs_long_is_killed_and_replaced(slow_dot):
    trace = vz.examples.lecture()
    # the fake dot sleeps 60 s: stopped by the budget, the layout says so (a layout that
    # waited for it would have no "stopped" note and would not be the bounded one)
    layout = vz.render.Layout(trace, "adjoint", budget=0.5)
    (pid,) = map(int, slow_dot.read_text().split())
    assert _gone(pid)  # the sleeping dot was killed, not left behind
    assert layout.scene.layout == budget.BOUNDED
    note = layout.scene.note  # shown in the stepper's text row (not in its graph label)
    assert "the full layout was stopped after 1 s" in note and "bounded effort" in note
    svg = layout.svg(3)
    assert layout.steps == 7 and 'id="v5"' in svg  # the walkthrough still steps


@pytest.mark.slow  # waits out a layout budget again (make check: the killed-and-replaced test)
def test_a_drawing_shown_in_jupyter_falls_back_too(slow_dot):
    drawing = vz.draw(vz.examples.lecture(), "adjoint", budget=0.5)
    assert "nslimit" not in drawing.source  # the full layout was planned
    svg = shown_svg(drawing._repr_mimebundle_())
    assert "the full layout was stopped after 1 s" in svg
    assert len(slow_dot.read_text().split()) == 1


@pytest.mark.slow  # waits out every rung's time budget (the longest test without browsers)
def test_when_every_rung_runs_long_the_error_can_be_followed(tmp_path, monkeypatch):
    script = tmp_path / "dot"
    script.write_text("#!/bin/sh\nexec sleep 60\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("VIZAD_LAYOUT", "dot")
    with pytest.raises(LayoutTimeoutError, match=r"max_boxes=") as caught:
        vz.render.Layout(vz.examples.lecture(), "adjoint", budget=0.2)
    assert "(full, bounded, summary)" in str(caught.value)
    with pytest.raises(LayoutTimeoutError, match=r"max_boxes="):  # which step() accepts
        vz.step(vz.examples.lecture(), max_boxes=3)


def _notes(stepper) -> dict[str, str]:
    return {v: stepper.layout_of(v).scene.note for v in stepper.trace.views}


def test_step_and_stepper_draw_with_max_boxes_collapse_and_detail():
    trace = chain(5)
    assert "merged into the box" in _notes(vz.Stepper(trace))["adjoint"]
    assert "merged into the box" not in _notes(vz.Stepper(trace, detail=True))["adjoint"]
    y, xs = trace.output, trace.wrt
    notes = _notes(vz.step(y, xs, {x: 0.3 for x in xs}, max_boxes=5, detail=True))
    assert all("nodes summarised" in n for n in notes.values())
    assert "merged into the box" not in notes["adjoint"]
    mlp = vz.examples.mlp()
    for stepper in (vz.Stepper(mlp, collapse="layer1"), vz.step(mlp, collapse=["layer1"])):
        assert "scopes collapsed: layer1" in _notes(stepper)["forward"]
        assert stepper.options.collapse in ("layer1", ["layer1"])
    with pytest.raises(ArgumentError, match="no scope named 'nope'"):
        vz.step(mlp, collapse="nope")


def data_text(path) -> str:
    """The data of an exported page, as text."""
    return json.dumps(page_data(path.read_text()), ensure_ascii=False)


@pytest.mark.slow  # lays out every step of a page and of its frames under the budgets
def test_export_html_and_frames_draw_with_them(tmp_path):
    trace = chain(5)
    page = data_text(vz.export_html(trace, tmp_path / "p.html", max_boxes=5))
    assert "nodes summarised; constants hidden" in page
    plain = data_text(vz.export_html(trace, tmp_path / "q.html"))
    assert "nodes summarised; constants hidden" not in plain and "merged into the box" in plain
    assert "merged into the box" not in data_text(
        vz.export_html(trace, tmp_path / "r.html", detail=True)
    )
    mlp_page = data_text(vz.export_html(vz.examples.mlp(), tmp_path / "m.html", collapse=1))
    assert "scopes collapsed: layer1, layer2" in mlp_page
    with pytest.raises(ArgumentError, match="as the Stepper drew them"):
        vz.export_html(vz.Stepper(trace), tmp_path / "s.html", max_boxes=5)
    paths = vz.export_frames(trace, tmp_path / "f", max_boxes=5)
    assert len(paths) == len(trace.steps)
    assert all("nodes summarised" in p.read_text() for p in paths)
    detailed = vz.export_frames(trace, tmp_path / "g", detail=True, collapse=None)
    assert "merged into the box" not in detailed[0].read_text()


def test_the_drawing_options_have_one_name_and_one_default():
    """draw, step, Stepper, export_html and export_frames take the same drawing options with
    the same defaults (vizad.view.render.options), as the command line does."""
    import inspect

    from vizad.view.render.options import DrawOptions

    expected = {f: getattr(DrawOptions(), f) for f in DrawOptions.__dataclass_fields__}
    assert expected["max_boxes"] == 400 and expected["budget"] == budget.LAYOUT_BUDGET
    for f in (vz.draw, vz.step, vz.Stepper, vz.export_html, vz.export_frames):
        params = inspect.signature(f).parameters
        assert {k: params[k].default for k in expected} == expected, f.__name__
    from vizad.cli import _parser
    from vizad.view.render.options import DECIMALS

    for command in ("walkthrough", "frames"):
        args = vars(_parser().parse_args([command, "x", "--at", "x=1"]))
        assert {k: args[k] for k in expected} == {**expected, "decimals": DECIMALS}, command
    # what shows a walkthrough takes its presentation scale under one name and default
    from vizad.view.render.options import SCALE

    for f in (vz.step, vz.Stepper, vz.export_html):
        assert inspect.signature(f).parameters["scale"].default == SCALE == 1.0, f.__name__


def test_export_html_and_frames_take_decimals_and_budget(tmp_path):
    lecture = vz.examples.lecture()  # traced with 3 decimals

    def shown(path):  # the page's data (packed), as text
        return json.dumps(page_data(path.read_text()), ensure_ascii=False)

    assert "0.693147" not in shown(vz.export_html(lecture, tmp_path / "a.html"))
    assert "0.693147" in shown(vz.export_html(lecture, tmp_path / "b.html", decimals=6))
    frames = vz.export_frames(lecture, tmp_path / "f", decimals=6)
    assert "0.693147" in frames[-1].read_text()
    assert "0.693147" not in vz.export_frames(lecture, tmp_path / "g")[-1].read_text()
    with pytest.raises(ArgumentError, match="decimals= draw a trace's views"):
        vz.export_html(vz.Stepper(lecture), tmp_path / "s.html", decimals=6)
    with pytest.raises(LayoutTimeoutError):  # no layout fits in two microseconds
        vz.export_html(chain(5), tmp_path / "c.html", budget=2e-6)


def test_export_html_takes_the_presentation_scale(tmp_path):
    """``scale=`` opens the page enlarged (its mount call's options; the browser side:
    tests/browser/test_legible.py); a Stepper's page opens at the Stepper's scale."""
    lecture = vz.examples.lecture()

    def mounted(path):  # the options of the page's one mount element (read by boot.js)
        found = re.findall(
            r'<script type="application/json" data-vizad-mount>(.*?)</script>', path.read_text()
        )
        assert len(found) == 1, found
        options = json.loads(found[0])
        assert (options["root"], options["data"]) == ("vz-root", "vz-data")
        return options

    assert mounted(vz.export_html(lecture, tmp_path / "a.html"))["scale"] == 1.0
    assert mounted(vz.export_html(lecture, tmp_path / "b.html", scale=1.5))["scale"] == 1.5
    stepper = vz.Stepper(lecture, scale=1.25)
    assert mounted(vz.export_html(stepper, tmp_path / "c.html"))["scale"] == 1.25
    assert mounted(vz.export_html(stepper, tmp_path / "d.html", scale=2))["scale"] == 2.0
    for wrong in (10, 0, "big", None, True):
        with pytest.raises(ArgumentError, match="export_html: scale must be between 0.25 and 4"):
            vz.export_html(lecture, tmp_path / "e.html", scale=wrong)
    assert not (tmp_path / "e.html").exists()


def test_the_cli_draws_with_them(tmp_path, capsys):
    at = ["x1*x2 + sin(x1)*x2", "--at", "x1=2", "x2=5"]
    out = tmp_path / "w.html"
    assert main(["walkthrough", *at, "-o", str(out), "--max-boxes", "2"]) == 0
    assert "nodes summarised" in data_text(out)
    assert main(["walkthrough", *at, "-o", str(out), "--detail"]) == 0
    assert "merged into the box" not in out.read_text()
    assert main(["frames", *at, "-o", str(tmp_path / "f"), "--max-boxes", "2"]) == 0
    assert "nodes summarised" in (tmp_path / "f" / "step-1.svg").read_text()
    assert main(["walkthrough", *at, "-o", str(out), "--collapse", "layer"]) == 2
    assert "no scope named 'layer'" in capsys.readouterr().err
    assert main(["walkthrough", *at, "-o", str(out), "--budget", "none"]) == 0
    assert main(["walkthrough", *at, "-o", str(out), "--budget", "2e-6"]) == 2
    assert "was stopped after" in capsys.readouterr().err


def test_a_chain_too_slow_for_its_full_layout_is_folded(chain45):
    """The 45-level chain's adjoint view: predicted over the budget in full, its time steps
    folded ("× k") rather than summarised, and the folded picture predicted within budget."""
    scene = scene_for(chain45, "adjoint", 3)
    assert budget.MARGIN * budget.predicted(scene) > budget.LAYOUT_BUDGET
    name, chosen = next(budget.ladder(scene))
    assert name in ("bounded", "folded")
    names = [n for n, _ in budget.ladder(scene)]
    assert names.index("folded") < names.index("summary")
    folded = budget.folded(scene)
    assert folded.folds and len(folded.items) < len(scene.items) / 5
    assert budget.MARGIN * budget.predicted(folded) <= budget.LAYOUT_BUDGET
    assert budget.folded(folded) is None  # folded once


@pytest.mark.heavy  # dot run until stopped by its budget
def test_dot_is_stopped_by_its_cpu_time_without_forking_from_python():
    """The CPU limit is set on the running dot (prlimit), not by a function run between fork
    and exec: JAX warns about os.fork() in a threaded parent, and that text lands in the
    notebook's output."""
    import signal
    import subprocess
    import warnings

    import vizad.view.render.dot as dot

    if not dot._CPU_LIMITS:
        pytest.skip("this system cannot limit a running child's CPU time")
    jax = pytest.importorskip("jax")
    jax.numpy.ones(3).block_until_ready()  # JAX's threads run, its fork hook is set
    ran = []

    class Dot(subprocess.Popen):  # dot as it runs: how it ended is kept
        def __init__(self, *args, **kwargs):
            assert kwargs.get("preexec_fn") is None
            super().__init__(*args, **kwargs)
            ran.append(self)

    dense = "digraph{" + " ".join(f"n{i}->n{(i * 7919) % 3000};" for i in range(24000)) + "}"
    with warnings.catch_warnings(), pytest.MonkeyPatch.context() as patch:
        patch.setattr(dot.subprocess, "Popen", Dot)
        warnings.simplefilter("error")
        assert dot.run_dot("digraph{a->b}", timeout=30, cpu=5).startswith("<?xml")
        with pytest.raises(LayoutTimeoutError, match="more than 1 s"):
            dot.run_dot(dense, timeout=60, cpu=1)
    # stopped by its CPU limit (SIGXCPU), not killed at the wall-clock time-out (SIGKILL)
    assert [p.returncode for p in ran] == [0, -signal.SIGXCPU]
