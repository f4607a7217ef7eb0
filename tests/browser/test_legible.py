"""Dense walkthroughs a person can read (issue 36), in a real JupyterLab at 1024×768 with its
file browser open, and in presentation mode at 1920×1080: for the lecture, the README's MLP,
the weight-shared chain of 20, 45 and 100 levels (adjoint view) and a PyTorch LSTM imported by
vz.torch_backward, at the first, middle and last steps, the text of the step's result box
(v̄ᵢ, issue 44: the step's result first) is at least 9 px on screen (its font size times the
drawing's scale, measured with getBoundingClientRect), the box is inside the frame and the
step's sum line (v̄ᵢ = Σ … =
value) is visible without scrolling; "+" twice then → keeps that zoom; an opened fold's boxes
are readable. Screenshots: artifacts/legible-*.png."""

from __future__ import annotations

from conftest import artifact, write_notebook
from test_jupyterlab import ROOT, _delete_sessions
from test_room import _focus, _open

LSTM = (
    "import torch\n"
    "torch.manual_seed(0)\n"
    "cell = torch.nn.LSTMCell(3, 4)\n"
    "x = torch.randn(12, 1, 3)\n"
    "h, c = torch.zeros(1, 4), torch.zeros(1, 4)\n"
    "for t in range(12):\n"
    "    h, c = cell(x[t], (h, c))\n"
    "vz.Stepper(vz.torch_backward((h ** 2).sum(), cell))"
)
CELLS = [
    "import vizad as vz\nvz.Stepper(vz.examples.lecture())",
    "vz.Stepper(vz.examples.mlp())",
    "vz.Stepper(vz.examples.rnn(20))",
    "vz.Stepper(vz.examples.rnn(45))",
    "vz.Stepper(vz.examples.rnn(100))",
    LSTM,
]
NAMES = ["lecture", "mlp", "rnn20", "rnn45", "rnn100", "lstm"]
READABLE_PX = 9.0

#: The result box of stepper k's step as the person sees it: its text's size on screen (the font
#: size in the SVG's units times the screen px per unit, from getBoundingClientRect), whether
#: it lies inside the frame, and whether the panel's sum line lies inside the panel's box and
#: the visible window.
SEEN = """(k) => {
  const root = document.querySelectorAll('.vizad-stepper')[k];
  const svg = root.querySelector('.vz-stage svg');
  const g = root.querySelector('.vz-stage g.node.vz-result');
  if (!svg || !g) return null;
  const unit = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const sizes = [...g.querySelectorAll('text')].map(
      (t) => parseFloat(t.getAttribute('font-size') || getComputedStyle(t).fontSize) * unit);
  const f = root.querySelector('.vz-viewport').getBoundingClientRect();
  const b = g.getBoundingClientRect();
  const panel = root.querySelector('.vz-step-panel').getBoundingClientRect();
  const sum = root.querySelector('.vz-step-panel .vz-sum')?.getBoundingClientRect();
  const inside = (x, o) => x.top >= o.top - 1 && x.bottom <= o.bottom + 1
      && x.left >= o.left - 1 && x.right <= o.right + 1;
  const win = { top: 0, left: 0, bottom: innerHeight, right: innerWidth };
  return { px: Math.max(...sizes), inFrame: inside(b, f),
           sum: !!sum && sum.height > 0 && inside(sum, panel) && inside(sum, win),
           zoom: parseFloat(root.dataset.zoom),
           marks: root.querySelectorAll('.vz-edge-mark').length,
           step: root.querySelector('.vz-counter').textContent,
           rects: [panel, sum, f].map((r) => r && [r.top, r.bottom].map(Math.round)) };
}"""


def _go(page, k: int, step: int) -> None:
    page.evaluate(
        "([k, s]) => { const r = document.querySelectorAll('.vizad-stepper')[k]"
        ".querySelector('.vz-slider'); r.value = String(s);"
        " r.dispatchEvent(new Event('input', {bubbles: true})); }",
        [k, step],
    )
    page.wait_for_function(
        "([k, s]) => document.querySelectorAll('.vizad-stepper')[k]"
        ".querySelector('.vz-counter').textContent.startsWith(`Step ${s} of`)",
        arg=[k, step],
    )
    page.wait_for_timeout(150)


def _steps(page, k: int) -> int:
    return int(page.locator(f"{ROOT} .vz-slider").nth(k).get_attribute("max"))


def _read(page, k: int, name: str, where: str, shots: bool) -> list[dict]:
    n = _steps(page, k)
    seen = []
    for step in sorted({1, (n + 1) // 2, n}):
        _go(page, k, step)
        got = page.evaluate(SEEN, k)
        assert got, (name, step)
        seen.append(got)
        assert got["px"] >= READABLE_PX, f"{name} ({where}), step {step}: {got}"
        assert got["inFrame"], f"{name} ({where}), step {step}: the result box out of view {got}"
        assert got["sum"], f"{name} ({where}), step {step}: the sum line hidden {got}"
        if shots and step == (n + 1) // 2:
            page.screenshot(path=artifact(f"legible-{name}-{where}.png"))
    print(f"\n{name} ({where}): " + ", ".join(f"{s['px']:.1f} px @ {s['zoom']}" for s in seen))
    return seen


def _zoom(page, k: int) -> float:
    return float(page.locator(ROOT).nth(k).get_attribute("data-zoom"))


def test_dense_walkthroughs_read_at_1024_and_in_presentation(browser, jupyterlab, page_errors):
    url, root = jupyterlab
    write_notebook(root / "legible.ipynb", CELLS)
    _delete_sessions(url)
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = page_errors(context.new_page())
    _open(page, url, "legible.ipynb")
    page.wait_for_function(
        "(n) => [...document.querySelectorAll('.vizad-stepper')]"
        ".filter((r) => r.querySelector('.vz-stage svg')).length === n",
        arg=len(CELLS),
        timeout=120_000,
    )
    for k, name in enumerate(NAMES):
        _focus(page, k)
        _read(page, k, name, "1024x768", shots=True)
    # "+" twice, then →: the zoom chosen stays (rnn(45), the middle step)
    k = NAMES.index("rnn45")
    _focus(page, k)
    _go(page, k, (_steps(page, k) + 1) // 2)
    bar = page.locator(f"{ROOT} .vz-zoom").nth(k)
    bar.get_by_text("+").click()
    bar.get_by_text("+").click()
    chosen = _zoom(page, k)
    for _ in range(3):
        page.keyboard.press("ArrowRight")
        page.wait_for_timeout(150)
        assert _zoom(page, k) == chosen
    bar.get_by_text("1:1").click()
    page.keyboard.press("ArrowRight")
    page.wait_for_timeout(150)
    assert _zoom(page, k) == 1.0
    # an opened fold: its boxes readable (rnn(20)'s folded time steps)
    k = NAMES.index("rnn20")
    _focus(page, k)
    _go(page, k, 1)
    fold = page.locator(ROOT).nth(k).locator(".vz-stage g.node.vz-collapsible").first
    fold.dispatch_event("click")  # it may be out of view: step 1 shows its result (the seed)
    page.wait_for_function(
        "(k) => document.querySelectorAll('.vizad-stepper')[k]"
        ".querySelector('.vz-stage g.cluster.vz-opened-frame')",
        arg=k,
        timeout=60_000,
    )
    page.wait_for_timeout(300)
    opened = page.evaluate(
        """(k) => {
      const root = document.querySelectorAll('.vizad-stepper')[k];
      const svg = root.querySelector('.vz-stage svg');
      const unit = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
      const f = root.querySelector('.vz-viewport').getBoundingClientRect();
      const frame = root.querySelector('.vz-stage g.cluster.vz-opened-frame');
      const boxes = [...svg.querySelectorAll('g.node')].filter((g) => {
        const b = g.getBoundingClientRect();
        return b.right > f.left && b.left < f.right && b.bottom > f.top && b.top < f.bottom;
      });
      const t = frame.querySelector('text') || svg.querySelector('g.node text');
      return { px: parseFloat(t.getAttribute('font-size')) * unit, inView: boxes.length,
               zoom: parseFloat(root.dataset.zoom) };
    }""",
        k,
    )
    print(f"\nrnn20 opened fold: {opened}")
    assert opened["px"] >= READABLE_PX and opened["inView"] >= 2, opened
    page.screenshot(path=artifact("legible-rnn20-fold-opened-1024x768.png"))
    # presentation mode at 1920×1080
    page.set_viewport_size({"width": 1920, "height": 1080})
    for k, name in enumerate(NAMES):
        _focus(page, k)
        page.keyboard.press("f")
        page.wait_for_selector(f"{ROOT}.vz-present")
        page.wait_for_timeout(400)
        _read(page, k, name, "present-1920x1080", shots=name in ("mlp", "rnn45"))
        page.keyboard.press("Escape")
        page.wait_for_selector(f"{ROOT}.vz-present", state="detached")
    context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)
