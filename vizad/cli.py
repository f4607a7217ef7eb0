"""The command line for lecturers and TAs: a walkthrough as a self-contained HTML page, one
picture per step for slides, or a student's engine graded with its course's cases.

python -m vizad walkthrough "log(x1) + x1*x2 - sin(x2)" --at x1=2 x2=5 -o walkthrough.html
python -m vizad frames "log(x1) + x1*x2 - sin(x2)" --at x1=2 x2=5 -o frames --format pdf
python -m vizad grade path/to/autodiff.py --course 599w      (--json for a gradebook)

``grade`` exits with 0 when every case passes, 1 when some fail, 2 when the module cannot be
read.
"""

from __future__ import annotations

import argparse
import sys
import unicodedata
from pathlib import Path

from .errors import ArgumentError, ExpressionError, VizadError
from .expr import parse_expression
from .export import page_html
from .grading import grade
from .files import check_output, write_output

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m vizad", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    walk = commands.add_parser("walkthrough", help="write a walkthrough as an HTML page")
    walk.add_argument("expression", help='e.g. "log(x1) + x1*x2 - sin(x2)"')
    walk.add_argument(
        "--at",
        nargs="+",
        required=True,
        metavar="NAME=VALUE",
        help="the value of every variable, e.g. x1=2 x2=5",
    )
    walk.add_argument(
        "-o",
        "--output",
        default="walkthrough.html",
        help="the HTML file to write (default walkthrough.html); - writes to standard output",
    )
    walk.add_argument("--mode", choices=["reverse", "forward"], default="reverse")
    walk.add_argument(
        "--wrt",
        nargs="+",
        metavar="NAME",
        help="reverse mode: the inputs to differentiate by (default: all); "
        "forward mode: the input whose tangent is 1 (default: the first)",
    )
    walk.add_argument("--view", choices=["forward", "adjoint", "backprop"], default="adjoint")
    walk.add_argument("--decimals", type=int, default=3)
    _drawn_options(walk)
    frames = commands.add_parser("frames", help="write one picture per step (for slides)")
    frames.add_argument("expression", help='e.g. "log(x1) + x1*x2 - sin(x2)"')
    frames.add_argument("--at", nargs="+", required=True, metavar="NAME=VALUE")
    frames.add_argument("-o", "--output", default="frames", help="the directory to write")
    frames.add_argument("--format", choices=["svg", "pdf", "png"], default="svg")
    frames.add_argument("--mode", choices=["reverse", "forward"], default="reverse")
    frames.add_argument("--wrt", nargs="+", metavar="NAME")
    frames.add_argument("--view", choices=["forward", "adjoint", "backprop"], default="adjoint")
    frames.add_argument("--scale", type=float, default=1.0, help="PNG size factor (96 dpi × scale)")
    frames.add_argument("--decimals", type=int, default=3)
    _drawn_options(frames)
    frames.add_argument(
        "--timeout", type=float, default=30.0, help="seconds dot may take per frame (default 30)"
    )
    grade = commands.add_parser("grade", help="grade a student's engine with its course's cases")
    grade.add_argument("path", help="the student's .py file, or package directory (needle/)")
    grade.add_argument("--course", required=True, choices=["599w", "needle", "micrograd"])
    grade.add_argument("--json", action="store_true", help="the report as JSON")
    return parser


def _drawn_options(parser: argparse.ArgumentParser) -> None:
    """The options that draw the views as vz.draw's max_boxes, collapse and detail do."""
    parser.add_argument(
        "--max-boxes",
        type=int,
        default=400,
        metavar="N",
        help="summarise a view with more than N boxes (default 400)",
    )
    parser.add_argument(
        "--collapse",
        nargs="+",
        metavar="SCOPE",
        help="draw these scopes as one box each (a number: every scope that deep)",
    )
    parser.add_argument(
        "--detail", action="store_true", help="show every node of the extended views"
    )


def _drawn(args) -> dict:
    """vz.draw's max_boxes, collapse and detail from the command line."""
    collapse = args.collapse
    if collapse is not None and len(collapse) == 1 and collapse[0].isdigit():
        collapse = int(collapse[0])
    return {"max_boxes": args.max_boxes, "collapse": collapse, "detail": args.detail}


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
    from . import export_frames, trace_forward, trace_reverse

    try:
        output = _output(args.output) if args.command == "walkthrough" else None
        y, names = parse_expression(args.expression)
        feed = _values(args.at, names)
        chosen = [names[_name(n, names, "--wrt")] for n in args.wrt] if args.wrt else None
        if args.mode == "reverse":
            trace = trace_reverse(y, chosen, feed, decimals=args.decimals)
        else:
            first = chosen[0] if chosen else next(iter(names.values()))
            trace = trace_forward(y, first, feed, decimals=args.decimals)
        if args.command == "frames":
            paths = export_frames(
                trace,
                args.output,
                format=args.format,
                view=args.view,
                scale=args.scale,
                timeout=args.timeout,
                **_drawn(args),
            )
            sys.stdout.write(f"wrote {len(paths)} {args.format.upper()} frames to {args.output}\n")
            return 0
        title = f"{args.expression} at " + ", ".join(args.at)
        page = page_html(trace, view=args.view, title=title, **_drawn(args))
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


def _grade(args) -> int:
    """The report of ``vz.grade`` on standard output: 0 when every case passes, 1 when some
    fail, 2 when the module cannot be read."""
    try:
        report = grade(args.path, args.course)
    except VizadError as exc:
        sys.stderr.write(f"error: {_one_line(str(exc))}\n")
        return 2
    sys.stdout.write((report.to_json() if args.json else repr(report)) + "\n")
    return 0 if report.passed else 1


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
