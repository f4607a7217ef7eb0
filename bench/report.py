"""Every benchmark in one run, written into docs/benchmarks.md: ``make bench``.

    python bench/report.py                     every benchmark, then docs/benchmarks.md
    python bench/report.py --only eager tape   these again; the file's other sections kept
    python bench/report.py --list              the benchmarks and their commands
    python bench/report.py --output PATH       write elsewhere (the default: docs/benchmarks.md)

Each benchmark is a script of bench/ run as its own process on this checkout's vizad
(``PYTHONPATH`` set to the checkout), one after the other; what it prints (its medians, its
peer measured in the same process and their ratios, its targets) goes into the file verbatim,
under the command that printed it, the time (UTC), the commit, the wall time and the load
before and after (``os.getloadavg``'s 1-minute average). The file holds the latest run of each
benchmark and nothing older: earlier figures are in git. A benchmark that fails or times out
is written with its exit status and the end of its output, and the run goes on.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "benchmarks.md"


@dataclasses.dataclass(frozen=True)
class Bench:
    """One section of the report: ``python bench/SCRIPT ARGS…`` and what it measures."""

    name: str
    title: str
    args: tuple[str, ...]
    measures: str
    timeout: int = 1800  # seconds

    def command(self) -> list[str]:
        return [sys.executable, *self.args]

    def shown(self) -> str:
        """The command as a person types it from the checkout's root."""
        return "PYTHONPATH=. .venv/bin/python " + " ".join(self.args)


BENCHES = (
    Bench("engine", "Engine", ("bench/engine.py",),
          "a 784-256-10 MLP through `vz.Executor` against numpy by hand, float64 and float32; "
          "`gradients()` on chains of 25k–100k nodes; a 50k-node scalar graph against a bare "
          "loop of the same numpy calls"),
    Bench("trace", "Walkthroughs", ("bench/trace.py", "20000"),
          "`trace_reverse` and `trace_forward` of a 20k-node random scalar graph against "
          "`gradients()` (`jvp()`) plus one run, in turns"),
    Bench("render", "Drawings", ("bench/render.py",),
          "a step's SVG restyled from one `Layout` against drawing and running `dot` again; a "
          "5,000-node graph drawn"),
    Bench("folding", "Folding repeated blocks", ("bench/folding.py",),
          "`find_folds` against building the scene it folds"),
    Bench("widget", "Opening a stepper", ("bench/widget.py",),
          "`vz.Stepper(trace)` against its three layouts alone"),
    Bench("stepper_ready", "Time to a usable stepper", ("bench/stepper_ready.py",),
          "JupyterLab at 1024×768 in headless Chromium: Shift+Enter to the cell's stepper "
          "drawn, fresh kernels, `import vizad` beside"),
    Bench("stepper_ready_without_dot", "Time to a usable stepper without `dot`",
          ("bench/stepper_ready.py", "--without-dot"),
          "the same, every view laid out in the page (as in JupyterLite)"),
    Bench("export", "Exports", ("bench/export.py", "--no-browser"),
          "`export_html` at 1k, 2k and 5k steps against the trace and its layouts; sizes, peak "
          "RSS; a `Stepper` at 5k steps"),
    Bench("layout", "Layout budget", ("bench/layout.py",),
          "the rung, boxes and layout time of each graph, `vz.step` to ready"),
    Bench("browser_layout", "Layout in the browser", ("bench/browser_layout.py",),
          "the WebAssembly Graphviz in Chromium against the `dot` program"),
    Bench("notebook_outputs", "Notebook outputs", ("bench/notebook_outputs.py",),
          "a 20-walkthrough notebook's size against its walkthroughs' data, with and without "
          "widget state; its nbconvert page's load"),
    Bench("eager", "The eager front end", ("bench/eager.py",),
          "µs per eager op against micrograd 0.1.0 and the symbolic path; memory; per op "
          "against PyTorch eager"),
    Bench("tape", "The eager engine's targets", ("bench/tape.py", "--repeat", "5"),
          "micrograd's demo step with the GC off and on against micrograd; an eager MLP step "
          "against numpy by hand (float64, float32); `sum`/`matmul` against torch; the GC's "
          "share of a training loop"),
    Bench("demo_loop", "micrograd's demo as its users run it", ("bench/demo_loop.py",),
          "one step and the training loop, each in fresh processes, against micrograd"),
    Bench("scalar_mlp", "Scalar graphs end to end", ("bench/scalar_mlp.py",),
          "micrograd's 2-16-16-1 MLP on 64 points, per forward node, against micrograd"),
    Bench("memory", "Memory", ("bench/memory.py",),
          "RSS around building and deleting a 1M-node chain and its gradients"),
    Bench("imports", "`import vizad`", ("bench/imports.py",),
          "`import vizad` against `import numpy`: fresh interpreters, then instruction counts"),
    Bench("bridges", "The bridges: PyTorch", ("bench/bridges.py",),
          "`from_torch` and `torch_backward` against PyTorch's forward and `backward()`"),
    Bench("bridges_jax", "The bridges: JAX", ("bench/bridges.py", "--jax"),
          "`from_jax` and `jax_backward` against `jax.value_and_grad`"),
    Bench("from_torch", "`from_torch` against `make_fx`", ("bench/from_torch.py",),
          "`vz.from_torch` against PyTorch's tracer alone"),
    Bench("grading", "Grading in a jail", ("bench/grading.py",),
          "one submission graded in each isolation against none"),
)  # fmt: skip

INTRO = """\
# Benchmarks

Every figure below was printed by one run of `make bench` (`bench/report.py`), each benchmark
under the command that printed it; the file holds the latest run of each, not a history (earlier
figures are in git: `git log -p docs/benchmarks.md`). To run one again and replace its section:
`PYTHONPATH=. .venv/bin/python bench/report.py --only NAME…`; to run a script alone, the command
shown in its section.

**What the figures mean.** Every time is a **median** of repeated runs after a warm-up (each
script says how many). A **ratio** is vizad's time over its peer (the baseline) measured **in the
same process, in turns** (A B A B …), so that a drift of the machine's speed hits both; what a run
built is freed outside its timing. **Wall** time includes waiting for a core, **CPU** time does
not: on a loaded machine compare the CPU figures and the ratios. The **load** is the 1-minute
load average before → after the benchmark (`os.getloadavg`): figures for the record are taken on
an idle machine (load below 1); at load 2 or more on a 2-core machine, absolute times stretch
and BLAS-bound ones (the MLPs) swing. **GC on / GC off**: where Python's cyclic garbage collector
matters (the eager engine), each figure says which. **Instructions** (`bench/imports.py`,
`bench/instructions.py`, valgrind's callgrind) do not move with the load (about 1 %).
`bench/instructions.py --base REV` (about 20 minutes) compares this tree with a revision and is
not part of this run.
"""

BEGIN, END = "<!-- bench: {} -->", "<!-- /bench: {} -->"
_SECTION = re.compile(r"<!-- bench: (\S+) -->\n.*?<!-- /bench: \1 -->\n", re.S)


@dataclasses.dataclass
class Run:
    """What one benchmark printed, and when and how it ran."""

    bench: Bench
    output: str
    status: int | None  # the exit status; None: timed out
    started: datetime.datetime
    wall: float
    load: tuple[float, float]


def run(bench: Bench) -> Run:
    """Run ``bench`` as a process of its own on this checkout's vizad."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"}
    before = os.getloadavg()[0]
    started = datetime.datetime.now(datetime.timezone.utc)
    start = time.perf_counter()
    try:
        done = subprocess.run(
            bench.command(), cwd=ROOT, env=env, capture_output=True, text=True,
            timeout=bench.timeout, check=False,
        )  # fmt: skip
        output, status = done.stdout + done.stderr, done.returncode
    except subprocess.TimeoutExpired as exc:
        output = _text(exc.stdout) + _text(exc.stderr)
        status = None
    wall = time.perf_counter() - start
    return Run(bench, output, status, started, wall, (before, os.getloadavg()[0]))


def _text(data: bytes | str | None) -> str:
    if data is None:
        return ""
    return data.decode(errors="replace") if isinstance(data, bytes) else data


def commit() -> str:
    """This checkout's commit, ``+`` when its tracked files differ from it."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                          capture_output=True, text=True, check=False).stdout.strip()  # fmt: skip
    dirty = subprocess.run(["git", "diff", "--quiet", "HEAD"], cwd=ROOT, check=False).returncode
    return (head or "unknown") + ("+" if dirty else "")


def section(result: Run, revision: str) -> str:
    """A benchmark's section: its heading, command, when, the load, and its output."""
    b = result.bench
    when = result.started.strftime("%Y-%m-%d %H:%M UTC")
    if result.status is None:
        outcome = f"**timed out** after {b.timeout} s; its output so far:"
    elif result.status:
        outcome = f"**failed** (exit status {result.status}); the end of its output:"
    else:
        outcome = "its output:"
    output = result.output.rstrip("\n")
    if result.status != 0:
        output = "\n".join(output.splitlines()[-40:])
    fence = "```"
    while fence in output:
        fence += "`"
    return (
        f"{BEGIN.format(b.name)}\n"
        f"## {b.title} (`{b.name}`)\n\n"
        f"{b.measures[0].upper()}{b.measures[1:]}.\n\n"
        f"`{b.shown()}` — {when}, {revision}, {result.wall:.0f} s wall, load "
        f"{result.load[0]:.1f} → {result.load[1]:.1f}; {outcome}\n\n"
        f"{fence}text\n{output}\n{fence}\n"
        f"{END.format(b.name)}\n"
    )


def write(sections: dict[str, str], machine: str, path: Path) -> None:
    """The report: the introduction, the machine, then each benchmark's section in
    BENCHES' order (sections of benchmarks not run kept as they were)."""
    index = "\n".join(
        f"| `{b.name}` | `{' '.join(b.args)}` | {b.measures} |"
        for b in BENCHES
        if b.name in sections
    )
    body = "\n".join(sections[b.name] for b in BENCHES if b.name in sections)
    path.write_text(
        f"{INTRO}\nMachine of the latest run: {machine}.\n\n"
        f"| benchmark | command | measures |\n| --- | --- | --- |\n{index}\n\n{body}",
        encoding="utf-8",
    )


def kept(path: Path) -> dict[str, str]:
    """The sections already in the report at ``path``, by benchmark name."""
    if not path.exists():
        return {}
    return {m.group(1): m.group(0) for m in _SECTION.finditer(path.read_text(encoding="utf-8"))}


def _machine() -> str:
    """bench/_timing.py's description of this machine (loaded by path: bench/ is not put on
    sys.path, where its trace.py would hide the standard library's)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "_bench_timing", Path(__file__).with_name("_timing.py")
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.machine()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    names = [b.name for b in BENCHES]
    parser.add_argument("--only", nargs="+", choices=names, metavar="NAME", help=", ".join(names))
    parser.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    parser.add_argument("--output", type=Path, default=DOC)
    args = parser.parse_args(argv)
    if args.list:
        for b in BENCHES:
            sys.stdout.write(f"{b.name:28} {b.shown()}\n")
        return 0
    chosen = [b for b in BENCHES if not args.only or b.name in args.only]
    sections = kept(args.output) if args.only else {}
    revision, failed = commit(), []
    for b in chosen:
        sys.stdout.write(f"{b.shown()} … ")
        sys.stdout.flush()
        result = run(b)
        sys.stdout.write(f"{result.wall:.0f} s, status {result.status}\n")
        if result.status != 0:
            failed.append(b.name)
        sections[b.name] = section(result, revision)
        write(sections, _machine(), args.output)  # after each: a stopped run keeps its part
    if failed:
        sys.stdout.write(f"failed or timed out: {', '.join(failed)}\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
