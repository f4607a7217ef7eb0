// marks.js: where the markers at the frame's edge go (the current step's boxes out of view,
// viewport.js). Pure placement maths: each marker wants a spot on the edge towards its box; the
// markers are placed one by one at the nearest free spot (sliding along their edge, then a row
// further in) so that none overlaps another and none covers a box of the step that is in view.

const GAP = 2; // px between two markers, and between a marker and the frame's side
const STEP = 4; // px: the spots tried along an edge are this far apart
export const STEP_BOX = 1e6; // the cost of covering one px² of a box of the step
export const OTHER_BOX = 1e2; // of covering one px² of another box (one px moved costs 1)

// the area (px²) that rectangles a and b ({ left, top, w, h }) share
export function overlap(a, b) {
  const x = Math.min(a.left + a.w, b.left + b.w) - Math.max(a.left, b.left);
  const y = Math.min(a.top + a.h, b.top + b.h) - Math.max(a.top, b.top);
  return x > 0 && y > 0 ? x * y : 0;
}

// `marks`: [{ left, top, w, h, side }] each at its wanted spot (side: "top", "bottom", "left" or
// "right", the edge it sits on); `frame`: { w, h }; `avoid`: [{ left, top, w, h, weight }] the
// boxes in view (frame px), the step's first (weight: how much covering one px of it costs,
// against one px moved; STEP_BOX when not given). Returns [{ left, top }] in the same order:
// every marker inside the frame, apart from the ones placed before it (GAP px), and off the
// boxes when there is such a spot; else the spot that covers the least of them (the step's
// boxes first).
export function placeMarks(marks, frame, avoid = []) {
  const placed = [];
  for (const m of marks) {
    let best = null, bestCost = Infinity;
    for (const c of spots(m, frame)) {
      const r = { ...c, w: m.w, h: m.h };
      const grown = { left: r.left - GAP, top: r.top - GAP, w: r.w + 2 * GAP, h: r.h + 2 * GAP };
      if (placed.some((p) => overlap(grown, p) > 0)) continue; // never on another marker
      const covered = avoid.reduce((s, b) => s + overlap(r, b) * (b.weight ?? STEP_BOX), 0);
      const cost = covered + Math.hypot(r.left - m.left, r.top - m.top);
      if (cost < bestCost) [best, bestCost] = [r, cost];
      if (!covered && c.far === 0) break; // spots come nearest first along the wanted row
    }
    // a frame too small for every marker: the wanted spot (should not happen at 6 markers)
    best ??= { left: clampIn(m.left, m.w, frame.w), top: clampIn(m.top, m.h, frame.h), w: m.w, h: m.h };
    placed.push(best);
  }
  return placed.map(({ left, top }) => ({ left, top }));
}

function clampIn(x, size, room) {
  return Math.max(GAP, Math.min(x, room - size - GAP));
}

// the spots a marker may take: along its edge, nearest its wanted spot first, on the row at the
// edge, then on rows further in (far = how many rows in)
function* spots(m, frame) {
  const along = m.side === "top" || m.side === "bottom";
  const room = along ? frame.w : frame.h, size = along ? m.w : m.h;
  const want = clampIn(along ? m.left : m.top, size, room);
  const across = along ? m.h : m.w, depth = along ? frame.h : frame.w;
  const base = clampIn(along ? m.top : m.left, across, depth);
  const inward = m.side === "top" || m.side === "left" ? 1 : -1;
  for (let far = 0; far < 4; far++) {
    const rowAt = base + inward * far * (across + GAP);
    if (rowAt < GAP - 0.5 || rowAt + across > depth - GAP + 0.5) break;
    const lo = GAP, hi = room - size - GAP;
    for (let d = 0; d <= room; d += STEP) {
      for (const at of d ? [want - d, want + d] : [want]) {
        if (at < lo - 0.5 || at > hi + 0.5) continue;
        yield along ? { left: at, top: rowAt, far } : { left: rowAt, top: at, far };
      }
      if (want - d < lo && want + d > hi) break;
    }
  }
}

// Which of the step's boxes are kept in view when they do not all fit at the zoom shown
// (viewport.js): `boxes`: [{ left, top, right, bottom }] (frame px) in the order they are
// kept: the result first, then the terms being added, then the rest; `room`: { w, h }, the
// frame less its margins. Taken in that order, a box is kept when the box around it and the
// ones kept before still fits in the room (the first is always kept: its own size may not
// fit). Returns the indices kept and the box around them ({ left, top, right, bottom }).
export function keepInView(boxes, room) {
  const kept = [];
  let box = null;
  boxes.forEach((b, k) => {
    const u = box ? {
      left: Math.min(box.left, b.left), top: Math.min(box.top, b.top),
      right: Math.max(box.right, b.right), bottom: Math.max(box.bottom, b.bottom),
    } : { left: b.left, top: b.top, right: b.right, bottom: b.bottom };
    if (!box || (u.right - u.left <= room.w + 0.5 && u.bottom - u.top <= room.h + 0.5)) {
      box = u;
      kept.push(k);
    }
  });
  return { kept, box };
}
