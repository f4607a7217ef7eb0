// viewport.js's maths (fit, zoom about a point, follow the current step's boxes) on a fake
// frame: the elements are tests/fake-dom.mjs's, whose sizes the tests set.
import assert from "node:assert/strict";
import { test } from "node:test";

import { installFakeDom } from "./fake-dom.mjs";

installFakeDom();
const { Viewport, READABLE } = await import("../../vizad/view/widget/static/stepper/viewport.js");

const MARGIN = 16; // viewport.js's margin between the frame and the boxes kept in view

// a viewport of a w×h frame onto a drawing of natural size nw×nh, whose current step's boxes
// are `boxes` ([x, y, w, h] in the drawing's px)
function viewport({ w = 400, h = 300, nw = 800, nh = 300, boxes = [], scale = 1 } = {}) {
  const root = globalThis.document.createElement("div");
  const v = new Viewport({ root, scale: () => scale, target: () => targets, ready: () => true });
  v.element.clientWidth = w;
  v.element.clientHeight = h;
  v.natural = { w: nw, h: nh };
  // each box on screen where the zoom puts it (the frame's corner at 0, 0)
  const targets = boxes.map(([x, y, bw, bh]) => ({
    getBoundingClientRect: () => {
      const z = v.zoom;
      return {
        left: z.x + x * z.s,
        top: z.y + y * z.s,
        right: z.x + (x + bw) * z.s,
        bottom: z.y + (y + bh) * z.s,
        width: bw * z.s,
        height: bh * z.s,
      };
    },
  }));
  return { v, root, targets };
}

const close = (a, b, what) => assert.ok(Math.abs(a - b) < 1e-9, `${what}: ${a} vs ${b}`);

test("fit shows the whole graph centred, inside the margins", () => {
  const { v, root } = viewport();
  v.fit();
  const s = Math.min((400 - 2 * MARGIN) / 800, (300 - 2 * MARGIN) / 300);
  close(v.zoom.s, s, "scale");
  close(v.zoom.x, (400 - 800 * s) / 2, "x");
  close(v.zoom.y, (300 - 300 * s) / 2, "y");
  assert.equal(root.dataset.zoom, s.toFixed(3));
  assert.equal(v.chosen, "fit");
});

test("zooming keeps the point under the pointer where it is, within 0.05 and 8", () => {
  const { v } = viewport();
  v.zoom = { x: -30, y: 12, s: 0.8 };
  const [cx, cy] = [123, 77];
  const before = [(cx - v.zoom.x) / v.zoom.s, (cy - v.zoom.y) / v.zoom.s];
  v.zoomTo(2.2, cx, cy);
  close(v.zoom.s, 2.2, "scale");
  close((cx - v.zoom.x) / v.zoom.s, before[0], "graph x under the pointer");
  close((cy - v.zoom.y) / v.zoom.s, before[1], "graph y under the pointer");
  v.zoomTo(100);
  close(v.zoom.s, 8, "largest zoom");
  v.choose(0.001);
  close(v.zoom.s, 0.05, "smallest zoom");
  assert.equal(v.chosen, 0.05); // a zoom chosen is kept
});

test("a legible graph opens whole; a large one on the step's region at READABLE", () => {
  const small = viewport({ nw: 300, nh: 200 }).v;
  small.initialZoom();
  close(small.zoom.s, Math.min((400 - 32) / 300, (300 - 32) / 200), "whole");
  const large = viewport({ nw: 4000, nh: 3000, boxes: [[3000, 2500, 60, 40]] }).v;
  large.initialZoom();
  close(large.zoom.s, READABLE, "readable");
});

test("following brings the step's boxes inside the margins, zooming out no further than the readable floor", () => {
  const { v, targets } = viewport({
    nw: 4000,
    nh: 3000,
    boxes: [
      [3000, 2500, 60, 40],
      [3100, 2600, 50, 30],
    ],
  });
  v.zoom = { x: 0, y: 0, s: 1 };
  v.wanted = 1;
  v.follow();
  for (const t of targets) {
    const r = t.getBoundingClientRect();
    assert.ok(
      r.left >= MARGIN - 0.5 && r.right <= 400 - MARGIN + 0.5,
      `x in view: ${r.left}..${r.right}`,
    );
    assert.ok(
      r.top >= MARGIN - 0.5 && r.bottom <= 300 - MARGIN + 0.5,
      `y in view: ${r.top}..${r.bottom}`,
    );
  }
  close(v.zoom.s, 1, "they fit at the wanted zoom: it stays");
  // boxes 1000 px apart do not fit a 400 px frame at zoom 1: the zoom goes down, but not below
  // the readable floor (0.6: 12 pt text at 9.6 px); the step's own box is then kept in view
  const far = viewport({
    nw: 4000,
    nh: 3000,
    boxes: [
      [100, 100, 50, 30],
      [1100, 120, 50, 30],
    ],
  });
  far.v.zoom = { x: 0, y: 0, s: 1 };
  far.v.wanted = 1;
  far.v.follow();
  assert.ok((400 - 2 * MARGIN) / 1050 < 0.6, "both would fit only below the floor");
  close(far.v.zoom.s, 0.6, "the readable floor, not the zoom at which both fit");
  const [a] = far.targets.map((t) => t.getBoundingClientRect());
  assert.ok(
    a.left >= MARGIN - 0.5 && a.right <= 400 - MARGIN + 0.5,
    `the step's own box in view: ${a.left}..${a.right}`,
  );
});

test("where the step's boxes do not fit at the floor, its result and the boxes that fit with it are kept in view", () => {
  // the result (first), a term 200 px left of it, the node 1500 px away, a consumer near the result
  const { v, targets } = viewport({
    nw: 4000,
    nh: 3000,
    boxes: [
      [2000, 1000, 60, 30],
      [1800, 1000, 60, 30],
      [300, 1000, 50, 30],
      [2100, 1050, 50, 30],
    ],
  });
  v.zoom = { x: 0, y: 0, s: 1 };
  v.wanted = 1;
  v.follow();
  close(v.zoom.s, 0.6, "the readable floor");
  const r = targets.map((t) => t.getBoundingClientRect());
  const inView = (b) =>
    b.left >= MARGIN - 0.5 &&
    b.right <= 400 - MARGIN + 0.5 &&
    b.top >= MARGIN - 0.5 &&
    b.bottom <= 300 - MARGIN + 0.5;
  assert.deepEqual(r.map(inView), [true, true, false, true]);
});

test("the floor keeps the drawing's smallest text at 9 px; a zoom below says so", () => {
  const { v } = viewport({
    nw: 4000,
    nh: 3000,
    boxes: [
      [100, 100, 50, 30],
      [3100, 120, 50, 30],
    ],
  });
  v.least = 12; // px: a drawing whose smallest text is 9 pt
  v.zoom = { x: 0, y: 0, s: 1 };
  v.wanted = 1;
  v.follow();
  close(v.zoom.s, 9 / 12, "9 px for 12 px text, above FLOOR");
  assert.equal(v.note.textContent, "", "readable: nothing said");
  v.stage.append(globalThis.document.createElement("div")); // a drawing in the stage
  v.fit();
  assert.ok(v.zoom.s < 0.2);
  assert.match(v.note.textContent, /^text \d(\.\d)? px — zoom in to read$/);
});

test("a graph smaller than the frame is centred when its step is followed", () => {
  const { v } = viewport({ nw: 200, nh: 100, boxes: [[150, 60, 40, 30]] });
  v.zoom = { x: -500, y: -500, s: 1 };
  v.wanted = 1;
  v.follow(true);
  close(v.zoom.x, (400 - 200) / 2, "x");
  close(v.zoom.y, (300 - 100) / 2, "y");
});

test("a resize keeps a chosen zoom and the graph's point at the frame's centre", () => {
  const { v } = viewport();
  v.settle(); // the first zoom, now that the frame has a size
  v.choose(1.5);
  const centre = [(200 - v.zoom.x) / v.zoom.s, (150 - v.zoom.y) / v.zoom.s];
  v.element.clientWidth = 600;
  v.element.clientHeight = 500;
  v.resized();
  close(v.zoom.s, 1.5, "the zoom chosen stays");
  close((300 - v.zoom.x) / v.zoom.s, centre[0], "centre x");
  close((250 - v.zoom.y) / v.zoom.s, centre[1], "centre y");
});
