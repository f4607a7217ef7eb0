// minimap.js: the whole graph small, in a corner of the view, with the part shown marked; a
// click or a drag on it moves the view there. Shown only when the graph is larger than the
// view at the zoom in use.

const MINIMAP = { w: 180, h: 120 }; // its largest size (px)

class Minimap {
  constructor({ viewport }) {
    this.viewport = viewport;
    this.scale = 1; // minimap px per graph px
    this.url = null;
    this.img = h("img", { class: "vz-minimap-img", alt: "", draggable: "false" });
    this.mark = h("div", { class: "vz-minimap-view" });
    this.element = h("div", { class: "vz-minimap", role: "img", hidden: "",
      "aria-label": "the whole graph; the part in view is marked",
      title: "the whole graph: click or drag to move the view" }, [this.img, this.mark]);
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

  // the drawing now in the stage (its <svg>), drawn small as an image (no ids, no scripts)
  show(svg) {
    if (this.url) URL.revokeObjectURL(this.url);
    this.url = null;
    if (!svg) { this.element.hidden = true; return; }
    const { w, h: ht } = this.viewport.natural;
    this.scale = Math.min(MINIMAP.w / w, MINIMAP.h / ht);
    const copy = svg.cloneNode(true);
    copy.setAttribute("xmlns", "http://www.w3.org/2000/svg");
    const text = new XMLSerializer().serializeToString(copy);
    this.url = URL.createObjectURL(new Blob([text], { type: "image/svg+xml" }));
    this.img.src = this.url;
    this.img.style.width = `${(w * this.scale).toFixed(1)}px`;
    this.img.style.height = `${(ht * this.scale).toFixed(1)}px`;
    this.update();
  }

  // the part in view, marked; hidden when the whole graph is in view
  update() {
    const vp = this.viewport;
    if (!this.url) return;
    const r = vp.element.getBoundingClientRect();
    const z = vp.zoom;
    const { w, h: ht } = vp.natural;
    const larger = w * z.s > r.width + 1 || ht * z.s > r.height + 1;
    this.element.hidden = !larger || !r.width;
    if (this.element.hidden) return;
    const x0 = clamp(-z.x / z.s, 0, w), y0 = clamp(-z.y / z.s, 0, ht);
    const x1 = clamp((r.width - z.x) / z.s, 0, w), y1 = clamp((r.height - z.y) / z.s, 0, ht);
    const s = this.scale;
    Object.assign(this.mark.style, { left: `${x0 * s}px`, top: `${y0 * s}px`,
      width: `${Math.max(2, (x1 - x0) * s)}px`, height: `${Math.max(2, (y1 - y0) * s)}px` });
  }

  // the view centred on the point of the graph under the pointer
  moveTo(e) {
    const vp = this.viewport;
    const b = this.img.getBoundingClientRect();
    const r = vp.element.getBoundingClientRect();
    const px = (e.clientX - b.left) / this.scale, py = (e.clientY - b.top) / this.scale;
    vp.zoom.x = r.width / 2 - px * vp.zoom.s;
    vp.zoom.y = r.height / 2 - py * vp.zoom.s;
    vp.moved = true;
    vp.apply();
  }

  close() {
    if (this.url) URL.revokeObjectURL(this.url);
  }
}
