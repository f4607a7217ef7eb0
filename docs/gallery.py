"""Screenshots of the example graphs as a user sees them: each example's exported walkthrough
page (the stepper component) opened in headless Chromium at 1024×768 (some at 1920×1080), in a
view, at its middle step (reached with the → key), in the light or dark colour scheme.
Written to docs/gallery/ for review (``make gallery``; ``docs/gallery.py torch_mlp`` for the
screenshots of one example alone).

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
SMALL, LARGE = (1024, 768), (1920, 1080)
SHOTS = [(name, None, "light", SMALL) for name in vz.examples.ALL] + [  # the extended view
    ("lecture", "forward", "light", SMALL),
    ("lecture", "backprop", "light", SMALL),
    ("mlp", "forward", "light", SMALL),
    ("mlp", "backprop", "light", SMALL),
    ("lecture_forward", "tangents", "light", SMALL),
    ("mlp", "adjoint", "dark", SMALL),
    ("hvp", "adjoint", "dark", SMALL),
    ("tuples", "adjoint", "dark", SMALL),
    ("lecture", "adjoint", "light", LARGE),
    ("lecture", "adjoint", "dark", LARGE),
    ("mlp", "adjoint", "light", LARGE),
    ("mlp", "adjoint", "dark", LARGE),
]


def torch_mlp():
    """PyTorch's own backward pass of a small MLP with a cross-entropy loss
    (``vz.torch_backward``), as the tutorial on PyTorch and JAX makes it."""
    import torch

    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(2, 3), torch.nn.Tanh(), torch.nn.Linear(3, 2)
    ).double()
    x = torch.tensor([[0.5, -1.0], [1.5, 0.3], [-0.7, 0.8], [0.2, 0.2]], dtype=torch.float64)
    loss = torch.nn.functional.cross_entropy(model(x), torch.tensor([0, 1, 1, 0]))
    return vz.torch_backward(loss, model)


#: Traces of other frameworks' backward passes (their frameworks are optional extras).
BRIDGES = {"torch_mlp": torch_mlp}
SHOTS += [("torch_mlp", "adjoint", scheme, SMALL) for scheme in ("light", "dark")]


def main(only: list[str]) -> int:
    from playwright.sync_api import sync_playwright

    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for name, view, scheme, (width, height) in SHOTS:
            if only and name not in only:
                continue
            trace = (BRIDGES.get(name) or vz.examples.ALL[name])()
            view = trace.view(view)
            page_file = vz.export_html(trace, Path(tmp) / f"{name}.html", view=view)
            page = browser.new_page(
                viewport={"width": width, "height": height}, color_scheme=scheme
            )
            page.goto(page_file.as_uri())
            for _ in range(len(trace.steps) // 2):
                page.keyboard.press("ArrowRight")
            size = "" if (width, height) == SMALL else f"_{width}x{height}"
            target = OUT / f"{name}_{view}_{scheme}{size}.png"
            page.screenshot(path=str(target))
            page.close()
            print(target.relative_to(OUT.parent.parent))
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))  # names of examples: only those (docs/gallery.py torch_mlp)
