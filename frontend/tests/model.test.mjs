// mount.js's localModel (the model of a page without a kernel) and expand.js's applyPatch.
import assert from "node:assert/strict";
import { test } from "node:test";

const { localModel } = await import("../../vizad/view/widget/static/stepper/mount.js");
const { applyPatch, resolveOpens } =
  await import("../../vizad/view/widget/static/stepper/expand.js");

test("localModel: set tells the listeners of a change, off lets one go", () => {
  const model = localModel({ step: 1 });
  const heard = [];
  const a = () => heard.push(["a", model.get("step")]);
  const b = () => heard.push(["b", model.get("step")]);
  model.on("change:step", a);
  model.on("change:step", b);
  model.set("step", 2);
  model.set("step", 2); // no change, no event
  model.off("change:step", a);
  model.set("step", 3);
  assert.deepEqual(heard, [
    ["a", 2],
    ["b", 2],
    ["b", 3],
  ]);
  model.off("change:view", a); // never listened: nothing happens
});

test("applyPatch: the patch's entries over the base's, the base untouched", () => {
  const base = {
    svg: "<svg/>",
    dot: "digraph {}",
    opens: { c: {} },
    scope: "s",
    note: "n",
    collapsed: ["c"],
    owner: { a: 0, c: 1 },
    hides: {},
    tips: { a: { head: "a" } },
    edgeTips: {},
    clicks: { a: 0 },
    links: {},
    steps: [{ current: "a" }, { current: "c" }],
    find: [
      ["a", "a", 0],
      ["c", "c", 1],
    ],
  };
  const frozen = JSON.stringify(base);
  const patch = {
    dot: "digraph { c1 }",
    collapsed: [],
    owner: { c1: 1 },
    hides: {},
    tips: { c1: { head: "c1" } },
    edgeTips: {},
    clicks: {},
    links: {},
    steps: { 1: { current: "c1" } },
    find: { 1: ["c1", "c1", 1] },
  };
  const frame = applyPatch(base, patch);
  assert.equal(JSON.stringify(base), frozen);
  assert.equal(frame.svg, undefined);
  assert.equal(frame.opens, undefined);
  assert.equal(frame.dot, "digraph { c1 }");
  assert.equal(frame.scope, "s");
  assert.deepEqual(frame.owner, { a: 0, c: 1, c1: 1 });
  assert.deepEqual(frame.steps, [{ current: "a" }, { current: "c1" }]);
  assert.deepEqual(frame.find, [
    ["a", "a", 0],
    ["c1", "c1", 1],
  ]);
});

test("resolveOpens: every view's patches from one text, DOT lines and fields alike given once", () => {
  const packed = {
    lines: ["digraph {", "a", "b", "}", "b2"],
    patches: {
      forward: { c: { dotLines: [0, 1, 2, 3], tips: { a: { head: "a" } }, owner: { a: 0 } } },
      backprop: { c: { dotLines: [0, 1, 4, 3], same: { tips: "forward", owner: "forward" } } },
    },
  };
  const opens = resolveOpens(packed);
  assert.deepEqual(opens.forward.c, {
    dot: "digraph {\na\nb\n}",
    tips: { a: { head: "a" } },
    owner: { a: 0 },
  });
  assert.deepEqual(opens.backprop.c, {
    dot: "digraph {\na\nb2\n}",
    tips: { a: { head: "a" } },
    owner: { a: 0 },
  });
});
