// search.js: text as typed on a keyboard, and which nodes a search finds, in what order.
import assert from "node:assert/strict";
import { test } from "node:test";

import { installFakeDom } from "./fake-dom.mjs";

installFakeDom();
const { Finder, plainText, typedText, formatNumber, numberMatch } =
  await import("../../vizad/view/widget/static/stepper/search.js");

test("subscripts read as digits and accents dropped", () => {
  assert.equal(plainText("v̄₁₂"), "v12");
  assert.equal(plainText("v̇₃ = cos(v₁)"), "v3 = cos(v1)");
  assert.equal(plainText("x"), "x");
});

test("names as typed: the bar of v̄ and the dot of v̇ kept as words", () => {
  assert.equal(typedText("v̄₇₃"), "vbar73");
  assert.equal(typedText("v̄73"), "vbar73");
  assert.equal(typedText("VBAR73"), "vbar73");
  assert.equal(typedText("v̇₃"), "vdot3");
  assert.equal(typedText("v₇₃"), "v73");
});

test("numbers are written as the drawing writes them (format_number)", () => {
  // the same texts as vizad.engine.text.format_number(x, 3)
  const cases = [
    [0.3, "0.3"],
    [0.30000000000000004, "0.3"],
    [0.2996, "0.3"],
    [-0.284, "-0.284"],
    [2, "2"],
    [5.5, "5.5"],
    [0, "0"],
    [-0.0001, "-1.00e-4"],
    [4.72e-15, "4.72e-15"],
    [1e-7, "1.00e-7"],
    [2.5e6, "2.50e+6"],
    [-0.0004, "-4.00e-4"],
    [0.001, "0.001"],
    [NaN, "nan"],
    [-Infinity, "-inf"],
  ];
  for (const [x, text] of cases) assert.equal(formatNumber(x, 3), text, String(x));
  assert.equal(formatNumber(2.4, 0), "2");
});

test("a typed number is found as shown: rounded as drawn, then values beginning with it", () => {
  assert.equal(numberMatch("0.3", ["= 0.3"], 3), 2);
  assert.equal(numberMatch("0.30", ["= 0.3"], 3), 2);
  assert.equal(numberMatch("0.2996", ["= 0.3"], 3), 2); // rounds to what is drawn
  assert.equal(numberMatch("0.27", ["= 0.3"], 3), 0); // 0.27 would show 0.27
  assert.equal(numberMatch("0.3", ["= 0.396"], 3), 1);
  assert.equal(numberMatch(".3", ["= 0.396"], 3), 1);
  assert.equal(numberMatch("0.3", ["= -0.3"], 3), 0);
  assert.equal(numberMatch("-0.3", ["= [1, -0.3]"], 3), 2);
  assert.equal(numberMatch("4.72e-15", ["= 0.396", "v̄₇₃ = 4.72e-15"], 3), 2);
  assert.equal(numberMatch("0", ["= 0.3"], 3), 0); // "0" is not in every value
  assert.equal(numberMatch("0", ["= 0"], 3), 2);
  assert.equal(numberMatch("0.0001", ["= 0"], 3), 0); // it would show 1.00e-4
  assert.equal(numberMatch("1", ["= 1"], undefined), 2);
});

// a finder over the view's `find` entries: [text, box id, step (0-based; -1 for none), the
// value lines its box writes out]
function finder(find, decimals = 3) {
  const stage = globalThis.document.createElement("div");
  return new Finder({
    stage,
    frame: () => ({ find, tips: {}, decimals }),
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

// rnn(45)'s adjoint view, in part: inputs showing 0.3, a forward box folded, its adjoint and a
// partial adjoint folded too, a sum showing its value, the seed
const RNN = [
  ["v₁ = x0", "v1", 144, ["= 0.3"]],
  ["v₂ = x1", "v2", 143, ["= 0.3"]],
  ["v₇₃", "fold_v11", 72, []],
  ["v₁₀₃", "fold_v11", 42, []],
  ["v̄₁₄₅ (seed)", "a1", 0, ["= 1"]],
  ["v̄₇₃", "fold_a2", 72, []],
  ["v̄₇₃→₇₄", "fold_a2", 71, []],
  ["∂v₇₃/∂v₇₂", "fold_a2", 73, []],
  ["v̄₆ = Σₜ v̄₆→ₜ", "a231", 139, ["= 0.396"]],
  ["v̄₁₀ = Σₜ v̄₁₀→ₜ", "a235", 135, ["= 0.03"]],
];
const found = (f, text) => {
  f.input.value = text;
  return f.matches().map((e) => e[0]);
};

test("an adjoint's name finds the adjoint first, a forward name the forward node first", () => {
  const f = finder(RNN);
  for (const typed of ["v̄₇₃", "v̄73", "vbar73", "VBAR73"]) {
    assert.deepEqual(found(f, typed), ["v̄₇₃", "v₇₃", "v̄₇₃→₇₄", "∂v₇₃/∂v₇₂"], typed);
  }
  for (const typed of ["v₇₃", "v73"]) {
    assert.deepEqual(found(f, typed), ["v₇₃", "v̄₇₃", "v̄₇₃→₇₄", "∂v₇₃/∂v₇₂"], typed);
  }
  assert.deepEqual(found(f, "∂v₇₃"), ["∂v₇₃/∂v₇₂"]);
});

test("in a view laying results on the forward boxes, v̄ᵢ finds the box showing it", () => {
  const backprop = [
    ["v₇₂ = v₇₁ + v₁₀", "v72", 73, ["= 0.419", "v̄₇₂ = 3.97e-15"]],
    ["v₇₃ = tanh v₇₂", "v73", 72, ["= 0.396", "v̄₇₃ = 4.72e-15"]],
    ["v₇₄ = v₇₃ × v₂", "v74", 71, ["= 0.119", "v̄₇₄ = 1.57e-14"]],
  ];
  const f = finder(backprop);
  for (const typed of ["v̄₇₃", "vbar73"])
    assert.deepEqual(found(f, typed), ["v₇₃ = tanh v₇₂", "v₇₄ = v₇₃ × v₂"]);
  assert.deepEqual(found(f, "v₇₄"), ["v₇₄ = v₇₃ × v₂"]);
  assert.deepEqual(found(f, "4.72e-15"), ["v₇₃ = tanh v₇₂"]);
});

test("a number finds the boxes showing it as drawn, then those beginning with it; 0 is not everywhere", () => {
  const f = finder(RNN);
  assert.deepEqual(found(f, "0.3"), ["v₁ = x0", "v₂ = x1", "v̄₆ = Σₜ v̄₆→ₜ"]);
  assert.deepEqual(found(f, "0.30"), ["v₁ = x0", "v₂ = x1"]); // 0.396 does not begin with 0.30
  assert.deepEqual(found(f, "0.03"), ["v̄₁₀ = Σₜ v̄₁₀→ₜ"]);
  assert.deepEqual(found(f, "1"), ["v̄₁₄₅ (seed)", "v₁ = x0", "v₂ = x1", "v₁₀₃", "v̄₁₀ = Σₜ v̄₁₀→ₜ"]);
  // "0": the names with a 0 in them (x0, v₁₀₃…), no box for its value (none shows 0)
  assert.deepEqual(found(f, "0"), ["v₁ = x0", "v₁₀₃", "v̄₁₀ = Σₜ v̄₁₀→ₜ"]);
  assert.deepEqual(found(f, "−0.3"), []);
  f.search();
  assert.equal(f.note.textContent, "nothing found");
});

test("the note says the value of the box jumped to", () => {
  const f = finder(RNN);
  f.input.value = "0.3";
  f.search();
  assert.equal(f.note.textContent, "3 found: Enter goes to the first");
  f.step(1);
  assert.equal(f.note.children.join(""), "1 of 3: v₁ = x0 = 0.3 (step 145)");
});

test("a regular expression looks through names and values, as written and as typed", () => {
  const f = finder(RNN);
  f.regex.setAttribute("aria-pressed", "true");
  assert.deepEqual(found(f, "^vbar7\\d$"), ["v̄₇₃"]);
  assert.deepEqual(found(f, "^v̄₇₃$"), ["v̄₇₃"]);
  assert.deepEqual(found(f, "= 0\\.3$"), ["v₁ = x0", "v₂ = x1"]);
  assert.deepEqual(found(f, "\\bx[01]\\b"), ["v₁ = x0", "v₂ = x1"]);
  // each value line is a line of its own: ^ and $ hold there
  const backprop = finder([
    ["v₁ = x0", "v1", 144, ["= 0.3", "v̄₁ = 0.001"]],
    ["v₂ = x1", "v2", 143, ["= 0.35", "v̄₂ = 0.3"]],
  ]);
  backprop.regex.setAttribute("aria-pressed", "true");
  assert.deepEqual(found(backprop, "^= 0\\.3$"), ["v₁ = x0"]);
  assert.deepEqual(found(backprop, "^vbar\\d+ = 0\\.3$"), ["v₂ = x1"]);
  assert.deepEqual(found(backprop, "x0 = 0"), []); // not across lines
});
