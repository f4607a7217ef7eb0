// timeline.js: what reverse mode keeps, under the graph (vz.step(..., memory=True)). A curve of
// the values alive at each step of the forward pass and of the walkthrough (with the steps that
// compute dropped values again), the current step and the peak marked; the forward values alive
// at the current step outlined in the graph; and a checkpoint editor: with "edit checkpoints"
// on, a click on a box keeps that value as a checkpoint (or drops it), and the timeline, the
// peak and the forward ops run again follow. memory.js makes each timeline from the plan
// Python sent, so the editor works in an exported page without a kernel. Text is set as text.

import { h } from "./helpers.js";
import { memoryTimeline, aliveAt } from "./memory.js";

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 600;
const HEIGHT = 64;
const PAD = 4;

function svg(tag, attrs = {}) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

// bytes as a person reads them (as vizad/trace/memory.py's _size)
export function size(n) {
  for (const [unit, scale] of [["GiB", 2 ** 30], ["MiB", 2 ** 20], ["KiB", 2 ** 10]]) {
    if (n >= scale) return `${(n / scale).toFixed(1)} ${unit}`;
  }
  return `${n} B`;
}

// The one line that says a timeline: its peak, where, and the price in forward ops.
export function summary(timeline, kept) {
  const peak = timeline.steps[timeline.peakStep - 1];
  // the timeline's steps count the forward pass too: the walkthrough's own step said beside
  const walk = peak?.walkthrough != null ? `, the walkthrough's step ${peak.walkthrough}` : "";
  const where = peak ? ` at step ${timeline.peakStep} of ${timeline.steps.length} (${peak.phase} ${peak.label}${walk})` : "";
  const policy = kept == null ? "every value stored" : `${kept.length} checkpoint${kept.length === 1 ? "" : "s"}`;
  const again = timeline.recomputed.length;
  return `memory: peak ${timeline.peakValues} values, ${size(timeline.peakBytes)}${where}; ` +
    `${policy}; ${again} forward op${again === 1 ? "" : "s"} run again`;
}

export class MemoryTimeline {
  // `memory`: the data's memory ({plan}); `stage`: the graph's stage (its boxes are outlined,
  // and clicked in the editor); `frame()`: the view shown, whose `memoryBoxes` give the box of
  // each forward value; `step()`: the walkthrough's step (1-based); `go(k)`: go to step k;
  // `changed()`: the checkpoints (or the editing) changed (the frame's edge marks them);
  // `model`: its `memory_keep` holds the checkpoints by name, Python's and the editor's
  constructor({ memory, stage, frame, step, go, changed = () => {}, model = null }) {
    this.plan = memory.plan;
    this.stage = stage;
    this.frame = frame;
    this.step = step;
    this.go = go;
    this.changed = changed;
    this.model = model;
    // forward positions kept as checkpoints; null: every value stored
    this.keep = this.positions(model?.get("memory_keep"));
    // checkpoints set from Python (stepper.memory_keep = ["v₄"])
    this.onModel = () => {
      const keep = this.positions(model.get("memory_keep"));
      const key = (k) => (k === null ? "all" : k.join(" "));
      if (key(keep) !== key(this.keep)) this.setKeep(keep, false);
    };
    model?.on("change:memory_keep", this.onModel);
    this.editing = false;
    this.words = h("span", { class: "vz-memory-words", role: "status" });
    this.edit = h("button", { class: "vz-memory-edit", "aria-pressed": "false", text: "edit checkpoints",
      title: "then click boxes of the graph: a box kept is a checkpoint, the other values are computed again when needed",
      onclick: () => this.setEditing(!this.editing) });
    this.reset = h("button", { class: "vz-memory-reset", text: "store all", title: "no checkpoints: every value stored",
      onclick: () => this.setKeep(null) });
    this.chart = svg("svg", { class: "vz-memory-chart", viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      preserveAspectRatio: "none", role: "img", "aria-label": "values alive at each step" });
    this.element = h("div", { class: "vz-memory", role: "group", "aria-label": "memory timeline" },
      [h("div", { class: "vz-memory-head" }, [this.words, this.edit, this.reset])]);
    this.element.append(this.chart);
    // the editor's clicks (and Enter or Space on a box that has the keys) come before the
    // box's own (open it, go to its step)
    this.onClick = (e) => {
      if (!this.editing) return;
      if (e.type === "keydown" && e.key !== "Enter" && e.key !== " ") return;
      const g = e.target instanceof Element && this.stage.contains(e.target) ? e.target.closest("g.node") : null;
      const shown = g ? this.boxes().map((box, i) => (box === g.id ? i : -1)).filter((i) => i >= 0) : [];
      if (shown.length !== 1) return; // a folded block's box opens as usual
      const i = shown[0];
      e.stopImmediatePropagation();
      e.preventDefault();
      if (!this.plan.forward[i].leaf) this.toggle(i); // an input is always a checkpoint
    };
    stage.addEventListener("click", this.onClick, true);
    // the keys on the window, in the capture phase, before access.js's (Enter: go to the step)
    window.addEventListener("keydown", this.onClick, true);
    // a click on the curve goes to the walkthrough's step there (or the next one)
    this.chart.addEventListener("click", (e) => {
      const r = this.chart.getBoundingClientRect();
      const n = this.timeline.steps.length;
      if (!r.width || !n) return;
      const at = Math.round(((e.clientX - r.left) / r.width * WIDTH - PAD) / (WIDTH - 2 * PAD) * (n - 1));
      const next = this.timeline.steps.slice(Math.max(0, at)).find((s) => s.walkthrough != null);
      if (next) this.go(next.walkthrough);
    });
    this.update();
  }

  // the box of each forward value in the view shown (none before a view is drawn)
  boxes() {
    return this.frame()?.memoryBoxes ?? [];
  }

  setEditing(on) {
    this.editing = on;
    this.edit.setAttribute("aria-pressed", String(on));
    this.element.classList.toggle("vz-editing", on);
    this.stage.classList.toggle("vz-editing-checkpoints", on);
    this.changed();
  }

  // the box of forward value i in the graph shown, or null (not drawn)
  box(i) {
    const id = this.boxes()[i];
    return id ? this.stage.querySelector(`g.node[id="${CSS.escape(id)}"]`) : null;
  }

  // while editing, the boxes of the checkpoints (the viewport marks those out of view at the
  // frame's edge: a checkpoint clicked stays in sight when the step is zoomed on)
  keptBoxes() {
    return this.editing ? (this.keep ?? []).map((i) => this.box(i)).filter(Boolean) : [];
  }

  // the checkpoints `keep` (forward positions, or null); `tell`: the model (Python) told
  setKeep(keep, tell = true) {
    this.keep = keep;
    this.update();
    if (!tell || !this.model) return;
    this.model.set("memory_keep", keep === null ? null : keep.map((i) => this.plan.forward[i].label));
    this.model.save_changes();
  }

  // the forward positions of the values named (the walkthrough's names, "v₄"), in order;
  // null for null (every value stored); a name that is none is left out
  positions(names) {
    if (!Array.isArray(names)) return null;
    const named = new Set(names);
    return this.plan.forward.flatMap((v, i) => (named.has(v.label) ? [i] : []));
  }

  // a box clicked: kept, or dropped (from storing everything, the first box kept is the one
  // checkpoint, every other value computed again when needed)
  toggle(i) {
    const kept = new Set(this.keep ?? []);
    if (kept.has(i)) kept.delete(i);
    else kept.add(i);
    this.setKeep([...kept].sort((a, b) => a - b));
  }

  update() {
    this.timeline = memoryTimeline(this.plan, this.keep);
    const t = this.timeline;
    this.words.textContent = summary(t, this.keep);
    this.element.dataset.peak = String(t.peakValues);
    this.element.dataset.peakStep = String(t.peakStep);
    this.element.dataset.recomputed = String(t.recomputed.length);
    this.element.dataset.kept = (this.keep ?? []).join(" ");
    this.draw();
    this.show();
    this.changed();
  }

  x(t) {
    const n = this.timeline.steps.length;
    return PAD + (n > 1 ? (t / (n - 1)) * (WIDTH - 2 * PAD) : 0);
  }

  y(values) {
    return HEIGHT - PAD - (values / Math.max(1, this.timeline.peakValues)) * (HEIGHT - 2 * PAD);
  }

  draw() {
    const { steps, peakStep, peakValues } = this.timeline;
    this.chart.replaceChildren();
    const forward = steps.filter((s) => s.phase === "forward").length;
    this.chart.append(svg("rect", { class: "vz-memory-forward", x: 0, y: 0, width: this.x(forward - 0.5), height: HEIGHT }));
    steps.forEach((s, t) => {
      if (s.phase === "recompute") {
        this.chart.append(svg("line", { class: "vz-memory-again", x1: this.x(t), x2: this.x(t), y1: HEIGHT - PAD, y2: HEIGHT }));
      }
    });
    const points = steps.map((s, t) => `${this.x(t).toFixed(1)},${this.y(s.values).toFixed(1)}`).join(" ");
    this.chart.append(svg("polyline", { class: "vz-memory-curve", points }));
    if (peakStep) {
      const peak = svg("circle", { class: "vz-memory-peak", cx: this.x(peakStep - 1), cy: this.y(peakValues), r: 3 });
      const title = svg("title");
      title.textContent = `the peak: ${peakValues} values at step ${peakStep}`;
      peak.append(title);
      this.chart.append(peak);
    }
    this.cursor = svg("line", { class: "vz-memory-cursor", x1: 0, x2: 0, y1: 0, y2: HEIGHT });
    this.chart.append(this.cursor);
  }

  // the current walkthrough step: the cursor on its place in the timeline, and the boxes of
  // the values alive there outlined (the checkpoints marked)
  show() {
    const k = this.step();
    const steps = this.timeline.steps;
    const t = steps.findIndex((s) => s.walkthrough === k);
    if (t < 0) return;
    this.cursor.setAttribute("x1", this.x(t));
    this.cursor.setAttribute("x2", this.x(t));
    this.element.dataset.values = String(steps[t].values);
    for (const g of this.stage.querySelectorAll("g.node.vz-alive, g.node.vz-kept")) g.classList.remove("vz-alive", "vz-kept");
    for (const i of aliveAt(this.timeline, t + 1).forward) this.box(i)?.classList.add("vz-alive");
    for (const i of this.keep ?? []) this.box(i)?.classList.add("vz-kept");
  }

  close() {
    this.model?.off("change:memory_keep", this.onModel);
    this.stage.removeEventListener("click", this.onClick, true);
    window.removeEventListener("keydown", this.onClick, true);
  }
}
