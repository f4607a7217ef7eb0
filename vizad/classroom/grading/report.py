"""The report of :func:`vizad.grade`: one :class:`Row` per case of the course (pass, fail,
error or skipped, with what diagnose says of a failure), the score, and the forms a TA needs:
text for the command line (one line a case), HTML for a notebook, a dict or JSON for a
gradebook, ``points(n)`` for an nbgrader test cell's partial credit and ``check()`` for one
that passes or fails whole. Every text a submission sent is made one printable line, capped,
before it is kept: a student's message cannot add a line, a row or a score to a report."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field

from vizad.errors import ArgumentError, GradeError
from vizad.trace.text import escape, printable

__all__ = ["Row", "GradeReport"]

#: The colours of a row's status (the palette's green and red, grey for skipped).
_COLOURS = {"pass": "#009E73", "fail": "#c0392b", "error": "#c0392b", "skipped": "#888888"}
#: The longest explanation kept, and the longest a text report prints.
MAX_EXPLANATION, MAX_TEXT_LINE = 2000, 400
_LINE_BREAKS = re.compile("[\t\n\r\x7f\x85\u2028\u2029]")


def one_line(text: object, limit: int = MAX_EXPLANATION) -> str:
    """``text`` as one printable line of at most ``limit`` characters: line breaks, tabs and
    control characters written as visible escapes (``\\n``), the rest cut with a note."""
    text = text if isinstance(text, str) else str(text)
    text = _LINE_BREAKS.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100
                            else f"\\u{ord(m.group()):04x}", printable(text))  # fmt: skip
    text = text.replace("\\x0a", "\\n").replace("\\x09", "\\t").replace("\\x0d", "\\r")
    if len(text) > limit:
        text = text[:limit] + f"… ({len(text) - limit} more characters)"
    return text


@dataclass(frozen=True)
class Row:
    """One case of a course run against a student's module.

    Examples:
        >>> import pathlib, tempfile
        >>> student = pathlib.Path(tempfile.mkdtemp()) / "engine.py"
        >>> _ = student.write_text("Value = float")
        >>> report = vz.grade(student, "micrograd", isolation="none")
        >>> row = report.rows[0]
        >>> type(row).__name__, row.name, row.what, row.status
        ('Row', 'add', 'a + b', 'fail')
    """

    #: The case's name (``mul_two_vars``, ``summation axes=(1,) (5, 4)``).
    name: str
    #: What the case builds and compares, in a line.
    what: str
    #: "pass", "fail" or "error" (the submission's process ended, hung or was stopped in
    #: this case, or its result could not be read), decided by the grading process.
    status: str
    #: Why it failed: what differs, what was raised, what is not implemented.
    explanation: str = ""
    #: Its points.
    weight: float = 1.0
    #: What :func:`vizad.diagnose` found on the student's graph (the rule, the node, the cause):
    #: shown first, and never cut in the command's text.
    hint: str = ""

    def __post_init__(self):
        object.__setattr__(self, "explanation", one_line(self.explanation))
        object.__setattr__(self, "hint", one_line(self.hint))

    @property
    def said(self) -> str:
        """The hint, then the explanation, in a line."""
        return " — ".join(part for part in (self.hint, self.explanation) if part)


@dataclass
class GradeReport:
    """The cases of ``course`` run against ``module``: ``rows``, ``score`` (the points of the
    cases passed) of ``max_score`` (the points of every case not skipped), ``passed`` when
    every case not skipped passed. ``problem`` says why the submission could not be graded
    at all (its import failed, ended or hung its process, or its process's channel was
    tampered with): then every row is an error and ``graded`` is False. ``notes`` are what
    the grader saw besides the cases (output printed, notebook cells that raised).
    ``isolation`` is how the submission's process was isolated ("bubblewrap", "uid", "none",
    or "in process" for a namespace graded here).

    Examples:
        >>> import pathlib, tempfile
        >>> student = pathlib.Path(tempfile.mkdtemp()) / "engine.py"
        >>> _ = student.write_text("Value = float")
        >>> report = vz.grade(student, "micrograd", isolation="none")
        >>> type(report).__name__, report.score, report.max_score
        ('GradeReport', 0, 14)
    """

    course: str
    module: str
    rows: list[Row] = field(default_factory=list)
    problem: str = ""
    notes: list[str] = field(default_factory=list)
    isolation: str = ""
    #: The submission's Python files (relative name -> text), for a batch's own-work check.
    files: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self):
        self.module = one_line(self.module, 200)
        self.problem = one_line(self.problem)
        self.notes = [one_line(n) for n in self.notes]

    @property
    def graded(self) -> bool:
        return not self.problem

    @property
    def score(self) -> float:
        return _number(sum(r.weight for r in self.rows if r.status == "pass"))

    @property
    def max_score(self) -> float:
        return _number(sum(r.weight for r in self.rows if r.status != "skipped"))

    @property
    def skipped(self) -> list[Row]:
        return [r for r in self.rows if r.status == "skipped"]

    @property
    def passed(self) -> bool:
        return self.graded and bool(self.rows) and not self.failed

    @property
    def failed(self) -> list[Row]:
        """The rows that count and did not pass (failures and errors)."""
        return [r for r in self.rows if r.status in ("fail", "error")]

    @property
    def exit_code(self) -> int:
        """The command line's: 0 when every case not skipped passed, 1 when some failed, 2
        when the submission could not be graded."""
        return 2 if not self.graded else 0 if self.passed else 1

    def points(self, out_of: float) -> float:
        """The score scaled to ``out_of`` points: end an nbgrader test cell with it, and
        nbgrader gives the cell that many of its points (partial credit)."""
        if not out_of > 0:
            raise ArgumentError(f"points: out_of must be a positive number, got {out_of!r}")
        return round(out_of * self.score / self.max_score, 6) if self.max_score else 0.0

    def check(self) -> None:
        """Raise GradeError listing the cases that did not pass (a test cell that passes or
        fails whole); nothing when every case passed."""
        if not self.passed:
            lines = [f"{r.status.upper()} {r.name}: {r.said}" for r in self.failed]
            head = f"{self.module}: {self.score}/{self.max_score} {self.course} cases pass"
            if self.problem:
                head += f" (not graded: {self.problem})"
            raise GradeError(head + "\n" + "\n".join(lines), self)

    def as_dict(self) -> dict:
        """The report as plain data: course, module, score, max_score, passed, graded,
        problem, notes, isolation, and each case (name, what, status, explanation, weight,
        hint)."""
        return {
            "course": self.course,
            "module": self.module,
            "score": self.score,
            "max_score": self.max_score,
            "passed": self.passed,
            "graded": self.graded,
            "problem": self.problem,
            "notes": [one_line(n) for n in self.notes],
            "isolation": self.isolation,
            "cases": [asdict(r) for r in self.rows],
        }

    def to_json(self) -> str:
        """:meth:`as_dict` as JSON (indented, keys in a fixed order)."""
        return json.dumps(self.as_dict(), indent=2, ensure_ascii=False)

    def __repr__(self) -> str:
        head = f"vz.grade: {self.course} cases on {self.module}: {self.score}/{self.max_score}"
        if self.skipped:
            head += f" ({len(self.skipped)} skipped, not counted)"
        if self.problem:
            head += f"; not graded: {self.problem}"
        width = max((len(r.name) for r in self.rows), default=0)
        lines = [head]
        for r in self.rows:
            line = f"  {r.status.upper():<7} {r.name:<{width}}  {r.what}"
            if r.hint:  # the hint whole, then what differs (cut to a line's length)
                line += " ↳ " + r.hint + (" — " if r.explanation else "")
            elif r.explanation:
                line += " ↳ "
            line += one_line(r.explanation, MAX_TEXT_LINE) if r.explanation else ""
            lines.append(line)
        lines += [f"  note: {one_line(n, MAX_TEXT_LINE)}" for n in self.notes]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        colour = _COLOURS["pass" if self.passed else "fail"]
        rows = "".join(
            f"<tr><td style='color:{_COLOURS[r.status]};font-weight:bold'>"
            f"{r.status.upper()}</td><td><code>{escape(r.name)}</code></td>"
            f"<td>{escape(r.what)}</td><td>{escape(r.said)}</td></tr>"
            for r in self.rows
        )
        return (
            f'<div class="vizad-grade mathjax_ignore tex2jax_ignore" '
            f'style="border-left:4px solid {colour};padding-left:8px">'
            f"<b>vz.grade</b> ({escape(self.course)} cases on <code>{escape(self.module)}</code>):"
            f" <span style='color:{colour}'>{self.score}/{self.max_score}</span>"
            + (f" ({len(self.skipped)} skipped, not counted)" if self.skipped else "")
            + (f" <b>not graded</b>: {escape(self.problem)}" if self.problem else "")
            + "".join(f"<br><i>note</i>: {escape(n)}" for n in self.notes)
            + "<table><tr><th>status</th><th>case</th><th>what</th><th>why</th></tr>"
            f"{rows}</table></div>"
        )


def _number(x: float) -> float:
    """An integer score as an int (``7``, not ``7.0``), else rounded to 6 places."""
    return int(x) if float(x).is_integer() else round(x, 6)
