"""Output paths that cannot destroy files: export_html, export_frames, the CLI's -o and
Drawing.render follow symbolic links, write to FIFOs and character devices directly, replace
only regular files, and refuse directories, disks and sockets before any work. Every target
is made inside a temporary directory (never under /dev)."""

from __future__ import annotations

import os
import subprocess
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


# -- as safe as the shell's `>` (the reference for each case: `sh -c 'echo x > path'`) --------

#: A uid and gid no account on the machine uses: "another user" (the tests run as root).
OTHER = 4242


def _shell_write(path) -> bool:
    """Whether the shell's `>` writes at ``path`` (it writes "x")."""
    done = subprocess.run(["sh", "-c", 'echo x > "$1"', "sh", str(path)], capture_output=True)
    return done.returncode == 0


def _protected_symlinks() -> bool:
    try:
        return open("/proc/sys/fs/protected_symlinks").read().strip() == "1"
    except OSError:
        return False


@pytest.fixture
def as_root():
    if os.geteuid() != 0:
        pytest.skip("giving files to another user needs root")


def _sticky(tmp_path, owner=0):
    folder = tmp_path / "sticky"
    folder.mkdir()
    os.chmod(folder, 0o1777)
    os.chown(folder, owner, owner)
    return folder


def test_a_link_protected_symlinks_would_not_follow_is_refused(tmp_path, trace, as_root):
    """A link in a sticky world-writable directory (/tmp), owned by another user who does
    not own the directory: refused, the file it points to untouched (the kernel's
    protected_symlinks refuses the shell's `>` there too, when it is on)."""
    victim = tmp_path / "victim.txt"
    victim.write_text("the victim's")
    link = _sticky(tmp_path) / "page.html"
    for made in (link, link.with_suffix(".svg")):
        made.symlink_to(victim)
        os.chown(made, OTHER, OTHER, follow_symlinks=False)
    with pytest.raises(vz.VizadError, match="protected_symlinks"):
        vz.export_html(trace, link)
    with pytest.raises(vz.VizadError, match="protected_symlinks"):
        vz.draw(trace).render(outfile=str(link.with_suffix(".svg")), format="svg")
    assert victim.read_text() == "the victim's" and link.is_symlink()
    assert main(["walkthrough", "sin(x)", "--at", "x=1", "-o", str(link)]) == 2
    if _protected_symlinks():  # the reference, where the kernel protects links
        assert not _shell_write(link) and victim.read_text() == "the victim's"


@pytest.mark.parametrize("link_owner,dir_owner", [(0, 0), (OTHER, OTHER), (0, OTHER)])
def test_a_link_the_kernel_would_follow_is_followed(tmp_path, trace, as_root, link_owner,
                                                    dir_owner):  # fmt: skip
    """The user's own link, or one owned by the sticky directory's owner: followed, as the
    shell's `>` follows it (under protected_symlinks or not)."""
    for writer in ("vizad", "shell"):
        target = tmp_path / f"target-{writer}.txt"
        target.write_text("before")
        (tmp_path / writer).mkdir()
        folder = _sticky(tmp_path / writer, dir_owner)
        link = folder / "page.html"
        link.symlink_to(target)
        os.chown(link, link_owner, link_owner, follow_symlinks=False)
        if writer == "vizad":
            vz.export_html(trace, link)
            assert target.read_text().startswith("<!DOCTYPE html>")
        else:
            assert _shell_write(link) and target.read_text() == "x\n"
        assert link.is_symlink()


def test_hard_links_and_another_users_file_are_kept(tmp_path, trace, as_root):
    """A file with another hard link, or owned by another user, is written in place, as the
    shell's `>` writes it: every name sees the new content, the owner and group stay."""
    for writer in ("vizad", "shell"):
        first, second = tmp_path / f"{writer}-a.html", tmp_path / f"{writer}-b.html"
        first.write_text("before")
        os.link(first, second)
        theirs = tmp_path / f"{writer}-theirs.html"
        theirs.write_text("theirs")
        os.chown(theirs, OTHER, OTHER)
        os.chmod(theirs, 0o604)
        if writer == "vizad":
            vz.export_html(trace, first)
            vz.export_html(trace, theirs)
            start = "<!DOCTYPE html>"
        else:
            assert _shell_write(first) and _shell_write(theirs)
            start = "x\n"
        assert second.read_text() == first.read_text() and first.read_text().startswith(start)
        assert os.path.samefile(first, second) and os.stat(first).st_nlink == 2
        info = os.stat(theirs)
        assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (OTHER, OTHER, 0o604)
        assert theirs.read_text().startswith(start)


def test_a_users_own_file_is_still_replaced_whole(tmp_path, trace):
    page = tmp_path / "page.html"
    page.write_text("before")
    before = os.stat(page).st_ino
    vz.export_html(trace, page)
    assert page.read_text().startswith("<!DOCTYPE html>") and os.stat(page).st_ino != before
    assert [p.name for p in tmp_path.iterdir()] == ["page.html"]  # no temporary left


@pytest.mark.parametrize("exists", [False, True])
def test_a_name_ending_with_a_slash_is_refused(tmp_path, trace, exists):
    """`out.html/` names a directory: refused before any work, nothing written (the shell's
    `>` fails there too)."""
    page = tmp_path / "out.html"
    if exists:
        page.write_text("before")
    with pytest.raises(vz.VizadError, match="names a directory"):
        vz.export_html(trace, str(page) + "/")
    assert not _shell_write(str(page) + "/")
    assert (page.read_text() == "before") if exists else not page.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == (["out.html"] if exists else [])


def test_a_link_swapped_in_while_writing_is_never_written_through(tmp_path, trace, as_root):
    """Another user flips the output name between a file and a link to a victim (in a sticky
    world-writable directory) while vizad writes it, 30 times: the victim never changes;
    each export is written or refused with a VizadError."""
    victim = tmp_path / "victim.txt"
    victim.write_text("the victim's")
    folder = _sticky(tmp_path)
    name = folder / "page.html"
    stop = threading.Event()

    def flip():
        while not stop.is_set():
            spare = folder / "spare"
            try:
                spare.unlink(missing_ok=True)
                spare.symlink_to(victim)
                os.chown(spare, OTHER, OTHER, follow_symlinks=False)
                os.replace(spare, name)
                spare.write_text("a file")
                os.replace(spare, name)
            except OSError:
                pass

    flipper = threading.Thread(target=flip, daemon=True)
    flipper.start()
    outcomes = []
    try:
        for _ in range(30):
            try:
                vz.export_html(trace, name)
                outcomes.append("written")
            except vz.VizadError:
                outcomes.append("refused")
    finally:
        stop.set()
        flipper.join()
    assert victim.read_text() == "the victim's", outcomes
    assert len(outcomes) == 30
