// access.js: what the live region says at a step (the step's derivation line, from the
// panel's data; its NaN note and a failing rule's message after it; no value while a quiz asks
// the step), and the text stays text.
import assert from "node:assert/strict";
import { test } from "node:test";

import { installFakeDom } from "./fake-dom.mjs";

installFakeDom();
const { stepWords } = await import("../../vizad/view/widget/static/stepper/access.js");

const HOSTILE = "<img src=x onerror=alert(1)>";
const data = {
  n: 3,
  steps: [
    { label: "v₃", panel: { head: "Step 1 of 3: v₃ = v₁ + v₂", line: "v̄₃ = ∂y/∂v₃ = 1" } },
    {
      label: "v₂",
      panel: {
        head: "Step 2 of 3: v₂ = ln v₁",
        line: "v̄₂ = v̄₃ = 1",
        nonfinite: "⚠ v₂ = NaN: produced here",
      },
    },
    {
      label: HOSTILE,
      panel: {
        head: `Step 3 of 3: ${HOSTILE}`,
        line: `v̄₁ = ${HOSTILE} = 0.5`,
        fail: "✗ the rule fails",
      },
    },
  ],
};

test("the live region says the step's derivation line", () => {
  assert.equal(stepWords(data, 0, false), "Step 1 of 3: v̄₃ = ∂y/∂v₃ = 1");
});

test("a NaN note and a failing rule are said after the line, names kept as text", () => {
  assert.equal(stepWords(data, 1, false), "Step 2 of 3: v̄₂ = v̄₃ = 1. ⚠ v₂ = NaN: produced here");
  assert.equal(stepWords(data, 2, false), `Step 3 of 3: v̄₁ = ${HOSTILE} = 0.5. ✗ the rule fails`);
});

test("a step a quiz asks is said without its values", () => {
  const words = stepWords(data, 0, true);
  assert.equal(words, "Step 1 of 3: v₃: a question (the panel asks it)");
  assert.ok(!words.includes("= 1"));
});
