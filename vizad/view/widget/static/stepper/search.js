// search.js: find and trace. A search box looks through every node of the view (its name, its
// formula, the name the user gave it, the values its box writes out; nodes inside a collapsed
// box too: each view's data lists them in `find`), as text or as a regular expression (a bad
// one is said, not thrown), and jumps to a node and to its step. A name is found as written
// (v̄₇₃) or as typed (vbar73, v̄73): an adjoint's name finds adjoint boxes first, a forward
// name forward boxes first. A number is found as the boxes show it: "0.30" finds "= 0.3"
// (rounded as drawn), then the values that begin with it ("0.396"); "0" finds the zeros, not
// every value with a 0 in it. Tracing (the "trace" button, or shift+click on a box)
// highlights what a box is computed from (upstream) and what uses it (downstream).

import { h } from "./helpers.js";

const SUBSCRIPTS = { "₀": "0", "₁": "1", "₂": "2", "₃": "3", "₄": "4", "₅": "5", "₆": "6", "₇": "7", "₈": "8", "₉": "9" };
const ACCENTS = { "\u0304": "bar", "\u0307": "dot" }; // the bar of v̄, the dot of v̇

// text as typed on a keyboard: subscripts as digits, accents (the bar of v̄) dropped
export function plainText(text) {
  return text.replace(/[₀-₉]/g, (c) => SUBSCRIPTS[c]).normalize("NFD").replace(/\p{M}/gu, "");
}

// text as typed on a keyboard, the accents of v̄ and v̇ kept as words: v̄₁₂ → vbar12, v̇₃ → vdot3
export function typedText(text) {
  return plainText(text.normalize("NFD").replace(/[\u0304\u0307]/g, (c) => ACCENTS[c])).toLowerCase();
}

// what is typed, accents dropped whether written (v̄₇₃) or typed (vbar73): v73
function looseText(text) {
  return typedText(text).replace(/v(?:bar|dot)(?=\d)/g, "v");
}

// A number as the drawing writes it with `decimals` decimals (vizad/engine/text.py's
// format_number): trailing zeros dropped; very large or small ones with an exponent.
export function formatNumber(x, decimals) {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? "nan" : x > 0 ? "inf" : "-inf";
  if (x !== 0 && (Math.abs(x) >= 1e6 || Math.abs(x) < 10 ** -decimals)) {
    return x.toExponential(Math.max(decimals - 1, 1));
  }
  const text = decimals > 0 ? x.toFixed(decimals).replace(/0+$/, "").replace(/\.$/, "") : x.toFixed(0);
  return text === "-0" || text === "" ? "0" : text;
}

const NUMBER = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?$/i; // what is typed, read as a number
const NUMBERS = /[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?/gi; // the numbers a value line writes

// How the written value lines `shown` hold the typed number `typed` (its text, "−" read as
// "-"): 2, one of them is that number as drawn (equal, or rounded to it with `decimals`);
// 1, one begins with it ("0.3" → 0.396; only past a decimal point, so "0" is not in every
// value); 0, none.
export function numberMatch(typed, shown, decimals) {
  const x = Number(typed);
  const prefix = /\.\d/.test(typed) ? typed.replace(/^\+/, "").replace(/^(-?)\./, "$10.") : null;
  let found = 0;
  for (const line of shown) {
    for (const s of line.match(NUMBERS) || []) {
      if (Number(s) === x || (decimals != null && formatNumber(x, decimals) === s)) return 2;
      if (prefix && s.startsWith(prefix)) found = 1;
    }
  }
  return found;
}

// the names a search entry is known by: its first word, and the name of a result laid on
// its box ("v̄₇₃ = …" on v₇₃ in the backprop view)
function namesOf([text, , , shown]) {
  return [text.split(" ")[0], ...(shown || []).filter((l) => !l.startsWith("=")).map((l) => l.split(" ")[0])];
}

export class Finder {
  // `frame()`: the view's data shown; `box(id)`: its <g>; `go(k)`: go to step k (1-based);
  // `reveal(g)`: bring a box into view; `open(id)`: open a collapsed box (a promise)
  constructor({ stage, frame, box, go, reveal, open, canOpen }) {
    Object.assign(this, { stage, frame, box, go, reveal, open, canOpen });
    this.hits = [];
    this.at = -1;
    this.found = null; // the <g> of the node found last
    this.traced = null; // the box id whose cone is shown
    this.input = h("input", { class: "vz-find-input", type: "search", placeholder: "find a node…",
      "aria-label": "find a node by name or value", autocomplete: "off", spellcheck: "false" });
    this.regex = h("button", { class: "vz-find-re", title: "a regular expression", "aria-pressed": "false", text: ".*",
      onclick: () => { this.regex.setAttribute("aria-pressed", String(this.regex.getAttribute("aria-pressed") !== "true")); this.search(); } });
    this.prevButton = h("button", { class: "vz-find-prev", title: "previous match (Shift+Enter)", text: "‹", onclick: () => this.step(-1) });
    this.nextButton = h("button", { class: "vz-find-next", title: "next match (Enter)", text: "›", onclick: () => this.step(1) });
    this.note = h("span", { class: "vz-find-note", "aria-live": "polite" });
    this.openButton = h("button", { class: "vz-find-open", hidden: "", text: "open it",
      title: "open the collapsed box holding the node found" });
    this.traceButton = h("button", { class: "vz-trace", text: "trace",
      title: "highlight what this box is computed from and what uses it (or shift+click a box)",
      onclick: () => this.toggleTrace() });
    this.element = h("div", { class: "vz-find", role: "search" },
      [this.input, this.regex, this.prevButton, this.nextButton, this.traceButton, this.openButton, this.note]);
    this.input.addEventListener("input", () => this.search());
    this.input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") { e.preventDefault(); this.step(e.shiftKey ? -1 : 1); }
      else if (e.key === "Escape") { this.input.value = ""; this.search(); }
    });
    // shift+click on a box traces its cone, before the drawing's click (which goes to a step)
    stage.addEventListener("click", (e) => {
      if (!e.shiftKey) return;
      const g = e.target.closest("g.node");
      e.stopImmediatePropagation();
      if (g) this.trace(g.id);
      else this.clearTrace();
    }, true);
  }

  // the entries of `find` that the text typed matches ([] for none; null for a bad regex), in
  // order: named so (as written, v̄₇₃ before v₇₃), showing the number typed, named so but
  // for an accent, showing a number that begins with it, the others
  matches() {
    const text = this.input.value.trim();
    if (!text) return [];
    const regex = this.regex.getAttribute("aria-pressed") === "true";
    const typed = typedText(text), loose = looseText(text);
    const number = !regex && NUMBER.test(text.replace(/^−/, "-")) ? text.replace(/^−/, "-") : null;
    const decimals = this.frame()?.decimals;
    let test;
    if (regex) {
      let re;
      try { re = new RegExp(text, "imu"); } catch (err) { // ^ and $: at each line of a box
        this.note.textContent = `not a regular expression: ${err.message}`;
        this.note.classList.add("vz-find-error");
        return null;
      }
      test = (s) => re.test(s) || re.test(plainText(s)) || re.test(typedText(s));
    } else {
      const lower = text.toLowerCase();
      test = (s) => s.toLowerCase().includes(lower) || typedText(s).includes(typed) || plainText(s).toLowerCase().includes(loose);
    }
    const rank = (e) => {
      const shown = e[3] || [];
      const value = number !== null ? numberMatch(number, shown, decimals) : 0;
      // the box's text and the values it writes out, a line each; a number is looked for in
      // the values as a number only (else "0" would be in nearly every value)
      if (!value && !test(number !== null ? e[0] : [e[0], ...shown].join("\n"))) return null;
      const names = namesOf(e);
      if (names.some((n) => typedText(n) === typed) || e[0].split(" ").slice(1).includes(text)) return 0;
      if (value === 2) return 1;
      if (names.some((n) => looseText(n) === loose)) return 2;
      return value === 1 ? 3 : 4;
    };
    const tiers = [[], [], [], [], []];
    for (const e of this.frame()?.find || []) {
      const r = rank(e);
      if (r !== null) tiers[r].push(e);
    }
    return tiers.flat();
  }

  // the matches of what is typed, marked on the drawing; the first is not jumped to yet
  search() {
    this.openButton.hidden = true;
    this.note.classList.remove("vz-find-error");
    this.note.textContent = "";
    for (const g of this.stage.querySelectorAll(".vz-match")) g.classList.remove("vz-match");
    const hits = this.matches();
    this.hits = hits || [];
    this.at = -1;
    if (hits === null) return;
    for (const e of this.hits) this.box(e[1])?.classList.add("vz-match");
    if (this.input.value.trim()) {
      this.note.textContent = this.hits.length ? `${this.hits.length} found: Enter goes to the first` : "nothing found";
    }
  }

  // go to the next (or previous) match: its step, and its box in view
  step(by) {
    if (!this.hits.length) this.search();
    if (!this.hits.length) return;
    this.at = (this.at + by + this.hits.length) % this.hits.length;
    this.jump(this.hits[this.at]);
  }

  jump([text, boxId, step, shown = []]) {
    this.openButton.hidden = true;
    if (step >= 0) this.go(step + 1);
    this.found?.classList.remove("vz-found");
    const g = (this.found = this.box(boxId));
    const where = step >= 0 ? `step ${step + 1}` : "no step of its own";
    const of = `${this.at + 1} of ${this.hits.length}: ${[text, ...shown].join(" ")} (${where})`;
    this.note.replaceChildren(of);
    if (!g) return;
    g.classList.add("vz-found");
    this.reveal(g);
    const inside = this.frame().collapsed?.includes(boxId) && (this.frame().tips[boxId]?.head || "").split("\n")[0];
    if (inside && !text.startsWith(inside)) {
      this.note.append(` inside “${inside}”`);
      if (this.canOpen(boxId)) {
        this.openButton.hidden = false;
        this.openButton.onclick = () => {
          const at = this.at;
          // once opened and the page settled (the view's note may grow, and the frame with
          // it: a resize that follows the step), the node found again, by its name, in its box
          const settled = () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
          this.open(boxId).then(settled).then(() => {
            this.search();
            const name = text.split(" ")[0];
            const k = this.hits.findIndex((e) => e[0].split(" ")[0] === name && e[2] === step);
            this.at = k >= 0 ? k : at;
            if (this.hits[this.at]) this.jump(this.hits[this.at]);
          });
        };
      }
    }
  }

  // -- tracing -------------------------------------------------------------------------------
  toggleTrace() {
    if (this.traced) { this.clearTrace(); return; }
    const id = this.found?.isConnected ? this.found.id : this.stage.querySelector("g.node.vz-s-current, g.node.vz-s-failed")?.id;
    if (id) this.trace(id);
  }

  // the boxes `id` is computed from (up) and that use it (down), and the edges between them
  trace(id) {
    this.clearTrace();
    const frame = this.frame();
    const succ = new Map(), pred = new Map();
    for (const [e, [tail, head]] of Object.entries(frame.links || {})) {
      if (!succ.has(tail)) succ.set(tail, []);
      if (!pred.has(head)) pred.set(head, []);
      succ.get(tail).push([head, e]);
      pred.get(head).push([tail, e]);
    }
    const reach = (from, next) => {
      const seen = new Set([from]), edges = new Set(), todo = [from];
      while (todo.length) {
        for (const [n, e] of next.get(todo.pop()) || []) {
          edges.add(e);
          if (!seen.has(n)) { seen.add(n); todo.push(n); }
        }
      }
      seen.delete(from);
      return { boxes: seen, edges };
    };
    const up = reach(id, pred), down = reach(id, succ);
    const mark = (ids, cls) => { for (const i of ids) this.stage.querySelector(`g[id="${CSS.escape(i)}"]`)?.classList.add(cls); };
    mark(up.boxes, "vz-up");
    mark(up.edges, "vz-up");
    mark(down.boxes, "vz-down");
    mark(down.edges, "vz-down");
    mark([id], "vz-origin");
    this.stage.classList.add("vz-tracing");
    this.traced = id;
    this.traceButton.textContent = "clear trace";
    this.traceButton.setAttribute("aria-pressed", "true");
    const name = (frame.tips[id]?.head || id).split("\n")[0];
    this.note.classList.remove("vz-find-error");
    this.note.textContent = `${name}: ${up.boxes.size} boxes upstream (computing it), ${down.boxes.size} downstream (using it)`;
  }

  clearTrace() {
    for (const g of this.stage.querySelectorAll(".vz-up, .vz-down, .vz-origin")) g.classList.remove("vz-up", "vz-down", "vz-origin");
    this.stage.classList.remove("vz-tracing");
    if (this.traced) this.note.textContent = "";
    this.traced = null;
    this.traceButton.textContent = "trace";
    this.traceButton.setAttribute("aria-pressed", "false");
  }

  // a new drawing in the stage: the marks go (the matches are marked again)
  reset() {
    this.clearTrace();
    this.found = null;
    if (this.input.value.trim()) this.search();
  }
}
