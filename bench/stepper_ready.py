"""Time to a usable stepper in JupyterLab: a cell's Shift+Enter until its stepper is drawn.

    python bench/stepper_ready.py [--rounds N] [--without-dot]

A JupyterLab server (tests/browser/conftest.py's, this checkout's vizad) and Debian's headless
Chromium at 1024×768. Each round opens a fresh kernel on a notebook of four cells and runs them
one by one, timing each from the key press to its output's stepper showing its step (the
graph's SVG and the panel drawn): ``import vizad as vz`` (the baseline a person waits for
anyway), the lecture's walkthrough (the first stepper of the kernel and of the page: the
widget libraries imported, the component loaded), a 2-layer MLP's (a later stepper), and
``rnn(45)``. ``--without-dot``: the kernels cannot find Graphviz's ``dot`` (as in
JupyterLite), so the page lays every view out with its WebAssembly Graphviz. The kernel's own
share of each stepper cell (``vz.step``'s seconds, read back from the kernel) is printed
beside it; the rest is the message round trip and the page. Medians of N rounds (default 5).
Targets (issue 50): lecture and MLP ≤ 1 s, rnn(45) ≤ 2 s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests" / "browser"))
from _timing import machine  # noqa: E402
from conftest import CHROMIUM, _server, kernel_connected, without_dot, write_notebook  # noqa: E402

#: (name, cell) — each stepper cell keeps its ``vz.step`` time in ``_t`` for the bench to read
CELLS = [
    ("import vizad", "import time\nimport vizad as vz\n_t = {}"),
    ("lecture", "t = time.perf_counter(); s1 = vz.step(vz.examples.lecture())\n"
                "_t['lecture'] = time.perf_counter() - t; s1"),
    ("2-layer MLP", "t = time.perf_counter(); s2 = vz.step(vz.examples.mlp())\n"
                    "_t['2-layer MLP'] = time.perf_counter() - t; s2"),
    ("rnn(45)", "t = time.perf_counter(); s3 = vz.step(vz.examples.rnn(45))\n"
                "_t['rnn(45)'] = time.perf_counter() - t; s3"),
    ("read back", "import json\nprint(json.dumps(_t))"),
]  # fmt: skip

#: the k-th stepper of the page drawn: its graph's SVG and its step's panel
_DRAWN = """(k) => { const s = document.querySelectorAll('.vizad-stepper');
  return s.length >= k && !!s[k - 1].querySelector('.vz-stage svg')
    && !!s[k - 1].querySelector('.vz-panel'); }"""


def _shut_kernels(url: str) -> None:
    """Every session of the server deleted (its kernel shut down): the next opens afresh."""
    for session in json.load(urllib.request.urlopen(f"{url}/api/sessions")):
        request = urllib.request.Request(f"{url}/api/sessions/{session['id']}", method="DELETE")
        urllib.request.urlopen(request)


def one_round(browser, url: str, root: Path, name: str) -> dict[str, float]:
    """A fresh kernel: each cell run in turn, timed until it has shown what it makes."""
    _shut_kernels(url)
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = context.new_page()
    page.goto(f"{url}/lab/tree/{name}?reset")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    kernel_connected(f"{url}/lab/tree/{name}")
    times: dict[str, float] = {}
    cells = page.locator(".jp-Notebook .jp-Cell")
    for k, (label, _) in enumerate(CELLS):
        cells.nth(k).locator(".jp-InputArea-editor").click()
        page.keyboard.press("Escape")  # command mode: Shift+Enter runs the cell
        t0 = time.perf_counter()
        page.keyboard.press("Shift+Enter")
        if label == "import vizad" or label == "read back":
            page.wait_for_function(
                "(k) => document.querySelectorAll('.jp-Notebook .jp-Cell')[k]"
                ".querySelector('.jp-InputPrompt').textContent.match(/\\[\\d+\\]/)",
                arg=k,
                timeout=120_000,
                polling="raf",
            )
        else:
            page.wait_for_function(_DRAWN, arg=k, timeout=120_000, polling="raf")
        times[label] = time.perf_counter() - t0
    out = cells.nth(len(CELLS) - 1).locator(".jp-OutputArea-output").inner_text()
    for label, seconds in json.loads(out).items():
        times[f"{label} (kernel)"] = seconds
    context.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--without-dot",
        action="store_true",
        help="kernels that cannot find Graphviz's dot: every view laid out in the page",
    )
    args = parser.parse_args()
    print(machine())
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder, sync_playwright() as p:
        root = Path(folder)
        name = "ready.ipynb"
        write_notebook(root / name, [cell for _, cell in CELLS])
        browser = p.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        env = without_dot() if args.without_dot else None
        with _server("jupyterlab", root, env, widget_state=False) as url:
            one_round(browser, url, root, name)  # warms the server, the caches, the bundle
            rounds = [one_round(browser, url, root, name) for _ in range(args.rounds)]
        browser.close()
    where = "kernels without dot (layout in the page)" if args.without_dot else "kernels with dot"
    print(f"Shift+Enter → the cell's output shown, medians of {args.rounds} fresh {where}")
    for label, _ in CELLS[:-1]:
        total = statistics.median(r[label] for r in rounds)
        kernel = [r[f"{label} (kernel)"] for r in rounds if f"{label} (kernel)" in r]
        share = f"   vz.step in the kernel {statistics.median(kernel):.3f} s" if kernel else ""
        print(f"  {label:<14} {total:6.3f} s{share}")


if __name__ == "__main__":
    main()
