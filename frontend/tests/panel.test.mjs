// panel.js: a step's panel and the running table's rows built from Python's data
// (vizad/trace/panel.py) as elements, every piece of text a text node: a name that looks like
// markup stays text.
import assert from "node:assert/strict";
import { test } from "node:test";

import { installFakeDom } from "./fake-dom.mjs";

installFakeDom();
const { panelElement, rowElement, shown } =
  await import("../../vizad/view/widget/static/stepper/panel.js");

const HOSTILE = "<img src=x onerror=alert(1)>";
const HEAD = ["consumer vⱼ", "∂vⱼ/∂vᵢ", "value", "partial adjoint v̄ᵢ→ⱼ"];

// an element as [tag, class, ...children], text nodes as strings
function tree(e) {
  if (typeof e === "string") return e;
  const text = e.textContent ? [e.textContent] : [];
  return [e.tagName.toLowerCase(), e.className, ...text, ...e.children.map(tree)];
}

test("a reverse step's panel: its lines and its table, the names as text", () => {
  const panel = {
    head: `Step 2 of 3: v₁ = ${HOSTILE}`,
    about: ["op variable · scalar · value ", "5"],
    rows: [[["v₂"], ["cos v₁"], ["0.284"], ["v̄₁→₂ = v̄₂ cos v₁ = ", "-0.284"]]],
    sum: "v̄₁ = Σ v̄ᵢ→ⱼ = ",
    total: "-0.284",
    line: "v̄₁ = v̄₂ cos v₁ = -0.284",
    fail: "✗ </td><script>",
  };
  assert.deepEqual(tree(panelElement(panel, HEAD)), [
    "div", "vz-panel",
    ["div", "vz-head", `Step 2 of 3: v₁ = ${HOSTILE}`],
    ["div", "vz-muted", "op variable · scalar · value ", "5"],
    ["table", "vz-contributions",
      // each word of a head kept whole (a span that does not wrap), a fraction in two
      ["thead", "", ["tr", "", ...HEAD.map((t) => ["th", "",
        ...t.split(" ").flatMap((w, k) => [...(k ? [" "] : []),
          ...(w === "∂vⱼ/∂vᵢ" ? ["∂vⱼ/", "∂vᵢ"] : [w]).map((part) => ["span", "vz-word", part])])])]],
      ["tbody", "", ["tr", "", ["td", "", "v₂"], ["td", "", "cos v₁"], ["td", "", "0.284"],
        ["td", "", "v̄₁→₂ = v̄₂ cos v₁ = ", "-0.284"]]]],
    ["div", "vz-sum", "v̄₁ = Σ v̄ᵢ→ⱼ = ", ["b", "", "-0.284"]],
    ["div", "vz-math", "v̄₁ = v̄₂ cos v₁ = -0.284"],
    ["div", "vz-fail", "✗ </td><script>"],
  ]); // prettier-ignore
});

test("the output's step says so instead of a table; a source line is muted", () => {
  const panel = { head: "Step 1 of 3: v₃ = v₁ + v₂", about: ["op add · scalar · value ", "1"], note: "the output",
    sum: "v̄₃ = seed = ", total: "1", line: "v̄₃ = 1", source: "model.py:3: y = a + b" }; // prettier-ignore
  const [, , ...lines] = tree(panelElement(panel, HEAD));
  assert.deepEqual(
    lines.map((l) => l[1]),
    ["vz-head", "vz-muted", "vz-muted", "vz-sum", "vz-math", "vz-muted vz-source"],
  );
  assert.equal(lines[2][2], "the output");
});

test("values: a tuple element by element, a muted note, a heatmap coloured by Python", () => {
  assert.deepEqual(shown({ tuple: ["1", { muted: "not recorded" }] }).map(tree), [
    "(", "1", ", ", ["span", "vz-muted", "not recorded"], ")",
  ]); // prettier-ignore
  const heat = { heat: { columns: 2, label: "heatmap of a 2×2 tensor", caption: "2×2 · ±4",
    cells: [["#ff0000", "[0, 0] = 4"], ["url(javascript:x)", "[0, 1] = 1"], ["#0000ff", HOSTILE], ["#ffffff", "[1, 1] = 0"]] } }; // prettier-ignore
  const [grid, scale] = shown(heat);
  assert.equal(grid.className, "vz-heat");
  assert.equal(grid.getAttribute("aria-label"), "heatmap of a 2×2 tensor");
  assert.equal(grid.style.gridTemplateColumns, "repeat(2,auto)");
  assert.deepEqual(grid.children.map((c) => [c.style.backgroundColor, c.getAttribute("title")]), [
    ["#ff0000", "[0, 0] = 4"], [undefined, "[0, 1] = 1"], ["#0000ff", HOSTILE], ["#ffffff", "[1, 1] = 0"],
  ]); // prettier-ignore
  assert.deepEqual(tree(scale), ["span", "vz-scale", "2×2 · ±4"]);
});

test("a row of the running table: the current step marked, a failing one red", () => {
  const row = rowElement({ cells: [["v̄₁"], ["5.5"], ["✗"]], bad: true }, true);
  assert.deepEqual(tree(row), [
    "tr",
    "vz-bad",
    ["td", "", "v̄₁"],
    ["td", "", "5.5"],
    ["td", "", "✗"],
  ]);
  assert.equal(row.getAttribute("data-now"), "true");
  assert.equal(
    rowElement({ cells: [[HOSTILE], ["1"], []], bad: false }, false).getAttribute("data-now"),
    null,
  );
  assert.deepEqual(tree(rowElement({ cells: [[HOSTILE], ["1"], []], bad: false })).slice(2, 3), [
    ["td", "", HOSTILE],
  ]);
});
