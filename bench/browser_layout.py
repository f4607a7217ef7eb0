"""Graphviz in the browser (WebAssembly, for machines without `dot`) against the dot program.

    python bench/browser_layout.py

The same DOT laid out by `dot -Tsvg` here (the baseline) and by vizad's Graphviz module in
headless Chromium (Debian's /usr/bin/chromium, driven by Playwright), medians of 3 runs each
after one warm-up, and the module's first load (compiling the WebAssembly) once. The DOT: a
random scalar graph's forward view with 50, 300 and 1,000 boxes and its adjoint view with 100
and 300 boxes, drawn in full; and the adjoint and backprop views of a 1,000-op graph's
walkthrough as vz.draw and the stepper draw them (summarised). Target: a 1,000-node graph in
<= 3 s in Chromium.
"""

from __future__ import annotations

import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import vizad as vz  # noqa: E402
from _timing import machine  # noqa: E402
from render import graph  # noqa: E402
from vizad.view.assets import graphviz_module  # noqa: E402
from vizad.view.render.dot import browser_source  # noqa: E402

REPEAT = 3

_LOAD = """async text => {
  const url = URL.createObjectURL(new Blob([text], { type: "text/javascript" }));
  const t = performance.now();
  window.graphviz = await import(url);
  const version = await window.graphviz.version();
  return { version, load: performance.now() - t };
}"""

_TIME = """async ([source, repeat]) => {
  await window.graphviz.layout(source); // warm-up
  const runs = [];
  for (let i = 0; i < repeat; i++) {
    const t = performance.now();
    await window.graphviz.layout(source);
    runs.push(performance.now() - t);
  }
  return runs;
}"""


DOT_TIMEOUT = 120  # seconds; dot 2.43 is slow on large adjoint views


def dot_time(source: str) -> float | None:
    """Median seconds of `dot -Tsvg` on ``source`` (None when one run passes DOT_TIMEOUT)."""
    runs = []
    for _ in range(REPEAT + 1):  # the first run warms the disk cache
        start = time.perf_counter()
        try:
            subprocess.run(
                ["dot", "-Tsvg"],
                input=source.encode(),
                capture_output=True,
                check=True,
                timeout=DOT_TIMEOUT,
            )
        except subprocess.TimeoutExpired:
            return None
        runs.append(time.perf_counter() - start)
    return statistics.median(runs[1:])


_BOX = re.compile(r"^\t(?!.*->).* id=(?!vz_legend)", re.M)


def _boxes(source: str) -> int:
    """The boxes of a drawing (node statements, not the legend)."""
    return len(_BOX.findall(source))


def sized(boxes: int, view: str = "forward"):
    """A random scalar graph (bench/render.py's) whose ``view``, drawn in full (no summary),
    has about ``boxes`` boxes: (what, DOT source)."""
    n_ops = boxes if view == "forward" else max(boxes // 3, 8)
    while True:
        y, xs = graph(8, n_ops, seed=boxes)
        target = y if view == "forward" else vz.trace_reverse(y, xs, {x: 0.3 for x in xs})
        source = vz.draw(target, view, max_boxes=10 * boxes).source
        count = _boxes(source)
        if count >= boxes:
            return f"{view} view, {count} boxes", source
        n_ops = int(n_ops * max(1.05, boxes / max(count, 1)))


def as_drawn(n_ops: int, view: str):
    """The ``view`` of a walkthrough of a random graph of ``n_ops`` ops as vz.draw and the
    stepper draw it (summarised above 400 boxes)."""
    y, xs = graph(8, n_ops, seed=n_ops)
    source = vz.draw(vz.trace_reverse(y, xs, {x: 0.3 for x in xs}), view).source
    return f"{n_ops}-op graph, {view} as drawn, {_boxes(source)} boxes", source


def cases() -> list[tuple[str, str]]:
    return [
        sized(50),
        sized(300),
        sized(1000),
        sized(100, "adjoint"),
        sized(300, "adjoint"),
        as_drawn(1000, "adjoint"),
        as_drawn(1000, "backprop"),
    ]


def main() -> None:
    from playwright.sync_api import sync_playwright

    print(machine())
    version = subprocess.run(["dot", "-V"], capture_output=True, text=True).stderr.strip()
    work = cases()
    with sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"]
        )
        page = chromium.new_page()
        page.goto("about:blank")
        page.set_default_timeout(600_000)
        loaded = page.evaluate(_LOAD, graphviz_module())
        print(f"baseline: {version}; browser: Graphviz {loaded['version']} (WebAssembly, Chromium)")
        print(f"module load (import + WebAssembly compile, once per page): {loaded['load']:.0f} ms")
        for what, source in work:
            runs = page.evaluate(_TIME, [browser_source(source), REPEAT])
            t_browser = statistics.median(runs) / 1e3
            t_dot = dot_time(source)
            if t_dot is None:
                shown, ratio = f"> {DOT_TIMEOUT} s", "—"
            else:
                shown, ratio = f"{t_dot * 1e3:.0f} ms", f"{t_browser / t_dot:.2f}"
            print(
                f"  {what:32s} dot {shown:>10s}   browser {t_browser * 1e3:8.0f} ms   "
                f"ratio {ratio}",
                flush=True,
            )
        chromium.close()
    print("target: 1,000 boxes <= 3000 ms in the browser")


if __name__ == "__main__":
    main()
