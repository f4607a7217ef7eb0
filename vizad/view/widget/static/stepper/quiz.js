// quiz.js: a quiz, and the what-if inputs. Python prepares each step's questions (the local
// partials ∂vⱼ/∂vᵢ, the partial adjoints v̄ᵢ→ⱼ, the result v̄ᵢ or v̇ᵢ; a tensor's shape and an
// entry), their hints and their answers (encoded); here they are asked in the step panel, one
// at a time, until the step's values are shown. An answer is a number or a simple expression
// (`2 - cos(5)`, `1/2`, `pi`), read by a small parser (never eval) and judged by the rule of
// vizad/trace/quiz.py (the same cases test both): a number to the digits typed, an expression
// exactly; what cannot be read costs no try. The model's `progress` (each question's tries and
// state) is shared with Python, which can answer too (`stepper.answer("1.72")`); the score is
// made from it. Going on past a step's questions skips them: their values are shown, since
// later steps need them.

import { h, reveal } from "./helpers.js";

const QUIZ_SIGNIFICANT = 3;
const QUIZ_CLOSE = 0.01; // a wrong number this near the value is told it is close
const QUIZ_FUNCTIONS = { sqrt: Math.sqrt, exp: Math.exp, log: Math.log, ln: Math.log,
  sin: Math.sin, cos: Math.cos, tan: Math.tan, tanh: Math.tanh };
const QUIZ_CONSTANTS = { pi: Math.PI, "π": Math.PI, e: Math.E };
const QUIZ_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const QUIZ_MAX_ANSWER = 200; // vizad/trace/quiz.py's MAX_ANSWER (characters)
const QUIZ_MAX_DEPTH = 20; // and MAX_DEPTH (parentheses and calls inside each other)
const QUIZ_READABLE = /^[\t\n\r\x20-\x7eπ−×·]*$/;

// `x`, or an AnswerError when it is not a finite number (too large, or none)
function quizFinite(x) {
  if (!Number.isFinite(x)) throw new AnswerError("this number is too large (or has no finite value): type another");
  return x;
}

export class AnswerError extends Error {}

// A typed answer: {value, decimals (null for an expression), significant}, or a shape (an
// array of ints); throws an AnswerError saying what could not be read.
export function readAnswer(text, kind) {
  text = String(text);
  if (text.length > QUIZ_MAX_ANSWER) throw new AnswerError(`this answer is too long: type at most ${QUIZ_MAX_ANSWER} characters`);
  if (!QUIZ_READABLE.test(text)) throw new AnswerError("cannot read this answer: type a number or an expression of digits, + - * / **, pi, e, sqrt(…)");
  text = text.replace(/^[ \t\n\r]+|[ \t\n\r]+$/g, "").replace(/−/g, "-").replace(/[×·]/g, "*");
  if (!text) throw new AnswerError("type an answer");
  if (kind === "shape") return readShape(text);
  if (/^[+-]?\d+,\d+$/.test(text)) text = text.replace(",", ".");
  if (text.includes("^")) throw new AnswerError("write powers with **, as in 2**3 (^ is not a power here)");
  if (QUIZ_NUMBER.test(text)) {
    const [mantissa, exponent] = text.toLowerCase().replace(/^[+-]/, "").split("e");
    const [whole, fraction = ""] = mantissa.split(".");
    const digits = (whole + fraction).replace(/^0+/, "");
    return { value: quizFinite(parseFloat(text)), decimals: fraction.length - (exponent ? parseInt(exponent, 10) : 0),
      significant: digits.length || 1 };
  }
  return { value: new ExpressionReader(text).read(), decimals: null, significant: null };
}

function readShape(text) {
  if (["scalar", "()", "[]", "( )"].includes(text.toLowerCase())) return [];
  const parts = text.replace(/^[([ \t\n\r]+|[)\] \t\n\r]+$/g, "").split(/[,x*\s]+/).filter(Boolean);
  if (!parts.length || !parts.every((p) => /^\d+$/.test(p))) throw new AnswerError("type a shape such as (2, 3), 2x3, or scalar");
  return parts.map((p) => parseInt(p, 10));
}

// Numbers, + - * / ** (right-associative, above unary minus as in Python), parentheses,
// pi, e and one-argument functions: recursive descent over tokens, step for step as
// vizad/trace/quiz.py's _Reader; every value on the way must be finite.
class ExpressionReader {
  constructor(text) {
    this.tokens = text.match(/\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|\*\*|[A-Za-zπ_]\w*|\S/g) || [];
    this.at = 0;
    this.text = text;
    this.depth = 0;
  }
  peek() { return this.tokens[this.at]; }
  take(t) { if (this.peek() === t) { this.at++; return true; } return false; }
  fail() { throw new AnswerError(`cannot read ${JSON.stringify(this.text)}: type a number or an expression of numbers, + - * / **, pi, e, sqrt(…)`); }
  read() {
    const x = this.sum();
    if (this.at !== this.tokens.length) this.fail();
    return x;
  }
  nested() {
    if (++this.depth > QUIZ_MAX_DEPTH) throw new AnswerError(`this answer nests too deep: at most ${QUIZ_MAX_DEPTH} parentheses inside each other`);
    const x = this.sum();
    this.depth--;
    return x;
  }
  sum() {
    let x = this.product();
    for (;;) {
      if (this.take("+")) x = quizFinite(x + this.product());
      else if (this.take("-")) x = quizFinite(x - this.product());
      else return x;
    }
  }
  product() {
    let x = this.unary();
    for (;;) {
      if (this.take("*")) x = quizFinite(x * this.unary());
      else if (this.take("/")) x = quizFinite(x / this.unary());
      else return x;
    }
  }
  unary() {
    let sign = 1; // a run of signs (a loop: any length reads)
    while (this.peek() === "-" || this.peek() === "+") if (this.tokens[this.at++] === "-") sign = -sign;
    return sign < 0 ? -this.power() : this.power();
  }
  power() {
    const x = this.atom();
    return this.take("**") ? quizFinite(x ** this.unary()) : x;
  }
  atom() {
    const t = this.peek();
    if (t === undefined) this.fail();
    this.at++;
    if (t === "(") {
      const x = this.nested();
      if (!this.take(")")) this.fail();
      return x;
    }
    if (/^[\d.]/.test(t)) return quizFinite(parseFloat(t));
    if (Object.hasOwn(QUIZ_CONSTANTS, t)) return QUIZ_CONSTANTS[t];
    if (/^[A-Za-zπ_]/.test(t)) {
      if (!Object.hasOwn(QUIZ_FUNCTIONS, t)) throw new AnswerError(`unknown ${this.peek() === "(" ? "function" : "name"} '${t}' (known: ${Object.keys(QUIZ_FUNCTIONS).join(", ")}, pi, e)`);
      if (!this.take("(")) throw new AnswerError(`${t} is a function: call it, as in ${t}(2)`);
      const x = this.nested();
      if (!this.take(")")) throw new AnswerError(`${t} takes one argument`);
      return quizFinite(QUIZ_FUNCTIONS[t](x));
    }
    this.fail();
  }
}

// How `text` answers a question whose answer is `answer` ("right", "wrong" or "refused"
// with a message): the rule of vizad/trace/quiz.py's judge.
export function judgeAnswer(text, kind, answer) {
  let typed;
  try { typed = readAnswer(text, kind); } catch (e) {
    if (e instanceof AnswerError) return { status: "refused", message: `${e.message} (no try used)` };
    throw e;
  }
  if (kind === "shape") {
    const ok = typed.length === answer.length && typed.every((d, j) => d === answer[j]);
    return { status: ok ? "right" : "wrong", message: "" };
  }
  const scale = Math.max(1, Math.abs(answer));
  const off = Math.abs(typed.value - answer);
  if (off <= 1e-9 * scale) return { status: "right", message: "" };
  if (typed.decimals === null) return { status: "wrong", message: "" };
  if (off <= 0.5 * 10 ** -typed.decimals * (1 + 1e-9) + 1e-12 * scale) {
    if (typed.significant >= QUIZ_SIGNIFICANT) return { status: "right", message: "" };
    return { status: "refused", message: `${String(text).trim()} has too few digits to judge: give at least ${QUIZ_SIGNIFICANT} significant digits, or an exact expression (no try used)` };
  }
  // a rounding slip, not a wrong method: said (it still costs a try)
  if (off <= QUIZ_CLOSE * Math.abs(answer)) return { status: "wrong", message: "close, but not the value rounded to the digits typed" };
  return { status: "wrong", message: "" };
}

export class Quiz {
  // `questions`: per step, its questions (or null: no quiz); `rule`: how answers are judged;
  // `root`: the component, whose keys go to the question; `changed()`: redraw the step
  constructor({ model, questions, rule, root, changed }) {
    this.model = model;
    this.questions = questions;
    this.rule = rule || "";
    this.root = root;
    this.changed = changed;
    this.at = null; // the step (0-based) shown last
    this.notes = new Map(); // question key -> what its last answer earned
    this.leaving = false; // Esc: the keys go back to the steps
    this.scoreBox = h("div", { class: "vz-score", "aria-live": "polite" });
    this.showScore();
    this.onProgress = () => { this.showScore(); this.changed(); };
    model.on("change:progress", this.onProgress);
    // the component getting the keys (a click, the page opening) gives them to the question
    root.addEventListener("focus", () => {
      const input = root.querySelector(".vz-answer");
      if (input && !this.leaving) input.focus({ preventScroll: true });
    });
  }

  // the keys back to the steps: the component focused, not the question's field
  release() {
    this.leaving = true;
    this.root.focus({ preventScroll: true });
    this.leaving = false;
  }

  close() {
    this.model.off("change:progress", this.onProgress);
  }

  get progress() {
    return this.model.get("progress") || {};
  }

  done(q) {
    return Boolean((this.progress[q.key] || {}).state);
  }

  // whether step i (0-based) still asks something (its values are not shown yet)
  asks(i) {
    return Boolean(this.questions && this.questions[i] && this.questions[i].some((q) => !this.done(q)));
  }

  showScore() {
    if (!this.questions) return;
    const all = this.questions.flat();
    const states = all.map((q) => (this.progress[q.key] || {}).state);
    const right = states.filter((s) => s === "right").length;
    const asked = states.filter(Boolean).length;
    this.scoreBox.textContent = `score ${right}/${asked}`;
    this.scoreBox.title = `${all.length - asked} of ${all.length} questions to go` +
      (this.model.get("connected") === false ? "; kept in this page only" : "") +
      (this.model.get("connected") === false && this.model.get("notebook") ? ": not connected to Python (stepper.score does not change)" : "");
    return { right, asked, questions: all.length };
  }

  setProgress(changes) {
    this.model.set("progress", { ...this.progress, ...changes });
    this.model.save_changes();
    const score = this.showScore();
    this.model.set("score", score);
    this.model.save_changes();
  }

  // the component moved to step i: going on past questions (that step's, or steps jumped
  // over) skips them, and shows their values
  arrive(i) {
    const from = this.at;
    this.at = i;
    if (!this.questions || from === null || i <= from) return;
    const skipped = {};
    for (let k = from; k < i; k++) {
      for (const q of this.questions[k] || []) if (!this.done(q)) skipped[q.key] = { ...(this.progress[q.key] || { tries: 0 }), state: "skipped" };
    }
    if (Object.keys(skipped).length) this.setProgress(skipped);
  }

  secret(code, salt) {
    return JSON.parse(reveal(code, salt));
  }

  // what step i's questions earned so far, one line each
  earned(i) {
    const lines = [];
    for (const q of this.questions[i] || []) {
      const state = (this.progress[q.key] || {}).state;
      if (!state) continue;
      const { shown } = this.secret(q.code, q.salt);
      const text = { right: `right: ${q.q} = ${shown}`, wrong: `the answer: ${q.q} = ${shown}`, skipped: `skipped: ${q.q} = ${shown}` }[state];
      lines.push(h("div", { class: state === "right" ? "vz-right" : "vz-wrong", text }));
    }
    return lines.length ? h("div", { class: "vz-earned" }, lines) : null;
  }

  // step i's answered questions above its panel, once they are all answered
  takeFeedback(i) {
    return this.questions ? this.earned(i) : null;
  }

  // step i's next question, in `panel`; it takes the keys if the component had them
  ask(i, panel) {
    const q = this.questions[i].find((x) => !this.done(x));
    const input = h("input", { class: "vz-answer", type: "text", inputmode: "decimal",
      "aria-label": `${q.q} =`, autocomplete: "off", spellcheck: "false" });
    const kept = this.notes.get(q.key);
    const note = h("div", { class: `vz-feedback${kept ? ` ${kept.cls}` : ""}`, "aria-live": "polite", text: kept ? kept.text : "" });
    const check = () => this.answer(q, input, note);
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") { e.preventDefault(); check(); }
      else if (e.key === "Escape") {
        e.preventDefault();
        this.release();
      }
    });
    const hadKeys = this.root.contains(this.root.getRootNode().activeElement); // before the old question goes
    const count = this.questions[i].length;
    const which = count > 1 ? ` (question ${this.questions[i].indexOf(q) + 1} of ${count} in this step)` : "";
    const rule = h("details", { class: "vz-rule" }, [h("summary", { text: "how answers are judged" }), h("div", { text: this.rule })]);
    panel.replaceChildren(h("div", { class: "vz-quiz" }, [
      this.earned(i) || "",
      h("div", { class: "vz-quiz-q" }, [h("b", { text: `${q.q} = ` }), input,
        h("button", { class: "vz-check", text: "check", onclick: check })]),
      h("div", { class: "vz-muted", text: `${q.kind === "shape" ? "a shape such as (2, 3), 2x3 or scalar" : `a number (judged to the digits typed, at least ${QUIZ_SIGNIFICANT} significant) or an expression such as 2 - cos(5)`}; Enter to check, Esc: back to the steps${which}` }),
      note,
      rule,
    ]));
    if (hadKeys) input.focus({ preventScroll: true });
  }

  answer(q, input, note) {
    const { a } = this.secret(q.code, q.salt);
    const verdict = judgeAnswer(input.value, q.kind, a);
    if (verdict.status === "refused") {
      note.className = "vz-feedback vz-refused";
      note.textContent = verdict.message;
      input.select();
      return;
    }
    const entry = { ...(this.progress[q.key] || { tries: 0 }) };
    // the answers typed go with the entry: with a kernel, Python judges them again and
    // keeps the entry (and the score) only if they earn it
    entry.answers = [...(entry.answers || []), input.value];
    if (verdict.status === "right") {
      entry.state = "right";
      this.notes.delete(q.key);
    } else {
      entry.tries = (entry.tries || 0) + 1;
      if (entry.tries < 2) {
        const close = verdict.message ? ` (${verdict.message})` : "";
        this.notes.set(q.key, { cls: "vz-try", text: `not ${input.value.trim()}${close}: try again (one more try). Hint: ${q.hint}` });
      } else {
        entry.state = "wrong";
        this.notes.delete(q.key);
      }
    }
    this.setProgress({ [q.key]: entry }); // redraws the step (change:progress)
    const next = this.root.querySelector(".vz-answer");
    if (next) next.focus({ preventScroll: true });
    else this.root.focus({ preventScroll: true }); // the revealed panel: the keys go to the steps
  }
}

// The walkthrough's scalar inputs as number fields: with a kernel, editing one traces the
// walkthrough again in Python at the same step (the model's `inputs`); without one they are
// read-only, and say so.
const FEW_INPUTS = 3; // more inputs than this are folded under "inputs (n)"

export class Inputs {
  // `step()`: the step shown (1-based); `secret(i)`: whether a quiz still asks step i
  constructor({ model, inputs, step, secret }) {
    this.model = model;
    const live = Boolean(model.get("live"));
    this.element = h("div", { class: "vz-inputs" });
    const check = live ? this.differences(model, step, secret) : null;
    if (!inputs || !inputs.length) {
      if (check) this.element.append(check);
      return;
    }
    const fields = [];
    for (const d of inputs) {
      const editable = live && d.editable;
      const field = h("input", { class: "vz-input", type: "number", step: "any", value: String(d.value),
        "data-name": d.name, "aria-label": `${d.name} (${d.label})` });
      if (!editable) field.readOnly = true;
      field.addEventListener("change", () => {
        const x = parseFloat(field.value);
        if (!Number.isFinite(x)) { field.value = String(d.value); return; }
        model.set("inputs", { ...(model.get("inputs") || {}), [d.name]: x });
        model.save_changes();
        this.element.dataset.state = "tracing";
      });
      field.addEventListener("keydown", (e) => e.stopPropagation()); // arrows edit, not step
      fields.push(h("label", { class: "vz-input-label", text: `${d.name} = ` }, [field]));
    }
    const editable = live && inputs.some((d) => d.editable);
    const said = editable ? "" : live ? "read-only (recorded, not traced by vizad)" : "read-only: not connected to Python";
    const why = editable ? "change an input: the walkthrough is traced again in Python, at this step"
      : live ? "this walkthrough was recorded from another engine: vizad cannot trace it again"
        : "this page is not connected to Python (a saved or exported page, or a front end without the widget): the inputs cannot change here; run the cell where the widget shows";
    const note = h("span", { class: "vz-muted vz-input-note", "aria-live": "polite", text: said, title: why });
    this.element.title = why;
    if (fields.length <= FEW_INPUTS) {
      this.element.append(h("span", { class: "vz-muted", text: "inputs " }), ...fields, note);
    } else { // many inputs (an unrolled RNN's): folded under their count, opened on a click
      this.element.append(h("details", { class: "vz-inputs-more" }, [
        h("summary", { class: "vz-muted", text: `inputs (${fields.length})` }), ...fields, note]));
    }
    if (check) this.element.append(check);
    // inputs that could not be traced: Python says why and puts the old values back
    this.onError = () => {
      const error = model.get("input_error");
      note.textContent = error || said;
      note.classList.toggle("vz-input-error", Boolean(error));
      delete this.element.dataset.state;
      const values = model.get("inputs") || {};
      for (const f of this.element.querySelectorAll(".vz-input")) if (f.dataset.name in values) f.value = String(values[f.dataset.name]);
    };
    model.on("change:input_error", this.onError);
  }

  // a button asking Python to check this step's result by central differences of the
  // function itself, and what it says
  differences(model, step, secret) {
    const said = h("span", { class: "vz-muted vz-difference", "aria-live": "polite" });
    const button = h("button", { class: "vz-check-differences", text: "check by differences",
      title: "this step's result against central differences of the function (Python computes it)",
      onclick: () => {
        if (secret(step() - 1)) { said.textContent = "answer this step's questions first"; return; }
        said.textContent = "checking…";
        model.set("difference_request", { step: step(), ask: Date.now() });
        model.save_changes();
      } });
    this.onDifferences = () => {
      const r = model.get("differences") || {};
      said.textContent = r.text || "";
      said.classList.toggle("vz-differ", r.agree === false);
    };
    model.on("change:differences", this.onDifferences);
    return h("span", { class: "vz-differences" }, [button, said]);
  }

  close() {
    if (this.onError) this.model.off("change:input_error", this.onError);
    if (this.onDifferences) this.model.off("change:differences", this.onDifferences);
  }
}
