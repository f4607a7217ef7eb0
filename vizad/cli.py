"""The command line for lecturers: a walkthrough as a self-contained HTML page.

python -m vizad walkthrough "log(x1) + x1*x2 - sin(x2)" --at x1=2 x2=5 -o walkthrough.html
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .errors import ArgumentError, VizadError
from .expr import parse_expression

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
    walk.add_argument("-o", "--output", default="walkthrough.html", type=Path)
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
    return parser


def _values(pairs: list[str], names: dict) -> dict:
    feed = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep:
            raise ArgumentError(f"--at takes NAME=VALUE pairs; got {pair!r}")
        if name not in names:
            raise ArgumentError(
                f"--at gives {name!r}, which is not in the expression "
                f"(it has {', '.join(names) or 'no variables'})"
            )
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
    from . import export_html, trace_forward, trace_reverse

    try:
        y, names = parse_expression(args.expression)
        feed = _values(args.at, names)
        chosen = [names[n] for n in args.wrt] if args.wrt else None
        if args.wrt and any(n not in names for n in args.wrt):
            raise ArgumentError(f"--wrt names a variable not in the expression: {args.wrt}")
        if args.mode == "reverse":
            trace = trace_reverse(y, chosen, feed, decimals=args.decimals)
        else:
            seed = chosen[0] if chosen else next(iter(names.values()))
            trace = trace_forward(y, feed, {seed: 1.0}, decimals=args.decimals)
        path = export_html(
            trace, args.output, view=args.view, title=f"{args.expression} at " + ", ".join(args.at)
        )
    except VizadError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {path} ({len(trace.steps)} steps, {args.mode} mode)")
    return 0
