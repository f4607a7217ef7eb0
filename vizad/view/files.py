"""Writing output files (exported pages, frames, rendered drawings) without destroying what
the path names.

vizad writes a path as safely as a shell's ``>`` does, and keeps a regular file whole when it
can. What is at the path decides:

- nothing: a new file, made through a temporary file in its directory (opened with
  ``O_EXCL``, never through a link) renamed into place;
- a regular file that is the user's own (same owner and group as a new file would get) and has
  no other hard link: replaced whole the same way (it keeps its permissions);
- any other regular file (another user's, or one with hard links): written in place, as ``>``
  does, so that it keeps its owner, its group and its other names; it is opened with
  ``O_NOFOLLOW`` and checked to be the file looked at before it is truncated;
- a symbolic link: followed, as ``>`` follows it, but refused where Linux's
  ``protected_symlinks`` refuses it (whatever the machine's setting): a link in a sticky
  world-writable directory (``/tmp``) owned neither by the user nor by the directory's owner;
  the file at its end is written as above, and the link stays. A link swapped in while vizad
  writes is never written through (the last component is opened with ``O_NOFOLLOW``; a rename
  replaces a link, it does not follow it);
- a FIFO or a character device (``/dev/null``, ``/dev/stdout``, a terminal): written to
  directly, as a shell's ``>`` does (a FIFO waits for its reader, as with ``>``);
- a directory, a block device (a disk), a socket, a link loop, a name ending with ``/``:
  refused with an :class:`~vizad.errors.ArgumentError` before any work.

A write that the system refuses (permissions, a full disk) is an
:class:`~vizad.errors.OutputError`, which is an ``OSError``.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from pathlib import Path

from vizad.errors import ArgumentError, ArgumentTypeError, OutputError

__all__ = ["check_output", "write_output", "output_error", "resolve"]

#: What to do about the system's reasons for refusing a write.
_ADVICE = {
    errno.ENOSPC: "free some space or write elsewhere",
    errno.EDQUOT: "free some space or write elsewhere",
    errno.EACCES: "check the permissions or write elsewhere",
    errno.EPERM: "check the permissions or write elsewhere",
    errno.EROFS: "the file system is read-only: write elsewhere",
}


#: What is refused at an output path, by its kind.
_REFUSED = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISBLK, "a block device (a disk)"),
    (stat.S_ISSOCK, "a socket"),
)


def check_output(path, what: str) -> bool:
    """Refuse what :func:`write_output` will not write at ``path`` (an ArgumentError naming
    ``what``, the function or option, and the path); return whether the path is written
    directly (a FIFO or a character device) rather than replaced through a temporary file."""
    if isinstance(path, bytes) or not isinstance(path, (str, os.PathLike)):
        raise ArgumentTypeError(
            f"{what}: the path must be a str or a pathlib.Path, got {type(path).__name__} "
            f"{path!r:.60}; give a str or a pathlib.Path"
        )
    text = os.fspath(path)
    if not isinstance(text, str) or not text.strip():
        raise ArgumentError(f"{what}: the file name is empty; give a file name")
    if "\x00" in text:
        raise ArgumentError(
            f"{what}: the file name {text!r:.80} contains a NUL character, which no file name "
            "can hold; give a name without it"
        )
    if text.endswith(("/", os.sep)):
        raise ArgumentError(
            f"{what}: {text} names a directory (it ends with {text[-1]!r}); give a file name "
            f"such as {os.path.join(text, 'walkthrough.html')}"
        )
    resolve(text, what)  # a link protected_symlinks would not follow: refused
    try:
        mode = os.stat(text).st_mode  # follows symbolic links
    except FileNotFoundError:
        target = Path(os.path.realpath(text))  # where a dangling link points
        if not target.parent.is_dir():
            where = f"the directory {Path(text).parent}"
            if os.path.islink(text):
                where = f"{text} is a symbolic link to {target}, and the directory {target.parent}"
            raise ArgumentError(
                f"{what}: {where} does not exist; make it first, or give a path in a "
                "directory that exists"
            ) from None
        return False
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ArgumentError(
                f"{what}: {text} is a loop of symbolic links; give a file name"
            ) from None
        if exc.errno == errno.ENOTDIR:
            raise ArgumentError(
                f"{what}: a part of {text} is a file, not a directory; give a path whose "
                "directories exist"
            ) from None
        raise output_error(what, text, exc) from exc
    if stat.S_ISREG(mode):
        return False
    if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
        return True
    kind = next((k for test, k in _REFUSED if test(mode)), "not a regular file")
    name = Path(text).name or "walkthrough.html"
    hint = (
        f"give a file name such as {os.path.join(text, 'walkthrough.html')}"
        if stat.S_ISDIR(mode)
        else f"vizad writes regular files, FIFOs and character devices; give a file name "
        f"such as {name}.html in another directory"
    )
    raise ArgumentError(f"{what}: {text} is {kind}; {hint}")


#: How many symbolic links a path may go through (Linux's limit): more is a loop.
MAX_LINKS = 40


def resolve(text: str, what: str) -> str:
    """``text`` with every symbolic link on its way followed, as the kernel follows them, but
    refusing (ArgumentError) a link that Linux's ``protected_symlinks`` would not follow for
    this user: one in a sticky world-writable directory, owned neither by the user nor by the
    directory's owner. Where a part of the path does not exist, the rest is joined as it is."""
    euid = os.geteuid()
    current = "/" if text.startswith("/") else os.getcwd()
    todo = [p for p in text.split("/")][::-1]
    links = 0
    while todo:
        part = todo.pop()
        if part in ("", "."):
            continue
        if part == "..":
            current = os.path.dirname(current)
            continue
        step = os.path.join(current, part)
        try:
            info = os.lstat(step)
        except OSError:  # missing (or unreadable): the kernel's open says the rest
            return os.path.join(step, *todo[::-1])
        if not stat.S_ISLNK(info.st_mode):
            current = step
            continue
        links += 1
        if links > MAX_LINKS:
            raise ArgumentError(f"{what}: {text} is a loop of symbolic links; give a file name")
        folder = os.stat(current)
        sticky = folder.st_mode & stat.S_ISVTX and folder.st_mode & stat.S_IWOTH
        if sticky and info.st_uid not in (euid, folder.st_uid):
            raise ArgumentError(
                f"{what}: {step} is a symbolic link in the sticky world-writable directory "
                f"{current}, owned by another user (uid {info.st_uid}): vizad does not follow "
                "it (as Linux's protected_symlinks does not); remove the link or write "
                "elsewhere"
            )
        target = os.readlink(step)
        if target.startswith("/"):
            current = "/"
        todo.extend(target.split("/")[::-1])
    return current


def write_output(path, data: bytes | str, what: str) -> Path:
    """Write ``data`` (text is written as UTF-8) at ``path`` as the module's docs say;
    returns the path."""
    direct = check_output(path, what)
    payload = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    text = os.fspath(path)
    if direct:
        try:
            with open(text, "wb") as file:
                file.write(payload)
        except OSError as exc:
            raise output_error(what, text, exc) from exc
        return Path(path)
    folder, name = os.path.split(resolve(text, what))
    try:
        directory = os.open(folder or "/", os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        raise output_error(what, text, exc) from exc
    try:
        _write_in(directory, name, payload, text, what)
    except OSError as exc:
        if isinstance(exc, OutputError):
            raise
        raise output_error(what, text, exc) from exc
    finally:
        os.close(directory)
    return Path(path)


def _write_in(directory: int, name: str, payload: bytes, text: str, what: str) -> None:
    """Write ``payload`` as the file ``name`` of the open ``directory`` (see the module's
    docs), never following a link at ``name``."""
    try:
        info = os.stat(name, dir_fd=directory, follow_symlinks=False)
    except FileNotFoundError:
        info = None
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise ArgumentError(
            f"{what}: {text} changed while vizad was writing it (it is no longer a regular "
            "file; a symbolic link swapped in is not followed); write it again"
        )
    if info is not None and not _own(info, directory):
        flags = os.O_WRONLY | os.O_NOFOLLOW | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(name, flags, dir_fd=directory)
        try:
            opened = os.fstat(fd)
            if (opened.st_dev, opened.st_ino) != (info.st_dev, info.st_ino):
                raise ArgumentError(
                    f"{what}: {text} changed while vizad was writing it; write it again"
                )
            os.ftruncate(fd, 0)
            _write_all(fd, payload)
        finally:
            os.close(fd)
        return
    mode = stat.S_IMODE(info.st_mode) if info is not None else 0o666 & ~_umask()
    temporary = f".{name[:64]}.{secrets.token_hex(6)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(temporary, flags, 0o600, dir_fd=directory)
    try:
        try:
            _write_all(fd, payload)
            os.fchmod(fd, mode)
        finally:
            os.close(fd)
        os.replace(temporary, name, src_dir_fd=directory, dst_dir_fd=directory)
    except BaseException:
        try:
            os.unlink(temporary, dir_fd=directory)
        except OSError:
            pass
        raise


def _own(info: os.stat_result, directory: int) -> bool:
    """Whether a file can be replaced by a new one without anything changing but its content:
    it is the user's, has the group a new file gets, and has no other hard link."""
    folder = os.fstat(directory)
    group = folder.st_gid if folder.st_mode & stat.S_ISGID else os.getegid()
    return info.st_uid == os.geteuid() and info.st_gid == group and info.st_nlink == 1


def _write_all(fd: int, payload: bytes) -> None:
    view = memoryview(payload)
    while view:
        view = view[os.write(fd, view) :]


def output_error(what: str, path, exc: OSError) -> OutputError:
    """The OutputError for a write at ``path`` that the system refused with ``exc``, saying
    what to do."""
    reason = exc.strerror or str(exc)
    advice = _ADVICE.get(exc.errno, "write elsewhere")
    error = OutputError(f"{what}: cannot write {path}: {reason} ({advice})")
    error.errno = exc.errno  # only errno: with strerror set, str() would drop the advice
    return error


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
