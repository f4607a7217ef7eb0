// The slide deck's arithmetic (frontend/deck/steps.mjs): the steps of a deck with fragments,
// the step an address names and the address of a step, the scale that fits the deck to a
// window, and what each key asks for. The deck itself runs in Chromium:
// tests/browser/test_offline_slides.py.
import assert from "node:assert/strict";
import { test } from "node:test";

import { fitScale, hashOf, moveOfKey, parseHash, stepIndex, stepsOf } from "../deck/steps.mjs";

test("a slide has a step per fragment after its own, in reading order", () => {
  assert.deepEqual(stepsOf([0, 2, 0]), [
    { slide: 0, shown: 0 },
    { slide: 1, shown: 0 },
    { slide: 1, shown: 1 },
    { slide: 1, shown: 2 },
    { slide: 2, shown: 0 },
  ]);
  assert.deepEqual(stepsOf([]), []);
});

test("the step of a slide and its fragments, clamped to the deck", () => {
  const steps = stepsOf([0, 2, 0]);
  assert.equal(stepIndex(steps, 0), 0);
  assert.equal(stepIndex(steps, 1), 1);
  assert.equal(stepIndex(steps, 1, 2), 3);
  assert.equal(stepIndex(steps, 1, 9), 3); // all its fragments
  assert.equal(stepIndex(steps, 2, 1), 4); // it has none
  assert.equal(stepIndex(steps, 7), 4); // past the end: the last slide
  assert.equal(stepIndex(steps, -3), 0);
  assert.equal(stepIndex(steps, Number.NaN), 0);
  assert.equal(stepIndex([], 0), -1);
});

test("an address counts slides from 1, as the deck's number does, and reads back", () => {
  assert.equal(hashOf({ slide: 2, shown: 0 }), "#/3");
  assert.equal(hashOf({ slide: 2, shown: 2 }), "#/3/2");
  assert.deepEqual(parseHash("#/3"), { slide: 2, shown: 0 });
  assert.deepEqual(parseHash("#3"), { slide: 2, shown: 0 });
  assert.deepEqual(parseHash("#/3/2"), { slide: 2, shown: 2 });
  for (const step of stepsOf([1, 0, 3])) assert.deepEqual(parseHash(hashOf(step)), step);
  for (const other of ["", "#", "#/", "#/x", "#Reverse-mode", "#/3/", "#/1e3", "#/-1"]) {
    assert.equal(parseHash(other), null, other);
  }
});

test("the scale fits the whole deck in the room, keeping its aspect", () => {
  const deck = { width: 960, height: 700 };
  assert.equal(fitScale(deck, { width: 960, height: 700 }), 1);
  assert.equal(fitScale(deck, { width: 1920, height: 700 }), 1); // the height decides
  assert.equal(fitScale(deck, { width: 480, height: 1400 }), 0.5); // the width decides
  assert.ok(Math.abs(fitScale(deck, { width: 1024, height: 724 }) - 724 / 700) < 1e-12);
  assert.equal(fitScale(deck, { width: 96000, height: 70000 }), 2); // at most twice
  assert.equal(fitScale(deck, { width: 1, height: 1 }), 0.2); // at least a fifth
  assert.equal(fitScale({ width: 0, height: 0 }, { width: 10, height: 10 }), 1); // no size
});

test("keys: forward, back, first, last; the browser's shortcuts left alone", () => {
  for (const key of ["ArrowRight", "ArrowDown", "PageDown", " "]) {
    assert.equal(moveOfKey({ key }), "next", key);
  }
  for (const key of ["ArrowLeft", "ArrowUp", "PageUp"]) assert.equal(moveOfKey({ key }), "prev");
  assert.equal(moveOfKey({ key: " ", shiftKey: true }), "prev");
  assert.equal(moveOfKey({ key: "Home" }), "first");
  assert.equal(moveOfKey({ key: "End" }), "last");
  assert.equal(moveOfKey({ key: "ArrowLeft", altKey: true }), null); // the browser's Back
  assert.equal(moveOfKey({ key: "ArrowRight", ctrlKey: true }), null);
  assert.equal(moveOfKey({ key: "End", metaKey: true }), null);
  for (const key of ["a", "Enter", "Escape", "Tab", "f"]) assert.equal(moveOfKey({ key }), null);
});
