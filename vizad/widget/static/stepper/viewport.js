// viewport.js: the window onto the current view's drawing: zoom, pan, fit, follow the current
// box, the "laying out" note, and the legend of the step states (kept out of the zoomed
// drawing, so that it stays in view whatever the zoom and pan).

const MIN_FOLLOW_SCALE = 0.9; // the current node is never shown smaller than this (12 pt text → 14 px)

class Viewport {
  // `root`: the component (its data-zoom tells the zoom); `scale()`: the presentation scale;
  // `target()`: the current box and then the boxes computing its result, or null;
  // `ready()`: whether the stage holds a drawing with boxes.
  constructor({ root, scale, target, ready }) {
    this.root = root;
    this.scale = scale;
    this.target = target;
    this.ready = ready;
    this.zoom = { x: 0, y: 0, s: 1 };
    this.natural = { w: 1, h: 1 };
    this.fitted = false;
    this.moved = false; // the user zoomed or panned: resizes keep their view
    this.drag = null;
    this.bar = h("div", { class: "vz-zoom", role: "group", "aria-label": "zoom" }, [
      h("button", { title: "fit the graph in view", text: "fit", onclick: () => this.fit() }),
      h("button", { title: "natural size", text: "1:1", onclick: () => this.zoomTo(1) }),
      h("button", { title: "zoom out", text: "−", onclick: () => this.zoomBy(1 / 1.25) }),
      h("button", { title: "zoom in", text: "+", onclick: () => this.zoomBy(1.25) }),
    ]);
    this.legend = h("div", { class: "vz-legend", role: "img", "aria-label": "legend of the step states" });
    this.stage = h("div", { class: "vz-stage" });
    this.element = h("div", { class: "vz-viewport", tabindex: "-1" }, [this.stage]);
    this.listen();
    // the component may be drawn before it is on screen (a notebook output being attached):
    // zoom once the viewport has a size, and keep the current box in view when it changes
    this.resize = new ResizeObserver(() => this.resized());
    this.resize.observe(this.element);
  }

  // Graphviz's SVG (text) in the stage at its natural size, without its <title>s (the
  // component shows its own tooltips) and without its legend, which moves out of the stage
  show(svgText) {
    this.stage.innerHTML = svgText;
    const svg = this.stage.querySelector("svg");
    svg.removeAttribute("style");
    // Graphviz writes the size in pt; baseVal converts it to CSS px
    this.natural = { w: svg.width.baseVal.value || 1, h: svg.height.baseVal.value || 1 };
    svg.setAttribute("width", `${this.natural.w}`);
    svg.setAttribute("height", `${this.natural.h}`);
    for (const g of this.stage.querySelectorAll("g.node title, g.edge title")) g.remove();
    this.takeLegend(svg);
    this.fitted = false;
  }

  // an empty stage (a view being laid out)
  clear() {
    this.stage.replaceChildren();
  }

  // a note over the stage ("laying out…", a failure) in place of the last one; none for null
  say(text) {
    this.element.querySelector(".vz-busy")?.remove();
    if (text !== null) this.element.append(busy(text));
  }

  // the legend's <g> moves from the graph's SVG to an SVG of its own, outside the viewport,
  // drawn at the graph's natural size (times the presentation scale)
  takeLegend(svg) {
    const g = svg.querySelector("#vz_legend");
    this.legend.replaceChildren();
    if (!g) return;
    const own = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    own.dataset.unit = String(this.natural.w / (svg.viewBox.baseVal?.width || this.natural.w)); // px per pt
    own.append(g);
    this.legend.append(own);
    this.sizeLegend();
  }

  // its box is measured once it is drawn (a notebook output may not be on screen yet)
  sizeLegend() {
    const own = this.legend.firstChild;
    if (!own || own.hasAttribute("viewBox")) return;
    const b = own.firstChild.getBBox();
    if (!b.width) return;
    own.setAttribute("viewBox", `${b.x} ${b.y} ${b.width} ${b.height}`);
    const px = (x) => `calc(${(x * own.dataset.unit).toFixed(1)}px * var(--vz-scale))`;
    own.style.width = px(b.width);
    own.style.height = px(b.height);
  }

  apply() {
    const zoom = this.zoom;
    this.stage.style.transform = `translate(${zoom.x}px, ${zoom.y}px) scale(${zoom.s})`;
    this.root.dataset.zoom = zoom.s.toFixed(3);
    this.onApply?.(); // the minimap (minimap.js)
  }

  fitScale() {
    const r = this.element.getBoundingClientRect();
    return Math.min((r.width - 16) / this.natural.w, (r.height - 16) / this.natural.h);
  }

  fit() {
    const r = this.element.getBoundingClientRect();
    const zoom = this.zoom;
    zoom.s = clamp(this.fitScale(), 0.05, 4);
    zoom.x = (r.width - this.natural.w * zoom.s) / 2;
    zoom.y = (r.height - this.natural.h * zoom.s) / 2;
    this.apply();
  }

  zoomTo(s, cx, cy) {
    const r = this.element.getBoundingClientRect();
    const zoom = this.zoom;
    cx = cx ?? r.width / 2;
    cy = cy ?? r.height / 2;
    const k = clamp(s, 0.05, 8) / zoom.s;
    zoom.x = cx - (cx - zoom.x) * k;
    zoom.y = cy - (cy - zoom.y) * k;
    zoom.s *= k;
    this.apply();
  }

  zoomBy(f) {
    this.moved = true;
    this.zoomTo(this.zoom.s * f);
  }

  // the smallest zoom at which the current box is shown (larger with the presentation scale)
  minScale() {
    return MIN_FOLLOW_SCALE * this.scale();
  }

  initialZoom() {
    if (this.fitScale() >= this.minScale()) this.fit();
    else {
      this.zoom.s = this.minScale();
      this.zoom.x = 8;
      this.zoom.y = 8;
      this.apply();
      this.follow(true);
    }
  }

  // keep the current box inside the view, at a readable size, with the boxes computing its
  // result when they fit too
  follow(force = false) {
    const target = this.target();
    if (!target) return;
    if (this.zoom.s < this.minScale() && this.fitScale() < this.minScale()) this.zoomTo(this.minScale());
    const v = this.element.getBoundingClientRect();
    const margin = 24;
    const rect = (e) => e.getBoundingClientRect();
    let b = rect(target[0]);
    const group = target.map(rect);
    const union = {
      left: Math.min(...group.map((r) => r.left)), right: Math.max(...group.map((r) => r.right)),
      top: Math.min(...group.map((r) => r.top)), bottom: Math.max(...group.map((r) => r.bottom)),
    };
    if (union.right - union.left <= v.width - 2 * margin && union.bottom - union.top <= v.height - 2 * margin) {
      b = union;
    }
    const inside = b.left >= v.left + margin && b.right <= v.right - margin &&
      b.top >= v.top + margin && b.bottom <= v.bottom - margin;
    if (inside && !force) return;
    this.zoom.x += v.left + v.width / 2 - (b.left + b.right) / 2;
    this.zoom.y += v.top + v.height / 2 - (b.top + b.bottom) / 2;
    this.apply();
  }

  // a step is shown: the first zoom once on screen, else keep its box in view
  settle() {
    if (!this.element.clientWidth || !this.ready()) return; // not on screen (or not laid out) yet
    if (!this.fitted) { this.fitted = true; this.initialZoom(); } else this.follow();
  }

  // zoom afresh at the next step shown (a new drawing, a new presentation scale)
  refit() {
    this.fitted = false;
  }

  resized() {
    this.sizeLegend();
    if (!this.element.clientWidth || !this.ready()) return;
    if (!this.fitted || !this.moved) { this.fitted = true; this.initialZoom(); } else this.follow();
  }

  // ctrl+wheel or pinch zooms, a drag pans
  listen() {
    const viewport = this.element;
    viewport.addEventListener("wheel", (e) => {
      if (!e.ctrlKey && !e.metaKey) return; // plain wheel scrolls the page; pinch and ctrl zoom
      e.preventDefault();
      this.moved = true;
      const r = viewport.getBoundingClientRect();
      this.zoomTo(this.zoom.s * Math.exp(-e.deltaY / 300), e.clientX - r.left, e.clientY - r.top);
    }, { passive: false });
    viewport.addEventListener("pointerdown", (e) => {
      if (e.button !== 0 || e.target.closest("g.node")) return;
      this.drag = { x: e.clientX, y: e.clientY, zx: this.zoom.x, zy: this.zoom.y };
      this.moved = true;
      viewport.setPointerCapture(e.pointerId);
      viewport.classList.add("vz-dragging");
    });
    viewport.addEventListener("pointermove", (e) => {
      if (this.drag) {
        this.zoom.x = this.drag.zx + e.clientX - this.drag.x;
        this.zoom.y = this.drag.zy + e.clientY - this.drag.y;
        this.apply();
      }
    });
    const endDrag = () => { this.drag = null; viewport.classList.remove("vz-dragging"); };
    viewport.addEventListener("pointerup", endDrag);
    viewport.addEventListener("pointercancel", endDrag);
  }

  close() {
    this.resize.disconnect();
  }
}
