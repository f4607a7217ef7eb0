"""vz.export_frames: one picture per step for slides, in SVG, PDF and PNG, and the CLI's
frames command."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import sys

import numpy as np
import pytest

import vizad as vz


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


_BOX = re.compile(
    r'<g id="([av]\d+)" class="node">\s*<title>[^<]*</title>\s*<\w+ [^>]*?(?:d|points)="([^"]+)"'
)


def _positions(svg: str) -> dict[str, str]:
    """Each box's outline path (where Graphviz put it)."""
    return dict(_BOX.findall(svg))


@pytest.mark.parametrize("fmt", ["svg", "pdf", "png"])
def test_one_file_per_step_in_every_format(tmp_path, fmt):
    trace = vz.examples.lecture()
    paths = vz.export_frames(trace, tmp_path / "frames", format=fmt, scale=1.5)
    assert [p.name for p in paths] == [f"step-{k}.{fmt}" for k in range(1, 8)]
    assert sorted(p.name for p in (tmp_path / "frames").iterdir()) == [p.name for p in paths]
    data = paths[5].read_bytes()
    if fmt == "svg":
        text = data.decode()
        assert "step 6 of 7: v₂" in text and "= &#45;0.284 + 2 = 1.716" in text
    elif fmt == "pdf":
        assert data.startswith(b"%PDF")
        if shutil.which("pdftoppm"):
            out = tmp_path / "page"
            subprocess.run(["pdftoppm", "-png", "-r", "30", paths[5], out], check=True)
            assert _png_size((tmp_path / "page-1.png").read_bytes())[0] > 100
    else:
        width, height = _png_size(data)
        assert 1200 < width < 3000 and 600 < height < 2000, (width, height)


def test_frames_share_one_layout_and_names_sort_in_step_order(tmp_path):
    x = vz.Variable("x")
    y = x
    for _ in range(11):
        y = vz.sin(y)
    trace = vz.trace_reverse(y, [x], {x: 0.5})
    paths = vz.export_frames(trace, tmp_path, format="svg")
    assert [p.name for p in paths][:2] == ["step-01.svg", "step-02.svg"] and len(paths) == 12
    first, last = (_positions(p.read_text()) for p in (paths[0], paths[-1]))
    assert first and first == last  # only colours change between frames
    again = vz.export_frames(trace, tmp_path / "again", format="svg")
    assert [p.read_bytes() for p in paths] == [p.read_bytes() for p in again]  # deterministic


def test_bad_arguments(tmp_path):
    trace = vz.examples.lecture()
    with pytest.raises(vz.errors.ArgumentError, match="format must be one of"):
        vz.export_frames(trace, tmp_path, format="gif")
    with pytest.raises(vz.errors.ArgumentError, match="scale must be"):
        vz.export_frames(trace, tmp_path, scale=0)
    (tmp_path / "file").write_text("x")
    with pytest.raises(vz.errors.ArgumentError, match="is a file, not a directory"):
        vz.export_frames(trace, tmp_path / "file")


def test_the_frames_command(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "vizad", "frames", "log(x1) + x1*x2 - sin(x2)",
         "--at", "x1=2", "x2=5", "-o", "slides", "--format", "pdf"],
        capture_output=True, text=True, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == "wrote 7 PDF frames to slides\n"
    assert len(list((tmp_path / "slides").glob("step-*.pdf"))) == 7


_TEXT_55 = re.compile(r">[^<]*= 5\.5<")  # v̄₁ = 5.5 written in an SVG


def test_a_frame_hides_the_values_of_the_steps_to_come(tmp_path):
    """Step 1 of the lecture shows v̄₇ = 1 and writes "?" for v̄₁ = 5.5 and v̄₂ = 1.716 (in
    the extended and the laid view); the last step shows everything; show_pending shows all."""
    trace = vz.examples.lecture()
    for view in ("adjoint", "backprop"):
        first = vz.draw(trace, view, step=1).source
        assert "5.5" not in first and "1.716" not in first and "= ?" in first
        assert "= 11.652" in first  # forward values are known at every step
        assert "5.5" in vz.draw(trace, view, step=7).source
        assert "5.5" in vz.draw(trace, view, step=1, show_pending=True).source
    sixth = vz.draw(trace, "backprop", step=6).source
    assert "v̄₂ = 1.716" in sixth and "v̄₁ = ?" in sixth and "v̄₁ = 5.5" not in sixth
    paths = vz.export_frames(trace, tmp_path / "f")
    assert not _TEXT_55.search(paths[0].read_text()) and _TEXT_55.search(paths[-1].read_text())
    shown = vz.export_frames(trace, tmp_path / "g", show_pending=True)
    assert _TEXT_55.search(shown[0].read_text())
    # a tensor's heatmap is a value too: its cells blank (the same size), its shape stays
    W, x = vz.Variable("W"), vz.Variable("x")
    tensors = vz.trace_reverse(vz.sum(vz.tanh(W * x)), [W], {x: 0.5, W: np.ones((3, 3))})
    first, last = (vz.draw(tensors, "adjoint", step=k).source for k in (1, len(tensors.steps)))
    blank = f'BGCOLOR="{vz.render.palette.diverging(0.0)}"'
    assert first.count(blank) >= last.count(blank) + 9 and "= ?" in first


def test_the_frames_command_hides_or_shows_pending_values(tmp_path):
    from vizad.cli import main

    args = ["frames", "log(x1) + x1*x2 - sin(x2)", "--at", "x1=2", "x2=5", "-o"]
    assert main([*args, str(tmp_path / "a")]) == 0
    assert not _TEXT_55.search((tmp_path / "a" / "step-1.svg").read_text())
    assert main([*args, str(tmp_path / "b"), "--show-pending"]) == 0
    assert _TEXT_55.search((tmp_path / "b" / "step-1.svg").read_text())
