// marks.js: the markers at the frame's edge never overlap one another nor cover the step's
// boxes in view, stay inside the frame, and stay where they want to be when that is free.
import assert from "node:assert/strict";
import { test } from "node:test";

import { keepInView, overlap, placeMarks } from "../../vizad/view/widget/static/stepper/marks.js";

const frame = { w: 592, h: 240 };
const rects = (marks, placed) => placed.map((p, k) => ({ ...p, w: marks[k].w, h: marks[k].h }));

function check(marks, placed, avoid = []) {
  const r = rects(marks, placed);
  for (let i = 0; i < r.length; i++) {
    assert.ok(
      r[i].left >= 0 &&
        r[i].top >= 0 &&
        r[i].left + r[i].w <= frame.w &&
        r[i].top + r[i].h <= frame.h,
      `inside: ${JSON.stringify(r[i])}`,
    );
    for (let j = i + 1; j < r.length; j++)
      assert.equal(overlap(r[i], r[j]), 0, `markers ${i} and ${j} overlap`);
    for (const b of avoid) assert.equal(overlap(r[i], b), 0, `marker ${i} covers a box`);
  }
  return r;
}

test("overlap is the shared area", () => {
  assert.equal(overlap({ left: 0, top: 0, w: 10, h: 10 }, { left: 5, top: 5, w: 10, h: 10 }), 25);
  assert.equal(overlap({ left: 0, top: 0, w: 10, h: 10 }, { left: 10, top: 0, w: 10, h: 10 }), 0);
});

test("a free marker stays at its wanted spot", () => {
  const marks = [{ left: 200, top: 218, w: 80, h: 20, side: "bottom" }];
  assert.deepEqual(placeMarks(marks, frame), [{ left: 200, top: 218 }]);
});

test("markers wanting the same spot are placed side by side along their edge", () => {
  // the lecture's step 7: "∂v₃/∂v₁ ↓" and "v̄₁→₃ ↓" wanted 15 px apart
  const marks = [
    { left: 250, top: 218, w: 80, h: 20, side: "bottom" },
    { left: 265, top: 218, w: 70, h: 20, side: "bottom" },
    { left: 250, top: 218, w: 90, h: 20, side: "bottom" },
  ];
  const r = check(marks, placeMarks(marks, frame));
  assert.deepEqual(r[0], { left: 250, top: 218, w: 80, h: 20 }); // the first keeps its spot
  for (const m of r) assert.equal(m.top, 218); // all on the bottom edge: room enough there
});

test("six markers in one corner are all apart, on the right edge too", () => {
  const marks = Array.from({ length: 6 }, () => ({
    left: 490,
    top: 100,
    w: 100,
    h: 20,
    side: "right",
  }));
  check(marks, placeMarks(marks, frame));
});

test("a marker never covers a box of the step in view", () => {
  // the LSTM: "↑ v̄₅ = v̄₅→₇" wanted on box v₇ at the top edge
  const box = { left: 180, top: 0, w: 120, h: 40 };
  const marks = [{ left: 200, top: 2, w: 110, h: 20, side: "top" }];
  const r = check(marks, placeMarks(marks, frame, [box]), [box]);
  assert.equal(r[0].top, 2); // slid along its edge, not into the picture
});

test("a frame too crowded for the edge row uses the next row in", () => {
  const marks = Array.from({ length: 6 }, () => ({
    left: 250,
    top: 218,
    w: 180,
    h: 20,
    side: "bottom",
  }));
  const r = check(marks, placeMarks(marks, frame));
  assert.ok(r.some((m) => m.top < 218));
});

test("a marker keeps off other boxes when it can, and off the step's boxes first", () => {
  const step = { left: 150, top: 190, w: 120, h: 50 };
  const other = { left: 280, top: 190, w: 120, h: 50, weight: 100 };
  const marks = [{ left: 250, top: 218, w: 80, h: 20, side: "bottom" }];
  const r = check(marks, placeMarks(marks, frame, [step, other]), [step, other]);
  assert.equal(r[0].top, 218); // along the edge, between or beside them
  // no free spot but over the other box or the step's: the other box it is
  const tight = { w: 400, h: 240 };
  const wide = [{ left: 150, top: 218, w: 120, h: 20, side: "bottom" }];
  const boxes = [
    { left: 0, top: 100, w: 200, h: 140 },
    { left: 200, top: 100, w: 200, h: 140, weight: 100 },
  ];
  const [p] = placeMarks(wide, tight, boxes);
  assert.equal(overlap({ ...p, w: 120, h: 20 }, boxes[0]), 0);
});

// a box [left, top, w, h] as keepInView takes it
const box = ([left, top, w, h]) => ({ left, top, right: left + w, bottom: top + h });

test("boxes that fit together are all kept, the box around them returned", () => {
  const got = keepInView(
    [
      [10, 10, 50, 20],
      [200, 100, 50, 20],
      [100, 50, 30, 30],
    ].map(box),
    { w: 300, h: 200 },
  );
  assert.deepEqual(got.kept, [0, 1, 2]);
  assert.deepEqual(got.box, { left: 10, top: 10, right: 250, bottom: 120 });
});

test("where they do not fit, the result comes first, then the terms in order, skipping what does not fit", () => {
  // the result, a term beside it, a term too far right, the node below the first two
  const boxes = [
    [400, 100, 60, 30],
    [300, 120, 60, 30],
    [900, 100, 60, 30],
    [330, 220, 40, 20],
  ].map(box);
  const got = keepInView(boxes, { w: 400, h: 200 });
  assert.deepEqual(got.kept, [0, 1, 3], "the far term is left out, the later box that fits kept");
  assert.deepEqual(got.box, { left: 300, top: 100, right: 460, bottom: 240 });
});

test("a result larger than the room is kept alone", () => {
  const got = keepInView(
    [
      [0, 0, 500, 50],
      [10, 60, 20, 20],
    ].map(box),
    { w: 300, h: 200 },
  );
  assert.deepEqual(got.kept, [0]);
  assert.deepEqual(got.box, { left: 0, top: 0, right: 500, bottom: 50 });
});
