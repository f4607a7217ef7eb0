"""What a reader sees of a step (issue 44, items 1 and 2), shared by the browser tests of the
step in view: the step's result box (g.node.vz-result) inside the graph's frame, and the size
on screen of every drawn text that is in the frame (its font size in the SVG's units times the
screen px per unit, from getBoundingClientRect: the zoom included), the markers at the frame's
edge, and whether the panel's sum line (it states the result) is on screen."""

from __future__ import annotations

from conftest import settled

READABLE_PX = 9.0

#: Stepper k's step as seen: the result box inside the frame's inner rect (its border out),
#: the smallest text in view (px) and the texts under READABLE_PX, the markers' words, the
#: zoom, and the panel's sum line on screen.
SEEN = """([k, least]) => {
  const root = document.querySelectorAll('.vizad-stepper')[k];
  const svg = root.querySelector('.vz-stage svg');
  const vp = root.querySelector('.vz-viewport');
  const v = vp.getBoundingClientRect();
  const f = { left: v.left + vp.clientLeft, top: v.top + vp.clientTop };
  f.right = f.left + vp.clientWidth;
  f.bottom = f.top + vp.clientHeight;
  const unit = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const g = root.querySelector('.vz-stage g.node.vz-result');
  const r = g && g.getBoundingClientRect();
  const inside = (b) => b.left >= f.left - 0.5 && b.right <= f.right + 0.5
      && b.top >= f.top - 0.5 && b.bottom <= f.bottom + 0.5;
  const small = [];
  let px = Infinity;
  for (const t of svg.querySelectorAll('text')) {
    const b = t.getBoundingClientRect();
    if (!b.width || !b.height || getComputedStyle(t).visibility === 'hidden') continue;
    if (b.right <= f.left || b.left >= f.right || b.bottom <= f.top || b.top >= f.bottom) continue;
    const size = parseFloat(getComputedStyle(t).fontSize) * unit;
    px = Math.min(px, size);
    if (size < least) small.push(`${t.textContent} ${size.toFixed(1)}px`);
  }
  const sum = root.querySelector('.vz-step-panel .vz-sum')?.getBoundingClientRect();
  const win = { left: 0, top: 0, right: innerWidth, bottom: innerHeight };
  const within = (b, o) => b.left >= o.left - 1 && b.right <= o.right + 1
      && b.top >= o.top - 1 && b.bottom <= o.bottom + 1;
  return {
    result: g ? g.id : null,
    inFrame: !!r && r.width > 0 && inside(r),
    px, small: small.slice(0, 6),
    marks: [...root.querySelectorAll('.vz-edge-mark')].map((m) => m.textContent),
    zoom: parseFloat(root.dataset.zoom),
    sum: !!sum && sum.height > 0 && within(sum, win),
    frame: [vp.clientWidth, vp.clientHeight],
    note: root.querySelector('.vz-zoom-note')?.textContent || '',
    step: root.querySelector('.vz-counter').textContent,
  };
}"""


def steps_to_read(n: int) -> list[int]:
    """The steps checked (1-based): every step up to 30, else a deterministic sample of the
    first 8, the last 8 and every (n // 14)th between (rnn(45) and the LSTM have hundreds)."""
    if n <= 30:
        return list(range(1, n + 1))
    return sorted({*range(1, 9), *range(n - 7, n + 1), *range(9, n - 7, max(1, n // 14))})


def go(page, k: int, step: int) -> None:
    """Stepper k at ``step`` (its slider, as a person drags it), followed and settled."""
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
    settled(page, 3)


def count(page, k: int) -> int:
    return int(
        page.evaluate(
            "(k) => document.querySelectorAll('.vizad-stepper')[k].querySelector('.vz-slider').max",
            k,
        )
    )


def walk(page, k: int, steps: list[int] | None = None) -> list[dict]:
    """Stepper k's steps as seen (``steps``: steps_to_read of its count by default)."""
    seen = []
    for step in steps or steps_to_read(count(page, k)):
        go(page, k, step)
        got = page.evaluate(SEEN, [k, READABLE_PX])
        got["at"] = step
        seen.append(got)
    return seen


def summary(seen: list[dict]) -> str:
    """The figures of a walk: how many steps had the result in view, the smallest text."""
    ok = sum(s["inFrame"] for s in seen)
    least = min(s["px"] for s in seen)
    out = [s["at"] for s in seen if not s["inFrame"]]
    small = [s["at"] for s in seen if s["px"] < READABLE_PX]
    return (
        f"result in view at {ok} of {len(seen)} steps, smallest text {least:.1f} px, "
        f"zoom {min(s['zoom'] for s in seen):.3f}–{max(s['zoom'] for s in seen):.3f}, "
        f"frame {seen[0]['frame']}; out {out[:10]}; small text {small[:10]}"
    )


def faults(seen: list[dict]) -> list[dict]:
    """The steps at which the result is out of view, the text in view is too small, or the
    panel's sum line is off the screen."""
    return [s for s in seen if not s["inFrame"] or s["px"] < READABLE_PX or not s["sum"]]
