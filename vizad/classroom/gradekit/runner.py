"""The submission's process: started by :mod:`vizad.classroom.grading.sandbox` (inside its
jail), it sets its resource limits, copies the submission into its writable place, drops its
privileges where it was asked to, imports the student's engine, runs the cases it was sent
with the inputs it was sent and writes what each gave, one JSON line each, on the pipe it was
given. It holds no seed, no reference engine and no comparison, and decides nothing: what it
writes is raw data, which the grading process reads as the student's word."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import shutil
import sys
import types

from . import draws, guard
from .case import Api, _line, exc_text, run_case
from .protocol import capped

__all__ = ["main", "BOOT"]

#: The code the grading process starts the interpreter with (``python -I -S -B -u -c BOOT``):
#: the configuration is the first line of standard input; ``boot`` puts this package (and
#: numpy, alone) on the path; ``{main}`` is the module whose ``main(config)`` runs.
BOOT = (
    "import sys,json;c=json.loads(sys.stdin.readline());sys.path[0:0]=c['boot'];"
    "from {main} import main;main(c)"
)
#: Modules of the standard library loaded before privileges are dropped (where the
#: interpreter's own files are not readable by the submission's user).
_PRELOAD = (
    "abc", "array", "bisect", "collections", "contextlib", "copy", "dataclasses", "decimal",
    "enum", "fractions", "functools", "heapq", "inspect", "itertools", "math", "numbers",
    "operator", "random", "re", "statistics", "string", "struct", "textwrap", "time",
    "traceback", "typing", "warnings", "weakref", "numpy.linalg", "numpy.random",
)  # fmt: skip


def _limit(limits: dict) -> None:
    """Resource limits, soft and hard alike (the student cannot raise them)."""
    # POSIX only: imported where it runs, so that a notebook's check cells (vz.exercises.cases,
    # which read the cases and the runner's handout) work on Windows
    import resource

    cpu = int(limits["cpu_seconds"])
    for kind, value in (
        (resource.RLIMIT_CPU, (cpu, cpu + 1)),
        (resource.RLIMIT_AS, (limits["memory_bytes"],) * 2),
        (resource.RLIMIT_FSIZE, (limits["file_bytes"],) * 2),
        (resource.RLIMIT_NOFILE, (limits["open_files"],) * 2),
        (resource.RLIMIT_CORE, (0, 0)),
    ):
        resource.setrlimit(kind, value)


def _sender(fd: int, root: str):
    """send(message): one line on the pipe (functions bound now, before the student's code
    could replace them); paths in the copy said relative to it."""
    write, dumps = os.write, json.dumps
    prefix = dumps(root + os.sep)[1:-1]

    def send(message: dict) -> None:
        data = (dumps(message, allow_nan=False).replace(prefix, "") + "\n").encode()
        while data:
            data = data[write(fd, data) :]

    return send


def _drop(uid: int, gid: int) -> None:
    """Become ``uid``:``gid`` for good, with no supplementary groups and no way back to
    privileges (``no_new_privs``: no set-uid program can raise them again)."""
    import ctypes

    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    pr_set_no_new_privs = 38
    if ctypes.CDLL(None, use_errno=True).prctl(pr_set_no_new_privs, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")


class _Hidden(importlib.abc.MetaPathFinder):
    """Top-level names found only in the submission's copy (tests: a course package as if it
    were not installed)."""

    def __init__(self, names, where):
        self.names, self.where = set(names), [where]

    def find_spec(self, name, path=None, target=None):
        if path is not None or name not in self.names:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, self.where)
        if spec is None:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return spec


def _load(kind: str, entry: str, name: str, notes: list) -> types.ModuleType:
    """The student's module, run now (and kept in ``sys.modules``: a package's submodules
    are its own, not an installed namesake's)."""
    if kind == "package":
        return importlib.import_module(name)
    if kind == "file":
        spec = importlib.util.spec_from_file_location(name, os.path.abspath(entry))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    cells = sorted(os.listdir(entry))
    module = types.ModuleType(name)
    module.__file__ = os.path.abspath(os.path.join(entry, cells[0])) if cells else None
    module.display = _display  # IPython's builtin, which a notebook's cells may call
    sys.modules[name] = module
    for k, cell in enumerate(cells, 1):
        path = os.path.abspath(os.path.join(entry, cell))
        with open(path, encoding="utf-8") as f:
            text = f.read()
        try:
            exec(compile(text, path, "exec"), module.__dict__)
        except Exception as exc:  # a cell that fails in a notebook: the others still run
            why = type(exc).__name__
            if isinstance(exc, ModuleNotFoundError):  # a drawing's library, not in the jail
                why = capped(exc_text(exc), 200)
            notes.append(f"notebook cell {k} raised {why}; the others ran")
    return module


def _display(*objects, **options) -> None:
    """IPython's ``display`` for a notebook's cells run here: nothing is shown."""


def handout(names) -> tuple:
    """The handout's classes a student's class may extend (``"module:Class"`` each, the
    cases module's ``GIVEN``), imported before the student's code runs (so that the student
    cannot swap them); those that cannot be imported are left out."""
    found = []
    for name in names:
        module, _, attribute = str(name).partition(":")
        try:
            found.append(getattr(importlib.import_module(module), attribute))
        except Exception:  # noqa: BLE001 - no handout here: the student's import says so
            continue
    return tuple(found)


def start(config: dict):
    """Everything before the cases: limits, the copy, the drop, the guard, the student's
    import. Returns (send, the student's Api, the course's cases by name, the copy's path);
    ends the process when the import fails."""
    _limit(config["limits"])
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    root = os.getcwd()
    send = _sender(config["fd"], root)
    os.environ.clear()
    os.environ.update({"HOME": root, "TMPDIR": config.get("tmp") or root, "PATH": "/usr/bin"})
    import numpy  # noqa: F401 - before the drop and the guard: imports read what they need

    for name in _PRELOAD:
        importlib.import_module(name)
    cases = importlib.import_module(f"{__package__}.{config['cases']}")
    given = handout(getattr(cases, "GIVEN", ()))
    if config.get("source"):  # the jail's copy is read-only: the writable one is made here
        shutil.copytree(config["source"], root, dirs_exist_ok=True, symlinks=True)
    if config.get("drop"):
        _drop(*config["drop"])
    if config.get("hide"):
        sys.meta_path.insert(0, _Hidden(config["hide"], root))
    sys.path.insert(0, root)
    if config.get("guard") is not None:
        guard.install(root, config["guard"], guard.readable_now(root))
    send({"kind": "loading"})
    notes: list[str] = []
    try:
        module = _load(config["kind"], config["entry"], config["name"], notes)
        student = Api(module, tuple(config["subs"]), root=root, given=given)
    except BaseException as exc:  # noqa: BLE001 - the student's import, SystemExit included
        send({"kind": "import-error", "why": capped(exc_text(exc), 1000) + _line(exc, root)})
        os._exit(0)
    send({"kind": "ready", "notes": notes[:20]})
    by_name = {getattr(c, "name", None): c for c in getattr(cases, "CASES", [])}
    return send, student, by_name, root


def main(config: dict, run=run_case) -> None:
    """Run the cases as ``config`` says (each with ``run(case, student, root)``), then end
    the process (``os._exit``: no student ``atexit`` hook, no thread left running, can change
    what was sent)."""
    send, student, by_name, root = start(config)
    leave = os._exit
    for item in config["run"]:
        name = item["name"]
        send({"kind": "start", "case": name})
        draws.replay(item["draws"])
        case = by_name.get(name)
        result = run(case, student, root) if case is not None else {}
        send({"kind": "result", "case": name, "result": result})
    send({"kind": "done"})
    leave(0)
