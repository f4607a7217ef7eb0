"""The step's key lines and its out-of-view boxes, read as a student would in a real JupyterLab
at 1024×768 with its file browser open (review of issue 36, defects 3, 4 and 5): for the
lecture, notebook 08's Hessian-vector product, rnn(45) and an imported PyTorch LSTM, at every
step walked, the markers at the frame's edge (the step's boxes out of view) overlap neither
each other nor the step's boxes in view; the derivation line (v̄ᵢ = v̄ⱼ ∂vⱼ/∂vᵢ + … = value)
lies whole inside the step panel and the window; the table of partial adjoints shows at least
six rows (all when fewer; one where the frame is already down to its least); the graph's
frame keeps at least 200 px. Everything is measured
with getBoundingClientRect. Screenshots: artifacts/panel-marks-*.png."""

from __future__ import annotations

from conftest import artifact, write_notebook
from test_jupyterlab import _delete_sessions
from test_legible import _go, _steps
from test_room import _focus, _open

CELLS = [
    "import vizad as vz\n"
    "x1, x2 = vz.Variable('x1'), vz.Variable('x2')\n"
    "y = vz.log(x1) + x1 * x2 - vz.sin(x2)\n"
    "vz.step(y, [x1, x2], {x1: 2.0, x2: 5.0})",
    "import numpy as np\n"
    "A = np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]])\n"
    "v = vz.Variable('v', shape=(3,))\n"
    "f = 0.5 * vz.sum(vz.reshape(vz.matmul(vz.reshape(v, (1, 3)), vz.constant(A)), (3,)) * v)\n"
    "(grad,) = vz.gradients(f, [v])\n"
    "u = np.array([1.0, -1.0, 2.0])\n"
    "point = {v: np.array([0.3, -0.2, 0.5])}\n"
    "vz.step(vz.trace_reverse(vz.sum(grad * u), [v], point))",
    "vz.step(vz.examples.rnn(45))",
    "import torch\n"
    "class Tagger(torch.nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.lstm = torch.nn.LSTM(3, 4)\n"
    "        self.head = torch.nn.Linear(4, 2)\n"
    "    def forward(self, xs):\n"
    "        out, _ = self.lstm(xs)\n"
    "        return self.head(out[-1]).pow(2).sum()\n"
    "torch.manual_seed(2)\n"
    "tagger, sequence = Tagger(), torch.randn(6, 2, 3)\n"
    "vz.step(vz.torch_backward(lambda: tagger(sequence), tagger))",
]
NAMES = ["lecture", "hvp", "rnn45", "lstm"]
ROWS = 6  # rows of the table of partial adjoints in view, at least (all when fewer)
FRAME_MIN = 200  # px: the graph's frame, at least

#: Stepper k as seen: the edge markers' pairwise overlaps (px²) and the largest share of a step
#: box in the frame that one covers; the derivation line's px out of the panel or the window;
#: the table's rows in view and in all; the frame's height.
SEEN = """(k) => {
  const root = document.querySelectorAll('.vizad-stepper')[k];
  const R = (e) => e.getBoundingClientRect();
  const cut = (a, b) => Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left))
      * Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
  const frame = R(root.querySelector('.vz-viewport'));
  const marks = [...root.querySelectorAll('.vz-edge-mark')];
  const overlaps = [];
  for (let i = 0; i < marks.length; i++) for (let j = i + 1; j < marks.length; j++) {
    const a = cut(R(marks[i]), R(marks[j]));
    if (a > 0.5) overlaps.push([marks[i].textContent, marks[j].textContent, Math.round(a)]);
  }
  let cover = 0, covered = null;
  const boxes = root.querySelectorAll(
      '.vz-stage g.vz-s-current, .vz-stage g.vz-s-consumer, .vz-stage g.vz-s-involved');
  for (const g of boxes) {
    const b = R(g);
    if (!b.width || !cut(b, frame)) continue;
    for (const m of marks) {
      const share = cut(R(m), b) / (b.width * b.height);
      if (share > cover) { cover = share; covered = [m.textContent, g.id]; }
    }
  }
  const panel = R(root.querySelector('.vz-step-panel'));
  const bottom = Math.min(panel.bottom, innerHeight), top = Math.max(panel.top, 0);
  const math = [...root.querySelectorAll('.vz-step-panel .vz-math')].map(R);
  const hidden = Math.max(
      0, ...math.map((m) => Math.max(0, m.bottom - bottom) + Math.max(0, top - m.top)));
  const table = root.querySelector('.vz-step-panel .vz-contributions');
  let rows = 0, all = 0;
  if (table) {
    const t = R(table);
    const view = { top: Math.max(t.top, top), bottom: Math.min(t.bottom, bottom) };
    for (const tr of table.querySelectorAll('tbody tr')) {
      all++;
      const r = R(tr);
      if (r.top >= view.top - 1 && r.bottom <= view.bottom + 1) rows++;
    }
  }
  return { step: root.querySelector('.vz-counter').textContent, marks: marks.length,
           overlaps, cover: +cover.toFixed(3), covered, hidden: Math.round(hidden),
           maths: math.length, rows, all, frame: Math.round(frame.height),
           table: table && [R(table).top, R(table).bottom, top, bottom].map(Math.round),
           panel: Math.round(panel.height) };
}"""


def _walk(page, k: int, name: str) -> list[dict]:
    n = _steps(page, k)
    steps = [1, (n + 1) // 2, n] if n > 40 else range(1, n + 1)
    seen = []
    for step in steps:
        _go(page, k, step)
        page.wait_for_timeout(150)
        got = page.evaluate(SEEN, k)
        got["name"] = name
        seen.append(got)
        if step == n or got["rows"] < min(ROWS, got["all"]):
            page.screenshot(path=artifact(f"panel-marks-{name}-step{step}.png"))
    return seen


def test_edge_markers_and_the_derivation_line_at_1024(browser, jupyterlab, page_errors):
    url, root = jupyterlab
    write_notebook(root / "panel_marks.ipynb", CELLS)
    _delete_sessions(url)
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = page_errors(context.new_page())
    _open(page, url, "panel_marks.ipynb")
    page.wait_for_function(
        "(n) => [...document.querySelectorAll('.vizad-stepper')]"
        ".filter((r) => r.querySelector('.vz-stage svg')).length === n",
        arg=len(CELLS),
        timeout=180_000,
    )
    seen = []
    for k, name in enumerate(NAMES):
        _focus(page, k)
        seen += _walk(page, k, name)
    context.close()
    for s in seen:
        print(s)
    bad = {
        "markers overlapping": [s for s in seen if s["overlaps"]],
        "markers covering a step box": [s for s in seen if s["cover"] > 0.01],
        "derivation line hidden": [s for s in seen if s["hidden"] > 0 or not s["maths"]],
        # all, or ROWS of them; one at least where the frame already is at its least height
        "table rows hidden": [
            s for s in seen if s["rows"] < min(ROWS if s["frame"] > FRAME_MIN + 4 else 1, s["all"])
        ],
        "frame too short": [s for s in seen if s["frame"] < FRAME_MIN],
    }
    assert not any(bad.values()), {k: v for k, v in bad.items() if v}
    assert any(s["marks"] >= 2 for s in seen)  # the walk did meet markers
    assert not page_errors.errors, "\n".join(page_errors.errors)
