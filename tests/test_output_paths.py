"""Output paths that cannot destroy files: export_html, export_frames, the CLI's -o and
Drawing.render follow symbolic links, write to FIFOs and character devices directly, replace
only regular files, and refuse directories, disks and sockets before any work. Every target
is made inside a temporary directory (never under /dev)."""

from __future__ import annotations

import os
import re
import socket
import stat
import threading

import pytest

import vizad as vz
from vizad.cli import main


@pytest.fixture
def trace():
    x = vz.Variable("x")
    return vz.trace_reverse(vz.sin(x) * x, [x], {x: 0.5})


def _device(path, minor: int):
    """A character device like /dev/null (minor 3) or /dev/full (minor 7), made in the
    temporary directory: needs root (or CAP_MKNOD)."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, minor))
    except PermissionError:
        pytest.skip("making a device node needs root")
    return path


def _read_fifo_in_background(path):
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(open(path, "rb").read()), daemon=True)
    reader.start()
    return reader, got


def test_a_fifo_is_written_to_and_stays_a_fifo(tmp_path, trace):
    fifo = tmp_path / "page.html"
    os.mkfifo(fifo)
    reader, got = _read_fifo_in_background(fifo)
    assert vz.export_html(trace, fifo) == fifo
    reader.join(10)
    assert got and got[0].startswith(b"<!DOCTYPE html>")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.html"]  # no temporary left


def test_the_cli_writes_to_a_fifo(tmp_path, capsys):
    fifo = tmp_path / "out"
    os.mkfifo(fifo)
    reader, got = _read_fifo_in_background(fifo)
    assert main(["walkthrough", "x*y", "--at", "x=1", "y=2", "-o", str(fifo)]) == 0
    reader.join(10)
    assert got[0].startswith(b"<!DOCTYPE html>") and stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_symbolic_link_is_followed_and_stays_a_link(tmp_path, trace):
    real = tmp_path / "real.html"
    real.write_text("the previous page")
    os.chmod(real, 0o640)
    link = tmp_path / "link.html"
    link.symlink_to(real)
    vz.export_html(trace, link)
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert stat.S_IMODE(os.stat(real).st_mode) == 0o640  # a replaced file keeps its mode
    dangling = tmp_path / "dangling.html"
    dangling.symlink_to(tmp_path / "new.html")
    vz.export_html(trace, dangling)
    assert dangling.is_symlink() and (tmp_path / "new.html").read_text().startswith("<!DOC")


def test_a_device_is_written_to_never_replaced(tmp_path, trace, capsys):
    null = _device(tmp_path / "null", 3)
    vz.export_html(trace, null)
    assert stat.S_ISCHR(os.lstat(null).st_mode)
    assert main(["walkthrough", "x*y", "--at", "x=1", "y=2", "-o", str(null)]) == 0
    assert stat.S_ISCHR(os.lstat(null).st_mode)
    full = _device(tmp_path / "full", 7)  # a device that refuses the write: reported
    with pytest.raises(vz.errors.OutputError, match="No space left on device") as info:
        vz.export_html(trace, full)
    assert isinstance(info.value, OSError) and "write elsewhere" in str(info.value)
    capsys.readouterr()
    assert main(["walkthrough", "x*y", "--at", "x=1", "y=2", "-o", str(full)]) == 2
    assert "No space left on device" in capsys.readouterr().err
    assert stat.S_ISCHR(os.lstat(full).st_mode)
    frames = tmp_path / "frames"
    frames.mkdir()
    _device(frames / "step-1.svg", 3)
    paths = vz.export_frames(trace, frames)
    assert stat.S_ISCHR(os.lstat(paths[0]).st_mode) and paths[1].read_text().startswith("<")


@pytest.mark.parametrize("kind", ["block device", "socket", "link loop", "directory"])
def test_what_cannot_be_written_is_refused_before_any_work(tmp_path, trace, kind, capsys):
    target = tmp_path / "target"
    if kind == "block device":
        try:
            os.mknod(target, stat.S_IFBLK | 0o600, os.makedev(7, 0))
        except PermissionError:
            pytest.skip("making a device node needs root")
        words = "is a block device (a disk)"
    elif kind == "socket":
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(target))
        words = "is a socket"
    elif kind == "link loop":
        target.symlink_to(target)
        words = "is a loop of symbolic links"
    else:
        target.mkdir()
        words = "is a directory; give a file name such as"
    before = os.lstat(target)
    with pytest.raises(vz.errors.ArgumentError, match=f"export_html: .*target {re.escape(words)}"):
        vz.export_html(trace, target)
    assert main(["walkthrough", "x*y", "--at", "x=1", "y=2", "-o", str(target)]) == 2
    assert f"-o: {target} {words}" in capsys.readouterr().err
    after = os.lstat(target)
    assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino)


def test_a_rendered_drawing_goes_through_the_same_writer(tmp_path, trace):
    null = _device(tmp_path / "null.svg", 3)
    vz.draw(trace).render(outfile=null)
    assert stat.S_ISCHR(os.lstat(null).st_mode)
    real = tmp_path / "real.svg"
    link = tmp_path / "link.svg"
    link.symlink_to(real)
    vz.draw(trace).render(outfile=link)
    assert link.is_symlink() and real.read_text().startswith("<?xml")
