"""The submission's process: started by :mod:`.sandbox` as a fresh interpreter, it sets its
resource limits, guards itself (:mod:`.guard`), imports the student's engine from its copy,
runs the course's cases with it and sends raw results back, one line each on the pipe it was
given, each line authenticated by the run's nonce (read from standard input, which is then
closed). It holds neither vizad's reference engines nor any comparison: what it sends are
numbers, which the grading process compares itself."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import resource
import sys
import types

__all__ = ["main", "BOOT"]

#: The code the grading process starts the interpreter with (``python -I -S -B -u -c BOOT``):
#: the configuration is the first line of standard input.
BOOT = (
    "import sys,json;c=json.loads(sys.stdin.readline());sys.path[0:0]=c['path'];"
    "from vizad.classroom.grading import child;child.main(c)"
)


def _limit(config: dict) -> None:
    """Resource limits, soft and hard alike (the student cannot raise them)."""
    cpu = int(config["cpu_seconds"])
    for kind, value in (
        (resource.RLIMIT_CPU, (cpu, cpu + 1)),
        (resource.RLIMIT_AS, (config["memory_bytes"],) * 2),
        (resource.RLIMIT_FSIZE, (config["file_bytes"],) * 2),
        (resource.RLIMIT_NOFILE, (config["open_files"],) * 2),
        (resource.RLIMIT_CORE, (0, 0)),
    ):
        resource.setrlimit(kind, value)


def _sender(fd: int, nonce: str, root: str):
    """send(message): one authenticated line on the pipe (functions bound now, before the
    student's code could replace them); paths in the copy said relative to it."""
    write, dumps = os.write, json.dumps
    prefix = dumps(root + os.sep)[1:-1]

    def send(message: dict) -> None:
        text = dumps(message, allow_nan=False).replace(prefix, "")
        data = (nonce + "\t" + text + "\n").encode()
        while data:
            data = data[write(fd, data) :]

    return send


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
    sys.modules[name] = module
    for k, cell in enumerate(cells, 1):
        path = os.path.abspath(os.path.join(entry, cell))
        with open(path, encoding="utf-8") as f:
            text = f.read()
        try:
            exec(compile(text, path, "exec"), module.__dict__)
        except Exception as exc:  # a cell that fails in a notebook: the others still run
            notes.append(f"notebook cell {k} raised {type(exc).__name__}; the others ran")
    return module


def main(config: dict) -> None:
    """Grade in this process as ``config`` says, then end it (``os._exit``: no student
    ``atexit`` hook, no thread left running, can change the outcome)."""
    _limit(config)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    send, leave = _sender(config["fd"], config["nonce"], os.getcwd()), os._exit
    os.environ.clear()
    os.environ.update({"HOME": os.getcwd(), "TMPDIR": os.getcwd(), "PATH": "/usr/bin:/bin"})
    import numpy  # noqa: F401 - before the guard: imports read what they need

    from vizad.classroom.grading import guard
    from vizad.classroom.grading.cases import Api, run_student

    cases_module = importlib.import_module(config["cases"])
    if config.get("hide"):
        sys.meta_path.insert(0, _Hidden(config["hide"], os.getcwd()))
    sys.path.insert(0, os.getcwd())
    guard.install(os.getcwd(), config["blocked"])
    send({"kind": "loading"})
    notes: list[str] = []
    try:
        module = _load(config["kind"], config["entry"], config["name"], notes)
        student = Api(module, tuple(config["subs"]), root=os.getcwd())
    except BaseException as exc:  # noqa: BLE001 - the student's import, SystemExit included
        from vizad.classroom.grading.cases import raised_text
        from vizad.classroom.diagnosis.hints import student_frame

        where = student_frame(exc, frozenset())
        send({"kind": "import-error", "why": raised_text(exc) + where[:300]})
        leave(0)
    send({"kind": "ready", "notes": notes[:20]})
    from vizad.classroom.grading.draws import use_seed

    use_seed(config.get("seed"))  # the parent's: it computes vizad's values with the same
    by_name = {getattr(c, "name", None): c for c in getattr(cases_module, "CASES", [])}
    for name in config["names"]:
        send({"kind": "start", "case": name})
        case = by_name.get(name)
        if case is None:
            result = {"status": "error", "why": "the case list in the submission's process lost it"}
        else:
            result = run_student(case, student)
        send({"kind": "result", "case": name, "result": result})
    send({"kind": "done"})
    leave(0)
