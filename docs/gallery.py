"""Screenshots of the example graphs as a user sees them: each example's exported walkthrough
page opened in headless Chromium at 1024×768, in a view, at its middle step, in the light or
dark colour scheme. Written to docs/gallery/ for review (``make gallery``).

Needs Debian's chromium at /usr/bin/chromium and Playwright's Python package (``make test``
installs both).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import vizad as vz

OUT = Path(__file__).parent / "gallery"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]

#: (example, view, colour scheme): the extended view of every example, the other views of
#: the MLP and the lecture, and the dark theme on three of them.
SHOTS = [(name, "extended", "light") for name in vz.examples.ALL] + [
    ("lecture", "forward", "light"),
    ("lecture", "laid", "light"),
    ("mlp", "forward", "light"),
    ("mlp", "laid", "light"),
    ("lecture_forward", "laid", "light"),
    ("mlp", "extended", "dark"),
    ("hvp", "extended", "dark"),
    ("tuples", "extended", "dark"),
]


def main() -> int:
    from playwright.sync_api import sync_playwright

    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for name, view, scheme in SHOTS:
            trace = vz.examples.ALL[name]()
            view = trace.view(view)
            page_file = vz.export_html(trace, Path(tmp) / f"{name}.html", view=view)
            page = browser.new_page(viewport={"width": 1024, "height": 768}, color_scheme=scheme)
            page.goto(page_file.as_uri())
            for _ in range(len(trace.steps) // 2):
                page.keyboard.press("ArrowRight")
            target = OUT / f"{name}_{view}_{scheme}.png"
            page.screenshot(path=str(target))
            page.close()
            print(target.relative_to(OUT.parent.parent))
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
