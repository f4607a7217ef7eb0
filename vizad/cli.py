"""The command line for lecturers and TAs: a walkthrough as a self-contained HTML page, one
picture per step for slides, or a student's engine graded with its course's cases.

python -m vizad walkthrough "log(x1) + x1*x2 - sin(x2)" --at x1=2 x2=5 -o walkthrough.html
python -m vizad frames "log(x1) + x1*x2 - sin(x2)" --at x1=2 x2=5 -o frames --format pdf
python -m vizad quiz "log(x1) + x1*x2 - sin(x2)" --at x1=2 x2=5      (asks, reads, scores)
python -m vizad slides notebooks/05_reverse_mode.ipynb      (slides, no network)
python -m vizad grade path/to/autodiff.py --course 599w      (--json for a gradebook)
python -m vizad grade b_gradients.ipynb --course exercises   (an exercise notebook)
python -m vizad grade submissions/ --course micrograd --csv scores.csv --results results.json

``grade`` exits with 0 when every case (skipped ones aside) of every submission passes, 1 when
some case fails, 2 when some submission cannot be graded (missing, its import fails, ends or
hangs its process, or it tampers with the grader's channel).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import unicodedata
from pathlib import Path

from vizad.errors import ArgumentError, ExpressionError, VizadError
from vizad.expr import parse_expression
from vizad.view.export import page_html
from vizad.classroom.grading import Limits, batch, courses, grade, jail
from vizad.view.render.options import DECIMALS, LAYOUT_BUDGET, MAX_BOXES, DrawOptions
from vizad.view.files import check_output, write_output
from vizad.trace.text import latex_to_text, printable

__all__ = ["main"]


#: The views a walkthrough can show (forward mode calls the extended view "tangent" and the
#: laid one "tangents"; a trace refuses the other mode's names, saying its own).
VIEWS = ["forward", "adjoint", "backprop", "tangent", "tangents"]
VIEW_HELP = (
    "the graph to show: forward; adjoint (reverse) or tangent (forward mode), the graph "
    "extended; backprop or tangents, the results laid on the forward graph (default: the "
    "extended graph)"
)
MODE_HELP = "reverse mode (adjoints v̄, the default) or forward mode (tangents v̇)"
DECIMALS_HELP = f"decimals of the values shown (default {DECIMALS})"
WRT_HELP = (
    "reverse mode: the inputs to differentiate by (default: all); forward mode: the input "
    "whose tangent is 1 (default: the first)"
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m vizad",
        description=" ".join(__doc__.split("\n\n")[0].split()),
        epilog="python -m vizad COMMAND --help describes each command's options.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    walk = commands.add_parser("walkthrough", help="write a walkthrough as an HTML page")
    _traced_options(walk)
    walk.add_argument(
        "-o",
        "--output",
        default="walkthrough.html",
        help="the HTML file to write (default walkthrough.html); - writes to standard output",
    )
    walk.add_argument("--view", choices=VIEWS, help=VIEW_HELP)
    walk.add_argument("--decimals", type=int, default=DECIMALS, help=DECIMALS_HELP)
    _drawn_options(walk)
    frames = commands.add_parser("frames", help="write one picture per step (for slides)")
    _traced_options(frames)
    frames.add_argument("-o", "--output", default="frames", help="the directory to write")
    frames.add_argument(
        "--format", choices=["svg", "pdf", "png"], default="svg", help="the pictures' format"
    )
    frames.add_argument("--view", choices=VIEWS, help=VIEW_HELP)
    frames.add_argument("--scale", type=float, default=1.0, help="PNG size factor (96 dpi × scale)")
    frames.add_argument("--decimals", type=int, default=DECIMALS, help=DECIMALS_HELP)
    frames.add_argument(
        "--show-pending",
        action="store_true",
        help="show the values of the steps still to come (by default a frame writes them ?)",
    )
    _drawn_options(frames)
    frames.add_argument(
        "--timeout", type=float, default=30.0, help="seconds dot may take per frame (default 30)"
    )
    quiz = commands.add_parser(
        "quiz", help="a quiz in the terminal: each step's values asked, answers read and scored"
    )
    _traced_options(quiz)
    slides = commands.add_parser(
        "slides",
        help="a notebook as slides that need no network (vizad's deck and KaTeX inlined)",
    )
    slides.add_argument("notebook", help="the notebook (its outputs as stored)")
    slides.add_argument(
        "-o", "--output", help="the HTML file to write (default: NOTEBOOK.slides.html beside it)"
    )
    grade = commands.add_parser("grade", help="grade a student's engine with its course's cases")
    grade.add_argument(
        "path",
        nargs="+",
        help="submissions: .py files, notebooks, package directories "
        "(needle/), students' folders, or folders of those",
    )
    grade.add_argument("--course", required=True, choices=courses.names())
    grade.add_argument("--json", action="store_true", help="the reports as JSON")
    grade.add_argument("--csv", help="write each submission's score and points to this CSV")
    grade.add_argument("--results", help="write Gradescope's results.json here")
    grade.add_argument(
        "--points", type=_positive("--points"), help="the CSV's points out of this (nbgrader)"
    )
    grade.add_argument("--jobs", type=_jobs, default=2, help="submissions graded at once")
    grade.add_argument(
        "--case-timeout", type=_seconds("--case-timeout"), default=10.0, help="seconds a case"
    )
    grade.add_argument(
        "--seed",
        type=int,
        help="draw the cases' inputs from this number (keep it to yourself: answers "
        "memorised for the published inputs then fail); default: the published inputs",
    )
    grade.add_argument(
        "--timeout",
        type=_seconds("--timeout"),
        default=120.0,
        help="seconds a submission (all its cases)",
    )
    grade.add_argument(
        "--isolation",
        choices=jail.MODES,
        default="auto",
        help="how each submission is isolated: bubblewrap (a sandbox of namespaces), uid (a "
        "user of its own, as root), none; auto (the default): the first that works here",
    )
    grade.add_argument(
        "--no-isolation",
        action="store_true",
        help="run submissions as your own user, guarded only within Python (trusted code "
        "only; every result says so)",
    )
    return parser


#: The longest a case or a submission may be given (a day): larger is a typo, and a time
#: limit the operating system cannot hold.
MOST_SECONDS = 86400.0


def _positive(option: str):
    """argparse's type for ``option``: a finite number above 0 (its own message otherwise)."""

    def read(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{option} takes a number, got {text!r}") from None
        if not math.isfinite(value) or value <= 0:
            raise argparse.ArgumentTypeError(
                f"{option} takes a finite number above 0, got {text!r}"
            )
        return value

    return read


def _seconds(option: str):
    """argparse's type for ``option``: seconds above 0, at most a day."""
    positive = _positive(option)

    def read(text: str) -> float:
        value = positive(text)
        if value > MOST_SECONDS:
            raise argparse.ArgumentTypeError(
                f"{option} takes at most {MOST_SECONDS:g} seconds (a day), got {text!r}"
            )
        return value

    return read


def _jobs(text: str) -> int:
    """--jobs: submissions graded at once, 1 to 64."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--jobs takes a whole number, got {text!r}") from None
    if not 1 <= value <= 64:
        raise argparse.ArgumentTypeError(f"--jobs takes 1 to 64 submissions at once, got {value}")
    return value


def _traced_options(parser: argparse.ArgumentParser) -> None:
    """What every command traces: the expression, its variables' values, the mode, wrt."""
    parser.add_argument("expression", help='e.g. "log(x1) + x1*x2 - sin(x2)"')
    parser.add_argument(
        "--at",
        nargs="+",
        required=True,
        metavar="NAME=VALUE",
        help="the value of every variable, e.g. x1=2 x2=5",
    )
    parser.add_argument("--mode", choices=["reverse", "forward"], default="reverse", help=MODE_HELP)
    parser.add_argument("--wrt", nargs="+", metavar="NAME", help=WRT_HELP)


def _drawn_options(parser: argparse.ArgumentParser) -> None:
    """The options that draw the views as vz.render.DrawOptions's fields do (--decimals is
    each command's own: its default is the command line's, 3)."""
    parser.add_argument(
        "--max-boxes",
        type=int,
        default=MAX_BOXES,
        metavar="N",
        help=f"summarise a view with more than N boxes (default {MAX_BOXES})",
    )
    parser.add_argument(
        "--collapse",
        nargs="+",
        metavar="SCOPE",
        help="draw these scopes as one box each (a number: every scope that deep; "
        '"repeats": each run of repeated blocks as one box)',
    )
    parser.add_argument(
        "--detail", action="store_true", help="show every node of the extended views"
    )
    parser.add_argument(
        "--reads",
        action="store_true",
        help="draw the edges by which the extended graph reads forward values",
    )
    parser.add_argument(
        "--no-legend",
        dest="legend",
        action="store_false",
        help="leave out the legend of the step states (for a slide)",
    )
    heading = parser.add_mutually_exclusive_group()
    heading.add_argument(
        "--heading", metavar="TEXT", help="the drawing's title line, instead of vizad's"
    )
    heading.add_argument(
        "--no-heading",
        dest="heading",
        action="store_const",
        const=False,
        help="no title line nor note over the drawing (a slide's own title says it)",
    )
    parser.add_argument(
        "--budget",
        type=_budget,
        default=LAYOUT_BUDGET,
        metavar="SECONDS",
        help=f"the seconds a view's layout may take (default {LAYOUT_BUDGET:g}); "
        "none: every view laid out in full",
    )


def _budget(text: str) -> float | None:
    """--budget's value: seconds, or none (no budget)."""
    return None if text.strip().lower() == "none" else float(text)


def _drawn(args) -> DrawOptions:
    """The drawing options (vz.render.DrawOptions) from the command line."""
    collapse = args.collapse
    if collapse is not None and len(collapse) == 1:  # a depth, "repeats" or one scope
        collapse = int(collapse[0]) if collapse[0].isdigit() else collapse[0]
    return DrawOptions(
        decimals=getattr(args, "decimals", None),
        max_boxes=args.max_boxes,
        collapse=collapse,
        detail=args.detail,
        reads=args.reads,
        budget=args.budget,
        legend=args.legend,
        heading=args.heading,
    )


def _name(typed: str, names: dict, option: str) -> str:
    """A name typed on the command line as the parser reads names (Python normalises them,
    NFKC: the micro sign µ is the Greek μ), or an ArgumentError naming what differs."""
    name = unicodedata.normalize("NFKC", typed)
    if name not in names:
        listed = ", ".join(names) or "no variables"
        raise ArgumentError(
            f"{option} gives {typed!r}, which is not in the expression (it has {listed})"
        )
    return name


def _values(pairs: list[str], names: dict) -> dict:
    feed = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep:
            raise ArgumentError(f"--at takes NAME=VALUE pairs; got {pair!r}")
        name = _name(name, names, "--at")
        try:
            feed[names[name]] = float(value)
        except ValueError:
            raise ArgumentError(f"--at {name}: {value!r} is not a number") from None
    missing = [n for n in names if names[n] not in feed]
    if missing:
        raise ArgumentError(f"--at is missing a value for {', '.join(missing)}")
    return feed


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "grade":
        return _grade(args)
    if args.command == "slides":
        return _slides(args)
    from vizad import export_frames, trace_forward, trace_reverse

    try:
        output = _output(args.output) if args.command == "walkthrough" else None
        y, names = parse_expression(args.expression)
        feed = _values(args.at, names)
        chosen = [names[_name(n, names, "--wrt")] for n in args.wrt] if args.wrt else None
        if args.mode == "reverse":
            trace = trace_reverse(y, chosen, feed, decimals=getattr(args, "decimals", DECIMALS))
        else:
            first = chosen[0] if chosen else next(iter(names.values()))
            trace = trace_forward(y, first, feed, decimals=getattr(args, "decimals", DECIMALS))
        if args.command == "quiz":
            return _quiz(trace)
        if args.command == "frames":
            paths = export_frames(
                trace,
                args.output,
                format=args.format,
                view=args.view,
                scale=args.scale,
                show_pending=args.show_pending,
                timeout=args.timeout,
                options=_drawn(args),
            )
            sys.stdout.write(f"wrote {len(paths)} {args.format.upper()} frames to {args.output}\n")
            return 0
        title = f"{args.expression} at " + ", ".join(args.at)
        page = page_html(trace, view=args.view, title=title, options=_drawn(args))
        if output is None:  # -o -: the page on standard output
            sys.stdout.write(page)
            return 0
        path = write_output(output, page, "-o")
    except ExpressionError as exc:  # the expression, with a caret under the problem
        sys.stderr.write(f"error: {exc}\n")
        return 2
    except VizadError as exc:
        sys.stderr.write(f"error: {_one_line(str(exc))}\n")
        return 2
    except OSError as exc:  # cannot write the file (permissions, a full disk)
        sys.stderr.write(f"error: cannot write {args.output}: {exc.strerror or exc}\n")
        return 2
    sys.stdout.write(f"wrote {path} ({len(trace.steps)} steps, {args.mode} mode)\n")
    return 0


def _slides(args) -> int:
    """The notebook's slides written (vizad.view.slides): 0, or 2 with the error on one line."""
    from vizad.view.slides import export_slides

    try:
        path = export_slides(args.notebook, args.output)
    except VizadError as exc:
        sys.stderr.write(f"error: {_one_line(str(exc))}\n")
        return 2
    except OSError as exc:
        sys.stderr.write(f"error: cannot write {args.output}: {exc.strerror or exc}\n")
        return 2
    sys.stdout.write(f"wrote {path}\n")
    return 0


def _quiz(trace) -> int:
    """Each step's questions asked on standard output and answered on standard input (a
    wrong try gets a hint, a second one the answer; an answer that cannot be read costs no
    try; an empty line skips); the score at the end. 0 when every answer was right."""
    from vizad.trace.quiz import RULE, judge, questions

    out = sys.stdout
    for stream, errors in ((sys.stdin, "replace"), (out, "backslashreplace")):
        if hasattr(stream, "reconfigure"):  # any bytes typed read, any text echoed written
            stream.reconfigure(errors=errors)
    out.write(f"{trace.describe()}\n{RULE}\nAn empty line skips a question.\n")
    asked = [q for qs in questions(trace) for q in qs]
    right = done = 0
    for n, q in enumerate(asked):
        step = trace.steps[q.step]
        if n == 0 or asked[n - 1].step != q.step:
            out.write(f"\nstep {q.step + 1} of {len(trace.steps)}: {step.label} = "
                      f"{latex_to_text(step.definition)}\n")  # fmt: skip
        tries = 0
        while True:
            out.write(f"{q.prompt} = ")
            out.flush()
            try:
                line = printable(sys.stdin.readline())
            except KeyboardInterrupt:  # Ctrl-C: stopped as at the end of input
                line = ""
            if not line:  # end of input: the quiz stops here
                out.write(f"\nstopped: score {right}/{done} ({len(asked) - done} not asked)\n")
                return 1
            if not line.strip():
                out.write(f"skipped: {q.prompt} = {q.shown}\n")
                break
            verdict = judge(q, line)
            if verdict.status == "refused":
                out.write(verdict.message + "\n")
                continue
            if verdict.right:
                right += 1
                out.write(f"right: {q.prompt} = {q.shown}\n")
                break
            tries += 1
            if tries < 2:
                close = f" ({verdict.message})" if verdict.message else ""
                out.write(f"not {line.strip()}{close}: try again (one more try). Hint: {q.hint}\n")
                continue
            out.write(f"the answer: {q.prompt} = {q.shown}\n")
            break
        done += 1
    out.write(f"\nscore {right}/{len(asked)}\n")
    return 0 if right == len(asked) else 1


def _grade(args) -> int:
    """The reports of ``vz.grade`` on standard output (and the CSV and Gradescope files
    asked for): 0 when every case passes, 1 when some fail, 2 when a submission cannot be
    graded."""
    limits = Limits(case_seconds=args.case_timeout, submission_seconds=args.timeout)
    try:  # every value checked before anyone is graded
        for option, path in (("--csv", args.csv), ("--results", args.results)):
            if path is not None:
                _writable(path, option)
        for path in args.path:
            if not Path(path).exists():
                raise ArgumentError(f"grade: {path} does not exist; give a submission's path")
        if args.no_isolation and args.isolation not in ("auto", "none"):
            raise ArgumentError(f"grade: --no-isolation contradicts --isolation {args.isolation}")
        isolation = jail.choose("none" if args.no_isolation else args.isolation)
    except VizadError as exc:
        sys.stderr.write(f"error: {_one_line(str(exc))}\n")
        return 2
    if len(args.path) == 1 and not _folder_of_submissions(args.path[0], args.course):
        try:
            one = grade(
                args.path[0], args.course, limits=limits, seed=args.seed, isolation=isolation
            )
            graded = [(Path(args.path[0]), one)]
        except VizadError as exc:
            sys.stderr.write(f"error: {_one_line(str(exc))}\n")
            return 2
    else:
        graded = batch.grade_all(
            args.path, args.course, limits, args.jobs, args.seed, isolation=isolation
        )
    reports = [r for _, r in graded]
    if args.json:
        data = [{"path": batch.shown_path(p), **r.as_dict()} for p, r in graded]
        shown = data[0] if len(data) == 1 else data
        sys.stdout.write(json.dumps(shown, indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write("\n".join(repr(r) for r in reports) + "\n")
    try:
        if args.csv:
            write_output(args.csv, batch.to_csv(graded, args.points), "--csv")
        if args.results:
            write_output(args.results, batch.gradescope_json(graded), "--results")
    except (OSError, VizadError) as exc:  # the disk filled, the file went away meanwhile
        sys.stderr.write(f"error: the grades are above, but {_one_line(str(exc))}\n")
        return 2
    return batch.exit_code(reports)


def _writable(path: str, option: str) -> None:
    """Refuse, before grading, an output path that cannot be written: a directory, a missing
    folder, a loop of links (check_output), or a file without write permission (even for
    root: a TA's read-only file is not to be replaced)."""
    check_output(path, option)
    if os.path.isfile(path) and not os.stat(path).st_mode & 0o222:
        raise ArgumentError(f"{option}: {path} is read-only; give a file that may be written")


def _folder_of_submissions(path: str, course: str) -> bool:
    """Whether ``path`` is a folder of submissions rather than one."""
    return batch.submissions([path], course) != [Path(path)]


def _output(text: str) -> Path | None:
    """The file ``-o`` names (None for standard output), checked before any work."""
    if text == "-":
        return None
    check_output(text, "-o")
    return Path(text)


def _one_line(message: str) -> str:
    """An error message on one line (expression errors draw a caret on the lines below)."""
    first, *rest = message.splitlines() or [""]
    return first if not rest else first + " — " + " / ".join(r.strip() for r in rest if r.strip())
