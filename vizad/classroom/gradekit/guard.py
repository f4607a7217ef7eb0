"""The second layer a submission's process runs its student code under, where it runs outside
a jail (a user of its own, or ``--no-isolation``): a ``sys.audit`` hook (which Python code
cannot remove) that refuses reading anything but the copy, the interpreter's library and
numpy, writing, renaming or deleting files outside the submission's copy,
opening a folder outside it (whose descriptor would reach files by relative paths), starting
processes, sockets, ``ctypes``, raising resource limits and signalling other processes, and
refuses reading vizad's reference engines and installed course packages. It stops accidents
and cheating within Python, never a determined attacker (modules that raise no audit event,
C extensions): the boundary is the operating system's (:mod:`vizad.classroom.grading.jail`)."""

from __future__ import annotations

import os
import sys

__all__ = ["install"]

#: Events whose first argument (and second, for renames and links) is a path written to.
_PATH_EVENTS = {
    "os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.chmod", "os.chown", "os.link",
    "os.symlink", "os.truncate", "os.utime", "os.chflags", "os.lchflags", "os.setxattr",
    "os.removexattr", "shutil.rmtree", "shutil.move", "shutil.chown", "os.mkfifo", "os.mknod",
    "sqlite3.connect",
}  # fmt: skip
#: Events refused outright, and prefixes of events refused.
_REFUSED = {
    "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
    "os.forkpty", "pty.spawn", "resource.setrlimit", "resource.prlimit", "os.startfile",
    "sys.remote_exec", "webbrowser.open",
}  # fmt: skip
_REFUSED_PREFIXES = ("ctypes.", "socket.", "_ssl.", "urllib.", "ftplib.", "smtplib.", "http.")
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


#: Files any submission may read besides its copy and the interpreter's library.
_DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random")


def readable_now(root: str) -> list[str]:
    """What this process may read once guarded: its copy, what is on ``sys.path`` (the
    interpreter's library, gradekit, numpy: each entry and what its links lead to), its own
    /proc and a few devices."""
    found = {os.path.realpath(root), f"/proc/{os.getpid()}", *_DEVICES}
    for entry in sys.path:
        if not os.path.isdir(entry):
            continue
        found.add(os.path.realpath(entry))
        for child in os.scandir(entry):
            if child.is_symlink():
                found.add(os.path.realpath(child.path))
    return sorted(found)


def install(root: str, blocked: list[str], readable: list[str] | None = None) -> None:
    """Guard the rest of this process: writes only under ``root``; nothing read under the
    paths ``blocked``; with ``readable``, nothing read outside those paths."""
    realpath, fspath, getpid, sep = os.path.realpath, os.fsdecode, os.getpid, os.sep
    isdir = os.path.isdir
    root = realpath(root)
    blocked = tuple(realpath(b) for b in blocked)
    allowed = None if readable is None else tuple(realpath(r) for r in readable)

    def may_read(path: str | None) -> bool:
        return (
            allowed is None
            or path is None
            or any(path == r or path.startswith(r + sep) for r in allowed)
        )

    def full(path) -> str | None:
        if isinstance(path, int) or path is None:
            return None
        try:
            return realpath(fspath(path))
        except (TypeError, ValueError):
            return "?"

    def inside(path: str | None) -> bool:
        return path is None or path == root or path.startswith(root + sep)

    def hook(event: str, args: tuple) -> None:
        if event == "open":
            path, mode, flags = (tuple(args) + (None, None, None))[:3]
            where = full(path)
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int) and flags & _WRITE_FLAGS
            )
            if writing and not inside(where):
                raise PermissionError(
                    f"the grader lets a submission write only in its copy: {path}"
                )
            if not inside(where) and isdir(where):
                raise PermissionError(f"the grader refuses to open the folder {path}")
            if where is not None and any(where == b or where.startswith(b + sep) for b in blocked):
                raise ImportError(
                    f"{where}: the grader hides vizad's reference engines and installed course "
                    "packages from a submission (write the engine yourself)"
                )
            if not may_read(where):
                raise PermissionError(
                    f"the grader lets a submission read only its copy, Python's library and "
                    f"numpy: {path}"
                )
        elif event in ("os.listdir", "os.scandir") and args and not may_read(full(args[0])):
            raise PermissionError(f"the grader lets a submission list only its copy: {args[0]}")
        elif event in _PATH_EVENTS:
            paths = (
                args[:2]
                if event in ("os.rename", "os.link", "os.symlink", "shutil.move")
                else args[:1]
            )
            for path in paths:
                if not inside(full(path)):
                    raise PermissionError(
                        f"the grader lets a submission change only its copy: {event} {path}"
                    )
        elif event in ("os.kill", "os.killpg", "signal.pthread_kill"):
            if event != "os.kill" or args[0] not in (0, getpid()):
                raise PermissionError(f"the grader refuses {event} from a submission")
        elif event in _REFUSED or event.startswith(_REFUSED_PREFIXES):
            raise PermissionError(f"the grader refuses {event} in a submission")

    sys.addaudithook(hook)
