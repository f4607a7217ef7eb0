// memory.js and timeline.js's words: the timeline of a three-layer tanh chain (x, three tanh,
// their sum) made from its plan, stored and checkpointed, as trace.memory() makes it (the
// Python tests compare the two on many graphs: tests/test_memory_plan.py; these numbers are
// trace.memory()'s for that chain).
import assert from "node:assert/strict";
import { test } from "node:test";

import { installFakeDom } from "./fake-dom.mjs";

installFakeDom();
const { memoryTimeline, aliveAt } =
  await import("../../vizad/view/widget/static/stepper/memory.js");
const { summary, size } = await import("../../vizad/view/widget/static/stepper/timeline.js");

// v₁ = x, v₂ … v₄ = tanh, v₅ = Σ v₄; the walkthrough v̄₅ … v̄₁; tanh's rule reads its output
const plan = {
  forward: [
    { label: "v₁", inputs: [], bytes: 24, leaf: true },
    { label: "v₂", inputs: [0], bytes: 24, leaf: false },
    { label: "v₃", inputs: [1], bytes: 24, leaf: false },
    { label: "v₄", inputs: [2], bytes: 24, leaf: false },
    { label: "v₅", inputs: [3], bytes: 8, leaf: false },
  ],
  values: [
    { label: "v̄₅", bytes: 8, result: false },
    { label: "v̄₄", bytes: 24, result: false },
    { label: "v̄₃", bytes: 24, result: false },
    { label: "v̄₂", bytes: 24, result: false },
    { label: "v̄₁", bytes: 24, result: true },
  ],
  reverse: [
    { label: "v̄₅", node: 4, reads: [], takes: [], makes: [0] },
    { label: "v̄₄", node: 3, reads: [], takes: [0], makes: [1] },
    { label: "v̄₃", node: 2, reads: [3], takes: [1], makes: [2] },
    { label: "v̄₂", node: 1, reads: [2], takes: [2], makes: [3] },
    { label: "v̄₁", node: 0, reads: [1], takes: [3], makes: [4] },
  ],
};

test("storing everything: the three tanh values and two adjoints at the peak", () => {
  const t = memoryTimeline(plan, null);
  assert.deepEqual(
    t.steps.map((s) => s.values),
    [1, 2, 2, 3, 4, 4, 5, 5, 4, 3],
  );
  assert.equal(t.peakValues, 5);
  assert.equal(t.peakStep, 7);
  assert.deepEqual(t.recomputed, []);
  assert.deepEqual(aliveAt(t, 7).forward, [1, 2, 3]);
  assert.equal(
    summary(t, null),
    "memory: peak 5 values, 120 B at step 7 of 10 (reverse v̄₄, the walkthrough's step 2); every value stored; 0 forward ops run again",
  );
});

test("no checkpoint but the input: the three values computed again from x, where first read", () => {
  const t = memoryTimeline(plan, []);
  assert.deepEqual(t.steps.map((s) => `${s.phase} ${s.label}`).slice(5, 11), [
    "reverse v̄₅",
    "reverse v̄₄",
    "recompute v₂",
    "recompute v₃",
    "recompute v₄",
    "reverse v̄₃",
  ]);
  assert.deepEqual(t.recomputed, [1, 2, 3]);
  assert.equal(t.peakValues, 6); // x, the three again, two adjoints
  assert.equal(
    summary(t, []),
    "memory: peak 6 values, 144 B at step 11 of 13 (reverse v̄₃, the walkthrough's step 3); 0 checkpoints; 3 forward ops run again",
  );
});

test("sizes read as a person reads them", () => {
  assert.deepEqual([size(800), size(8000), size(3 * 2 ** 20)], ["800 B", "7.8 KiB", "3.0 MiB"]);
});
