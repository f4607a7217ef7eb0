"""Writing output files (exported pages, frames, rendered drawings) without destroying what
the path names.

Writing a temporary file and renaming it over the target keeps a regular file whole (it is
the old file or the new one, never half of each), but renamed over anything else it would
replace that thing: a FIFO or a device node (``-o /dev/null`` run as root) would become a
regular file, and a symbolic link would stop being one. So what is at the path decides:

- a regular file, or nothing: replaced whole through a temporary file in its directory (an
  existing file keeps its permissions);
- a symbolic link: followed; the file it points to is written as above and the link stays;
- a FIFO or a character device (``/dev/null``, ``/dev/stdout``, a terminal): written to
  directly, as a shell's ``>`` does (a FIFO waits for its reader, as with ``>``);
- a directory, a block device (a disk), a socket, a link loop: refused with an
  :class:`~vizad.errors.ArgumentError` before any work.

A write that the system refuses (permissions, a full disk) is an
:class:`~vizad.errors.OutputError`, which is an ``OSError``.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

from .errors import ArgumentError, ArgumentTypeError, OutputError

__all__ = ["check_output", "write_output", "output_error"]

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
            f"{path!r:.60}"
        )
    text = os.fspath(path)
    if not isinstance(text, str) or not text.strip():
        raise ArgumentError(f"{what}: the file name is empty; give a file name")
    if "\x00" in text:
        raise ArgumentError(
            f"{what}: the file name {text!r:.80} contains a NUL character, which no file name "
            "can hold; give a name without it"
        )
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
    target = Path(os.path.realpath(text))
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)  # a file replaced keeps its permissions
    except FileNotFoundError:
        mode = 0o666 & ~_umask()  # as a plain open() would have made it
    except OSError as exc:
        raise output_error(what, text, exc) from exc
    try:
        fd, temporary = tempfile.mkstemp(
            prefix=f".{target.name[:64]}.", suffix=".tmp", dir=target.parent
        )
    except OSError as exc:
        raise output_error(what, text, exc) from exc
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(payload)
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException as exc:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise output_error(what, text, exc) from exc
        raise
    return Path(path)


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
