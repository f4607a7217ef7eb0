// expand.js: views and collapsed boxes that come later. A view not laid out yet is asked of
// the kernel (Python lays each view out when it is first shown); a collapsed box (a scope, a
// chain or band of a summary, a fold of repeated blocks: any box that stands for others) opens
// in place on a click. What an opened view shows comes as a patch of the view's data (made by
// vizad/view/widget/data.py's frame_patch): from the kernel, which can open several boxes at once,
// or, in a page without a kernel, from the data itself (`data.opens`, every view's, one box at a
// time, as DOT that the page lays out in a worker; packed with gzip, inflated when first needed).
// A click on an opened box's title closes it.

import { inflateJson } from "./helpers.js";

const OPEN_PREFIX = "cluster_open_"; // vizad/view/render/opening.py's OPEN_PREFIX
const KERNEL_WAIT_MS = 120_000; // a request the kernel has not answered by then has failed

// The view `base` with `patch` merged in (see frame_patch): per-box tables and per-step
// states are the base's with the patch's entries over them.
export function applyPatch(base, patch) {
  const frame = { ...base };
  delete frame.svg;
  delete frame.dot;
  delete frame.opens;
  for (const k of ["dot", "svg", "scope", "note", "collapsed"]) if (k in patch) frame[k] = patch[k];
  for (const k of ["owner", "hides", "tips", "edgeTips", "clicks", "links"]) frame[k] = { ...base[k], ...patch[k] };
  frame.steps = base.steps.map((s, i) => patch.steps[i] ?? s);
  frame.find = base.find.map((e, i) => patch.find[i] ?? e);
  // the memory timeline's: the box of each forward value (those inside the box opened moved)
  if (patch.memoryBoxes && base.memoryBoxes) frame.memoryBoxes = base.memoryBoxes.map((b, i) => (i in patch.memoryBoxes ? patch.memoryBoxes[i] : b));
  return frame;
}

const decorated = new WeakSet(); // views' data whose collapsed boxes' tooltips say "click"
const unpacked = new WeakMap(); // a page's packed openings -> the promise of them inflated

// The boxes a page opens itself, as vizad/view/widget/data.py's pack_opens packed them (the ids
// per view, and every view's patches as one gzip-compressed JSON text in base64, each DOT line
// once, a field alike in an earlier view's patch of the same box given as that view's name,
// "same"): view -> box id -> patch, inflated on first use
export function unpackOpens(packed) {
  if (!unpacked.has(packed)) unpacked.set(packed, inflateJson(packed.gz).then(resolveOpens));
  return unpacked.get(packed);
}

// pack_opens's text, parsed, as view -> box id -> patch
export function resolveOpens({ lines, patches }) {
  for (const boxes of Object.values(patches)) {
    for (const [id, patch] of Object.entries(boxes)) {
      for (const [field, other] of Object.entries(patch.same || {})) patch[field] = patches[other][id][field];
      delete patch.same;
    }
  }
  for (const boxes of Object.values(patches)) {
    for (const patch of Object.values(boxes)) {
      if (patch.dotLines) patch.dot = patch.dotLines.map((i) => lines[i]).join("\n");
      delete patch.dotLines;
    }
  }
  return patches;
}

export class Opener {
  // `model`: the widget's (with a kernel it has `send`); `data`: the walkthrough
  constructor({ model, data }) {
    this.model = model;
    this.data = data;
    this.kernel = typeof model.send === "function";
    this.open = new Map(); // view -> ids of its boxes opened (sorted)
    this.frames = new Map(); // "view ids" -> that view's data with those boxes opened
    this.waiting = new Map(); // request -> { promise, resolve, reject }
    this.onMessage = (msg) => this.received(msg);
    if (this.kernel) model.on("msg:custom", this.onMessage);
  }

  // the data of view `v` as shown now (its boxes opened), or undefined (not here yet)
  frame(v) {
    const base = this.data.frames[v];
    const open = this.opened(v);
    if (!base || !open.length) return base;
    return this.frames.get(`${v} ${open.join(" ")}`) || base;
  }

  opened(v) {
    return this.open.get(v) || [];
  }

  // whether box `id` of view `v` can be opened here (with a kernel, or carried by the page)
  canOpen(v, id) {
    const frame = this.frame(v);
    if (!frame || !frame.collapsed || !frame.collapsed.includes(id)) return false;
    return this.kernel || Boolean(this.data.opens?.ids?.[v]?.includes(id));
  }

  // the boxes of view `v` that this page opens itself (no kernel: the openings it carries),
  // the one holding step `i` (0-based) first, at most `most`
  carriedBoxes(v, i, most) {
    const base = this.data.frames[v];
    const ids = this.kernel ? [] : (this.data.opens?.ids?.[v] || []).filter((id) => base.collapsed?.includes(id));
    const holding = base?.steps?.[i]?.current ?? null;
    return [...ids.filter((id) => id === holding), ...ids.filter((id) => id !== holding)].slice(0, most);
  }

  // what a collapsed box's tooltip adds
  decorate(v, frame) {
    if (decorated.has(frame)) return;
    decorated.add(frame);
    for (const id of frame.collapsed || []) {
      if (!frame.tips[id]) continue;
      const how = this.canOpen(v, id) ? "click to open" : this.kernel ? "" : "opening it needs Python";
      if (how) frame.tips[id] = { ...frame.tips[id], head: `${frame.tips[id].head}\n(${how})` };
    }
  }

  // a view's data, asked of the kernel (laid out there when first asked for)
  fetchView(v) {
    if (!this.kernel) {
      return Promise.reject(new Error(`the ${v} view was not laid out when this output was ` +
        "saved: run the cell again to see it"));
    }
    return this.ask({ kind: "view", view: v });
  }

  // view `v` with box `id` opened (or closed, if it is open): its data, patched
  async toggle(v, id) {
    const base = this.data.frames[v];
    const open = this.opened(v);
    let next;
    if (open.includes(id)) next = open.filter((b) => b !== id);
    else next = this.kernel ? [...open, id].sort() : [id]; // a page opens one box at a time
    const key = `${v} ${next.join(" ")}`;
    if (next.length && !this.frames.has(key)) {
      if (this.kernel) {
        const patch = await this.ask({ kind: "open", view: v, boxes: next, key: next.join(" ") });
        this.frames.set(key, applyPatch(base, patch));
      } else await this.carried(v, id);
    }
    this.open.set(v, next);
    return this.frame(v);
  }

  // (a page without a kernel) view `v` with its box `id` opened, from the data it carries
  async carried(v, id) {
    const key = `${v} ${id}`;
    if (!this.frames.has(key)) {
      const base = this.data.frames[v];
      const patch = (await unpackOpens(this.data.opens))[v][id];
      if (!this.frames.has(key)) this.frames.set(key, applyPatch(base, patch));
    }
    return this.frames.get(key);
  }

  close(v) {
    this.open.set(v, []);
    return this.frame(v);
  }

  ask(content) {
    const id = `${content.kind} ${content.view} ${content.key ?? ""}`;
    if (!this.waiting.has(id)) {
      const w = {};
      w.promise = new Promise((resolve, reject) => { w.resolve = resolve; w.reject = reject; });
      this.waiting.set(id, w);
      this.model.send(content);
      // a saved notebook reopened without its kernel has a model that nobody answers
      setTimeout(() => {
        if (this.waiting.get(id) !== w) return;
        this.waiting.delete(id);
        w.reject(new Error("the kernel did not answer: run the cell again to see this"));
      }, KERNEL_WAIT_MS);
    }
    return this.waiting.get(id).promise;
  }

  received(msg) {
    if (!msg || typeof msg !== "object") return;
    const id = `${msg.kind} ${msg.view} ${msg.key ?? ""}`;
    const w = this.waiting.get(id);
    if (!w) return;
    this.waiting.delete(id);
    if (msg.error) w.reject(new Error(msg.error));
    else w.resolve(msg.frame || msg.patch);
  }

  dispose() {
    if (this.kernel) this.model.off?.("msg:custom", this.onMessage);
  }
}

// The <g> of an opened box's frame in `stage`, by its Graphviz title, or null
export function openedFrames(stage) {
  const found = new Map();
  for (const g of stage.querySelectorAll("g.cluster")) {
    const title = g.querySelector(":scope > title")?.textContent || "";
    if (title.startsWith(OPEN_PREFIX)) found.set(title.slice(OPEN_PREFIX.length), g);
  }
  return found;
}
