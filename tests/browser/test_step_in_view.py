"""The step in view (issue 44, items 1 and 2): on the lecture, a 2-layer MLP, rnn(45) and a
PyTorch LSTM imported with vz.from_torch, at every step (rnn(45) and the LSTM: a deterministic
sample, see step_view.steps_to_read) the step's result box lies inside the graph's frame, every
drawn text in the frame is at least 9 px on screen, the panel's sum line (which states the
result) is on screen, and the step's boxes out of view are marked at the frame's edge with
their values. Frames: the exported page at 1024×768 and in a window as narrow and short as
JupyterLab's notebook with its file browser open (640×640), presentation mode at 1280×800 and
1024×768, JupyterLab 4 at 1024×768 with the file browser open and closed, Notebook 7 and
nbconvert's page at 1024×768. "fit" says when the text falls below 9 px. Screenshots:
artifacts/step-view-*.png."""

from __future__ import annotations

import pytest
import step_view
from conftest import artifact, settled, write_notebook

import vizad as vz

ROOT = ".vizad-stepper"
NAMES = ["lecture", "mlp", "rnn45", "lstm"]


def lstm_trace():
    """A one-layer torch.nn.LSTM over 4 time steps, imported with vz.from_torch."""
    torch = pytest.importorskip("torch")

    class Loss(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = torch.nn.LSTM(2, 3)

        def forward(self, x):
            out, _ = self.lstm(x)
            return (out**2).sum()

    torch.manual_seed(0)
    model = Loss().double()
    x = torch.randn(4, 1, 2, dtype=torch.float64)
    imported = vz.from_torch(model, x)
    return vz.trace_reverse(imported.output, imported.inputs, imported.feed)


def trace_of(name: str):
    if name == "lstm":
        return lstm_trace()
    if name == "rnn45":
        return vz.examples.rnn(45)
    return getattr(vz.examples, name)()


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    folder = tmp_path_factory.mktemp("step-view")
    return {name: vz.export_html(trace_of(name), folder / f"{name}.html") for name in NAMES}


#: the window sizes: a laptop's, and one whose stepper is as narrow (stacked) and short as
#: JupyterLab's notebook at 1024×768 with its file browser open (measured there: ~590×650)
SIZES = {"1024x768": (1024, 768), "lab-like-640x640": (640, 640)}


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("name", NAMES)
def test_the_step_is_in_view_and_readable(browser, pages, page_errors, name, size):
    width, height = SIZES[size]
    page = page_errors(browser.new_page(viewport={"width": width, "height": height}))
    page.goto(pages[name].as_uri())
    page.wait_for_selector(f"{ROOT} .vz-stage svg g.node", timeout=60_000)
    seen = step_view.walk(page, 0)
    print(f"\n{name} ({size}): {step_view.summary(seen)}")
    # the picture of the most crowded step: the most boxes marked at the edge (the first such)
    crowded = max(seen, key=lambda s: len(s["marks"]))["at"]
    step_view.go(page, 0, crowded)
    page.screenshot(path=artifact(f"step-view-{name}-{size}.png"))
    print(f"  step {crowded}: marks {seen[[s['at'] for s in seen].index(crowded)]['marks']}")
    bad = step_view.faults(seen)
    assert not bad, f"{name} ({size}): {step_view.summary(seen)}\n{bad[:3]}"
    # the boxes of the step out of view are marked with their values
    for s in seen:
        for m in s["marks"]:
            assert "(+" in m or "=" in m or "±" in m or "…" in m, (s["at"], m)
    page.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)


#: the same walkthroughs as notebook cells (the LSTM as lstm_trace builds it)
CELLS = [
    "import vizad as vz\nvz.Stepper(vz.examples.lecture())",
    "vz.Stepper(vz.examples.mlp())",
    "vz.Stepper(vz.examples.rnn(45))",
    "import torch\n\n"
    "class Loss(torch.nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.lstm = torch.nn.LSTM(2, 3)\n\n"
    "    def forward(self, x):\n"
    "        out, _ = self.lstm(x)\n"
    "        return (out**2).sum()\n\n"
    "torch.manual_seed(0)\n"
    "model = Loss().double()\n"
    "imported = vz.from_torch(model, torch.randn(4, 1, 2, dtype=torch.float64))\n"
    "vz.Stepper(vz.trace_reverse(imported.output, imported.inputs, imported.feed))",
]


def _scroll_to(page, k: int) -> None:
    """Stepper k at the top of the window (a page that scrolls as a whole: nbconvert's)."""
    page.evaluate("(k) => document.querySelectorAll('.vizad-stepper')[k].scrollIntoView()", k)
    settled(page, 3)


def _walk_all(page, where: str, focus=None) -> dict[str, list[dict]]:
    if focus is None:
        from test_room import _focus as focus

    seen = {}
    for k, name in enumerate(NAMES):
        focus(page, k)
        seen[name] = step_view.walk(page, k)
        print(f"\n{name} ({where}): {step_view.summary(seen[name])}")
        if name in ("lecture", "mlp"):
            step = 6 if name == "lecture" else max(seen[name], key=lambda s: len(s["marks"]))["at"]
            step_view.go(page, k, step)
            page.screenshot(path=artifact(f"step-view-{name}-{where}-step{step}.png"))
    return seen


def test_the_step_is_in_view_in_jupyterlab(browser, jupyterlab, page_errors):
    """JupyterLab 4 at 1024×768, the file browser open (its default layout), then closed."""
    pytest.importorskip("torch")
    from test_jupyterlab import _delete_sessions
    from test_room import _open

    url, root = jupyterlab
    write_notebook(root / "step-view.ipynb", CELLS)
    _delete_sessions(url)
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = page_errors(context.new_page())
    _open(page, url, "step-view.ipynb")
    _all_drawn(page)
    opened = _walk_all(page, "lab-1024x768-browser-open")
    page.locator(".jp-SideBar .lm-TabBar-tab[data-id='filebrowser']").click()
    page.wait_for_selector(".jp-FileBrowser", state="hidden")
    page.wait_for_timeout(1500)
    closed = _walk_all(page, "lab-1024x768-browser-closed")
    context.close()
    _no_faults(opened, "JupyterLab, file browser open")
    _no_faults(closed, "JupyterLab, file browser closed")
    assert not page_errors.errors, "\n".join(page_errors.errors)


def _all_drawn(page) -> None:
    page.wait_for_function(
        "(n) => [...document.querySelectorAll('.vizad-stepper')]"
        ".filter((r) => r.querySelector('.vz-stage svg g.node')).length === n",
        arg=len(CELLS),
        timeout=120_000,
    )
    page.wait_for_timeout(1500)  # the frames reported, the pictures for them drawn


def _no_faults(seen: dict[str, list[dict]], where: str) -> None:
    for name, steps in seen.items():
        bad = step_view.faults(steps)
        assert not bad, f"{name} ({where}): {step_view.summary(steps)}\n{bad[:3]}"


def test_the_step_is_in_view_in_notebook7(browser, notebook7, page_errors):
    """Notebook 7 at 1024×768 (its own page errors on load are not vizad's: see
    test_jupyterlab.test_stepper_in_notebook7; only the steps are checked here)."""
    pytest.importorskip("torch")
    from test_jupyterlab import _delete_sessions, _open_and_run

    url, root = notebook7
    write_notebook(root / "step-view.ipynb", CELLS)
    _delete_sessions(url)
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = context.new_page()
    _open_and_run(page, f"{url}/notebooks/step-view.ipynb", "step-view-notebook7")
    _all_drawn(page)
    seen = _walk_all(page, "notebook7-1024x768")
    context.close()
    _no_faults(seen, "Notebook 7")


def test_the_step_is_in_view_in_nbconvert_page(browser, tmp_path, page_errors):
    """nbconvert's HTML of the notebook executed headless, offline, at 1024×768."""
    pytest.importorskip("torch")
    from test_live_front_ends import _execute, _offline_page, _ours

    write_notebook(tmp_path / "step-view.ipynb", CELLS)
    html = _execute(tmp_path / "step-view.ipynb")
    context, page = _offline_page(browser, page_errors, html)
    page.set_viewport_size({"width": 1024, "height": 768})
    _all_drawn(page)
    seen = _walk_all(page, "nbconvert-1024x768", focus=_scroll_to)
    context.close()
    _no_faults(seen, "nbconvert's page")
    assert not _ours(page_errors), page_errors.errors


@pytest.mark.parametrize("size", [(1280, 800), (1024, 768)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", NAMES)
def test_the_step_is_in_view_when_presenting(browser, pages, page_errors, name, size):
    """Presentation mode (F) on the exported page, at a projector's 1280×800 and 1024×768."""
    width, height = size
    page = page_errors(browser.new_page(viewport={"width": width, "height": height}))
    page.goto(pages[name].as_uri())
    page.wait_for_selector(f"{ROOT} .vz-stage svg g.node", timeout=60_000)
    page.locator(f"{ROOT} .vz-counter").click()
    page.keyboard.press("f")
    page.wait_for_selector(f"{ROOT}.vz-present")
    seen = step_view.walk(page, 0)
    print(f"\n{name} (present {width}x{height}): {step_view.summary(seen)}")
    if name in ("mlp", "rnn45"):
        page.screenshot(path=artifact(f"step-view-{name}-present-{width}x{height}.png"))
    bad = step_view.faults(seen)
    assert not bad, f"{name} (present {width}x{height}): {step_view.summary(seen)}\n{bad[:3]}"
    page.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)


@pytest.mark.parametrize("name", ["lecture", "rnn45"])
def test_fit_says_when_text_is_too_small(browser, pages, page_errors, name):
    """ "fit" on a graph too large for the frame at a readable zoom: a note beside the zoom
    buttons says the text's size; "1:1" (readable again) takes it away."""
    page = page_errors(browser.new_page(viewport={"width": 640, "height": 640}))
    page.goto(pages[name].as_uri())
    page.wait_for_selector(f"{ROOT} .vz-stage svg g.node", timeout=60_000)
    note = page.locator(f"{ROOT} .vz-zoom-note")
    assert note.inner_text() == ""  # the default view is readable: nothing said
    bar = page.locator(f"{ROOT} .vz-zoom")
    bar.get_by_text("fit").click()
    seen = page.evaluate(step_view.SEEN, [0, step_view.READABLE_PX])
    print(f"\n{name} fitted: {seen['px']:.2f} px, note {seen['note']!r}")
    assert seen["px"] < step_view.READABLE_PX
    px = f"{seen['px']:.1f}" if seen["px"] < 2 else f"{round(seen['px'])}"
    assert seen["note"] == f"text {px} px — zoom in to read", seen
    assert note.is_visible()
    page.screenshot(path=artifact(f"step-view-{name}-fit-640x640.png"))
    bar.get_by_text("1:1").click()
    assert note.inner_text() == ""
    page.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)
