"""The second layer a submission's process runs its student code under, where it runs outside
a jail (a user of its own, or ``--no-isolation``): a ``sys.audit`` hook (which Python code
cannot remove) that refuses writing, renaming or deleting files outside the submission's copy,
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


def install(root: str, blocked: list[str]) -> None:
    """Guard the rest of this process: writes only under ``root``; nothing read under the
    paths ``blocked``."""
    realpath, fspath, getpid, sep = os.path.realpath, os.fsdecode, os.getpid, os.sep
    isdir = os.path.isdir
    root = realpath(root)
    blocked = tuple(realpath(b) for b in blocked)

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
