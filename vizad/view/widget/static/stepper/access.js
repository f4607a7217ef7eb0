// access.js: the component for a reader who uses the keyboard or a screen reader (WCAG 2.1
// AA, issue 44). The graph is a group named for what it is, described by the step panel (its
// text alternative: the step's derivation and table); every box is reachable by keyboard (Tab
// into the graph lands on the current step's box; → and ← go to the next and the previous box
// in reading order (rows top to bottom, each left to right), so that every box is reached; ↑
// and ↓ to the nearest box above and below; Enter goes to the box's step, as a click does)
// with a ring drawn around the focused box over the drawing, whatever the zoom; and a live
// region says each step's derivation ("Step 6 of 7: v̄₂ = … = 1.716"). The other keys stay
// the player's (player.js).

import { h } from "./helpers.js";

const DIRECTIONS = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowDown: [0, 1], ArrowUp: [0, -1] };
// the keys a focused box takes (player.js leaves them to it)
export const BOX_KEYS = new Set([...Object.keys(DIRECTIONS), "Enter"]);
const RING_PAD = 3; // px between a box and its focus ring
const SIDEWAYS = 3; // how much more a box off the arrow's line counts than one along it

let serial = 0; // ids for aria-describedby, unique in the page

// Whether the reader asked the system for less motion: no animated pan or zoom then (the
// stylesheet turns transitions and animations off under the same media query).
export function reducedMotion() {
  return typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
}

// The text of step i's derivation, as the live region says it (plain text from the step's
// panel data; a quiz step not answered yet says no value)
export function stepWords(data, i, asking) {
  const step = data.steps[i];
  const head = `Step ${i + 1} of ${data.n}: `;
  if (asking) return `${head}${step.label}: a question (the panel asks it)`;
  const p = step.panel || {};
  const words = [p.line || p.head || step.label];
  if (p.nonfinite !== undefined) words.push(p.nonfinite);
  if (p.fail !== undefined) words.push(p.fail);
  return head + words.join(". ");
}

export class Access {
  // `root`: the component; `viewport`: its graph's frame (viewport.js); `drawing`: the view's
  // boxes (drawing.js); `panel`: the step panel (panel.js), which describes the graph;
  // `data`: the walkthrough; `step()`: the step shown (1-based); `asks(i)`: a quiz asks step
  // i; `view()`: the view's name
  constructor({ root, viewport, drawing, panel, data, step, asks, view }) {
    this.root = root;
    this.viewport = viewport;
    this.drawing = drawing;
    this.data = data;
    this.step = step;
    this.asks = asks;
    this.view = view;
    this.panel = panel.panel;
    // an id no other element of the page has (a page can hold components of other copies of
    // this module: a live widget's and a saved output's)
    while (!this.panel.id || document.getElementById(this.panel.id)) this.panel.id = `vz-step-panel-${++serial}`;
    // the running table scrolls: a region the keyboard reaches (WCAG 2.1.1)
    for (const [k, v] of Object.entries({ tabindex: "0", role: "region", "aria-label": "the results so far" })) panel.table.setAttribute(k, v);
    this.states = new Map(data.legend || []); // a step state -> its words (the legend's)
    this.entry = null; // the box Tab lands on (tabindex 0; the others -1)
    this.announcer = h("div", { class: "vz-announce", role: "status", "aria-live": "polite", "aria-atomic": "true" });
    this.ring = h("div", { class: "vz-focus-ring", "aria-hidden": "true", hidden: "" });
    viewport.element.append(this.ring);
    const stage = viewport.stage;
    stage.addEventListener("focusin", (e) => this.focused(e.target));
    // only the focused box has a name of its own, told afresh at each step (the others are
    // named by their text, which is always the step's)
    stage.addEventListener("focusout", (e) => {
      if (e.target instanceof Element && e.target.matches("g.node")) e.target.removeAttribute("aria-label");
      queueMicrotask(() => this.showRing());
    });
    // on the window, in the capture phase, as the player's keys (before the notebook's)
    this.onKey = (e) => this.key(e);
    window.addEventListener("keydown", this.onKey, true);
  }

  // the SVG now in the stage: a named group described by the step panel, its boxes focusable
  // (the current step's box first, from step()'s restyle); `keep`: a box had focus before the
  // drawing was replaced (a box opened), which the current step's box takes over
  index(keep = false) {
    const svg = this.viewport.stage.querySelector("svg");
    if (!svg) return;
    svg.setAttribute("role", "group");
    svg.setAttribute("aria-label", `${this.data.title}: the graph of the ${this.view()} view, ` +
      "its boxes reached with Tab and the arrow keys, Enter going to a box's step; " +
      "the step panel gives the step's derivation and its table");
    svg.setAttribute("aria-describedby", this.panel.id);
    // Graphviz's name of the graph ("G", "%3") is no name for a reader
    for (const t of svg.querySelectorAll(":scope > title, :scope > g.graph > title")) t.remove();
    for (const g of this.drawing.boxes.values()) {
      g.setAttribute("tabindex", "-1");
      g.setAttribute("role", "button");
    }
    this.entry = null;
    this.settle();
    if (keep && this.entry) this.entry.focus({ preventScroll: true });
  }

  // whether a box of the drawing has the focus
  holding() {
    const a = document.activeElement;
    return Boolean(a && this.viewport.stage.contains(a) && a.matches("g.node"));
  }

  // a step is shown: said in the live region; Tab lands on its box (unless a box has the
  // focus: it keeps it, its name told afresh)
  showStep() {
    const i = this.step() - 1;
    const words = stepWords(this.data, i, this.asks(i));
    if (this.announcer.textContent !== words) this.announcer.textContent = words;
    this.settle();
  }

  settle() {
    if (!this.drawing.frame || !this.drawing.size) return;
    const held = this.holding() ? document.activeElement : null;
    const own = held || this.drawing.focus(this.step() - 1)?.[0] || this.drawing.boxes.values().next().value;
    if (own) this.enter(own);
    if (held) this.name(held);
    this.showRing();
  }

  // box g takes Tab's place (a roving tabindex)
  enter(g) {
    if (this.entry === g) return;
    if (this.entry?.isConnected) this.entry.setAttribute("tabindex", "-1");
    g.setAttribute("tabindex", "0");
    this.entry = g;
  }

  // a box's name, at the step shown: its lines as drawn (values a later step computes are
  // hidden, so left out), what its tooltip adds (the adjoint once computed, the source line),
  // its state in the step in the legend's words, and the step Enter goes to
  name(g) {
    const lines = [...g.querySelectorAll("text")].filter((t) => getComputedStyle(t).visibility !== "hidden")
      .map((t) => t.textContent.trim()).filter(Boolean);
    const tip = this.drawing.tipText(g).split("\n");
    const head = this.drawing.frame?.tips[g.id]?.head.split("\n").length || 0;
    lines.push(...tip.slice(head).filter((l) => l && !l.startsWith("value ")));
    const state = [...this.states.keys()].find((s) => g.classList.contains(`vz-s-${s}`));
    if (state) lines.push(this.states.get(state));
    if (this.data.steps.length && g.id in (this.drawing.frame?.clicks || {})) {
      lines.push(`Enter: step ${this.drawing.frame.clicks[g.id] + 1}`);
    }
    g.setAttribute("aria-label", lines.join("; ") || g.id);
  }

  focused(target) {
    if (!(target instanceof Element) || !target.matches("g.node")) return;
    this.enter(target);
    this.name(target);
    this.showRing();
  }

  // the ring around the focused box, in the frame's px (the drawing's zoom does not thin it)
  showRing() {
    const g = this.holding() ? document.activeElement : null;
    const r = g?.getBoundingClientRect();
    if (!r || !r.width) {
      this.ring.hidden = true;
      return;
    }
    const el = this.viewport.element;
    const v = el.getBoundingClientRect();
    Object.assign(this.ring.style, {
      left: `${r.left - v.left - el.clientLeft - RING_PAD}px`,
      top: `${r.top - v.top - el.clientTop - RING_PAD}px`,
      width: `${r.width + 2 * RING_PAD}px`,
      height: `${r.height + 2 * RING_PAD}px`,
    });
    this.ring.hidden = false;
  }

  key(e) {
    const t = e.target;
    if (!BOX_KEYS.has(e.key) || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    if (!(t instanceof Element) || !t.matches("g.node") || !this.viewport.stage.contains(t)) return;
    e.preventDefault();
    e.stopPropagation();
    if (e.key === "Enter") this.press(t);
    else if (e.key === "ArrowUp" || e.key === "ArrowDown") this.move(t, DIRECTIONS[e.key]);
    else {
      const order = this.reading();
      this.go(order[order.indexOf(t) + DIRECTIONS[e.key][0]]);
    }
  }

  // Enter on a box: what a click does (its step; a box standing for others opens)
  press(g) {
    g.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true, view: window }));
    if (g.isConnected) this.name(g);
  }

  // the drawing's boxes in reading order: by rows, top to bottom (a box joins the row above
  // when its centre is higher than every bottom of that row), each row from left to right
  reading() {
    const boxes = [...this.drawing.boxes.values()].map((g) => [g, g.getBoundingClientRect()])
      .filter(([, r]) => r.width).sort(([, a], [, b]) => a.top + a.bottom - b.top - b.bottom);
    const rows = [];
    for (const [g, r] of boxes) {
      const row = rows[rows.length - 1];
      if (row && (r.top + r.bottom) / 2 < row.bottom) { row.boxes.push([g, r]); row.bottom = Math.min(row.bottom, r.bottom); }
      else rows.push({ bottom: r.bottom, boxes: [[g, r]] });
    }
    return rows.flatMap((row) => row.boxes.sort(([, a], [, b]) => a.left - b.left).map(([g]) => g));
  }

  // the nearest box from g in direction [dx, dy] (by the boxes' centres: along the arrow
  // counts, sideways counts SIDEWAYS times more), brought into view and focused
  move(g, [dx, dy]) {
    const centre = (r) => [(r.left + r.right) / 2, (r.top + r.bottom) / 2];
    const [x0, y0] = centre(g.getBoundingClientRect());
    let best = null, bestScore = Infinity;
    for (const b of this.drawing.boxes.values()) {
      if (b === g) continue;
      const r = b.getBoundingClientRect();
      if (!r.width) continue;
      const [x, y] = centre(r);
      const along = (x - x0) * dx + (y - y0) * dy;
      if (along <= 0.5) continue;
      const score = along + SIDEWAYS * Math.abs((x - x0) * dy - (y - y0) * dx);
      if (score < bestScore) { best = b; bestScore = score; }
    }
    this.go(best);
  }

  // box g (if any) focused, panned into view when it is not
  go(g) {
    if (!g) return;
    g.focus({ preventScroll: true });
    const v = this.viewport.element.getBoundingClientRect();
    const r = g.getBoundingClientRect();
    if (r.left < v.left || r.right > v.right || r.top < v.top || r.bottom > v.bottom) this.viewport.panTo(g);
    this.showRing();
  }

  close() {
    window.removeEventListener("keydown", this.onKey, true);
  }
}
