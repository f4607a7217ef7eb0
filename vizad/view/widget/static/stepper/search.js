// search.js: find and trace. A search box looks through every node of the view (its name, its
// formula, the name the user gave it; nodes inside a collapsed box too: each view's data lists
// them in `find`), as text or as a regular expression (a bad one is said, not thrown), and
// jumps to a node and to its step. Tracing (the "trace" button, or shift+click on a box)
// highlights what a box is computed from (upstream) and what uses it (downstream).

import { h } from "./helpers.js";

const SUBSCRIPTS = { "₀": "0", "₁": "1", "₂": "2", "₃": "3", "₄": "4", "₅": "5", "₆": "6", "₇": "7", "₈": "8", "₉": "9" };

// text as typed on a keyboard: subscripts as digits, accents (the bar of v̄) dropped
export function plainText(text) {
  return text.replace(/[₀-₉]/g, (c) => SUBSCRIPTS[c]).normalize("NFD").replace(/\p{M}/gu, "");
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

  // the entries of `find` that the text typed matches ([] for none; null for a bad regex)
  matches() {
    const text = this.input.value.trim();
    if (!text) return [];
    let test;
    if (this.regex.getAttribute("aria-pressed") === "true") {
      let re;
      try { re = new RegExp(text, "iu"); } catch (err) {
        this.note.textContent = `not a regular expression: ${err.message}`;
        this.note.classList.add("vz-find-error");
        return null;
      }
      test = (s) => re.test(s) || re.test(plainText(s));
    } else {
      const want = plainText(text).toLowerCase();
      test = (s) => s.toLowerCase().includes(text.toLowerCase()) || plainText(s).toLowerCase().includes(want);
    }
    const entries = this.frame()?.find || [];
    const hits = entries.filter((e) => test(e[0]));
    // a node whose name (first word) is the text typed comes first
    const exact = (e) => plainText(e[0].split(" ")[0]).toLowerCase() === plainText(text).toLowerCase() ||
      e[0].split(" ").slice(1).includes(text);
    return [...hits.filter(exact), ...hits.filter((e) => !exact(e))];
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

  jump([text, boxId, step]) {
    this.openButton.hidden = true;
    if (step >= 0) this.go(step + 1);
    this.found?.classList.remove("vz-found");
    const g = (this.found = this.box(boxId));
    const where = step >= 0 ? `step ${step + 1}` : "no step of its own";
    const of = `${this.at + 1} of ${this.hits.length}: ${text} (${where})`;
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
          this.open(boxId).then(() => {
            this.search();
            const k = this.hits.findIndex((e) => e[0] === text && e[2] === step);
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
