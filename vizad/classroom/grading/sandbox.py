"""Running a submission in a process of its own and reading what it sends, failing closed.

Each run is a fresh interpreter (``python -I -S -B -u``: no user site, no ``PYTHON*``
variables, no ``.pth`` files; gradekit and numpy alone on its path) inside its jail
(:mod:`.jail`), in a new session, with its copy as working directory, resource limits on CPU
time, memory, file size and open files, a timeout for its import and for each case and one for
the whole submission, its standard output and error captured and capped. When a case hangs
or ends the process, the case is an error saying so and a new process runs the cases after it
(so one looping rule costs one case). Every abnormal end is reported as what it was; a line on the
result pipe out of the run's order is tampering, and the submission is not graded."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field

from vizad.classroom.gradekit.protocol import MAX_MESSAGE, unframe
from vizad.classroom.gradekit.runner import BOOT
from vizad.classroom.grading.jail import Launch, cleanup

__all__ = ["Limits", "Outcome", "run"]


@dataclass(frozen=True)
class Limits:
    """What a submission may use. Times are wall-clock seconds.

    Examples:
        >>> from vizad.classroom.grading import Limits
        >>> Limits(case_seconds=5.0).case_seconds, Limits().submission_seconds
        (5.0, 120.0)
    """

    #: One case (and the import of the submission).
    case_seconds: float = 10.0
    #: The whole submission, every case and every restart.
    submission_seconds: float = 120.0
    memory_bytes: int = 2 * 1024**3
    file_bytes: int = 16 * 1024**2
    open_files: int = 64
    #: Of standard output and of standard error, each: what is kept for the report.
    output_bytes: int = 16 * 1024
    #: New processes after a case ended or hung the last one.
    restarts: int = 5
    #: What the submission may write (its copy and its /tmp, each, in a jail).
    disk_bytes: int = 64 * 1024**2


@dataclass
class Outcome:
    """What the submission's processes sent and how they ended: each case's message (or its
    error), and ``problem`` when it could not be graded at all."""

    results: dict = field(default_factory=dict)
    errors: dict = field(default_factory=dict)
    problem: str = ""
    notes: list = field(default_factory=list)


class _Capture:
    """Reads a stream to its end, keeping its first ``limit`` bytes."""

    def __init__(self, stream, limit: int):
        self.kept, self.total, self.limit = bytearray(), 0, limit
        self.thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self.thread.start()

    def _read(self, stream):
        while chunk := stream.read1(65536) if hasattr(stream, "read1") else stream.read(65536):
            self.total += len(chunk)
            if len(self.kept) < self.limit:
                self.kept += chunk[: self.limit - len(self.kept)]
        stream.close()


def _lines(fd: int, into: queue.Queue) -> None:
    """The result pipe's lines into ``into`` (each capped), then None at its end."""
    with os.fdopen(fd, "rb") as stream:
        while line := stream.readline(MAX_MESSAGE + 1):
            if len(line) > MAX_MESSAGE or not line.endswith(b"\n"):
                into.put(b"")  # too long, or cut: not a message of the harness
                break
            into.put(line)
        while stream.read(65536):  # drain what follows, so the child never blocks
            pass
    into.put(None)


def _ending(code: int | None, limits: Limits) -> str:
    """How a process ended, as a report says it."""
    if code is None:
        return "was stopped"
    if code >= 0:
        what = " (sys.exit or os._exit in the submission)" if code in (0, 1) else ""
        return f"ended the process with exit code {code}{what}"
    sig = -code
    name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
    why = {
        "SIGXCPU": f": more than {int(limits.submission_seconds)} s of CPU time",
        "SIGXFSZ": f": a file larger than {limits.file_bytes} bytes",
        "SIGSEGV": ": a crash of the interpreter (deep recursion, or memory)",
    }.get(name, "")
    return f"was killed by {name}{why}"


def _environment() -> dict:
    return {
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }


def _once(config: dict, how: Launch, names: list, deadline: float, limits: Limits, out: Outcome):
    """One process running ``names`` in order: fills ``out``; returns the names it did not
    reach (empty when done) or None when the submission cannot be graded."""
    read, write = os.pipe()
    proc = subprocess.Popen(
        [*how.argv, "-I", "-S", "-B", "-u", "-c", BOOT.format(main=config["main"])],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        pass_fds=(write,),
        cwd=how.cwd,
        env=_environment(),
        start_new_session=True,
    )
    os.close(write)
    lines: queue.Queue = queue.Queue()
    reader = threading.Thread(target=_lines, args=(read, lines), daemon=True)
    reader.start()
    captures = [
        _Capture(proc.stdout, limits.output_bytes),
        _Capture(proc.stderr, limits.output_bytes),
    ]
    left = max(1.0, deadline - time.monotonic())
    cpu = max(1, int(min(left, limits.submission_seconds)) + 1)
    settings = {
        **config,
        "fd": write,
        "run": [{"name": n, "draws": config["draws"].get(n, {})} for n in names],
        "limits": {**config["limits"], "cpu_seconds": cpu},
        "boot": how.boot,
        "source": how.source,
        "drop": how.drop,
        "tmp": how.tmp,
    }
    del settings["draws"]
    try:
        proc.stdin.write((json.dumps(settings) + "\n").encode())
        proc.stdin.close()
    except OSError:
        pass
    stage, case, started, why = "start", None, time.monotonic(), None
    remaining = list(names)
    while True:
        limit = deadline
        if stage != "start":
            limit = min(deadline, started + limits.case_seconds)
        try:
            line = lines.get(timeout=max(0.0, limit - time.monotonic()))
        except queue.Empty:
            why = (
                f"took more than {limits.case_seconds:g} s"
                if limit < deadline
                else (f"used up the submission's {limits.submission_seconds:g} s")
            )
            why += " (stopped)"
            break
        if line is None:
            break
        message = unframe(line)
        kind = None if message is None else message.get("kind")
        if kind == "loading" and stage == "start":
            stage, started = "loading", time.monotonic()
        elif kind == "import-error" and stage == "loading":
            out.problem = f"importing the submission raised {message.get('why', '')}"
            _stop(proc, how)
            _finish(proc, captures, out)
            return None
        elif kind == "ready" and stage == "loading":
            stage = "ready"
            out.notes += [str(n) for n in message.get("notes", [])][:20]
        elif (
            kind == "start"
            and stage == "ready"
            and remaining
            and message.get("case") == remaining[0]
        ):
            stage, case, started = "case", remaining.pop(0), time.monotonic()
        elif kind == "result" and stage == "case" and message.get("case") == case:
            result = message.get("result")
            out.results[case] = result if isinstance(result, dict) else {}
            stage, case, started = "ready", None, time.monotonic()
        elif kind == "done" and stage == "ready" and not remaining:
            _stop(proc, how)
            _finish(proc, captures, out)
            return []
        else:
            out.problem = (
                "the grader's channel from the submission's process carried something the "
                "grader did not send (tampering, or a corrupted result): not graded"
            )
            _stop(proc, how)
            _finish(proc, captures, out)
            return None
    if why is None:  # the channel ended: wait briefly for the process's end to say how
        try:
            proc.wait(timeout=max(0.1, min(2.0, limit - time.monotonic())))
        except subprocess.TimeoutExpired:
            why = "closed the grader's channel (stopped)"
    _stop(proc, how)
    why = why or _ending(how.status(proc.returncode), limits)
    _finish(proc, captures, out)
    if stage in ("start", "loading") and (out.results or out.errors):  # a restart
        for name in remaining:
            out.errors[name] = f"not run: a new process for the cases left {why}"
        return None
    if stage in ("start", "loading"):
        out.problem = f"importing the submission {why}"
        return None
    if stage == "case":
        out.errors[case] = f"the submission's process {why} in this case"
        return remaining
    out.problem = f"the submission's process {why} between cases"
    return None


def _stop(proc: subprocess.Popen, how: Launch | None = None) -> None:
    """Kill the process's whole session (its threads, and any process it started; in a
    jail, every process of it; run as a user of its own, every process of that user)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()
    if how is not None:
        cleanup(how)


def _finish(proc, captures, out: Outcome) -> None:
    for capture, stream in zip(captures, ("standard output", "standard error")):
        capture.thread.join(timeout=2.0)
        if capture.total:
            text = bytes(capture.kept).decode("utf-8", "replace")
            cut = f" (first {len(capture.kept)} kept)" if capture.total > len(capture.kept) else ""
            out.notes.append(f"{stream}: {capture.total} bytes{cut}: {text[:300]}")


def run(config: dict, how: Launch, names: list, limits: Limits) -> Outcome:
    """Run the cases ``names`` of the submission started as ``how`` says (see
    :mod:`vizad.classroom.gradekit.runner` for ``config``; its ``draws`` are each case's
    inputs), restarting after a case that hung or ended the process."""
    out = Outcome()
    deadline = time.monotonic() + limits.submission_seconds
    remaining, runs = list(names), 0
    while remaining:
        if time.monotonic() >= deadline:
            for name in remaining:
                out.errors[name] = (
                    f"not run: the submission's {limits.submission_seconds:g} s were used up"
                )
            break
        if runs > limits.restarts:
            for name in remaining:
                out.errors[name] = f"not run: the submission's process ended or hung {runs} times"
            break
        runs += 1
        remaining = _once(config, how, remaining, deadline, limits, out)
        if remaining is None:
            break
    return out
