"""A lecture notebook of 20 walkthroughs: its size on disk and the time its nbconvert page
takes to show all 20 steppers offline, for this checkout and for another (the baseline).

    python bench/notebook_outputs.py [BASELINE_CHECKOUT]

Each checkout's vizad (on PYTHONPATH) executes the same notebook headless (nbconvert
--execute, nbclient, without widget state: JupyterLab's default and tools/drop-widget-state;
the size with nbclient's default widget state is printed too), then nbconvert makes its page.
The page is opened from disk in headless Chromium with every other request aborted, and timed
from navigation to the 20th stepper drawn (medians of 5 loads, the two checkouts in turns).
The walkthroughs' data: the JSON of each output's walkthrough, summed (unpacked: the output
carries it gzip-compressed).
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import machine  # noqa: E402

HERE = Path(__file__).resolve().parents[1]
N = 20
REPEAT = 5
CELLS = ["import vizad as vz"] + [f"s{k} = vz.step(vz.examples.lecture())\ns{k}" for k in range(N)]
_ALL_DRAWN = f"() => document.querySelectorAll('.vizad-stepper .vz-stage svg').length === {N}"


def build(checkout: Path, folder: Path, widget_state: bool) -> tuple[Path, Path]:
    """The notebook executed by ``checkout``'s vizad, and its nbconvert page."""
    import nbformat

    folder.mkdir(parents=True, exist_ok=True)
    notebook = folder / "twenty.ipynb"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(nb, notebook)
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    run = {"cwd": folder, "check": True, "capture_output": True, "env": env}
    jupyter = [sys.executable, "-m", "jupyter", "nbconvert"]
    state = f"--ExecutePreprocessor.store_widget_state={widget_state}"
    subprocess.run(
        [*jupyter, "--to", "notebook", "--execute", "--inplace", state, notebook.name], **run
    )
    subprocess.run([*jupyter, "--to", "html", notebook.name], **run)
    return notebook, notebook.with_suffix(".html")


def data_size(notebook: Path) -> int:
    """The bytes of the walkthroughs' data in the notebook: each output's JSON script, as
    JSON text (a packed script unpacked first: its JSON as an unpacked script would hold it)."""
    nb = json.loads(notebook.read_text())
    total = 0
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            html = "".join(out.get("data", {}).get("text/html", ""))
            m = re.search(r'-data">(.*?)</script>', html, re.S)
            if m is None:
                continue
            script = json.loads(m.group(1))
            if "gz" in script:
                text = gzip.decompress(base64.b64decode(script["gz"]))
                script = json.loads(text)
            # as an unpacked script holds it (vizad.view.assets.json_element: "<" escaped)
            text = json.dumps(script, ensure_ascii=False).replace("<", "\\u003c")
            total += len(text.encode())
    return total


def load_times(browser, pages: dict[str, Path]) -> dict[str, float]:
    """Median seconds from navigation to all N steppers drawn, each page in turn."""
    times: dict[str, list[float]] = {name: [] for name in pages}
    for _ in range(REPEAT + 1):  # the first round warms up
        for name, html in pages.items():
            context = browser.new_context(viewport={"width": 1100, "height": 800})
            context.route(
                "**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort()
            )
            page = context.new_page()
            page.goto(html.as_uri(), wait_until="commit")
            page.wait_for_function(_ALL_DRAWN, timeout=120_000)
            times[name].append(page.evaluate("() => performance.now()") / 1000)
            context.close()
    return {name: statistics.median(t[1:]) for name, t in times.items()}


def main() -> None:
    from playwright.sync_api import sync_playwright

    baseline = Path(sys.argv[1]) if len(sys.argv) > 1 else None
    checkouts = {"this checkout": HERE} | ({"baseline": baseline} if baseline else {})
    print(machine())
    with tempfile.TemporaryDirectory() as tmp:
        pages = {}
        for name, checkout in checkouts.items():
            notebook, html = build(checkout, Path(tmp) / name.replace(" ", "-"), False)
            stateful, _ = build(checkout, Path(tmp) / f"{name.replace(' ', '-')}-state", True)
            size, data = notebook.stat().st_size, data_size(notebook)
            kept = stateful.stat().st_size
            print(
                f"{name}: notebook {size / 1e3:.0f} kB for {data / 1e3:.0f} kB of walkthrough data "
                f"({size / data:.2f}x); with nbclient's widget state {kept / 1e3:.0f} kB; "
                f"nbconvert page {html.stat().st_size / 1e3:.0f} kB"
            )
            pages[name] = html
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path="/usr/bin/chromium",
                args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
            )
            for name, seconds in load_times(browser, pages).items():
                print(f"{name}: page load to {N} steppers drawn, median {seconds:.2f} s")
            browser.close()


if __name__ == "__main__":
    main()
