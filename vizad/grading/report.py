"""The report of :func:`vizad.grade`: one :class:`Row` per case of the course (pass, fail or
skipped, with what diagnose says of a failure), the score, and the forms a TA needs: text for
the command line, HTML for a notebook, a dict or JSON for a gradebook, ``points(n)`` for an
nbgrader test cell's partial credit and ``check()`` for one that passes or fails whole."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from ..errors import ArgumentError, GradeError
from ..text import escape

__all__ = ["Row", "GradeReport"]

#: The colours of a row's status (the palette's green and red, grey for skipped).
_COLOURS = {"pass": "#009E73", "fail": "#c0392b", "skipped": "#888888"}


@dataclass(frozen=True)
class Row:
    """One case of a course run against a student's module."""

    #: The case's name (``mul_two_vars``, ``summation axes=(1,) (5, 4)``).
    name: str
    #: What the case builds and compares, in a line.
    what: str
    #: "pass", "fail", or "skipped" (the module lacks an op the case needs, that its course
    #: does not require: micrograd's repository has no tanh).
    status: str
    #: Why it failed (what differs, then what diagnose found), or why it was skipped.
    explanation: str = ""


@dataclass
class GradeReport:
    """The cases of ``course`` run against ``module``: ``rows``, ``score`` (cases passed) of
    ``max_score`` (every case, skipped ones too), ``passed`` when every case passed."""

    course: str
    module: str
    rows: list[Row] = field(default_factory=list)

    @property
    def score(self) -> int:
        return sum(r.status == "pass" for r in self.rows)

    @property
    def max_score(self) -> int:
        return len(self.rows)

    @property
    def passed(self) -> bool:
        return self.score == self.max_score

    @property
    def failed(self) -> list[Row]:
        return [r for r in self.rows if r.status != "pass"]

    def points(self, out_of: float) -> float:
        """The score scaled to ``out_of`` points: end an nbgrader test cell with it, and
        nbgrader gives the cell that many of its points (partial credit)."""
        if not out_of > 0:
            raise ArgumentError(f"points: out_of must be a positive number, got {out_of!r}")
        return round(out_of * self.score / self.max_score, 6) if self.rows else 0.0

    def check(self) -> None:
        """Raise GradeError listing the cases that did not pass (a test cell that passes or
        fails whole); nothing when every case passed."""
        if not self.passed:
            lines = [f"{r.status.upper()} {r.name}: {r.explanation}" for r in self.failed]
            raise GradeError(
                f"{self.module}: {self.score}/{self.max_score} {self.course} cases pass\n"
                + "\n".join(lines),
                self,
            )

    def as_dict(self) -> dict:
        """The report as plain data: course, module, score, max_score, passed, and each case
        (name, what, status, explanation)."""
        return {
            "course": self.course,
            "module": self.module,
            "score": self.score,
            "max_score": self.max_score,
            "passed": self.passed,
            "cases": [asdict(r) for r in self.rows],
        }

    def to_json(self) -> str:
        """:meth:`as_dict` as JSON (indented, keys in a fixed order)."""
        return json.dumps(self.as_dict(), indent=2, ensure_ascii=False)

    def __repr__(self) -> str:
        head = f"vz.grade: {self.course} cases on {self.module}: {self.score}/{self.max_score}"
        width = max((len(r.name) for r in self.rows), default=0)
        lines = [head]
        for r in self.rows:
            lines.append(f"  {r.status.upper():<7} {r.name:<{width}}  {r.what}")
            if r.explanation:
                lines.append(f"  {'':<7} {'':<{width}}  ↳ {r.explanation}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        colour = _COLOURS["pass" if self.passed else "fail"]
        rows = "".join(
            f"<tr><td style='color:{_COLOURS[r.status]};font-weight:bold'>"
            f"{r.status.upper()}</td><td><code>{escape(r.name)}</code></td>"
            f"<td>{escape(r.what)}</td><td>{escape(r.explanation)}</td></tr>"
            for r in self.rows
        )
        return (
            f'<div class="vizad-grade mathjax_ignore tex2jax_ignore" '
            f'style="border-left:4px solid {colour};padding-left:8px">'
            f"<b>vz.grade</b> ({escape(self.course)} cases on <code>{escape(self.module)}</code>):"
            f" <span style='color:{colour}'>{self.score}/{self.max_score}</span>"
            "<table><tr><th>status</th><th>case</th><th>what</th><th>why</th></tr>"
            f"{rows}</table></div>"
        )
