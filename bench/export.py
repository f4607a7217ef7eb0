"""Exports and the stepper at scale (issue 16).

    python bench/export.py            # every size, the Python step, the browser's "last step"
    python bench/export.py --no-browser
    python bench/export.py --first       # the first size only
    python bench/export.py --against main   # the first size, against git ref main, one process
    python bench/export.py --against main 11   # the same, medians of 11 (default 5)

For random scalar graphs of about 1,000, 2,000 and 5,000 forward nodes (bench/render.py's
``graph``), each size in its own subprocess (so that its peak RSS is its own):
``vz.export_html(trace, path)`` (medians of 3; and with ``check=True``, every step's rule
checked by ``trace.check()``, which the default leaves to traces of at most 400 steps), the
file's size and bytes per step, the peak RSS of the process (VmHWM), against the baselines
measured in the same process: the trace itself, the three layouts alone and the export
without the boxes the page opens itself (run in turns; wall and CPU seconds, the latter
with ``dot``'s: on a busy machine the wall time is mostly waiting). Then the Python
cost of one step of a ``vz.Stepper`` of the 5,000-node trace (``stepper.step = k`` and
``next()``), and, with Debian's Chromium and Playwright, "last step" on the exported
5,000-step page (click to the next frame, timed in the page).

``--against REF``: the first size's export and layouts by this checkout and by git ref REF's
``vizad`` (extracted with ``git archive`` and imported as ``vizad_before``) in one process, in
turns (medians of 5, or of the number given after REF; CPU seconds with ``dot``'s): the figure
to compare on a busy machine. ("layouts" are the three views laid out by ``dot``; an export
whose page lays boxes out itself runs ``dot`` on the view it opens at only.)

Targets: export linear in the number of steps; 5,000 nodes in <= 10 s, <= 25 MiB, <= 1.5 GiB
peak RSS; 1,000 nodes in <= 2 s; a step <= 2 ms in Python; "last step" <= 50 ms in the browser.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import vizad as vz  # noqa: E402
from _timing import load, machine, median_time  # noqa: E402
from render import graph  # noqa: E402

#: Ops given to graph(40, ops, seed=1): about 1,000, 2,000 and 5,000 forward nodes.
SIZES = (1700, 3400, 8800)
CHROMIUM = "/usr/bin/chromium"


def trace_of(ops: int):
    y, xs = graph(40, ops, seed=1)
    return vz.trace_reverse(y, xs, {x: 0.3 for x in xs})


def peak_rss() -> int:
    """The peak resident set size of this process so far, in bytes (Linux's VmHWM)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def cpu_seconds() -> float:
    """This process's CPU time and that of its finished children (``dot``), in seconds: on a
    busy machine, what a run costs rather than how long it waited for a core."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def paired(fns: dict, repeat: int = 3) -> dict[str, tuple[float, float]]:
    """Name → (median wall seconds, median CPU seconds) of each function, run in turns (one of
    each per round, after one warm-up round), so that a change of load affects them alike."""
    for fn in fns.values():
        fn()
    wall: dict[str, list[float]] = {k: [] for k in fns}
    cpu: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            w, c = time.perf_counter(), cpu_seconds()
            fn()
            wall[name].append(time.perf_counter() - w)
            cpu[name].append(cpu_seconds() - c)
    return {k: (statistics.median(wall[k]), statistics.median(cpu[k])) for k in fns}


def export_plain(trace, path) -> Path:
    """``vz.export_html`` with no box opened in the page (the baseline of the openings)."""
    from vizad.view.widget import data

    carried, data.PAGE_OPENINGS = data.PAGE_OPENINGS, 0
    try:
        return vz.export_html(trace, path)
    finally:
        data.PAGE_OPENINGS = carried


def one_size(ops: int) -> dict:
    """Runs in a subprocess: the figures of one size, as a dict."""
    t_trace = median_time(lambda: trace_of(ops), repeat=3)
    trace = trace_of(ops)
    nodes, steps = len(trace.graph), len(trace.steps)
    with tempfile.TemporaryDirectory() as folder:
        path, plain = Path(folder) / "walkthrough.html", Path(folder) / "plain.html"
        t = paired(
            {
                "layouts": lambda: [vz.render.Layout(trace, v) for v in trace.views],
                "export": lambda: vz.export_html(trace, path),
                "plain": lambda: export_plain(trace, plain),
            }
        )
        t_checked = median_time(lambda: vz.export_html(trace, path, check=True), repeat=3)
        vz.export_html(trace, path)
        size, plain_size = path.stat().st_size, plain.stat().st_size
    return {
        "nodes": nodes,
        "steps": steps,
        "trace": t_trace,
        "layouts": t["layouts"][0],
        "export": t["export"][0],
        "plain": t["plain"][0],
        "cpu": {k: v[1] for k, v in t.items()},
        "checked": t_checked,
        "size": size,
        "plain_size": plain_size,
        "rss": peak_rss(),
    }


def stepper_step(ops: int) -> dict:
    """Python's cost of one step of a Stepper (and of opening it) on the trace of ``ops``."""
    trace = trace_of(ops)
    t_open = median_time(lambda: vz.Stepper(trace, check=False), repeat=3)
    stepper = vz.Stepper(trace, check=False)
    n = stepper.n_steps
    ks = iter(range(10**9))

    def set_step():
        stepper.step = 1 + (next(ks) * 7919) % n  # jumps all over the walkthrough

    def next_step():
        if stepper.step == n:
            stepper.step = 1
        stepper.next()

    return {
        "steps": n,
        "open": t_open,
        "set": median_time(set_step, repeat=501),
        "next": median_time(next_step, repeat=501),
    }


def browser_last_step(ops: int) -> dict | None:
    """ "Last step" (click to the next drawn frame, measured in the page) on the exported page
    of the trace of ``ops``, medians of 5 (back to step 1 between runs)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    if not Path(CHROMIUM).exists():
        return None
    trace = trace_of(ops)
    with tempfile.TemporaryDirectory() as folder:
        path = vz.export_html(trace, Path(folder) / "long.html")
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=CHROMIUM,
                args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
            )
            page = browser.new_page(viewport={"width": 1024, "height": 768})
            start = time.perf_counter()
            page.goto(path.as_uri())
            page.wait_for_selector(".vizad-stepper .vz-panel")
            opened = time.perf_counter() - start
            times = []
            for _ in range(6):
                page.evaluate(_CLICK, ".vz-first")  # back to step 1 (disabled when there)
                times.append(page.evaluate(_CLICK, ".vz-last"))
            counter = page.locator(".vizad-stepper .vz-counter").inner_text()
            browser.close()
    return {
        "steps": len(trace.steps),
        "opened": opened,
        "last": statistics.median(times[1:]),
        "counter": counter,
    }


# click a control, wait for the next animation frame: the update's own time (as the browser
# tests time it)
_CLICK = """async (sel) => {
  const b = document.querySelector('.vizad-stepper ' + sel);
  const t0 = performance.now();
  b.click();
  await new Promise((r) => requestAnimationFrame(r));
  return performance.now() - t0; }"""


def against(ref: str, repeat: int = 5) -> None:
    """The first size's export_html and layouts by this checkout and by git ref ``ref``, in
    one process, in turns: (wall, CPU) medians and the CPU beyond the layouts."""
    import importlib
    import shutil

    folder = Path(tempfile.mkdtemp())
    try:
        archive = subprocess.run(
            ["git", "archive", ref, "vizad"], cwd=HERE.parent, check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
        (folder / "vizad").rename(folder / "vizad_before")
        sys.path.insert(0, str(folder))
        engines = {ref: importlib.import_module("vizad_before"), "this checkout": vz}
        traces = {}
        for name, engine in engines.items():
            rng = np.random.default_rng(1)  # bench/render.py's graph(40, SIZES[0], seed=1)
            xs = [engine.Variable(f"x{k}") for k in range(40)]
            nodes = list(xs)
            for _ in range(SIZES[0]):
                a, b = rng.integers(max(0, len(nodes) - 30), len(nodes), 2)
                nodes.append(nodes[a] * nodes[b] if rng.random() < 0.5 else engine.tanh(nodes[a]))
            y = engine.ops.add_n(*nodes[-5:])
            traces[name] = engine.trace_reverse(y, xs, {x: 0.3 for x in xs})
        fns = {}
        for name, engine in engines.items():
            trace = traces[name]
            fns[f"{name}: layouts"] = lambda e=engine, t=trace: [
                e.render.Layout(t, v, frame=(592, 250)) for v in t.views
            ]
            fns[f"{name}: export"] = lambda e=engine, t=trace, n=name: e.export_html(
                t, folder / f"{n.replace(' ', '_')}.html"
            )
        t = paired(fns, repeat)
        print(load())
        steps = len(traces[ref].steps)
        print(f"export_html of the {steps}-step trace, {ref} against this checkout")
        for name in engines:
            lay, exp = t[f"{name}: layouts"], t[f"{name}: export"]
            size = (folder / f"{name.replace(' ', '_')}.html").stat().st_size
            print(
                f"  {name:>14}: export {exp[0]:.2f} s wall, {exp[1]:.2f} s CPU; layouts "
                f"{lay[1]:.2f} s CPU; beyond the layouts {exp[1] - lay[1]:.2f} s CPU; "
                f"{size / 2**20:.2f} MiB"
            )
        ratio = t["this checkout: export"][1] / t[f"{ref}: export"][1]
        print(f"  whole export, CPU: this checkout / {ref} = {ratio:.2f}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _child(what: str, ops: int) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--child", what, str(ops)],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(browser: bool, first: bool = False) -> None:
    print(machine())
    print(load())
    print("vz.export_html(trace, path) of random scalar graphs, each size in its own process")
    print(
        f"  {'nodes':>6} {'steps':>6} | {'trace':>7} {'layouts':>8} | {'export':>7} "
        f"{'÷ layouts':>9} {'µs/step':>8} | {'checked':>7} | {'file':>9} {'B/step':>7} | "
        f"{'peak RSS':>9}"
    )
    rows = []
    for ops in SIZES[:1] if first else SIZES:
        r = _child("size", ops)
        rows.append(r)
        print(
            f"  {r['nodes']:>6} {r['steps']:>6} | {r['trace']:6.2f}s {r['layouts']:7.2f}s | "
            f"{r['export']:6.2f}s {r['export'] / r['layouts']:9.2f} "
            f"{r['export'] / r['steps'] * 1e6:8.0f} | {r['checked']:6.2f}s | "
            f"{r['size'] / 2**20:6.2f}MiB "
            f"{r['size'] / r['steps']:7.0f} | {r['rss'] / 2**20:6.0f}MiB"
        )
        cpu = r["cpu"]
        print(
            f"         without the boxes the page opens itself: {r['plain']:.2f}s, "
            f"{r['plain_size'] / 2**20:.2f}MiB; CPU seconds (with dot's): layouts "
            f"{cpu['layouts']:.2f}, export {cpu['export']:.2f} "
            f"({cpu['export'] - cpu['layouts']:.2f} beyond the layouts), without openings "
            f"{cpu['plain']:.2f}"
        )
    if first:
        print(load())
        return
    small, large = rows[0], rows[-1]
    growth = (large["export"] / large["steps"]) / (small["export"] / small["steps"])
    print(
        f"  per step, largest / smallest: time {growth:.2f}, size "
        f"{(large['size'] / large['steps']) / (small['size'] / small['steps']):.2f} (1.00: linear)"
    )
    print(
        "  (checked: export_html(..., check=True), every step's rule checked by trace.check(); "
        "by default, like vz.Stepper, only traces of <= 400 steps are)"
    )
    print("  targets: 5,000 nodes <= 10 s, <= 25 MiB, <= 1.5 GiB; 1,000 nodes <= 2 s")
    s = _child("stepper", SIZES[-1])
    print(
        f"vz.Stepper of the {s['steps']}-step trace: opening {s['open']:.2f} s; one step in "
        f"Python: stepper.step = k {s['set'] * 1e6:.0f} µs, next() {s['next'] * 1e6:.0f} µs "
        "(target <= 2 ms)"
    )
    if browser:
        b = _child("browser", SIZES[-1])
        if b is None:
            print("browser: skipped (needs /usr/bin/chromium and playwright)")
        else:
            print(
                f"exported {b['steps']}-step page in headless Chromium: opened in "
                f'{b["opened"]:.2f} s, "last step" {b["last"]:.1f} ms (median of 5; '
                f"target <= 50 ms) -> {b['counter'].splitlines()[0]}"
            )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        what, ops = sys.argv[2], int(sys.argv[3])
        run = {"size": one_size, "stepper": stepper_step, "browser": browser_last_step}[what]
        print(json.dumps(run(ops)))
    elif sys.argv[1:2] == ["--against"]:
        against(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 5)
    else:
        main(browser="--no-browser" not in sys.argv[1:], first="--first" in sys.argv[1:])
