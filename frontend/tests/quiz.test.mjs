// quiz.js's reader and judge on the cases that Python's judge (vizad/trace/quiz.py) is tested
// on too: tests/quiz_cases.py, written to tests/quiz_cases.json (`python tests/quiz_cases.py`).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import {
  AnswerError,
  judgeAnswer,
  readAnswer,
} from "../../vizad/view/widget/static/stepper/quiz.js";

const cases = JSON.parse(
  readFileSync(new URL("../../tests/quiz_cases.json", import.meta.url), "utf8"),
);

test("numbers and expressions are judged as Python judges them", () => {
  assert.ok(cases.judged.length >= 30);
  for (const [typed, value, status] of cases.judged) {
    const verdict = judgeAnswer(typed, "number", value);
    assert.equal(verdict.status, status, `${JSON.stringify(typed)} for ${value}`);
    if (status === "refused") assert.match(verdict.message, /no try used/, typed);
  }
});

test("a rounding slip is told it is close; a plain wrong answer is not", () => {
  for (const typed of cases.close) {
    const value = typed.startsWith("0.") ? Math.cos(5) : 2 - Math.cos(5);
    const verdict = judgeAnswer(typed, "number", value);
    assert.equal(verdict.status, "wrong", typed);
    assert.match(verdict.message, /^close/, typed);
  }
  assert.equal(judgeAnswer("1.8", "number", 2 - Math.cos(5)).message, "");
});

test("shapes are judged as Python judges them", () => {
  for (const [typed, shape, status] of cases.shapes) {
    assert.equal(judgeAnswer(typed, "shape", shape).status, status, typed);
  }
});

test("the reader counts the digits typed, and reads expressions without eval", () => {
  assert.deepEqual(readAnswer("1.720", "number"), { value: 1.72, decimals: 3, significant: 4 });
  assert.deepEqual(readAnswer("0.05", "number"), { value: 0.05, decimals: 2, significant: 1 });
  assert.deepEqual(readAnswer("1,5", "number"), { value: 1.5, decimals: 1, significant: 2 });
  assert.equal(readAnswer("-2**2", "number").value, -4); // ** above unary minus, as in Python
  assert.equal(readAnswer("2**3**2", "number").value, 512); // right-associative
  assert.equal(readAnswer("2 × 3 · 4", "number").value, 24);
  assert.equal(readAnswer("π", "number").value, Math.PI);
  assert.deepEqual(readAnswer("scalar", "shape"), []);
  assert.throws(() => readAnswer("2^3", "number"), AnswerError);
  assert.throws(() => readAnswer("alert(1)", "number"), /unknown function 'alert'/);
  assert.throws(() => readAnswer("sqrt", "number"), /is a function/);
  assert.throws(() => readAnswer("1/0", "number"), /too large \(or has no finite value\)/);
});
