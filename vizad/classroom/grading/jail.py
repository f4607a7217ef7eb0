"""Where a submission's process runs: the operating system's isolation, chosen once a grading.

- ``"bubblewrap"`` (Linux, Debian's ``bubblewrap``): new user, pid, network, ipc, uts and mount
  namespaces. Its root is read-only and minimal: ``/usr``, the interpreter (its
  ``site-packages`` hidden), numpy alone and :mod:`vizad.classroom.gradekit`; no other part of
  vizad, no /proc of the grader, no other submission. The submission's copy is read-only at
  ``/source``; its only writable places are ``/submission`` (where the runner copies it) and
  ``/tmp``, both of ``Limits.disk_bytes``. It runs as user 65534 with no capabilities, and
  every process of it dies with the jail.
- ``"uid"`` (root, where namespaces are refused: a Docker autograder): the runner starts as
  root, loads what it needs, then becomes a user and group of the submission's own, with no
  supplementary groups and ``no_new_privs``; its copy is that user's, mode 0700; every process
  of that user is killed afterwards. The network stays reachable, and files any user may read
  are kept from it only by the audit hooks (which let it read its copy, the interpreter's
  library and numpy).
- ``"none"`` (``--no-isolation``): a process of the grader's user, guarded only by audit hooks
  (:mod:`vizad.classroom.gradekit.guard`); every result says so.

``"auto"`` takes the first that works here, and refuses to grade where none does.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import sys
import sysconfig
import threading
from dataclasses import dataclass
from pathlib import Path

from vizad.errors import GradeError

__all__ = ["MODES", "Launch", "choose", "launch", "cleanup"]

MODES = ("auto", "bubblewrap", "uid", "none")
_VIZAD = Path(__file__).resolve().parents[2]
_KIT = _VIZAD / "classroom" / "gradekit"
#: Users of the "uid" mode: one each run, none of them a real account, and no two graders'
#: alike (256 of this process's own, after its pid: a process's pid is unique while it runs).
FIRST_UID, _PER_PROCESS = 3_100_000, 256
_UIDS = itertools.count()
_LOCK = threading.Lock()
_WORKS: dict[str, bool] = {}
_SAY = {
    "none": "not isolated (--no-isolation): the submission ran as the grader's own user",
    "uid": "isolated by a user of its own (no namespaces here: the network was reachable, and "
    "files other users may read were kept from it only within Python)",
}


@dataclass(frozen=True)
class Launch:
    """How to start one submission's process."""

    #: The command before the interpreter's arguments.
    argv: list[str]
    #: The working directory, as the submission sees it.
    root: str
    #: What the runner puts first on ``sys.path`` (gradekit's parent, numpy's).
    boot: list[str]
    #: Where the runner copies the submission from (bubblewrap), else None.
    source: str | None
    #: (uid, gid) the runner becomes, else None.
    drop: tuple[int, int] | None
    #: The temporary directory, as the submission sees it.
    tmp: str
    #: The cwd of the process started (on the grader's side).
    cwd: str

    def status(self, code: int | None) -> int | None:
        """The runner's own exit status from the started process's (bubblewrap exits with
        128 + the signal that killed what it ran: said as that signal, like Popen's)."""
        jailed = self.source is not None
        return -(code - 128) if jailed and code is not None and 128 < code < 160 else code


def choose(mode: str = "auto") -> str:
    """The isolation ``mode`` to grade with ("auto": bubblewrap, else uid, else refuse)."""
    if mode not in MODES:
        raise GradeError(f"grade: isolation must be one of {', '.join(MODES)}, got {mode!r}")
    if mode == "none":
        return mode
    if mode in ("auto", "bubblewrap") and _works("bubblewrap"):
        return "bubblewrap"
    if mode in ("auto", "uid") and _works("uid"):
        return "uid"
    raise GradeError(_refusal(mode))


def said(mode: str) -> str | None:
    """The note every result of ``mode`` carries (None for bubblewrap)."""
    return _SAY.get(mode)


def _refusal(mode: str) -> str:
    if not sys.platform.startswith("linux"):
        return (
            f"grade: on {sys.platform} the grader cannot isolate a submission (it needs Linux "
            "namespaces): grade in a Linux machine or container, or pass --no-isolation "
            "(isolation='none') for code you trust"
        )
    asked = "" if mode == "auto" else f" ({mode} was asked for)"
    return (
        f"grade: no isolation works here{asked}: install bubblewrap (apt install bubblewrap) "
        "and allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1), "
        "or run the grader as root; or pass --no-isolation (isolation='none') for code you "
        "trust"
    )


def _works(mode: str) -> bool:
    """Whether ``mode`` can start a process here (tried once a process)."""
    with _LOCK:
        if mode not in _WORKS:
            _WORKS[mode] = _try(mode)
        return _WORKS[mode]


def _try(mode: str) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    if mode == "uid":
        try:
            return os.geteuid() == 0 and hasattr(os, "setresuid") and bool(_interpreter())
        except GradeError:
            return False
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return False
    probe = [bwrap, *_namespaces(), "--uid", "65534", "--ro-bind", "/", "/", "--proc", "/proc"]
    probe += ["--size", "1048576", "--perms", "0700", "--tmpfs", "/tmp", "--remount-ro", "/"]
    probe += ["true"]  # every feature the jail uses (bubblewrap 0.6 or later)
    try:
        return subprocess.run(probe, capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _namespaces() -> list[str]:
    return [
        "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
        "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
    ]  # fmt: skip


def _numpy() -> list[Path]:
    """numpy's package directory and the libraries its wheel ships beside it."""
    import numpy

    package = Path(numpy.__file__).resolve().parent
    return [p for p in (package, package.parent / "numpy.libs") if p.exists()]


def _hidden(prefix: str) -> list[str]:
    """Package directories of the interpreter and of the system under the bound paths."""
    found = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    found |= {p for p in sys.path if p.endswith(("site-packages", "dist-packages"))}
    for base in ("/usr/lib", "/usr/local/lib"):
        found |= {str(p) for p in Path(base).glob("python3*/*-packages")}
        found |= {str(p) for p in Path(base).glob("python3/dist-packages")}
    inside = (prefix + os.sep, "/usr/")
    return sorted(p for p in found if os.path.isdir(p) and os.path.realpath(p).startswith(inside))


def _bubblewrap(work: Path, temp: Path, disk: int, vizad: bool) -> Launch:
    prefix = os.path.realpath(sys.base_prefix)
    argv = [shutil.which("bwrap") or "bwrap", *_namespaces(), "--uid", "65534", "--gid", "65534"]
    argv += ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/lib", "/lib32", "/lib64", "/sbin"):
        if os.path.islink(top):
            argv += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            argv += ["--ro-bind", top, top]
    if os.path.exists("/etc/ld.so.cache"):
        argv += ["--ro-bind", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    if not prefix.startswith("/usr/"):
        argv += ["--ro-bind", prefix, prefix]
    for hidden in _hidden(prefix):
        argv += ["--tmpfs", os.path.realpath(hidden)]
    argv += ["--ro-bind", str(_KIT), "/grader/gradekit"]
    if vizad:
        argv += ["--ro-bind", str(_VIZAD), "/grader/vizad"]
    for path in _numpy():
        argv += ["--ro-bind", str(path), f"/grader/site/{path.name}"]
    argv += ["--proc", "/proc", "--dev", "/dev", "--ro-bind", str(work), "/source"]
    for place in ("/submission", "/tmp"):
        argv += ["--size", str(disk), "--perms", "0700", "--tmpfs", place]
    argv += ["--remount-ro", "/", "--chdir", "/submission", "--clearenv"]
    argv += ["--setenv", "PATH", "/usr/bin"]
    python = os.path.realpath(sys.executable)
    argv += ["--", python]
    boot = ["/grader", "/grader/site"]
    return Launch(argv, "/submission", boot, "/source", None, "/tmp", str(temp))


def _boot_links(temp: Path, vizad: bool) -> list[str]:
    """A directory holding gradekit and numpy alone (links), for the modes with no mounts."""
    boot = temp / ("boot-vizad" if vizad else "boot")
    (boot / "site").mkdir(parents=True)
    (boot / "gradekit").symlink_to(_KIT)
    if vizad:
        (boot / "vizad").symlink_to(_VIZAD)
    for path in _numpy():
        (boot / "site" / path.name).symlink_to(path)
    os.chmod(temp, 0o711)
    return [str(boot), str(boot / "site")]


def _readable(path: str) -> bool:
    """Whether any user may read ``path`` (every folder above it searchable by others)."""
    path = os.path.realpath(path)
    while True:
        mode = os.stat(path).st_mode
        if not mode & (0o001 if os.path.isdir(path) else 0o004):
            return False
        if path == os.path.dirname(path):
            return True
        path = os.path.dirname(path)


def _interpreter() -> str:
    """An interpreter (of this Python's version) whose files a submission's own user can
    read: this one, else the system's (this one may live in a private home, as pyenv's)."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for candidate in (sys.executable, shutil.which(version, path="/usr/local/bin:/usr/bin")):
        if candidate is None:
            continue
        stdlib = os.path.join(
            os.path.dirname(os.path.dirname(os.path.realpath(candidate))), "lib", version
        )
        if _readable(candidate) and os.path.isdir(stdlib) and _readable(stdlib):
            return candidate
    raise GradeError(
        f"grade: no {version} here is readable by other users ({sys.executable} is not), "
        "which grading as a user of its own needs: install Python outside a private home, "
        "or use bubblewrap"
    )


def _user(work: Path, temp: Path, vizad: bool) -> Launch:
    python = _interpreter()
    boot = _boot_links(temp, vizad)
    with _LOCK:
        uid = uids()[0] + next(_UIDS) % _PER_PROCESS
    for folder, _dirs, files in os.walk(work):
        for name in [folder, *(os.path.join(folder, f) for f in files)]:
            os.lchown(name, uid, uid)
    os.chmod(work, 0o700)
    return Launch([python], str(work), boot, None, (uid, uid), str(work), str(work))


def uids() -> range:
    """The users this process gives the submissions it runs as users of their own."""
    first = FIRST_UID + os.getpid() * _PER_PROCESS
    return range(first, first + _PER_PROCESS)


def launch(mode: str, work: Path, temp: Path, disk: int, vizad: bool = False) -> Launch:
    """How to start a submission prepared in ``work`` (inside ``temp``) under ``mode``;
    ``vizad``: with vizad itself beside gradekit (the diagnosis run only)."""
    if mode == "bubblewrap":
        return _bubblewrap(work, temp, disk, vizad)
    if mode == "uid":
        return _user(work, temp, vizad)
    boot = _boot_links(temp, vizad)
    return Launch([sys.executable], str(work), boot, None, None, str(work), str(work))


def cleanup(how: Launch) -> None:
    """Kill every process left of a submission run as a user of its own (a process that left
    its session escapes the kill of its group, never its user)."""
    if how.drop is None:
        return
    uid = how.drop[0]
    for _round in range(20):
        found = [pid for pid in _pids() if _owner(pid) == uid]
        if not found:
            return
        for pid in found:
            try:
                os.kill(pid, 9)
            except OSError:
                pass


def _pids() -> list[int]:
    return [int(e.name) for e in Path("/proc").iterdir() if e.name.isdigit()]


def _owner(pid: int) -> int | None:
    """The real uid of ``pid`` (its status: /proc/pid itself is root's once a process
    changed user)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("Uid:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None
