// drawing.js: the current view's drawing in the stage: its boxes and edges by id, restyled for
// a step (the step states as classes), the values a later step computes hidden, a tooltip on
// hover, a click on a box going to its step.

import { h } from "./helpers.js";

const STATES = ["current", "consumer", "involved", "done", "pending", "failed"];

export class Drawing {
  // `stage`: the element holding the SVG; `root`: the component (the tooltip's frame);
  // `failed`: the steps whose rule fails check(); `step()`: the step shown (1-based);
  // `go(k)`: go to step k
  constructor({ stage, root, failed, step, go, secret = () => false }) {
    this.stage = stage;
    this.root = root;
    this.failed = failed;
    this.step = step;
    this.go = go;
    this.secret = secret; // secret(i): step i's values are not shown yet (a quiz asks them)
    this.frame = null; // the current view's data
    this.boxes = new Map(); // item id -> <g> of the current view
    this.edges = new Map();
    this.styled = []; // elements restyled by the last step
    this.retold = []; // [<text>, its words] of the folded boxes the last step wrote in
    this.lit = []; // heatmap cells outlined for an open element's terms (light)
    this.tip = h("div", { class: "vz-tip", role: "tooltip" });
    this.listen();
  }

  // the view `frame` (its data), before its SVG is in the stage
  use(frame) {
    this.frame = frame;
    this.boxes = new Map();
    this.edges = new Map();
    this.styled = [];
    this.retold = [];
    this.lit = [];
    // the boxes holding NaN or infinite numbers: their value (`nf`), or their result once its
    // step is reached (`nfResult`), "here" (produced by this node) or "received"
    this.nonfinite = Object.entries(frame?.tips || {}).filter(([, t]) => t.nf || t.nfResult);
  }

  // the boxes and edges of the SVG now in the stage
  index() {
    for (const g of this.stage.querySelectorAll("g.node")) this.boxes.set(g.id, g);
    for (const g of this.stage.querySelectorAll("g.edge")) this.edges.set(g.id, g);
  }

  // the marks of NaN or infinite numbers at step i (0-based): never a failing rule's red
  markNonfinite(i) {
    for (const [id, t] of this.nonfinite) {
      const g = this.boxes.get(id);
      if (!g) continue;
      const shown = t.nfResult && t.at <= i && !this.secret(t.at) ? t.nfResult : null;
      const where = t.nf === "here" || shown === "here" ? "here" : t.nf || shown;
      g.classList.toggle("vz-nf-here", where === "here");
      g.classList.toggle("vz-nf-received", where === "received");
    }
  }

  get size() {
    return this.boxes.size;
  }

  // every box of step i (0-based) in this view: its node, the consumers (or inputs) it
  // reads, and the boxes computing its result (the partial adjoints and the result itself);
  // null when the view has none of them
  focus(i) {
    const s = this.frame.steps[i];
    const ids = [s.current, ...s.consumer, ...s.involved];
    const boxes = ids.map((id) => id && this.boxes.get(id)).filter(Boolean);
    return boxes.length ? boxes : null;
  }

  // the same boxes, the step's first in the order they are kept in view when they do not
  // all fit (viewport.js): its result (v̄ᵢ), the boxes computing it (the terms being added,
  // their local partials), its node, the consumers it reads; null when the view has none
  ranked(i) {
    const s = this.frame.steps[i];
    const result = s.result ?? s.involved[0] ?? s.current; // data made before "result": its first
    const ids = [...new Set([result, ...s.involved, s.current, ...s.consumer])];
    const boxes = ids.map((id) => id && this.boxes.get(id)).filter(Boolean);
    return boxes.length ? boxes : null;
  }

  // restyle by id for step i (0-based): only the elements the last step styled are reset
  restyle(i) {
    const { frame, boxes, failed } = this;
    for (const e of this.styled) {
      e.classList.remove(...STATES.map((s) => `vz-s-${s}`), "vz-hot", "vz-result");
      for (const c of e.querySelectorAll(".vz-hidden")) c.classList.remove("vz-hidden");
    }
    const styled = (this.styled = []);
    const mark = (id, state) => {
      const g = boxes.get(id);
      if (g && !g.classList.contains("vz-marked")) {
        g.classList.add(`vz-s-${state}`, "vz-marked");
        styled.push(g);
      }
    };
    const s = frame.steps[i];
    if (s.current) mark(s.current, failed.has(i) ? "failed" : "current");
    s.consumer.forEach((id) => mark(id, "consumer"));
    s.involved.forEach((id) => mark(id, "involved"));
    for (const [id, owner] of Object.entries(frame.owner)) {
      if (owner === i) continue;
      // a failing step's own box stays red (the boxes computing it are done or pending)
      const bad = failed.has(owner) && frame.steps[owner].current === id;
      mark(id, bad ? "failed" : owner < i ? "done" : "pending");
      if (owner > i && id in frame.hides) this.hideValue(id, frame.hides[id]);
    }
    for (const g of styled) g.classList.remove("vz-marked");
    const result = boxes.get(s.result ?? s.involved[0] ?? s.current);
    if (result) { result.classList.add("vz-result"); styled.push(result); } // the step's result
    for (const id of s.edges) {
      const g = this.edges.get(id);
      if (g) { g.classList.add("vz-hot"); styled.push(g); }
    }
    this.tellPlaces(s.at || {});
    this.markNonfinite(i);
  }

  // a step inside a folded box ("× 45"): the box's last line ("each: mul → add → tanh")
  // says where the step is instead ("now: v₇₃, block 21 of 45"), squeezed to that line's
  // width if longer; the last step's lines are given back first
  tellPlaces(at) {
    for (const [t, words] of this.retold) {
      t.textContent = words;
      t.classList.remove("vz-fold-now");
      t.removeAttribute("textLength");
      t.removeAttribute("lengthAdjust");
    }
    this.retold = [];
    for (const [id, where] of Object.entries(at)) {
      const texts = this.boxes.get(id)?.querySelectorAll(":scope > text");
      if (!texts || texts.length < 2) continue;
      const t = texts[texts.length - 1];
      const width = t.getComputedTextLength?.() || 0;
      this.retold.push([t, t.textContent]);
      t.textContent = `now: ${where}`;
      t.classList.add("vz-fold-now");
      if (width && t.getComputedTextLength() > width) {
        t.setAttribute("textLength", String(width));
        t.setAttribute("lengthAdjust", "spacingAndGlyphs");
      }
    }
  }

  // the heatmap cells an open element's terms read, outlined in the boxes that draw them
  // (`lit`: [tensor key, cell]; the view's `heats`: key -> [box, its first cell, the box's
  // cells], vizad/view/widget/frames.py's heat_boxes); those lit before no longer
  light(lit) {
    for (const c of this.lit) c.classList.remove("vz-lit");
    this.lit = [];
    const heats = this.frame?.heats || {};
    const cells = new Map();
    for (const [key, cell] of lit || []) {
      const at = heats[key];
      const g = at && this.boxes.get(at[0]);
      if (!g) continue;
      if (!cells.has(g)) cells.set(g, heatCells(g));
      const polys = cells.get(g);
      if (polys.length !== at[2]) continue; // not the drawing the data describes (opened boxes)
      const c = polys[at[1] + cell];
      if (c) {
        c.classList.add("vz-lit");
        this.lit.push(c);
      }
    }
  }

  // step i's own boxes keep their values hidden (a quiz step not answered yet)
  hideOwn(i) {
    const frame = this.frame;
    for (const [id, owner] of Object.entries(frame.owner)) {
      if (owner === i && id in frame.hides) this.hideValue(id, frame.hides[id]);
    }
  }

  // a box whose value a later step computes shows its name and formula only
  hideValue(id, cells) {
    const g = this.boxes.get(id);
    if (!g) return;
    const texts = g.querySelectorAll(":scope > text");
    if (texts.length > 1) texts[texts.length - 1].classList.add("vz-hidden");
    if (cells) {
      const polys = heatCells(g);
      for (let c = Math.max(0, polys.length - cells); c < polys.length; c++) polys[c].classList.add("vz-hidden");
    }
  }

  // click a box to go to its step; hover for what it is
  listen() {
    const { stage, tip } = this;
    stage.addEventListener("click", (e) => {
      const g = e.target.closest("g.node");
      if (g && g.id in this.frame.clicks) this.go(this.frame.clicks[g.id] + 1);
    });
    stage.addEventListener("mouseover", (e) => {
      const g = e.target.closest("g.node, g.edge");
      if (!g) return;
      const text = this.tipText(g);
      if (!text) return;
      tip.textContent = text;
      tip.style.display = "block";
      const r = this.root.getBoundingClientRect();
      tip.style.left = `${e.clientX - r.left + 12}px`;
      tip.style.top = `${e.clientY - r.top + 12}px`;
    });
    stage.addEventListener("mouseout", (e) => {
      if (!e.relatedTarget || !stage.contains(e.relatedTarget) || !e.relatedTarget.closest("g.node, g.edge")) {
        tip.style.display = "none";
      }
    });
  }

  // what a box or an edge is, at the step shown ("" for nothing to say)
  tipText(g) {
    const frame = this.frame;
    if (!g.classList.contains("node")) return frame.edgeTips[g.id] || "";
    const t = frame.tips[g.id];
    if (!t) return "";
    const i = this.step() - 1;
    const owner = frame.owner[g.id];
    const asked = owner !== undefined && this.secret(owner);
    const known = !asked && (!(g.id in frame.hides) || owner === undefined || owner <= i);
    let text = t.head;
    if (t.value && known) text += `\n${t.value}`;
    if (t.result && t.at <= i && !this.secret(t.at)) text += `\n${t.result}`;
    else if (t.result) text += "\n(its step comes later)";
    if (t.source) text += `\n${t.source}`;
    return text;
  }
}

// a box's heatmap cells, in drawing order: the polygons without a stroke ("transparent" from
// Graphviz 2, "none" from later versions)
function heatCells(g) {
  return g.querySelectorAll(':scope > polygon[stroke="transparent"], :scope > polygon[stroke="none"]');
}
