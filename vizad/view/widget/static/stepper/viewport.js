// viewport.js: the window onto the current view's drawing: zoom, pan, fit, follow the boxes of
// the current step, the "laying out" note, and the legend of the step states (text beside the
// drawing, not part of it, so that it stays whole whatever the zoom and pan).
//
// The zoom: a view opens on the whole graph when that is legible (at least LEGIBLE of its
// natural size, times the presentation scale), else on the current step's region at READABLE.
// The zoom a person chooses (+, −, 1:1, fit, ctrl+wheel, a search or an opened box brought into
// view) is kept, across steps, resizes and views, until they choose another; each view keeps
// its own pan. Following a step pans to keep its boxes in view: at the chosen zoom, or
// (automatic) zoomed out for that step only as far as FLOOR, where the text is still readable
// (9 px for the drawing's smallest text; times the presentation scale, except when presenting:
// there the step comes whole first). Where the step's boxes do not all fit there, its result
// comes first: the result, then the terms being added, then its node and the boxes it reads
// are kept in view as far as they fit together (marks.js's keepInView), and the others are
// marked at the frame's edge: an arrow towards each, with its name and value, that pans to
// it when clicked (and, while the checkpoints are edited, the boxes kept out of view: "v₄ kept"). A zoom at which the smallest text is under 9 px ("fit" of a large graph,
// "−") is said beside the zoom buttons.

import { h, clamp, busy } from "./helpers.js";
import { centreLines, cropToContent } from "./layout.js";
import { keepInView, placeMarks, OTHER_BOX } from "./marks.js";
import { safeSvg } from "./sanitize.js";

const LEGIBLE = 0.6; // the whole graph is shown when this size or larger
export const READABLE = 0.9; // a step's region is shown at this size (12 pt text → 14 px)
const FLOOR = 0.6; // following never zooms out below this (12 pt text → 9.6 px)
export const READABLE_PX = 9; // px: the least size of a drawn text a person reads (nor below)
const MARGIN = 16; // px between the frame and the boxes kept in view
const EDGE_MARKS = 6; // boxes out of view marked at the edge, at most (the last says how many more)
const KEPT_MARKS = 4; // and checkpoints out of view, while they are edited (timeline.js)

export class Viewport {
  // `root`: the component (its data-zoom tells the zoom); `scale()`: the presentation scale;
  // `target()`: every box of the current step (its node, consumers, partial adjoints and
  // result), or null; `ready()`: whether the stage holds a drawing with boxes; `legend`:
  // [state, words] of the step states
  constructor({ root, scale, target, ready, legend = null }) {
    this.root = root;
    this.scale = scale;
    this.target = target;
    this.ready = ready;
    this.words = legend;
    this.zoom = { x: 0, y: 0, s: 1 };
    this.natural = { w: 1, h: 1 };
    this.fitted = false; // the view shown has had its first zoom
    this.chosen = null; // the zoom a person chose (absolute), "fit" (the whole graph), or null
    this.wanted = 1; // the zoom a step is shown at when its boxes fit (chosen or automatic)
    this.key = null; // the view shown, and each view's last zoom and pan
    this.kept = new Map();
    this.framed = null; // the box framed (frameOn) until the next step is shown
    this.drag = null; // a drag under way
    this.dragEnd = null; // when the last drag ended (ms)
    this.bar = h("div", { class: "vz-zoom", role: "group", "aria-label": "zoom" }, [
      h("button", { title: "fit the graph in view", text: "fit", onclick: () => this.fit() }),
      h("button", { title: "natural size", text: "1:1", onclick: () => this.choose(1) }),
      h("button", { title: "zoom out", text: "−", onclick: () => this.choose(this.zoom.s / 1.25) }),
      h("button", { title: "zoom in", text: "+", onclick: () => this.choose(this.zoom.s * 1.25) }),
    ]);
    // beside the buttons: the text's size when the zoom makes it too small to read
    this.note = h("span", { class: "vz-zoom-note", role: "status" });
    this.bar.append(this.note);
    this.least = 16; // px: the drawing's smallest text at its natural size (12 pt)
    this.legend = h("div", { class: "vz-legend", role: "list", "aria-label": "legend of the step states" });
    this.stage = h("div", { class: "vz-stage" });
    this.marks = h("div", { class: "vz-edge-marks" }); // the step's boxes out of view
    this.element = h("div", { class: "vz-viewport", tabindex: "-1" }, [this.stage, this.marks]);
    this.also = null; // () => more boxes marked when out of view (the checkpoints edited)
    this.listen();
    // the component may be drawn before it is on screen (a notebook output being attached):
    // zoom once the viewport has a size, and keep the current boxes in view when it changes
    this.size = { w: 0, h: 0 };
    this.resize = new ResizeObserver(() => this.resized());
    this.resize.observe(this.element);
  }

  // Graphviz's SVG (text) of view `key` in the stage at its natural size, without its
  // <title>s (the component shows its own tooltips) and without its legend (shown as text)
  show(svgText, key = null) {
    this.remember();
    this.stage.replaceChildren(safeSvg(svgText));
    const svg = this.stage.querySelector("svg");
    svg.removeAttribute("style");
    // Graphviz writes the size in pt; baseVal converts it to CSS px
    this.natural = { w: svg.width.baseVal.value || 1, h: svg.height.baseVal.value || 1 };
    svg.setAttribute("width", `${this.natural.w}`);
    svg.setAttribute("height", `${this.natural.h}`);
    for (const g of this.stage.querySelectorAll("g.node title, g.edge title")) g.remove();
    centreLines(svg);
    if (this.takeLegend(svg)) {
      // the legend's corner of the layout would stay empty: the drawing is cropped to the rest
      const unit = this.natural.w / svg.viewBox.baseVal.width; // px per viewBox unit
      const crop = cropToContent(svg);
      if (crop) {
        this.natural = { w: crop.w * unit, h: crop.h * unit };
        svg.setAttribute("width", `${this.natural.w}`);
        svg.setAttribute("height", `${this.natural.h}`);
      }
    }
    this.least = leastText(svg, this.natural.w);
    this.key = key;
    this.fitted = false;
  }

  // the zoom below which the drawing's smallest text would be under READABLE_PX
  readableZoom() {
    return Math.max(FLOOR, READABLE_PX / this.least);
  }

  // the zoom and pan of the view shown, for when it is shown again
  remember() {
    if (this.key !== null && this.fitted) this.kept.set(this.key, { ...this.zoom, wanted: this.wanted });
  }

  // an empty stage (a view being laid out)
  clear() {
    this.remember();
    this.key = null;
    this.stage.replaceChildren();
  }

  // a note over the stage ("laying out…", a failure) in place of the last one; none for null
  say(text) {
    this.element.querySelector(".vz-busy")?.remove();
    if (text !== null) this.element.append(busy(text));
  }

  // the drawing's legend (a node of the SVG) leaves the drawing; the component shows the
  // step states as text with a swatch each, which wraps instead of being clipped. Whether
  // the drawing had one.
  takeLegend(svg) {
    const g = svg.querySelector("#vz_legend");
    this.legend.replaceChildren();
    if (!g) return false;
    g.remove();
    for (const [state, words] of this.words || []) {
      this.legend.append(h("span", { class: "vz-legend-item", role: "listitem" }, [
        h("span", { class: `vz-swatch vz-s-${state}`, "aria-hidden": "true" }),
        h("span", { class: "vz-legend-words", text: words }),
      ]));
    }
    return true;
  }

  apply() {
    const zoom = this.zoom;
    this.stage.style.transform = `translate(${zoom.x}px, ${zoom.y}px) scale(${zoom.s})`;
    this.root.dataset.zoom = zoom.s.toFixed(3);
    const px = this.least * zoom.s; // the smallest text on screen
    this.note.textContent = this.stage.children.length && px < READABLE_PX - 0.05
      ? `text ${px < 2 ? px.toFixed(1) : Math.round(px)} px — zoom in to read` : "";
    this.markEdges();
    this.onApply?.(); // the minimap (minimap.js)
  }

  // the current step's boxes out of view, each marked at the frame's edge in its direction:
  // an arrow, its name (its first line) and its value (its last line, unless hidden: a value
  // a later step computes, a quiz's); a click pans to it (the zoom stays)
  markEdges() {
    const target = this.fitted && this.ready() ? this.target() : null;
    const f = this.frame();
    const v = this.element.getBoundingClientRect();
    const left = v.left + this.element.clientLeft, top = v.top + this.element.clientTop;
    const out = [], seen = []; // the boxes out of view, and those in view (not to be covered)
    for (const g of target || []) {
      const r = g.getBoundingClientRect();
      if (!r.width) continue;
      const x = (r.left + r.right) / 2 - left, y = (r.top + r.bottom) / 2 - top;
      // a box cut by the frame's edge is marked too (its value may be the part cut off)
      if (this.inFrame(r, left, top, f)) {
        seen.push({ left: r.left - left, top: r.top - top, w: r.width, h: r.height });
      } else out.push({ g, x, y });
    }
    // then the boxes kept as checkpoints out of view, while the checkpoints are edited
    // (timeline.js): each box once, none of the step's
    const kept = [];
    for (const g of new Set(this.fitted && this.ready() ? this.also?.() ?? [] : [])) {
      if (target?.includes(g)) continue;
      const r = g.getBoundingClientRect();
      if (!r.width || this.inFrame(r, left, top, f)) continue;
      kept.push({ g, x: (r.left + r.right) / 2 - left, y: (r.top + r.bottom) / 2 - top });
    }
    this.marks.replaceChildren();
    const cx = f.w / 2, cy = f.h / 2;
    const some = (list, most, checkpoint) => list.slice(0, most).map((o, k) =>
      ({ ...o, checkpoint, more: k === most - 1 && list.length > most ? list.length - most : 0 }));
    const wanted = [...some(out, EDGE_MARKS, false), ...some(kept, KEPT_MARKS, true)].map(({ g, x, y, checkpoint, more: extra }) => {
      const dx = x - cx, dy = y - cy;
      // where the line from the frame's centre to the box leaves the frame (inset)
      const t = Math.min((f.w / 2 - 8) / Math.max(Math.abs(dx), 1e-6), (f.h / 2 - 12) / Math.max(Math.abs(dy), 1e-6));
      const side = Math.abs(dx) * f.h > Math.abs(dy) * f.w
        ? (dx > 0 ? "right" : "left") : (dy > 0 ? "bottom" : "top");
      const arrow = { right: "→", left: "←", bottom: "↓", top: "↑" }[side];
      // a checkpoint: its name and "kept" (its value is not what the editor is about)
      const name = checkpoint ? `${markWords(g, false)} kept` : markWords(g);
      const more = extra ? ` (+${extra} more)` : "";
      const mark = h("button", {
        class: checkpoint ? "vz-edge-mark vz-edge-kept" : "vz-edge-mark",
        title: `${name}${checkpoint ? " as a checkpoint" : ""}: out of view (click to show it)`,
        text: arrow === "←" || arrow === "↑" ? `${arrow} ${name}${more}` : `${name}${more} ${arrow}`,
      });
      mark.addEventListener("pointerdown", (e) => e.stopPropagation()); // a click, not a pan
      mark.addEventListener("click", (e) => { e.stopPropagation(); this.panTo(g); });
      this.marks.append(mark);
      // wanted where the line leaves the frame; placeMarks keeps it inside the frame, off the
      // other markers and off the step's boxes in view
      const w = mark.offsetWidth, ht = mark.offsetHeight;
      return {
        mark, side, w, h: ht,
        left: cx + dx * t - (dx > 0 ? w : dx < 0 ? 0 : w / 2),
        top: cy + dy * t - (dy > 0 ? ht : dy < 0 ? 0 : ht / 2),
      };
    });
    const others = wanted.length ? this.boxesInView(f, left, top).map((b) => ({ ...b, weight: OTHER_BOX })) : [];
    placeMarks(wanted, f, [...seen, ...others]).forEach(({ left: px, top: py }, k) => {
      Object.assign(wanted[k].mark.style, { left: `${px}px`, top: `${py}px` });
    });
  }

  // every box of the drawing that is in view, in frame px (`left`, `top`: the frame's corner
  // on screen); measured once per drawing, in its own units, then moved by the zoom
  boxesInView(f, left, top) {
    const svg = this.stage.querySelector("svg");
    if (!svg) return [];
    const z = this.zoom;
    if (this.boxCache?.svg !== svg) {
      const list = [];
      for (const g of svg.querySelectorAll("g.node")) {
        const r = g.getBoundingClientRect();
        if (r.width) list.push({ x: (r.left - left - z.x) / z.s, y: (r.top - top - z.y) / z.s, w: r.width / z.s, h: r.height / z.s });
      }
      this.boxCache = { svg, list };
    }
    return this.boxCache.list.map((b) => ({ left: z.x + b.x * z.s, top: z.y + b.y * z.s, w: b.w * z.s, h: b.h * z.s }))
      .filter((b) => b.left < f.w && b.left + b.w > 0 && b.top < f.h && b.top + b.h > 0);
  }

  // pan (the zoom stays) to bring the box `g` to the frame's centre
  panTo(g) {
    const v = this.element.getBoundingClientRect();
    const r = g.getBoundingClientRect();
    this.zoom.x += v.left + v.width / 2 - (r.left + r.right) / 2;
    this.zoom.y += v.top + v.height / 2 - (r.top + r.bottom) / 2;
    this.apply();
  }

  // Frame `g` (a box just opened, a box found): at a readable zoom at least, centred on it
  // (on `inner`, a box inside it, when `g` is wider or taller than the frame; else on its
  // start), whatever lies around it, and kept so when the frame changes size, until the next
  // step is shown. The zoom stays as if chosen.
  frameOn(g, inner = null) {
    const readable = READABLE * this.scale();
    if (this.zoom.s < readable) this.zoomTo(readable);
    this.keep();
    const v = this.element.getBoundingClientRect();
    const left = v.left + this.element.clientLeft, top = v.top + this.element.clientTop;
    const f = this.frame();
    const b = g.getBoundingClientRect();
    const i = inner?.getBoundingClientRect();
    // the centre along one axis: the box's, or (too big) the inner box's with the box's edges
    // outside the margins, or its start
    const centre = (lo, hi, ilo, ihi, size) => {
      if (hi - lo <= size - 2 * MARGIN) return (lo + hi) / 2;
      const c = i ? (ilo + ihi) / 2 : lo;
      return clamp(c, lo + size / 2 - MARGIN, hi - size / 2 + MARGIN);
    };
    const cx = centre(b.left - left, b.right - left, i?.left - left, i?.right - left, f.w);
    const cy = centre(b.top - top, b.bottom - top, i?.top - top, i?.bottom - top, f.h);
    this.zoom.x += f.w / 2 - cx;
    this.zoom.y += f.h / 2 - cy;
    this.framed = { g, inner };
    this.apply();
  }

  // the zoom shown now is kept as if chosen (a search or an opened box brought into view)
  keep() {
    this.chosen = this.wanted = this.zoom.s;
  }

  frame() {
    return { w: this.element.clientWidth, h: this.element.clientHeight };
  }

  fitScale() {
    const f = this.frame();
    return Math.min((f.w - 2 * MARGIN) / this.natural.w, (f.h - 2 * MARGIN) / this.natural.h);
  }

  // the whole graph, centred: chosen, it stays the whole graph at any size and in any view
  fit() {
    this.chosen = "fit";
    this.kept.clear();
    this.wanted = clamp(this.fitScale(), 0.05, 4);
    this.centre(this.wanted);
  }

  centre(s) {
    const f = this.frame();
    Object.assign(this.zoom, { s, x: (f.w - this.natural.w * s) / 2, y: (f.h - this.natural.h * s) / 2 });
    this.apply();
  }

  // zoom to s about the frame's point (cx, cy) (its centre by default)
  zoomTo(s, cx, cy) {
    const f = this.frame();
    const zoom = this.zoom;
    cx = cx ?? f.w / 2;
    cy = cy ?? f.h / 2;
    const k = clamp(s, 0.05, 8) / zoom.s;
    zoom.x = cx - (cx - zoom.x) * k;
    zoom.y = cy - (cy - zoom.y) * k;
    zoom.s *= k;
    this.apply();
  }

  // a zoom a person chose (buttons, ctrl+wheel): kept until they choose another
  choose(s, cx, cy) {
    this.zoomTo(s, cx, cy);
    this.chosen = this.wanted = this.zoom.s;
  }

  // the automatic zoom: the whole graph when legible, else the current step's region
  initialZoom() {
    const whole = this.fitScale();
    if (whole >= Math.max(LEGIBLE, this.readableZoom()) * this.scale()) {
      this.wanted = Math.min(whole, 2.5 * this.scale());
      this.centre(this.wanted);
    } else {
      this.wanted = READABLE * this.scale();
      this.zoomTo(this.wanted);
      this.follow(true);
    }
  }

  // the box (frame px) around every box of the current step, at the zoom shown
  targetBox() {
    const target = this.target();
    if (!target || !target.length) return null;
    const v = this.element.getBoundingClientRect();
    const left = v.left + this.element.clientLeft;
    const top = v.top + this.element.clientTop;
    const rects = target.map((e) => e.getBoundingClientRect());
    return {
      left: Math.min(...rects.map((r) => r.left)) - left,
      right: Math.max(...rects.map((r) => r.right)) - left,
      top: Math.min(...rects.map((r) => r.top)) - top,
      bottom: Math.max(...rects.map((r) => r.bottom)) - top,
    };
  }

  // keep the boxes of the current step in view: at the zoom the reader chose (`zoom` false:
  // at the zoom shown), else at the wanted zoom when they fit at it, zoomed out until they
  // do but never below the readable floor; when they do not all fit, the result and as many
  // of the others as fit with it (in target()'s order: keepInView) are kept in view and the
  // others marked at the edge. The pan moves only when a box kept would be out of view.
  follow(force = false, zoom = true) {
    let b = this.targetBox();
    if (!b) return;
    const f = this.frame();
    const s0 = this.zoom.s;
    // the boxes' size at zoom 1, and the largest zoom at which they fit
    const w = (b.right - b.left) / s0;
    const hgt = (b.bottom - b.top) / s0;
    const fits = Math.min((f.w - 2 * MARGIN) / Math.max(w, 1), (f.h - 2 * MARGIN) / Math.max(hgt, 1));
    // presenting, the step is shown whole first: the floor is that of scale 1 (the type of
    // the screen's large panel is what grows with the scale there)
    const presenting = this.root.classList.contains("vz-present");
    const floor = Math.min(this.wanted, this.readableZoom() * (presenting ? 1 : this.scale()));
    const s = zoom && this.chosen === null ? clamp(Math.max(Math.min(this.wanted, fits), floor), 0.05, 8) : s0;
    if (Math.abs(s - s0) > 1e-3) {
      this.zoomTo(s);
      force = true;
    }
    // the boxes kept in view (all of them when they fit), in frame px
    const v = this.element.getBoundingClientRect();
    const left = v.left + this.element.clientLeft, top = v.top + this.element.clientTop;
    const rects = this.target().map((e) => {
      const r = e.getBoundingClientRect();
      return { left: r.left - left, right: r.right - left, top: r.top - top, bottom: r.bottom - top };
    });
    b = keepInView(rects, { w: f.w - 2 * MARGIN, h: f.h - 2 * MARGIN }).box;
    const inside = b.left >= MARGIN - 0.5 && b.right <= f.w - MARGIN + 0.5 &&
      b.top >= MARGIN - 0.5 && b.bottom <= f.h - MARGIN + 0.5;
    if (inside && !force) return this.apply();
    // the boxes centred, but no more of the frame left empty than needed: a graph narrower
    // (shorter) than the frame is centred, a wider one keeps its edges outside the margins
    const z = this.zoom;
    const span = (pan, move, size, room) => size <= room - 2 * MARGIN
      ? (room - size) / 2 : clamp(pan + move, room - MARGIN - size, MARGIN);
    z.x = span(z.x, f.w / 2 - (b.left + b.right) / 2, this.natural.w * z.s, f.w);
    z.y = span(z.y, f.h / 2 - (b.top + b.bottom) / 2, this.natural.h * z.s, f.h);
    this.apply();
  }

  // whether the screen rect r lies inside the frame `f` whose corner is at (left, top)
  inFrame(r, left, top, f) {
    return r.width > 0 && r.left - left >= -0.5 && r.right - left <= f.w + 0.5 &&
      r.top - top >= -0.5 && r.bottom - top <= f.h + 0.5;
  }

  // a step is shown: the view's first zoom once on screen (its own last zoom and pan when
  // it was shown before, else the chosen zoom or the automatic one), then its boxes in view
  // (a view shown again, or at the chosen zoom, keeps that zoom: the pan brings them in)
  settle() {
    this.framed = null; // a step shown: its boxes are followed again
    if (!this.element.clientWidth || !this.ready()) return; // not on screen (or not laid out) yet
    if (this.fitted) return this.follow();
    this.fitted = true;
    this.size = this.frame();
    const kept = this.kept.get(this.key);
    if (kept) {
      Object.assign(this.zoom, { x: kept.x, y: kept.y, s: kept.s });
      this.wanted = typeof this.chosen === "number" ? this.chosen : kept.wanted;
      this.apply();
      this.follow(false, false);
    } else if (this.chosen === "fit") this.fit();
    else if (this.chosen !== null) {
      this.wanted = this.chosen;
      this.zoomTo(this.chosen);
      this.follow(true, false);
    } else this.initialZoom();
  }

  // zoom afresh at the next step shown (a new presentation scale, presentation mode): the
  // zooms chosen and kept are forgotten
  refit() {
    this.fitted = false;
    this.chosen = null;
    this.kept.clear();
  }

  // the frame changed size: the zoom a person chose stays, with the graph's point at the
  // frame's centre still there; the automatic zoom is made again for the new size
  resized() {
    const old = this.size;
    const now = this.frame();
    if (!now.w || !this.ready()) return;
    if (!this.fitted) return this.settle();
    this.size = now;
    if (this.framed?.g.isConnected) return this.frameOn(this.framed.g, this.framed.inner);
    if (this.chosen === null) return this.initialZoom();
    if (this.chosen === "fit") return this.fit();
    this.zoom.x += (now.w - old.w) / 2;
    this.zoom.y += (now.h - old.h) / 2;
    this.apply();
    this.follow(false, false);
  }

  // ctrl+wheel or pinch zooms, a drag pans (and selects no text)
  listen() {
    const viewport = this.element;
    viewport.addEventListener("wheel", (e) => {
      if (!e.ctrlKey && !e.metaKey) return; // plain wheel scrolls the page; pinch and ctrl zoom
      e.preventDefault();
      const r = viewport.getBoundingClientRect();
      this.choose(this.zoom.s * Math.exp(-e.deltaY / 300), e.clientX - r.left, e.clientY - r.top);
    }, { passive: false });
    // a drag pans from anywhere, a box too (a click on a box, without a drag, goes to its
    // step); it starts after a few px, and selects no text
    viewport.addEventListener("pointerdown", (e) => {
      if (e.button !== 0) return;
      e.preventDefault(); // no text selection starts
      this.drag = { x: e.clientX, y: e.clientY, zx: this.zoom.x, zy: this.zoom.y, id: e.pointerId, moved: false };
    });
    viewport.addEventListener("pointermove", (e) => {
      const d = this.drag;
      if (!d) return;
      if (!d.moved && Math.hypot(e.clientX - d.x, e.clientY - d.y) < 4) return;
      if (!d.moved) {
        d.moved = true;
        viewport.setPointerCapture(d.id);
        viewport.classList.add("vz-dragging");
      }
      this.zoom.x = d.zx + e.clientX - d.x;
      this.zoom.y = d.zy + e.clientY - d.y;
      this.apply();
    });
    const endDrag = () => {
      if (this.drag?.moved) this.dragEnd = performance.now();
      this.drag = null;
      viewport.classList.remove("vz-dragging");
    };
    viewport.addEventListener("pointerup", endDrag);
    viewport.addEventListener("pointercancel", endDrag);
    // the click that ends a drag is not a click on a box
    viewport.addEventListener("click", (e) => {
      if (performance.now() - (this.dragEnd ?? -1e9) < 100) e.stopPropagation();
    }, { capture: true });
  }

  close() {
    this.resize.disconnect();
  }
}

// ms a resize of the graph's frame waits for the next before the frame is reported
export const FRAME_REPORT_MS = 400;

// The reader's frame, told to Python where a kernel listens (a live widget): the size of
// `element` (the graph's frame, CSS px), the presentation scale and the page's zoom
// (devicePixelRatio), once it has a size and again after each resize (debounced) or change
// of scale; Python chooses the picture readable there (vizad/view/render/legibility.py). Not while
// `paused()` (presenting: a picture drawn anew would leave the whole screen). Returns what
// stops it.
export function reportFrame(model, element, paused = () => false) {
  if (model.get("connected") === false || typeof model.send !== "function") return () => {};
  let last = "";
  let timer = null;
  const send = () => {
    timer = null;
    const width = element.clientWidth, height = element.clientHeight;
    if (!width || !height || paused()) return; // not on screen yet, or presenting
    const frame = { kind: "frame", width, height, scale: model.get("scale") || 1, zoom: window.devicePixelRatio || 1 };
    const key = JSON.stringify(frame);
    if (key === last) return;
    last = key;
    model.send(frame);
  };
  const later = () => {
    clearTimeout(timer);
    timer = setTimeout(send, FRAME_REPORT_MS);
  };
  const observer = new ResizeObserver(later);
  observer.observe(element);
  model.on("change:scale", later);
  return () => {
    observer.disconnect();
    model.off("change:scale", later);
    clearTimeout(timer);
  };
}

// the natural size (CSS px) of the smallest text of a drawing whose SVG is `width` px wide
// (its font sizes are in the viewBox's units); 16 (12 pt) for a drawing without text
function leastText(svg, width) {
  const unit = width / (svg.viewBox.baseVal?.width || width);
  let least = Infinity;
  for (const t of svg.querySelectorAll("text")) {
    const size = parseFloat(t.getAttribute("font-size"));
    if (size > 0) least = Math.min(least, size * unit);
  }
  return Number.isFinite(least) ? least : 16;
}

// a marker's words for box `g`: its name (its first line) and its value (its last line,
// "= 1.716", a heatmap's "±3.85") unless that line is hidden
function markWords(g, withValue = true) {
  const texts = [...g.querySelectorAll(":scope > text")];
  const name = (texts[0]?.textContent || g.id || "").trim();
  if (!withValue) return name;
  const last = texts.length > 1 ? texts[texts.length - 1] : null;
  const value = last && !last.classList.contains("vz-hidden") &&
    last.getAttribute("y") !== texts[0].getAttribute("y") ? last.textContent.trim() : "";
  if (!value) return name;
  return value.startsWith("=") ? `${name} ${value}` : `${name} (${value})`;
}
