"""The layout budget: how long a person waits for a picture, whatever the graph.

    python bench/layout.py                 the figures, with dot (docs/benchmarks.md)
    python bench/layout.py --browser       the same views laid out by the WebAssembly Graphviz
                                           in headless Chromium (as bench/browser_layout.py;
                                           vz.step timed with VIZAD_LAYOUT=browser)
    python bench/layout.py --calibrate     dot's CPU times against vizad.view.render.budget's
                                           prediction, and the constants fitted to them

The graphs: the weight-shared chain (an unrolled RNN: xs = 10 Variables, h = xs[0]; for i in
range(L): h = tanh(h * xs[i % 10] + xs[(i + 3) % 10])) at 10, 20, 45, 100, 200 and 1,000
levels, the 2-layer MLP on a batch, the Hessian-vector product of vz.examples and a random
5,000-node graph. For each: the seconds from vz.step(...) to the Stepper made (the view shown
first laid out: the others are laid out when first shown), and per view the rung of the budget
taken, its boxes and its layout time (medians of 3, ratios to the 10-level chain). Target:
every layout <= 2 s on this machine.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import vizad as vz  # noqa: E402
from _timing import load, machine  # noqa: E402
from render import graph  # noqa: E402
from vizad.view.render import budget as plan  # noqa: E402
from vizad.view.render.dot import to_drawing  # noqa: E402
from vizad.view.render.summary import scene_for  # noqa: E402

REPEAT = 3
LEVELS = (10, 20, 45, 100, 200, 1000)


def random_graph():
    """bench/render.py's random scalar graph of about 5,000 nodes (those the output depends
    on)."""
    y, xs = graph(40, 8800, seed=1)
    return y, xs, {x: 0.3 for x in xs}


def cases():
    """(what, a function making the Stepper)."""
    made = []
    for levels in LEVELS:
        # vz.examples.rnn is the weight-shared chain, traced (its graph built too, a few ms)
        made.append((f"chain of {levels}", lambda levels=levels: vz.step(vz.examples.rnn(levels))))
    mlp, hvp = vz.examples.mlp(), vz.examples.hvp()
    made.append(("MLP (batch 8)", lambda: vz.Stepper(mlp)))
    made.append(("HVP", lambda: vz.Stepper(hvp)))
    y, xs, feed = random_graph()
    n = len(vz.topo_sort(y))
    made.append((f"random {n:,}-node graph", lambda: vz.step(y, xs, feed)))
    return made


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def median(fn, repeat: int = REPEAT) -> tuple[float, object, float]:
    """(median wall seconds of ``fn()``, its last result, median CPU seconds of the programs
    it ran: dot)."""
    runs, cpu, result = [], [], None
    for _ in range(repeat):
        result = None  # free the last one outside the timing
        start, before = time.perf_counter(), _children_cpu()
        result = fn()
        runs.append(time.perf_counter() - start)
        cpu.append(_children_cpu() - before)
    return statistics.median(runs), result, statistics.median(cpu)


def rung(scene) -> str:
    if "stopped after" in scene.note:
        return "fallback"
    if "summarised to fit" in scene.note:
        return "summary (budget)"
    if "summarised" in scene.note:
        return "summary (max_boxes)"
    if scene.folds:
        return "folded, bounded" if scene.layout else "folded"
    return "bounded" if scene.layout else "full"


def dot_figures() -> None:
    print(machine())
    print(load())
    version = subprocess.run(["dot", "-V"], capture_output=True, text=True).stderr.strip()
    print(
        f"{version}; budget {plan.LAYOUT_BUDGET:g} s, a run stopped after "
        f"{plan.kill_after(plan.LAYOUT_BUDGET):g} s"
    )
    base: dict[str, float] = {}
    for what, make in cases():
        t_step, stepper, cpu = median(make)
        base.setdefault("step", t_step)
        print(
            f"{what}: vz.step → Stepper ready {t_step:6.2f} s (dot CPU {cpu:5.2f} s)  "
            f"(ratio {t_step / base['step']:.1f})",
            flush=True,
        )
        for view in stepper.trace.views:
            t_view, layout, cpu = median(lambda view=view: vz.render.Layout(stepper.trace, view))
            base.setdefault(view, t_view)
            print(
                f"  {view:9s} {rung(layout.scene):20s} {len(layout.scene.items):4d} boxes  "
                f"layout {t_view:6.2f} s (dot CPU {cpu:5.2f} s)  "
                f"(ratio {t_view / base[view]:.1f})",
                flush=True,
            )
        stepper.close()
    print(load())


def browser_figures() -> None:
    from playwright.sync_api import sync_playwright

    from browser_layout import _LOAD, _TIME
    from vizad.view.assets import graphviz_module

    print(machine())
    print(load())
    with sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"]
        )
        page = chromium.new_page()
        page.goto("about:blank")
        page.set_default_timeout(600_000)
        loaded = page.evaluate(_LOAD, graphviz_module())
        print(
            f"Graphviz {loaded['version']} (WebAssembly, Chromium); module load "
            f"{loaded['load']:.0f} ms"
        )
        base: dict[str, float] = {}
        os.environ["VIZAD_LAYOUT"] = "browser"  # Python makes the DOT, the browser lays it out
        for what, make in cases():
            t_step, stepper, _ = median(make)
            base.setdefault("step", t_step)
            print(
                f"{what}: vz.step → Stepper ready (DOT, no layout) {t_step:6.2f} s  "
                f"(ratio {t_step / base['step']:.1f})",
                flush=True,
            )
            for view in stepper.trace.views:
                layout = stepper.layout_of(view)
                source = layout.dot_source  # already in the browser's font
                runs = page.evaluate(_TIME, [source, REPEAT])
                t = statistics.median(runs) / 1e3
                base.setdefault(view, t)
                print(
                    f"  {view:9s} {rung(layout.scene):20s} {len(layout.scene.items):4d} boxes  "
                    f"layout {t:6.2f} s  (ratio {t / base[view]:.1f})",
                    flush=True,
                )
            stepper.close()
        chromium.close()
    print(load())


# -- calibration --------------------------------------------------------------------------

CALIBRATION_TIMEOUT = 30.0
#: Scenes with more nodes to place than this are not laid out in full (minutes of dot).
FULL_NODES = 12000


def dot_seconds(source: str, repeat: int) -> float | None:
    """The least CPU seconds (user + system) of ``dot -Tsvg`` on ``source`` over ``repeat``
    runs (None past CALIBRATION_TIMEOUT): CPU time, not wall time, so that other work on a
    shared machine does not count; the least, as the run least disturbed."""
    runs = []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        try:
            subprocess.run(
                ["dot", "-Tsvg"],
                input=source.encode(),
                capture_output=True,
                check=True,
                timeout=CALIBRATION_TIMEOUT,
            )
        except subprocess.TimeoutExpired:
            return None
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        runs.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return min(runs)


def calibration_scenes():
    """(what, scene): weight-shared chains in their three views, random graphs forward and
    adjoint, the MLP and the HVP."""
    for levels in (4, 6, 8, 10, 12, 15, 18, 20, 22, 25, 28, 30, 35, 45, 60, 80):
        trace = vz.examples.rnn(levels)
        for view in trace.views:
            yield f"chain {levels} {view}", scene_for(trace, view, 3, max_boxes=10**6)
    for n_ops in (50, 150, 300, 600, 1000):
        y, xs = graph(8, n_ops, seed=n_ops)
        yield f"random {n_ops} forward", scene_for(y, "forward", 3, max_boxes=10**6)
        if n_ops <= 300:
            trace = vz.trace_reverse(y, xs, {x: 0.3 for x in xs})
            for view in ("adjoint", "backprop"):
                yield f"random {n_ops} {view}", scene_for(trace, view, 3, max_boxes=10**6)
    for name in ("mlp", "hvp", "lecture"):
        trace = getattr(vz.examples, name)()
        for view in trace.views:
            yield f"{name} {view}", scene_for(trace, view, 3, max_boxes=10**6)


#: Times under this (dot's start, tiny graphs) are left out of the fit: what matters is the
#: growth, near the budget.
MIN_FIT = 0.1


def fit(rows):
    """(c, per_part, k, p) of seconds = c + per_part (boxes + edges) + k (nodes/1000)^p,
    least relative squares (non-negative), p on a grid."""
    from scipy.optimize import nnls

    best = None
    for p in np.arange(1.0, 4.01, 0.1):
        a = np.array([[1.0, c.boxes + c.edges, (c.nodes / 1000) ** p] for c, _ in rows])
        t = np.array([s for _, s in rows])
        coef, _ = nnls(a / t[:, None], np.ones(len(t)))
        err = float(np.sqrt(np.mean((a @ coef / t - 1) ** 2)))
        if best is None or err < best[0]:
            best = (err, (*coef, p))
    return best


def calibrate() -> None:
    print(machine())
    print(load())
    full, bounded = [], []
    for what, scene in calibration_scenes():
        cost = plan.layout_cost(scene)
        source = to_drawing(scene).source
        t_full = (
            dot_seconds(source, 3 if cost.nodes < 3000 else 1)
            if (cost.nodes <= FULL_NODES)
            else None
        )
        t_bounded = dot_seconds(to_drawing(plan.bounded(scene)).source, 3)
        if t_full is not None and t_full >= MIN_FIT:
            full.append((cost, t_full))
        if t_bounded is not None and t_bounded >= MIN_FIT:
            bounded.append((cost, t_bounded))
        shown = "—" if t_full is None else f"{t_full:.2f}"
        shown_bounded = "—" if t_bounded is None else f"{t_bounded:.2f}"
        print(
            f"{what:24s} boxes {cost.boxes:4d} edges {cost.edges:4d} nodes {cost.nodes:6d}  "
            f"full {shown:>6s} s (predicted {cost.seconds():8.2f})  bounded {shown_bounded:>6s} s "
            f"(predicted {cost.seconds(True):.2f})",
            flush=True,
        )
    factors = []
    for name, rows in (("_FULL", full), ("_BOUNDED", bounded)):
        plain = [(c, t) for c, t in rows if not c.flat]
        err, coef = fit(plain)
        print(f"{name} = ({', '.join(f'{x:.3g}' for x in coef)})  # rms relative error {err:.2f}")
        c0, per_part, k, p = coef
        ratios = [
            t / (c0 + per_part * (c.boxes + c.edges) + k * (c.nodes / 1000) ** p)
            for c, t in rows
            if c.flat
        ]
        factors.append(float(np.exp(np.mean(np.log(ratios)))) if ratios else 1.0)
    print(f"_FLAT = ({factors[0]:.3g}, {factors[1]:.3g})  # scenes without clusters")
    print(load())


if __name__ == "__main__":
    if "--calibrate" in sys.argv:
        calibrate()
    elif "--browser" in sys.argv:
        browser_figures()
    else:
        dot_figures()
