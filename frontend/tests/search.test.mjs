// search.js: text as typed on a keyboard, and which nodes a search finds, in what order.
import assert from "node:assert/strict";
import { test } from "node:test";

import { installFakeDom } from "./fake-dom.mjs";

installFakeDom();
const { Finder, plainText } = await import("../../vizad/view/widget/static/stepper/search.js");

test("subscripts read as digits and accents dropped", () => {
  assert.equal(plainText("v̄₁₂"), "v12");
  assert.equal(plainText("v̇₃ = cos(v₁)"), "v3 = cos(v1)");
  assert.equal(plainText("x"), "x");
});

// a finder over the view's `find` entries: [text, box id, step (0-based; -1 for none)]
function finder(find) {
  const stage = globalThis.document.createElement("div");
  return new Finder({
    stage,
    frame: () => ({ find, tips: {} }),
    box: () => null,
    go() {},
    reveal() {},
    open() {},
    canOpen: () => false,
  });
}

const FIND = [
  ["v₁₀ = v₉ + 1", "n10", 9],
  ["v₁ = log(x₁)", "n1", 0],
  ["v₂ = x₁·x₂ loss", "n2", 1],
  ["w weight", "n3", -1],
];

test("a search finds what is typed, subscripts as digits, the node so named first", () => {
  const f = finder(FIND);
  f.input.value = "v1";
  assert.deepEqual(
    f.matches().map((e) => e[1]),
    ["n1", "n10"],
  );
  f.input.value = "x1";
  assert.deepEqual(
    f.matches().map((e) => e[1]),
    ["n1", "n2"],
  );
  f.input.value = "loss"; // a name the user gave: found, and first
  assert.deepEqual(
    f.matches().map((e) => e[1]),
    ["n2"],
  );
  f.input.value = "  ";
  assert.deepEqual(f.matches(), []);
  f.input.value = "nothing";
  f.search();
  assert.equal(f.note.textContent, "nothing found");
});

test("a regular expression searches; a bad one is said, not thrown", () => {
  const f = finder(FIND);
  f.regex.setAttribute("aria-pressed", "true");
  f.input.value = "^v\\d = ";
  assert.deepEqual(
    f.matches().map((e) => e[1]),
    ["n1", "n2"],
  );
  f.input.value = "v(";
  assert.equal(f.matches(), null);
  assert.match(f.note.textContent, /^not a regular expression/);
});
