// minimap.js: the whole graph small, in a corner of the view: each box a block in its own
// colour (however small the graph is drawn, a box stays visible), the current step's box
// marked, and the part in view framed; a click or a drag on it moves the view there. Shown
// only when the graph is larger than the view at the zoom in use.

import { h, clamp } from "./helpers.js";

const MINIMAP = { w: 220, h: 110, min: 2 }; // its largest size, and a box's least (px)
const MINIMAP_CORNERS = [["right", "bottom"], ["left", "bottom"], ["right", "top"], ["left", "top"]];

export class Minimap {
  // `viewport`: the view it maps; `current()`: the current step's <g>, or null
  constructor({ viewport, current }) {
    this.viewport = viewport;
    this.current = current;
    this.scale = 1; // minimap px per graph px
    this.svg = null; // the drawing mapped (drawn once it is on screen)
    this.drawn = false;
    this.canvas = h("canvas", { class: "vz-minimap-map" });
    this.here = h("div", { class: "vz-minimap-here" });
    this.mark = h("div", { class: "vz-minimap-view" });
    this.element = h("div", { class: "vz-minimap", role: "img", hidden: "",
      "aria-label": "the whole graph; the part in view is marked",
      title: "the whole graph: click or drag to move the view" }, [this.canvas, this.here, this.mark]);
    viewport.element.append(this.element);
    let dragging = false;
    this.element.addEventListener("pointerdown", (e) => {
      e.stopPropagation(); // not the viewport's pan
      e.preventDefault();
      dragging = true;
      this.element.setPointerCapture(e.pointerId);
      this.moveTo(e);
    });
    this.element.addEventListener("pointermove", (e) => { if (dragging) this.moveTo(e); });
    const end = () => { dragging = false; };
    this.element.addEventListener("pointerup", end);
    this.element.addEventListener("pointercancel", end);
  }

  // the drawing now in the stage (its <svg>), or null (none)
  show(svg) {
    this.svg = svg;
    this.drawn = false;
    if (!svg) { this.element.hidden = true; return; }
    const { w, h: ht } = this.viewport.natural;
    this.scale = Math.min(MINIMAP.w / w, MINIMAP.h / ht);
    this.update();
  }

  // each box as a block of its fill colour, where the drawing has it (measured on screen)
  draw() {
    const vp = this.viewport;
    const { w, h: ht } = vp.natural;
    const s = this.scale;
    const ratio = window.devicePixelRatio || 1;
    const cw = Math.max(1, Math.round(w * s)), ch = Math.max(1, Math.round(ht * s));
    Object.assign(this.canvas.style, { width: `${cw}px`, height: `${ch}px` });
    this.canvas.width = cw * ratio;
    this.canvas.height = ch * ratio;
    const ctx = this.canvas.getContext("2d");
    ctx.scale(ratio, ratio);
    const origin = this.svg.getBoundingClientRect();
    const z = vp.zoom.s;
    if (!origin.width) return false;
    for (const g of this.svg.querySelectorAll("g.node")) {
      const r = g.getBoundingClientRect();
      const shape = g.querySelector("polygon, path, ellipse");
      const fill = shape?.getAttribute("fill");
      ctx.fillStyle = fill && fill !== "none" && fill !== "transparent" ? fill : "#bbbbbb";
      ctx.strokeStyle = shape?.getAttribute("stroke") || "#888888";
      const x = ((r.left - origin.left) / z) * s, y = ((r.top - origin.top) / z) * s;
      const bw = Math.max(MINIMAP.min, (r.width / z) * s), bh = Math.max(MINIMAP.min, (r.height / z) * s);
      ctx.fillRect(x, y, bw, bh);
      ctx.lineWidth = 0.5;
      ctx.strokeRect(x, y, bw, bh);
    }
    return true;
  }

  // the part in view framed, the current box marked; hidden when the whole graph is in view
  update() {
    const vp = this.viewport;
    if (!this.svg) return;
    const r = vp.element.getBoundingClientRect();
    const z = vp.zoom;
    const { w, h: ht } = vp.natural;
    const larger = w * z.s > r.width + 1 || ht * z.s > r.height + 1;
    this.element.hidden = !larger || !r.width;
    if (this.element.hidden) return;
    if (!this.drawn) this.drawn = this.draw();
    const s = this.scale;
    const x0 = clamp(-z.x / z.s, 0, w), y0 = clamp(-z.y / z.s, 0, ht);
    const x1 = clamp((r.width - z.x) / z.s, 0, w), y1 = clamp((r.height - z.y) / z.s, 0, ht);
    Object.assign(this.mark.style, { left: `${x0 * s}px`, top: `${y0 * s}px`,
      width: `${Math.max(4, (x1 - x0) * s)}px`, height: `${Math.max(4, (y1 - y0) * s)}px` });
    const g = this.current();
    this.here.hidden = !g;
    if (g) {
      const origin = this.svg.getBoundingClientRect(), b = g.getBoundingClientRect();
      Object.assign(this.here.style, {
        left: `${((b.left + b.right) / 2 - origin.left) / z.s * s}px`,
        top: `${((b.top + b.bottom) / 2 - origin.top) / z.s * s}px` });
    }
    this.place();
  }

  // never over the current step's boxes: in the first corner of the frame (bottom right,
  // bottom left, top right, top left) where it covers none of them, else hidden
  place() {
    const boxes = (this.viewport.target() || []).map((b) => b.getBoundingClientRect());
    const covers = () => {
      const m = this.element.getBoundingClientRect();
      return boxes.some((b) => b.left < m.right && b.right > m.left && b.top < m.bottom && b.bottom > m.top);
    };
    for (const [x, y] of MINIMAP_CORNERS) {
      Object.assign(this.element.style, { left: "", right: "", top: "", bottom: "", [x]: "6px", [y]: "6px" });
      if (!covers()) return;
    }
    this.element.hidden = true;
  }

  // the view centred on the point of the graph under the pointer
  moveTo(e) {
    const vp = this.viewport;
    const b = this.canvas.getBoundingClientRect();
    const r = vp.element.getBoundingClientRect();
    const px = (e.clientX - b.left) / this.scale, py = (e.clientY - b.top) / this.scale;
    vp.zoom.x = r.width / 2 - px * vp.zoom.s;
    vp.zoom.y = r.height / 2 - py * vp.zoom.s;
    vp.apply();
  }

  close() {
    this.svg = null;
  }
}
