// vizad's browser component: built by `make component` from vizad/view/widget/static/stepper/ (entry mount.js) with esbuild; do not edit. sources sha256: eac628f3cb35e471d8fae27598fca8a3754eac3249b82388b1ef5afcfc4fa416

// vizad/view/widget/static/stepper/helpers.js
function inflateJson(b64) {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Response(stream).json();
}
function h(tag, attrs = {}, children = []) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") e.textContent = v;
    else if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}
function reveal(code, salt) {
  const bytes = Uint8Array.from(atob(code), (c) => c.charCodeAt(0));
  for (let j = 0; j < bytes.length; j++) bytes[j] ^= (31 + 7 * salt + 13 * j) % 251;
  return new TextDecoder().decode(bytes);
}
function clamp(x, lo, hi) {
  return Math.max(lo, Math.min(hi, x));
}
var busy = (text) => h("div", { class: "vz-busy", role: "status", text });

// vizad/view/widget/static/stepper/room.js
var WIDE = 820;
var MIN_FRAME = 220;
var GRAPH_SHARE = 0.58;
var PANEL_MIN = 110;
var STACKED_FRAME = 200;
var Room = class {
  // `release()`: the keys to the component itself, not to a field in it (leaving the mode)
  constructor({ root, viewport, player, panel, release = () => root.focus({ preventScroll: true }) }) {
    this.release = release;
    this.root = root;
    this.viewport = viewport;
    this.player = player;
    this.panel = panel;
    this.graph = h("div", { class: "vz-graph" }, [viewport.element, player.element]);
    this.side = h("div", { class: "vz-side", tabindex: "0", role: "region", "aria-label": "the step's panel" }, [panel.element]);
    this.body = h("div", { class: "vz-body" }, [this.graph, this.side]);
    this.words = h("span", { class: "vz-wordy", text: " present" });
    this.button = h("button", {
      class: "vz-present-button",
      title: "presentation mode: the whole screen (F; Esc leaves)",
      "aria-label": "present (presentation mode)",
      "aria-pressed": "false",
      onclick: () => this.toggle()
    }, ["⤢", this.words]);
    player.bind("f", () => this.toggle());
    player.bind("Escape", () => this.presenting() ? this.leave() : false);
    this.onFullscreen = () => this.fullscreenChanged();
    document.addEventListener("fullscreenchange", this.onFullscreen);
    this.onResize = () => this.size();
    window.addEventListener("resize", this.onResize);
    this.area = null;
    this.resize = new ResizeObserver(() => this.size());
    this.resize.observe(root);
    this.need = 0;
    panel.onNeed = (px) => {
      if (px <= this.need) return;
      this.need = px;
      this.size();
    };
  }
  presenting() {
    return this.root.classList.contains("vz-present");
  }
  toggle() {
    if (this.presenting()) this.leave();
    else this.enter();
  }
  // the whole screen when the page may have it (else the whole window), then large type
  enter() {
    const root = this.root;
    const fallback = () => {
      root.classList.add("vz-present", "vz-present-window");
      this.presented();
    };
    if (root.requestFullscreen && document.fullscreenEnabled !== false) {
      root.requestFullscreen({ navigationUI: "hide" }).then(() => {
        root.classList.add("vz-present");
        this.presented();
      }, fallback);
    } else fallback();
  }
  // the element in the whole screen as the component's own document or shadow root sees it
  // (the document sees a shadow's host: marimo shows widgets in a shadow root)
  fullscreen() {
    return this.root.getRootNode().fullscreenElement ?? document.fullscreenElement;
  }
  leave() {
    if (this.fullscreen() === this.root) document.exitFullscreen();
    this.root.classList.remove("vz-present", "vz-present-window");
    this.presented();
  }
  // the browser left the whole screen (Esc, F11): so does the presentation
  fullscreenChanged() {
    if (this.fullscreen() !== this.root && this.presenting() && !this.root.classList.contains("vz-present-window")) this.leave();
    else this.size();
  }
  presented() {
    const on = this.presenting();
    this.viewport.refit();
    this.button.setAttribute("aria-pressed", String(on));
    this.button.firstChild.textContent = on ? "⤡" : "⤢";
    this.words.textContent = on ? " leave" : " present";
    this.button.setAttribute("aria-label", on ? "leave presentation mode" : "present (presentation mode)");
    this.need = 0;
    this.panel.keepRows();
    this.size();
    if (on) this.root.focus({ preventScroll: true });
    else this.release();
  }
  // the area the component scrolls in: a notebook's scrolled area (JupyterLab 4 and Notebook
  // 7, JupyterLab 3, the classic notebook), else the nearest area that scrolls (an output area
  // grows with its content); null: the window
  scroller() {
    const known = this.root.closest(".jp-WindowedPanel-outer, .jp-Notebook, #site");
    if (known && known !== this.area) {
      this.area = known;
      this.resize.observe(known);
    }
    if (known?.clientHeight) return known;
    for (let a = this.root.parentElement; a && a !== document.body; a = a.parentElement) {
      const o = getComputedStyle(a).overflowY;
      const scrolls = (o === "auto" || o === "scroll") && a.scrollHeight > a.clientHeight + 1;
      if (scrolls && a.clientHeight) return a;
    }
    return null;
  }
  // the height that shows at once: the window's, or the nearest scrolled area's (a notebook)
  visibleHeight() {
    if (this.presenting()) return window.innerHeight;
    const h2 = window.innerHeight;
    const area = this.scroller();
    if (area) return Math.min(h2, area.clientHeight);
    const top = this.root.getBoundingClientRect().top + window.scrollY;
    return top < h2 / 4 ? h2 - top : h2;
  }
  // side by side or stacked, and the heights of the graph's frame and the step panel
  size() {
    const root = this.root;
    const width = root.clientWidth;
    if (!width) return;
    const wide = width >= WIDE;
    root.classList.toggle("vz-wide", wide);
    const top = root.getBoundingClientRect().top;
    const above = this.viewport.element.getBoundingClientRect().top - top;
    const below = [...this.graph.children].reduce((sum, c) => sum + (c === this.viewport.element ? 0 : c.offsetHeight), 0) + 16;
    const pad = this.presenting() ? 24 : 12;
    const rest = this.visibleHeight() - above - below - pad;
    const want = Math.max(rest * (1 - GRAPH_SHARE), this.need);
    const frame = Math.round(wide ? Math.max(MIN_FRAME, rest) : Math.max(Math.min(STACKED_FRAME, rest - PANEL_MIN), rest - want));
    const panel = Math.round(wide ? frame + below - 8 : Math.max(PANEL_MIN, rest - frame));
    this.set("--vz-frame-h", `${frame}px`);
    this.set("--vz-panel-h", `${panel}px`);
  }
  // A step taken in the component (it has the keys): the graph's frame, the player, what is
  // under the graph (the memory timeline) and, stacked, the step panel's head brought into view
  // when the area cuts them at its bottom (a component just under its code cell: the room is
  // sized for the component scrolled to its top). The area scrolls the least that shows them,
  // never taking the frame's top out of view.
  bringIntoView() {
    if (this.presenting()) return;
    const area = this.scroller();
    const seen = area ? area.getBoundingClientRect() : { top: 0, bottom: window.innerHeight };
    const top = Math.max(seen.top, 0), bottom = Math.min(seen.bottom, window.innerHeight);
    const head = this.root.classList.contains("vz-wide") ? null : this.side.querySelector(".vz-head");
    const want = Math.max(this.graph.getBoundingClientRect().bottom, head?.getBoundingClientRect().bottom ?? 0);
    const frame = this.viewport.element.getBoundingClientRect().top;
    const by = Math.min(want - bottom, frame - top);
    if (by < 1) return;
    if (area) area.scrollTop += by;
    else window.scrollBy(0, by);
  }
  set(name, value) {
    if (this.root.style.getPropertyValue(name) !== value) this.root.style.setProperty(name, value);
  }
  close() {
    if (this.presenting()) this.leave();
    this.resize.disconnect();
    document.removeEventListener("fullscreenchange", this.onFullscreen);
    window.removeEventListener("resize", this.onResize);
  }
};

// vizad/view/widget/static/stepper/layout.js
var graphvizModules = globalThis.__vizadGraphviz ??= /* @__PURE__ */ new Map();
function importGraphviz(text) {
  if (!text) {
    return Promise.reject(new Error("this page does not carry vizad's Graphviz module: run the cell again in Jupyter, or install Graphviz's dot program"));
  }
  if (!graphvizModules.has(text)) {
    const url = URL.createObjectURL(new Blob([text], { type: "text/javascript" }));
    graphvizModules.set(text, import(url).finally(() => URL.revokeObjectURL(url)));
  }
  return graphvizModules.get(text);
}
async function layOut(text, source) {
  const graphviz = await importGraphviz(text);
  await graphviz.version();
  await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
  const start = performance.now();
  const svg2 = await graphviz.layout(source);
  return { svg: svg2.slice(svg2.indexOf("<svg")), ms: performance.now() - start };
}
function centreLines(svg2) {
  for (const g of svg2.querySelectorAll("g.node")) {
    if (g.id === "vz_legend") continue;
    const lines = /* @__PURE__ */ new Map();
    for (const t of g.querySelectorAll(":scope > text")) {
      if (t.getAttribute("text-anchor") !== "start") continue;
      const y = t.getAttribute("y");
      lines.set(y, [...lines.get(y) || [], t]);
    }
    const single = [...lines.values()].filter((l) => l.length === 1).map((l) => l[0]);
    if (!single.length) continue;
    const c = outlineCentre(g) ?? sharedCentre(single);
    if (c === null) continue;
    for (const t of single) {
      t.setAttribute("text-anchor", "middle");
      t.setAttribute("x", c.toFixed(2));
    }
  }
}
function outlineCentre(g) {
  const shape = [...g.children].find((e) => ["path", "polygon", "ellipse"].includes(e.tagName) && !["none", "transparent"].includes(e.getAttribute("stroke")));
  if (!shape) return null;
  if (shape.tagName === "ellipse") return parseFloat(shape.getAttribute("cx"));
  const numbers = (shape.getAttribute("points") || shape.getAttribute("d") || "").match(/-?[\d.]+(?:e-?\d+)?/g) || [];
  const xs = numbers.filter((_, k) => k % 2 === 0).map(Number);
  return xs.length ? (Math.min(...xs) + Math.max(...xs)) / 2 : null;
}
function sharedCentre(texts) {
  if (texts.length < 2) return null;
  const m = texts.map((t) => t.getComputedTextLength());
  const x = texts.map((t) => parseFloat(t.getAttribute("x")));
  const mean = (a) => a.reduce((p, q) => p + q, 0) / a.length;
  const mm = mean(m), mx = mean(x);
  const v = m.reduce((p, q) => p + (q - mm) ** 2, 0);
  if (!(v > 1)) return null;
  const slope = m.reduce((p, q, j) => p + (q - mm) * (x[j] - mx), 0) / v;
  return -slope > 0.3 && -slope < 0.7 ? mx - slope * mm : null;
}
function cropToContent(svg2) {
  const g = svg2.querySelector("g.graph");
  const vb = svg2.viewBox.baseVal;
  const m = /^\s*scale\(1 1\) rotate\(0\) translate\(([-\d.]+) ([-\d.]+)\)\s*$/.exec(g?.getAttribute("transform") || "");
  if (!m || !vb || !vb.width) return null;
  const box = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
  const add = (x, y) => {
    box.x0 = Math.min(box.x0, x);
    box.x1 = Math.max(box.x1, x);
    box.y0 = Math.min(box.y0, y);
    box.y1 = Math.max(box.y1, y);
  };
  const shapes = g.querySelectorAll("g.node > :is(polygon, polyline, path), g.edge > :is(polygon, polyline, path), g.cluster > :is(polygon, path)");
  for (const e of shapes) {
    const n = (e.getAttribute("points") || e.getAttribute("d") || "").match(/-?[\d.]+(?:e-?\d+)?/g) || [];
    for (let k = 0; k + 1 < n.length; k += 2) add(+n[k], +n[k + 1]);
  }
  for (const e of g.querySelectorAll("g.node > ellipse")) {
    const [cx, cy, rx, ry] = ["cx", "cy", "rx", "ry"].map((a) => +e.getAttribute(a));
    add(cx - rx, cy - ry);
    add(cx + rx, cy + ry);
  }
  if (!Number.isFinite(box.x0)) return null;
  const texts = (sel) => [...g.querySelectorAll(sel)];
  for (const t of texts(":scope > text")) t.setAttribute("x", (box.x0 + 4).toFixed(2));
  for (const t of texts(":scope > text, g.edge > text, g.cluster > text")) {
    const size2 = parseFloat(t.getAttribute("font-size")) || 14;
    const w = t.textContent.length * size2 * 0.62;
    const x = +t.getAttribute("x"), y = +t.getAttribute("y");
    const anchor = t.getAttribute("text-anchor");
    const left = anchor === "middle" ? x - w / 2 : anchor === "end" ? x - w : x;
    add(left, y - size2);
    add(left + w, y + size2 * 0.3);
  }
  const pad = 4;
  const [tx, ty] = [+m[1], +m[2]];
  const crop = { x: box.x0 + tx - pad, y: box.y0 + ty - pad, w: box.x1 - box.x0 + 2 * pad, h: box.y1 - box.y0 + 2 * pad };
  if (crop.w >= vb.width && crop.h >= vb.height) return null;
  svg2.setAttribute("viewBox", `${crop.x.toFixed(2)} ${crop.y.toFixed(2)} ${crop.w.toFixed(2)} ${crop.h.toFixed(2)}`);
  return crop;
}

// vizad/view/widget/static/stepper/worker.js
var LAYOUT_LIMIT_MS = 18e4;
var IDLE_WORKERS = 2;
var WORKER_SOURCE = `
let graphviz = null;
onmessage = async ({ data }) => {
  if (data.module !== undefined) {
    const url = URL.createObjectURL(new Blob([data.module], { type: "text/javascript" }));
    graphviz = import(url);
    graphviz.then((g) => g.version()).catch(() => {}); // compiled now, before a layout is asked
    return;
  }
  try {
    const g = await graphviz;
    await g.version(); // WebAssembly compiled once per worker, before the timing
    const start = performance.now();
    const svg = await g.layout(data.source);
    postMessage({ svg: svg.slice(svg.indexOf("<svg")), ms: performance.now() - start });
  } catch (err) {
    postMessage({ error: String((err && err.message) || err) });
  }
};`;
var layoutWorkers = globalThis.__vizadLayoutWorkers ??= { script: null, idle: /* @__PURE__ */ new Map() };
function takeWorker(text) {
  const idle = layoutWorkers.idle.get(text);
  if (idle && idle.length) return idle.pop();
  layoutWorkers.script ??= URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "text/javascript" }));
  const worker = new Worker(layoutWorkers.script, { name: "vizad layout" });
  worker.postMessage({ module: text });
  return worker;
}
function giveBack(text, worker) {
  const idle = layoutWorkers.idle.get(text) || [];
  if (idle.length >= IDLE_WORKERS) {
    worker.terminate();
    return;
  }
  idle.push(worker);
  layoutWorkers.idle.set(text, idle);
}
function warmWorker(text) {
  if (!text || layoutWorkers.idle.get(text)?.length) return;
  try {
    giveBack(text, takeWorker(text));
  } catch {
  }
}
var LayoutStopped = class extends Error {
  constructor(reason, ms) {
    super(`the layout was ${reason} after ${Math.round(ms / 1e3)} s`);
    this.name = "LayoutStopped";
  }
};
function layOutOffThread(text, source, { limit = LAYOUT_LIMIT_MS } = {}) {
  const started = performance.now();
  const job = { started, stop() {
  } };
  if (!text) {
    job.promise = importGraphviz(text);
    return job;
  }
  let worker;
  try {
    worker = takeWorker(text);
  } catch (err) {
    job.promise = layOut(text, source).then((r) => ({ ...r, thread: "main" }));
    return job;
  }
  job.promise = new Promise((resolve, reject) => {
    let open = true;
    const finish = (settle, value, keep) => {
      if (!open) return;
      open = false;
      clearTimeout(timer);
      worker.onmessage = worker.onerror = null;
      if (keep) giveBack(text, worker);
      else worker.terminate();
      settle(value);
    };
    const stopped = (reason) => new LayoutStopped(reason, performance.now() - started);
    const timer = setTimeout(() => finish(reject, stopped("abandoned: it ran too long"), false), limit);
    job.stop = () => finish(reject, stopped("stopped"), false);
    worker.onmessage = ({ data }) => {
      if (data.error) finish(reject, new Error(data.error), true);
      else finish(resolve, { svg: data.svg, ms: data.ms, thread: "worker" }, true);
    };
    worker.onerror = (e) => {
      e.preventDefault();
      finish(reject, new Error(e.message || "the layout worker failed"), false);
    };
    worker.postMessage({ source });
  });
  return job;
}
function busyNote(text, job) {
  const clock = h("span", { class: "vz-busy-clock" });
  const note = h("div", { class: "vz-busy", role: "status" }, [
    h("span", { text: `${text} ` }),
    clock,
    h("button", { class: "vz-busy-stop", title: "abandon this layout", text: "stop", onclick: () => job.stop() })
  ]);
  note.addEventListener("pointerdown", (e) => e.stopPropagation());
  const tick = () => {
    if (!note.isConnected && performance.now() - job.started > 1e3) {
      clearInterval(timer);
      return;
    }
    clock.textContent = `${Math.floor((performance.now() - job.started) / 1e3)} s`;
  };
  const timer = setInterval(tick, 1e3);
  tick();
  job.promise.finally(() => clearInterval(timer)).catch(() => {
  });
  return note;
}

// vizad/view/widget/static/stepper/sanitize.js
var UNSAFE_ELEMENTS = "script, foreignObject, iframe, object, embed, use, animate, set, animateMotion, animateTransform, image, feImage, audio, video, handler, listener, discard";
var UNSAFE_URL = /^(?:javascript|data|vbscript):/i;
function safeSvg(text) {
  const t = document.createElement("template");
  t.innerHTML = text;
  const root = t.content;
  for (const e of root.querySelectorAll(UNSAFE_ELEMENTS)) e.remove();
  for (const e of root.querySelectorAll("*")) {
    for (const a of [...e.attributes]) {
      const name = a.localName.toLowerCase();
      const value = a.value.replace(/[\u0000-\u0020\u007f-\u00a0]+/g, "");
      if (name.startsWith("on") || name === "href" || name === "src" || name === "action" || name === "formaction" || UNSAFE_URL.test(value)) e.removeAttributeNode(a);
    }
  }
  return root;
}

// vizad/view/widget/static/stepper/picture.js
function renderPicture({ model, el }) {
  const { dot, maxWidth, minScale, titles = {} } = model.get("picture");
  const root = h(
    "div",
    { class: "vizad-picture mathjax_ignore tex2jax_ignore", "data-layout": "busy" },
    [busy("laying out the graph…")]
  );
  el.append(root);
  layOutOffThread(model.get("_graphviz"), dot).promise.then(({ svg: svg2, ms }) => {
    root.replaceChildren(safeSvg(svg2));
    for (const t of root.querySelectorAll("g.node > title, g.edge > title")) {
      const id = t.parentNode.id;
      if (Object.hasOwn(titles, id)) t.textContent = titles[id];
      else t.remove();
    }
    const e = root.querySelector("svg");
    centreLines(e);
    const natural = e.width.baseVal.value;
    const scale = natural <= maxWidth ? 1 : Math.max(maxWidth / natural, minScale);
    e.removeAttribute("width");
    e.removeAttribute("height");
    e.style.width = `max(100%, ${(natural * minScale).toFixed(0)}px)`;
    e.style.maxWidth = `${(natural * scale).toFixed(0)}px`;
    e.style.height = "auto";
    root.dataset.layout = "done";
    root.dataset.layoutMs = ms.toFixed(0);
  }, (err) => {
    root.dataset.layout = "failed";
    root.replaceChildren(busy(`vizad could not lay out this graph in the browser: ${err.message || err}`));
  });
}

// vizad/view/widget/static/stepper/marks.js
var GAP = 2;
var STEP = 4;
var STEP_BOX = 1e6;
var OTHER_BOX = 100;
function overlap(a, b) {
  const x = Math.min(a.left + a.w, b.left + b.w) - Math.max(a.left, b.left);
  const y = Math.min(a.top + a.h, b.top + b.h) - Math.max(a.top, b.top);
  return x > 0 && y > 0 ? x * y : 0;
}
function placeMarks(marks, frame, avoid = []) {
  const placed = [];
  for (const m of marks) {
    let best = null, bestCost = Infinity;
    for (const c of spots(m, frame)) {
      const r = { ...c, w: m.w, h: m.h };
      const grown = { left: r.left - GAP, top: r.top - GAP, w: r.w + 2 * GAP, h: r.h + 2 * GAP };
      if (placed.some((p) => overlap(grown, p) > 0)) continue;
      const covered = avoid.reduce((s, b) => s + overlap(r, b) * (b.weight ?? STEP_BOX), 0);
      const cost = covered + Math.hypot(r.left - m.left, r.top - m.top);
      if (cost < bestCost) [best, bestCost] = [r, cost];
      if (!covered && c.far === 0) break;
    }
    best ??= { left: clampIn(m.left, m.w, frame.w), top: clampIn(m.top, m.h, frame.h), w: m.w, h: m.h };
    placed.push(best);
  }
  return placed.map(({ left, top }) => ({ left, top }));
}
function clampIn(x, size2, room) {
  return Math.max(GAP, Math.min(x, room - size2 - GAP));
}
function* spots(m, frame) {
  const along = m.side === "top" || m.side === "bottom";
  const room = along ? frame.w : frame.h, size2 = along ? m.w : m.h;
  const want = clampIn(along ? m.left : m.top, size2, room);
  const across = along ? m.h : m.w, depth = along ? frame.h : frame.w;
  const base = clampIn(along ? m.top : m.left, across, depth);
  const inward = m.side === "top" || m.side === "left" ? 1 : -1;
  for (let far = 0; far < 4; far++) {
    const rowAt = base + inward * far * (across + GAP);
    if (rowAt < GAP - 0.5 || rowAt + across > depth - GAP + 0.5) break;
    const lo = GAP, hi = room - size2 - GAP;
    for (let d = 0; d <= room; d += STEP) {
      for (const at of d ? [want - d, want + d] : [want]) {
        if (at < lo - 0.5 || at > hi + 0.5) continue;
        yield along ? { left: at, top: rowAt, far } : { left: rowAt, top: at, far };
      }
      if (want - d < lo && want + d > hi) break;
    }
  }
}
function keepInView(boxes, room) {
  const kept = [];
  let box = null;
  boxes.forEach((b, k) => {
    const u = box ? {
      left: Math.min(box.left, b.left),
      top: Math.min(box.top, b.top),
      right: Math.max(box.right, b.right),
      bottom: Math.max(box.bottom, b.bottom)
    } : { left: b.left, top: b.top, right: b.right, bottom: b.bottom };
    if (!box || u.right - u.left <= room.w + 0.5 && u.bottom - u.top <= room.h + 0.5) {
      box = u;
      kept.push(k);
    }
  });
  return { kept, box };
}

// vizad/view/widget/static/stepper/viewport.js
var LEGIBLE = 0.6;
var READABLE = 0.9;
var FLOOR = 0.6;
var READABLE_PX = 9;
var MARGIN = 16;
var EDGE_MARKS = 6;
var KEPT_MARKS = 4;
var Viewport = class {
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
    this.fitted = false;
    this.chosen = null;
    this.wanted = 1;
    this.key = null;
    this.kept = /* @__PURE__ */ new Map();
    this.framed = null;
    this.drag = null;
    this.dragEnd = null;
    this.bar = h("div", { class: "vz-zoom", role: "group", "aria-label": "zoom" }, [
      h("button", { title: "fit the graph in view", text: "fit", onclick: () => this.fit() }),
      h("button", { title: "natural size", text: "1:1", onclick: () => this.choose(1) }),
      h("button", { title: "zoom out", text: "−", onclick: () => this.choose(this.zoom.s / 1.25) }),
      h("button", { title: "zoom in", text: "+", onclick: () => this.choose(this.zoom.s * 1.25) })
    ]);
    this.note = h("span", { class: "vz-zoom-note", role: "status" });
    this.bar.append(this.note);
    this.least = 16;
    this.legend = h("div", { class: "vz-legend", role: "list", "aria-label": "legend of the step states" });
    this.stage = h("div", { class: "vz-stage" });
    this.marks = h("div", { class: "vz-edge-marks" });
    this.element = h("div", { class: "vz-viewport", tabindex: "-1" }, [this.stage, this.marks]);
    this.also = null;
    this.listen();
    this.size = { w: 0, h: 0 };
    this.resize = new ResizeObserver(() => this.resized());
    this.resize.observe(this.element);
  }
  // Graphviz's SVG (text) of view `key` in the stage at its natural size, without its
  // <title>s (the component shows its own tooltips) and without its legend (shown as text)
  show(svgText, key = null) {
    this.remember();
    this.stage.replaceChildren(safeSvg(svgText));
    const svg2 = this.stage.querySelector("svg");
    svg2.removeAttribute("style");
    this.natural = { w: svg2.width.baseVal.value || 1, h: svg2.height.baseVal.value || 1 };
    svg2.setAttribute("width", `${this.natural.w}`);
    svg2.setAttribute("height", `${this.natural.h}`);
    for (const g of this.stage.querySelectorAll("g.node title, g.edge title")) g.remove();
    centreLines(svg2);
    if (this.takeLegend(svg2)) {
      const unit = this.natural.w / svg2.viewBox.baseVal.width;
      const crop = cropToContent(svg2);
      if (crop) {
        this.natural = { w: crop.w * unit, h: crop.h * unit };
        svg2.setAttribute("width", `${this.natural.w}`);
        svg2.setAttribute("height", `${this.natural.h}`);
      }
    }
    this.least = leastText(svg2, this.natural.w);
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
  takeLegend(svg2) {
    const g = svg2.querySelector("#vz_legend");
    this.legend.replaceChildren();
    if (!g) return false;
    g.remove();
    for (const [state, words2] of this.words || []) {
      this.legend.append(h("span", { class: "vz-legend-item", role: "listitem" }, [
        h("span", { class: `vz-swatch vz-s-${state}`, "aria-hidden": "true" }),
        h("span", { class: "vz-legend-words", text: words2 })
      ]));
    }
    return true;
  }
  apply() {
    const zoom = this.zoom;
    this.stage.style.transform = `translate(${zoom.x}px, ${zoom.y}px) scale(${zoom.s})`;
    this.root.dataset.zoom = zoom.s.toFixed(3);
    const px = this.least * zoom.s;
    this.note.textContent = this.stage.children.length && px < READABLE_PX - 0.05 ? `text ${px < 2 ? px.toFixed(1) : Math.round(px)} px — zoom in to read` : "";
    this.markEdges();
    this.onApply?.();
  }
  // the current step's boxes out of view, each marked at the frame's edge in its direction:
  // an arrow, its name (its first line) and its value (its last line, unless hidden: a value
  // a later step computes, a quiz's); a click pans to it (the zoom stays)
  markEdges() {
    const target = this.fitted && this.ready() ? this.target() : null;
    const f = this.frame();
    const v = this.element.getBoundingClientRect();
    const left = v.left + this.element.clientLeft, top = v.top + this.element.clientTop;
    const out = [], seen = [];
    for (const g of target || []) {
      const r = g.getBoundingClientRect();
      if (!r.width) continue;
      const x = (r.left + r.right) / 2 - left, y = (r.top + r.bottom) / 2 - top;
      if (this.inFrame(r, left, top, f)) {
        seen.push({ left: r.left - left, top: r.top - top, w: r.width, h: r.height });
      } else out.push({ g, x, y });
    }
    const kept = [];
    for (const g of new Set(this.fitted && this.ready() ? this.also?.() ?? [] : [])) {
      if (target?.includes(g)) continue;
      const r = g.getBoundingClientRect();
      if (!r.width || this.inFrame(r, left, top, f)) continue;
      kept.push({ g, x: (r.left + r.right) / 2 - left, y: (r.top + r.bottom) / 2 - top });
    }
    this.marks.replaceChildren();
    const cx = f.w / 2, cy = f.h / 2;
    const some = (list, most, checkpoint) => list.slice(0, most).map((o, k) => ({ ...o, checkpoint, more: k === most - 1 && list.length > most ? list.length - most : 0 }));
    const wanted = [...some(out, EDGE_MARKS, false), ...some(kept, KEPT_MARKS, true)].map(({ g, x, y, checkpoint, more: extra }) => {
      const dx = x - cx, dy = y - cy;
      const t = Math.min((f.w / 2 - 8) / Math.max(Math.abs(dx), 1e-6), (f.h / 2 - 12) / Math.max(Math.abs(dy), 1e-6));
      const side = Math.abs(dx) * f.h > Math.abs(dy) * f.w ? dx > 0 ? "right" : "left" : dy > 0 ? "bottom" : "top";
      const arrow = { right: "→", left: "←", bottom: "↓", top: "↑" }[side];
      const name = checkpoint ? `${markWords(g, false)} kept` : markWords(g);
      const more = extra ? ` (+${extra} more)` : "";
      const mark = h("button", {
        class: checkpoint ? "vz-edge-mark vz-edge-kept" : "vz-edge-mark",
        title: `${name}${checkpoint ? " as a checkpoint" : ""}: out of view (click to show it)`,
        text: arrow === "←" || arrow === "↑" ? `${arrow} ${name}${more}` : `${name}${more} ${arrow}`
      });
      mark.addEventListener("pointerdown", (e) => e.stopPropagation());
      mark.addEventListener("click", (e) => {
        e.stopPropagation();
        this.panTo(g);
      });
      this.marks.append(mark);
      const w = mark.offsetWidth, ht = mark.offsetHeight;
      return {
        mark,
        side,
        w,
        h: ht,
        left: cx + dx * t - (dx > 0 ? w : dx < 0 ? 0 : w / 2),
        top: cy + dy * t - (dy > 0 ? ht : dy < 0 ? 0 : ht / 2)
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
    const svg2 = this.stage.querySelector("svg");
    if (!svg2) return [];
    const z = this.zoom;
    if (this.boxCache?.svg !== svg2) {
      const list = [];
      for (const g of svg2.querySelectorAll("g.node")) {
        const r = g.getBoundingClientRect();
        if (r.width) list.push({ x: (r.left - left - z.x) / z.s, y: (r.top - top - z.y) / z.s, w: r.width / z.s, h: r.height / z.s });
      }
      this.boxCache = { svg: svg2, list };
    }
    return this.boxCache.list.map((b) => ({ left: z.x + b.x * z.s, top: z.y + b.y * z.s, w: b.w * z.s, h: b.h * z.s })).filter((b) => b.left < f.w && b.left + b.w > 0 && b.top < f.h && b.top + b.h > 0);
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
    const centre = (lo, hi, ilo, ihi, size2) => {
      if (hi - lo <= size2 - 2 * MARGIN) return (lo + hi) / 2;
      const c = i ? (ilo + ihi) / 2 : lo;
      return clamp(c, lo + size2 / 2 - MARGIN, hi - size2 / 2 + MARGIN);
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
      bottom: Math.max(...rects.map((r) => r.bottom)) - top
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
    const w = (b.right - b.left) / s0;
    const hgt = (b.bottom - b.top) / s0;
    const fits = Math.min((f.w - 2 * MARGIN) / Math.max(w, 1), (f.h - 2 * MARGIN) / Math.max(hgt, 1));
    const presenting = this.root.classList.contains("vz-present");
    const floor = Math.min(this.wanted, this.readableZoom() * (presenting ? 1 : this.scale()));
    const s = zoom && this.chosen === null ? clamp(Math.max(Math.min(this.wanted, fits), floor), 0.05, 8) : s0;
    if (Math.abs(s - s0) > 1e-3) {
      this.zoomTo(s);
      force = true;
    }
    const v = this.element.getBoundingClientRect();
    const left = v.left + this.element.clientLeft, top = v.top + this.element.clientTop;
    const rects = this.target().map((e) => {
      const r = e.getBoundingClientRect();
      return { left: r.left - left, right: r.right - left, top: r.top - top, bottom: r.bottom - top };
    });
    b = keepInView(rects, { w: f.w - 2 * MARGIN, h: f.h - 2 * MARGIN }).box;
    const inside = b.left >= MARGIN - 0.5 && b.right <= f.w - MARGIN + 0.5 && b.top >= MARGIN - 0.5 && b.bottom <= f.h - MARGIN + 0.5;
    if (inside && !force) return this.apply();
    const z = this.zoom;
    const span = (pan, move, size2, room) => size2 <= room - 2 * MARGIN ? (room - size2) / 2 : clamp(pan + move, room - MARGIN - size2, MARGIN);
    z.x = span(z.x, f.w / 2 - (b.left + b.right) / 2, this.natural.w * z.s, f.w);
    z.y = span(z.y, f.h / 2 - (b.top + b.bottom) / 2, this.natural.h * z.s, f.h);
    this.apply();
  }
  // whether the screen rect r lies inside the frame `f` whose corner is at (left, top)
  inFrame(r, left, top, f) {
    return r.width > 0 && r.left - left >= -0.5 && r.right - left <= f.w + 0.5 && r.top - top >= -0.5 && r.bottom - top <= f.h + 0.5;
  }
  // a step is shown: the view's first zoom once on screen (its own last zoom and pan when
  // it was shown before, else the chosen zoom or the automatic one), then its boxes in view
  // (a view shown again, or at the chosen zoom, keeps that zoom: the pan brings them in)
  settle() {
    this.framed = null;
    if (!this.element.clientWidth || !this.ready()) return;
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
      if (!e.ctrlKey && !e.metaKey) return;
      e.preventDefault();
      const r = viewport.getBoundingClientRect();
      this.choose(this.zoom.s * Math.exp(-e.deltaY / 300), e.clientX - r.left, e.clientY - r.top);
    }, { passive: false });
    viewport.addEventListener("pointerdown", (e) => {
      if (e.button !== 0) return;
      e.preventDefault();
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
    viewport.addEventListener("click", (e) => {
      if (performance.now() - (this.dragEnd ?? -1e9) < 100) e.stopPropagation();
    }, { capture: true });
  }
  close() {
    this.resize.disconnect();
  }
};
var FRAME_REPORT_MS = 400;
function reportFrame(model, element, paused = () => false) {
  if (model.get("connected") === false || typeof model.send !== "function") return () => {
  };
  let last = "";
  let timer = null;
  const send = () => {
    timer = null;
    const width = element.clientWidth, height = element.clientHeight;
    if (!width || !height || paused()) return;
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
function leastText(svg2, width) {
  const unit = width / (svg2.viewBox.baseVal?.width || width);
  let least = Infinity;
  for (const t of svg2.querySelectorAll("text")) {
    const size2 = parseFloat(t.getAttribute("font-size"));
    if (size2 > 0) least = Math.min(least, size2 * unit);
  }
  return Number.isFinite(least) ? least : 16;
}
function markWords(g, withValue = true) {
  const texts = [...g.querySelectorAll(":scope > text")];
  const name = (texts[0]?.textContent || g.id || "").trim();
  if (!withValue) return name;
  const last = texts.length > 1 ? texts[texts.length - 1] : null;
  const value = last && !last.classList.contains("vz-hidden") && last.getAttribute("y") !== texts[0].getAttribute("y") ? last.textContent.trim() : "";
  if (!value) return name;
  return value.startsWith("=") ? `${name} ${value}` : `${name} (${value})`;
}

// vizad/view/widget/static/stepper/drawing.js
var STATES = ["current", "consumer", "involved", "done", "pending", "failed"];
var Drawing = class {
  // `stage`: the element holding the SVG; `root`: the component (the tooltip's frame);
  // `failed`: the steps whose rule fails check(); `step()`: the step shown (1-based);
  // `go(k)`: go to step k
  constructor({ stage, root, failed, step, go, secret = () => false }) {
    this.stage = stage;
    this.root = root;
    this.failed = failed;
    this.step = step;
    this.go = go;
    this.secret = secret;
    this.frame = null;
    this.boxes = /* @__PURE__ */ new Map();
    this.edges = /* @__PURE__ */ new Map();
    this.styled = [];
    this.retold = [];
    this.lit = [];
    this.tip = h("div", { class: "vz-tip", role: "tooltip" });
    this.listen();
  }
  // the view `frame` (its data), before its SVG is in the stage
  use(frame) {
    this.frame = frame;
    this.boxes = /* @__PURE__ */ new Map();
    this.edges = /* @__PURE__ */ new Map();
    this.styled = [];
    this.retold = [];
    this.lit = [];
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
      const shown2 = t.nfResult && t.at <= i && !this.secret(t.at) ? t.nfResult : null;
      const where = t.nf === "here" || shown2 === "here" ? "here" : t.nf || shown2;
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
    const result = s.result ?? s.involved[0] ?? s.current;
    const ids = [.../* @__PURE__ */ new Set([result, ...s.involved, s.current, ...s.consumer])];
    const boxes = ids.map((id) => id && this.boxes.get(id)).filter(Boolean);
    return boxes.length ? boxes : null;
  }
  // restyle by id for step i (0-based): only the elements the last step styled are reset
  restyle(i) {
    const { frame, boxes, failed } = this;
    for (const e of this.styled) {
      e.classList.remove(...STATES.map((s2) => `vz-s-${s2}`), "vz-hot", "vz-result");
      for (const c of e.querySelectorAll(".vz-hidden")) c.classList.remove("vz-hidden");
    }
    const styled = this.styled = [];
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
      const bad = failed.has(owner) && frame.steps[owner].current === id;
      mark(id, bad ? "failed" : owner < i ? "done" : "pending");
      if (owner > i && id in frame.hides) this.hideValue(id, frame.hides[id]);
    }
    for (const g of styled) g.classList.remove("vz-marked");
    const result = boxes.get(s.result ?? s.involved[0] ?? s.current);
    if (result) {
      result.classList.add("vz-result");
      styled.push(result);
    }
    for (const id of s.edges) {
      const g = this.edges.get(id);
      if (g) {
        g.classList.add("vz-hot");
        styled.push(g);
      }
    }
    this.tellPlaces(s.at || {});
    this.markNonfinite(i);
  }
  // a step inside a folded box ("× 45"): the box's last line ("each: mul → add → tanh")
  // says where the step is instead ("now: v₇₃, block 21 of 45"), squeezed to that line's
  // width if longer; the last step's lines are given back first
  tellPlaces(at) {
    for (const [t, words2] of this.retold) {
      t.textContent = words2;
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
    const cells = /* @__PURE__ */ new Map();
    for (const [key, cell] of lit || []) {
      const at = heats[key];
      const g = at && this.boxes.get(at[0]);
      if (!g) continue;
      if (!cells.has(g)) cells.set(g, heatCells(g));
      const polys = cells.get(g);
      if (polys.length !== at[2]) continue;
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
    const asked = owner !== void 0 && this.secret(owner);
    const known = !asked && (!(g.id in frame.hides) || owner === void 0 || owner <= i);
    let text = t.head;
    if (t.value && known) text += `
${t.value}`;
    if (t.result && t.at <= i && !this.secret(t.at)) text += `
${t.result}`;
    else if (t.result) text += "\n(its step comes later)";
    if (t.source) text += `
${t.source}`;
    return text;
  }
};
function heatCells(g) {
  return g.querySelectorAll(':scope > polygon[stroke="transparent"], :scope > polygon[stroke="none"]');
}

// vizad/view/widget/static/stepper/access.js
var DIRECTIONS = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowDown: [0, 1], ArrowUp: [0, -1] };
var BOX_KEYS = /* @__PURE__ */ new Set([...Object.keys(DIRECTIONS), "Enter"]);
var RING_PAD = 3;
var SIDEWAYS = 3;
var serial = 0;
function stepWords(data, i, asking) {
  const step = data.steps[i];
  const head = `Step ${i + 1} of ${data.n}: `;
  if (asking) return `${head}${step.label}: a question (the panel asks it)`;
  const p = step.panel || {};
  const words2 = [p.line || p.head || step.label];
  if (p.nonfinite !== void 0) words2.push(p.nonfinite);
  if (p.fail !== void 0) words2.push(p.fail);
  return head + words2.join(". ");
}
var Access = class {
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
    while (!this.panel.id || document.getElementById(this.panel.id)) this.panel.id = `vz-step-panel-${++serial}`;
    for (const [k, v] of Object.entries({ tabindex: "0", role: "region", "aria-label": "the results so far" })) panel.table.setAttribute(k, v);
    this.states = new Map(data.legend || []);
    this.entry = null;
    this.announcer = h("div", { class: "vz-announce", role: "status", "aria-live": "polite", "aria-atomic": "true" });
    this.ring = h("div", { class: "vz-focus-ring", "aria-hidden": "true", hidden: "" });
    viewport.element.append(this.ring);
    const stage = viewport.stage;
    stage.addEventListener("focusin", (e) => this.focused(e.target));
    stage.addEventListener("focusout", (e) => {
      if (e.target instanceof Element && e.target.matches("g.node")) e.target.removeAttribute("aria-label");
      queueMicrotask(() => this.showRing());
    });
    this.onKey = (e) => this.key(e);
    window.addEventListener("keydown", this.onKey, true);
  }
  // the SVG now in the stage: a named group described by the step panel, its boxes focusable
  // (the current step's box first, from step()'s restyle); `keep`: a box had focus before the
  // drawing was replaced (a box opened), which the current step's box takes over
  index(keep = false) {
    const svg2 = this.viewport.stage.querySelector("svg");
    if (!svg2) return;
    svg2.setAttribute("role", "group");
    svg2.setAttribute("aria-label", `${this.data.title}: the graph of the ${this.view()} view, its boxes reached with Tab and the arrow keys, Enter going to a box's step; the step panel gives the step's derivation and its table`);
    svg2.setAttribute("aria-describedby", this.panel.id);
    for (const t of svg2.querySelectorAll(":scope > title, :scope > g.graph > title")) t.remove();
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
    const words2 = stepWords(this.data, i, this.asks(i));
    if (this.announcer.textContent !== words2) this.announcer.textContent = words2;
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
    const lines = [...g.querySelectorAll("text")].filter((t) => getComputedStyle(t).visibility !== "hidden").map((t) => t.textContent.trim()).filter(Boolean);
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
      height: `${r.height + 2 * RING_PAD}px`
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
    const boxes = [...this.drawing.boxes.values()].map((g) => [g, g.getBoundingClientRect()]).filter(([, r]) => r.width).sort(([, a], [, b]) => a.top + a.bottom - b.top - b.bottom);
    const rows = [];
    for (const [g, r] of boxes) {
      const row = rows[rows.length - 1];
      if (row && (r.top + r.bottom) / 2 < row.bottom) {
        row.boxes.push([g, r]);
        row.bottom = Math.min(row.bottom, r.bottom);
      } else rows.push({ bottom: r.bottom, boxes: [[g, r]] });
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
      if (score < bestScore) {
        best = b;
        bestScore = score;
      }
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
};

// vizad/view/widget/static/stepper/player.js
var KEYS_NEXT = /* @__PURE__ */ new Set(["ArrowRight", "PageDown"]);
var KEYS_PREV = /* @__PURE__ */ new Set(["ArrowLeft", "PageUp"]);
var Player = class {
  // `n`: the number of steps; `root`: the component, whose focus gives the keys to the player;
  // `nonfinite`: the step where a NaN or infinite value first appears (a button and the key N
  // go there), or null
  constructor({ model, n, root, changed, nonfinite = null }) {
    this.model = model;
    this.n = n;
    this.root = root;
    this.changed = changed;
    this.timer = null;
    this.bound = /* @__PURE__ */ new Map();
    const button = (cls, label, text, fn) => h("button", { class: cls, title: label, "aria-label": label, text, onclick: fn });
    this.first = button("vz-first", "first step (Home)", "|◀", () => this.go(1));
    this.prev = button("vz-prev", "previous step (←, PageUp)", "◀", () => this.go(this.step() - 1));
    this.play = button("vz-play", "play / pause (Space)", "▶ play", () => this.toggle());
    this.next = button("vz-next", "next step (→, PageDown)", "▶", () => this.go(this.step() + 1));
    this.last = button("vz-last", "last step (End)", "▶|", () => this.go(n));
    this.slider = h("input", { class: "vz-slider", type: "range", min: "1", max: String(n), step: "1", "aria-label": "step" });
    this.slider.addEventListener("input", () => this.go(parseInt(this.slider.value, 10)));
    this.speed = h("input", { class: "vz-speed", type: "number", min: "0.25", max: "10", step: "0.25", value: "1.25", "aria-label": "steps per second" });
    this.speed.addEventListener("change", () => {
      if (this.timer) {
        this.stop();
        this.toggle();
      }
    });
    const buttons = [this.first, this.prev, this.play, this.next, this.last];
    if (nonfinite) {
      this.nonfinite = button(
        "vz-nonfinite",
        `first NaN or infinite value: step ${nonfinite} (N)`,
        "⚠ NaN",
        () => this.go(nonfinite)
      );
      buttons.push(this.nonfinite);
      this.bind("n", () => this.go(nonfinite));
    }
    this.element = h("div", { class: "vz-controls" }, [
      ...buttons,
      this.slider,
      h("label", { text: "steps/s " }, [this.speed])
    ]);
    this.onKey = (e) => this.key(e);
    window.addEventListener("keydown", this.onKey, true);
    root.addEventListener("pointerdown", (e) => {
      if (!e.target.closest("input, select, button")) root.focus({ preventScroll: true });
    });
  }
  // key `key` (a KeyboardEvent key, any case) calls fn() when the component has focus; fn
  // returns false when it leaves the key to the page
  bind(key, fn) {
    this.bound.set(key.toLowerCase(), fn);
  }
  step() {
    return clamp(this.model.get("step") || 1, 1, this.n);
  }
  go(k) {
    k = clamp(Math.round(k), 1, this.n);
    if (k !== this.model.get("step")) {
      this.model.set("step", k);
      this.model.save_changes();
    }
    this.changed();
  }
  toggle() {
    if (this.timer) return this.stop();
    if (this.step() === this.n) this.go(1);
    this.play.textContent = "❚❚ pause";
    const rate = clamp(parseFloat(this.speed.value) || 1.25, 0.25, 10);
    this.timer = setInterval(() => {
      this.go(this.step() + 1);
      if (this.step() >= this.n) this.stop();
    }, 1e3 / rate);
  }
  stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.play.textContent = "▶ play";
  }
  // the controls of step k (1-based)
  show(k) {
    this.slider.value = String(k);
    this.first.disabled = this.prev.disabled = k === 1;
    this.next.disabled = this.last.disabled = k === this.n;
  }
  // keys, when the component has focus: on the window, in the capture phase, before the
  // notebook's own shortcuts (Notebook 7 handles keys at the document before they reach a
  // widget)
  key(e) {
    const t = e.composedPath()[0] ?? e.target;
    const presenting = this.root.classList.contains("vz-present");
    if (!(t instanceof Node) || !(this.root.contains(t) || presenting)) return;
    const typing = t !== this.slider && t instanceof Element && t.closest("input, select, textarea");
    if (typing && !(presenting && e.key === "Escape") || e.altKey || e.ctrlKey || e.metaKey) return;
    if (BOX_KEYS.has(e.key) && t instanceof Element && t.matches(".vz-stage g.node")) return;
    if ((BOX_KEYS.has(e.key) || e.key === " ") && t instanceof Element && t.matches(".vz-cell-click")) return;
    if (BOX_KEYS.has(e.key) && t instanceof Element && t.matches(".vz-heat-box")) return;
    if (e.key === " " && t instanceof Element && t.closest("button")) {
      e.stopPropagation();
      return;
    }
    let handled = true;
    if (KEYS_NEXT.has(e.key)) this.go(this.step() + 1);
    else if (KEYS_PREV.has(e.key)) this.go(this.step() - 1);
    else if (e.key === "Home") this.go(1);
    else if (e.key === "End") this.go(this.n);
    else if (e.key === " ") this.toggle();
    else if (this.bound.has(e.key.toLowerCase())) handled = this.bound.get(e.key.toLowerCase())() !== false;
    else handled = false;
    if (handled) {
      e.preventDefault();
      e.stopPropagation();
    }
  }
  close() {
    this.stop();
    window.removeEventListener("keydown", this.onKey, true);
  }
};

// vizad/view/widget/static/stepper/quiz.js
var QUIZ_SIGNIFICANT = 3;
var QUIZ_CLOSE = 0.01;
var QUIZ_FUNCTIONS = {
  sqrt: Math.sqrt,
  exp: Math.exp,
  log: Math.log,
  ln: Math.log,
  sin: Math.sin,
  cos: Math.cos,
  tan: Math.tan,
  tanh: Math.tanh
};
var QUIZ_CONSTANTS = { pi: Math.PI, "π": Math.PI, e: Math.E };
var QUIZ_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
var QUIZ_MAX_ANSWER = 200;
var QUIZ_MAX_DEPTH = 20;
var QUIZ_READABLE = /^[\t\n\r\x20-\x7eπ−×·]*$/;
function quizFinite(x) {
  if (!Number.isFinite(x)) throw new AnswerError("this number is too large (or has no finite value): type another");
  return x;
}
var AnswerError = class extends Error {
};
function readAnswer(text, kind) {
  text = String(text);
  if (text.length > QUIZ_MAX_ANSWER) throw new AnswerError(`this answer is too long: type at most ${QUIZ_MAX_ANSWER} characters`);
  if (!QUIZ_READABLE.test(text)) throw new AnswerError("cannot read this answer: type a number or an expression of digits, + - * / **, pi, e, sqrt(…)");
  text = text.replace(/^[ \t\n\r]+|[ \t\n\r]+$/g, "").replace(/−/g, "-").replace(/[×·]/g, "*");
  if (!text) throw new AnswerError("type an answer");
  if (kind === "shape") return readShape(text);
  if (/^[+-]?\d+,\d+$/.test(text)) text = text.replace(",", ".");
  if (text.includes("^")) throw new AnswerError("write powers with **, as in 2**3 (^ is not a power here)");
  if (QUIZ_NUMBER.test(text)) {
    const [mantissa, exponent] = text.toLowerCase().replace(/^[+-]/, "").split("e");
    const [whole, fraction = ""] = mantissa.split(".");
    const digits = (whole + fraction).replace(/^0+/, "");
    return {
      value: quizFinite(parseFloat(text)),
      decimals: fraction.length - (exponent ? parseInt(exponent, 10) : 0),
      significant: digits.length || 1
    };
  }
  return { value: new ExpressionReader(text).read(), decimals: null, significant: null };
}
function readShape(text) {
  if (["scalar", "()", "[]", "( )"].includes(text.toLowerCase())) return [];
  const parts2 = text.replace(/^[([ \t\n\r]+|[)\] \t\n\r]+$/g, "").split(/[,x*\s]+/).filter(Boolean);
  if (!parts2.length || !parts2.every((p) => /^\d+$/.test(p))) throw new AnswerError("type a shape such as (2, 3), 2x3, or scalar");
  return parts2.map((p) => parseInt(p, 10));
}
var ExpressionReader = class {
  constructor(text) {
    this.tokens = text.match(/\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|\*\*|[A-Za-zπ_]\w*|\S/g) || [];
    this.at = 0;
    this.text = text;
    this.depth = 0;
  }
  peek() {
    return this.tokens[this.at];
  }
  take(t) {
    if (this.peek() === t) {
      this.at++;
      return true;
    }
    return false;
  }
  fail() {
    throw new AnswerError(`cannot read ${JSON.stringify(this.text)}: type a number or an expression of numbers, + - * / **, pi, e, sqrt(…)`);
  }
  read() {
    const x = this.sum();
    if (this.at !== this.tokens.length) this.fail();
    return x;
  }
  nested() {
    if (++this.depth > QUIZ_MAX_DEPTH) throw new AnswerError(`this answer nests too deep: at most ${QUIZ_MAX_DEPTH} parentheses inside each other`);
    const x = this.sum();
    this.depth--;
    return x;
  }
  sum() {
    let x = this.product();
    for (; ; ) {
      if (this.take("+")) x = quizFinite(x + this.product());
      else if (this.take("-")) x = quizFinite(x - this.product());
      else return x;
    }
  }
  product() {
    let x = this.unary();
    for (; ; ) {
      if (this.take("*")) x = quizFinite(x * this.unary());
      else if (this.take("/")) x = quizFinite(x / this.unary());
      else return x;
    }
  }
  unary() {
    let sign = 1;
    while (this.peek() === "-" || this.peek() === "+") if (this.tokens[this.at++] === "-") sign = -sign;
    return sign < 0 ? -this.power() : this.power();
  }
  power() {
    const x = this.atom();
    return this.take("**") ? quizFinite(x ** this.unary()) : x;
  }
  atom() {
    const t = this.peek();
    if (t === void 0) this.fail();
    this.at++;
    if (t === "(") {
      const x = this.nested();
      if (!this.take(")")) this.fail();
      return x;
    }
    if (/^[\d.]/.test(t)) return quizFinite(parseFloat(t));
    if (Object.hasOwn(QUIZ_CONSTANTS, t)) return QUIZ_CONSTANTS[t];
    if (/^[A-Za-zπ_]/.test(t)) {
      if (!Object.hasOwn(QUIZ_FUNCTIONS, t)) throw new AnswerError(`unknown ${this.peek() === "(" ? "function" : "name"} '${t}' (known: ${Object.keys(QUIZ_FUNCTIONS).join(", ")}, pi, e)`);
      if (!this.take("(")) throw new AnswerError(`${t} is a function: call it, as in ${t}(2)`);
      const x = this.nested();
      if (!this.take(")")) throw new AnswerError(`${t} takes one argument`);
      return quizFinite(QUIZ_FUNCTIONS[t](x));
    }
    this.fail();
  }
};
function judgeAnswer(text, kind, answer) {
  let typed;
  try {
    typed = readAnswer(text, kind);
  } catch (e) {
    if (e instanceof AnswerError) return { status: "refused", message: `${e.message} (no try used)` };
    throw e;
  }
  if (kind === "shape") {
    const ok = typed.length === answer.length && typed.every((d, j) => d === answer[j]);
    return { status: ok ? "right" : "wrong", message: "" };
  }
  const scale = Math.max(1, Math.abs(answer));
  const off = Math.abs(typed.value - answer);
  if (off <= 1e-9 * scale) return { status: "right", message: "" };
  if (typed.decimals === null) return { status: "wrong", message: "" };
  if (off <= 0.5 * 10 ** -typed.decimals * (1 + 1e-9) + 1e-12 * scale) {
    if (typed.significant >= QUIZ_SIGNIFICANT) return { status: "right", message: "" };
    return { status: "refused", message: `${String(text).trim()} has too few digits to judge: give at least ${QUIZ_SIGNIFICANT} significant digits, or an exact expression (no try used)` };
  }
  if (off <= QUIZ_CLOSE * Math.abs(answer)) return { status: "wrong", message: "close, but not the value rounded to the digits typed" };
  return { status: "wrong", message: "" };
}
var Quiz = class {
  // `questions`: per step, its questions (or null: no quiz); `rule`: how answers are judged;
  // `root`: the component, whose keys go to the question; `changed()`: redraw the step
  constructor({ model, questions, rule, root, changed }) {
    this.model = model;
    this.questions = questions;
    this.rule = rule || "";
    this.root = root;
    this.changed = changed;
    this.at = null;
    this.notes = /* @__PURE__ */ new Map();
    this.leaving = false;
    this.scoreBox = h("div", { class: "vz-score", "aria-live": "polite" });
    this.showScore();
    this.onProgress = () => {
      this.showScore();
      this.changed();
    };
    model.on("change:progress", this.onProgress);
    root.addEventListener("focus", () => {
      const input = root.querySelector(".vz-answer");
      if (input && !this.leaving) input.focus({ preventScroll: true });
    });
  }
  // the keys back to the steps: the component focused, not the question's field
  release() {
    this.leaving = true;
    this.root.focus({ preventScroll: true });
    this.leaving = false;
  }
  close() {
    this.model.off("change:progress", this.onProgress);
  }
  get progress() {
    return this.model.get("progress") || {};
  }
  done(q) {
    return Boolean((this.progress[q.key] || {}).state);
  }
  // whether step i (0-based) still asks something (its values are not shown yet)
  asks(i) {
    return Boolean(this.questions && this.questions[i] && this.questions[i].some((q) => !this.done(q)));
  }
  showScore() {
    if (!this.questions) return;
    const all = this.questions.flat();
    const states = all.map((q) => (this.progress[q.key] || {}).state);
    const right = states.filter((s) => s === "right").length;
    const asked = states.filter(Boolean).length;
    this.scoreBox.textContent = `score ${right}/${asked}`;
    this.scoreBox.title = `${all.length - asked} of ${all.length} questions to go` + (this.model.get("connected") === false ? "; kept in this page only" : "") + (this.model.get("connected") === false && this.model.get("notebook") ? ": not connected to Python (stepper.score does not change)" : "");
    return { right, asked, questions: all.length };
  }
  setProgress(changes) {
    this.model.set("progress", { ...this.progress, ...changes });
    this.model.save_changes();
    const score = this.showScore();
    this.model.set("score", score);
    this.model.save_changes();
  }
  // the component moved to step i: going on past questions (that step's, or steps jumped
  // over) skips them, and shows their values
  arrive(i) {
    const from = this.at;
    this.at = i;
    if (!this.questions || from === null || i <= from) return;
    const skipped = {};
    for (let k = from; k < i; k++) {
      for (const q of this.questions[k] || []) if (!this.done(q)) skipped[q.key] = { ...this.progress[q.key] || { tries: 0 }, state: "skipped" };
    }
    if (Object.keys(skipped).length) this.setProgress(skipped);
  }
  secret(code, salt) {
    return JSON.parse(reveal(code, salt));
  }
  // what step i's questions earned so far, one line each
  earned(i) {
    const lines = [];
    for (const q of this.questions[i] || []) {
      const state = (this.progress[q.key] || {}).state;
      if (!state) continue;
      const { shown: shown2 } = this.secret(q.code, q.salt);
      const text = { right: `right: ${q.q} = ${shown2}`, wrong: `the answer: ${q.q} = ${shown2}`, skipped: `skipped: ${q.q} = ${shown2}` }[state];
      lines.push(h("div", { class: state === "right" ? "vz-right" : "vz-wrong", text }));
    }
    return lines.length ? h("div", { class: "vz-earned" }, lines) : null;
  }
  // step i's answered questions above its panel, once they are all answered
  takeFeedback(i) {
    return this.questions ? this.earned(i) : null;
  }
  // step i's next question, in `panel`; it takes the keys if the component had them
  ask(i, panel) {
    const q = this.questions[i].find((x) => !this.done(x));
    const input = h("input", {
      class: "vz-answer",
      type: "text",
      inputmode: "decimal",
      "aria-label": `${q.q} =`,
      autocomplete: "off",
      spellcheck: "false"
    });
    const kept = this.notes.get(q.key);
    const note = h("div", { class: `vz-feedback${kept ? ` ${kept.cls}` : ""}`, "aria-live": "polite", text: kept ? kept.text : "" });
    const check = () => this.answer(q, input, note);
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") {
        e.preventDefault();
        check();
      } else if (e.key === "Escape") {
        e.preventDefault();
        this.release();
      }
    });
    const hadKeys = this.root.contains(this.root.getRootNode().activeElement);
    const count = this.questions[i].length;
    const which = count > 1 ? ` (question ${this.questions[i].indexOf(q) + 1} of ${count} in this step)` : "";
    const rule = h("details", { class: "vz-rule" }, [h("summary", { text: "how answers are judged" }), h("div", { text: this.rule })]);
    panel.replaceChildren(h("div", { class: "vz-quiz" }, [
      this.earned(i) || "",
      h("div", { class: "vz-quiz-q" }, [
        h("b", { text: `${q.q} = ` }),
        input,
        h("button", { class: "vz-check", text: "check", onclick: check })
      ]),
      h("div", { class: "vz-muted", text: `${q.kind === "shape" ? "a shape such as (2, 3), 2x3 or scalar" : `a number (judged to the digits typed, at least ${QUIZ_SIGNIFICANT} significant) or an expression such as 2 - cos(5)`}; Enter to check, Esc: back to the steps${which}` }),
      note,
      rule
    ]));
    if (hadKeys) input.focus({ preventScroll: true });
  }
  answer(q, input, note) {
    const { a } = this.secret(q.code, q.salt);
    const verdict = judgeAnswer(input.value, q.kind, a);
    if (verdict.status === "refused") {
      note.className = "vz-feedback vz-refused";
      note.textContent = verdict.message;
      input.select();
      return;
    }
    const entry = { ...this.progress[q.key] || { tries: 0 } };
    entry.answers = [...entry.answers || [], input.value];
    if (verdict.status === "right") {
      entry.state = "right";
      this.notes.delete(q.key);
    } else {
      entry.tries = (entry.tries || 0) + 1;
      if (entry.tries < 2) {
        const close = verdict.message ? ` (${verdict.message})` : "";
        this.notes.set(q.key, { cls: "vz-try", text: `not ${input.value.trim()}${close}: try again (one more try). Hint: ${q.hint}` });
      } else {
        entry.state = "wrong";
        this.notes.delete(q.key);
      }
    }
    this.setProgress({ [q.key]: entry });
    const next = this.root.querySelector(".vz-answer");
    if (next) next.focus({ preventScroll: true });
    else this.root.focus({ preventScroll: true });
  }
};
var FEW_INPUTS = 3;
var Inputs = class {
  // `step()`: the step shown (1-based); `secret(i)`: whether a quiz still asks step i
  constructor({ model, inputs, step, secret }) {
    this.model = model;
    const live = Boolean(model.get("live"));
    this.element = h("div", { class: "vz-inputs" });
    const check = live ? this.differences(model, step, secret) : null;
    if (!inputs || !inputs.length) {
      if (check) this.element.append(check);
      return;
    }
    const fields = [];
    for (const d of inputs) {
      const editable2 = live && d.editable;
      const field = h("input", {
        class: "vz-input",
        type: "number",
        step: "any",
        value: String(d.value),
        "data-name": d.name,
        "aria-label": `${d.name} (${d.label})`
      });
      if (!editable2) field.readOnly = true;
      field.addEventListener("change", () => {
        const x = parseFloat(field.value);
        if (!Number.isFinite(x)) {
          field.value = String(d.value);
          return;
        }
        model.set("inputs", { ...model.get("inputs") || {}, [d.name]: x });
        model.save_changes();
        this.element.dataset.state = "tracing";
      });
      field.addEventListener("keydown", (e) => e.stopPropagation());
      fields.push(h("label", { class: "vz-input-label", text: `${d.name} = ` }, [field]));
    }
    const editable = live && inputs.some((d) => d.editable);
    const said = editable ? "" : live ? "read-only (recorded, not traced by vizad)" : "read-only: not connected to Python";
    const why = editable ? "change an input: the walkthrough is traced again in Python, at this step" : live ? "this walkthrough was recorded from another engine: vizad cannot trace it again" : "this page is not connected to Python (a saved or exported page, or a front end without the widget): the inputs cannot change here; run the cell where the widget shows";
    const note = h("span", { class: "vz-muted vz-input-note", "aria-live": "polite", text: said, title: why });
    this.element.title = why;
    if (fields.length <= FEW_INPUTS) {
      this.element.append(h("span", { class: "vz-muted", text: "inputs " }), ...fields, note);
    } else {
      this.element.append(h("details", { class: "vz-inputs-more" }, [
        h("summary", { class: "vz-muted", text: `inputs (${fields.length})` }),
        ...fields,
        note
      ]));
    }
    if (check) this.element.append(check);
    this.onError = () => {
      const error = model.get("input_error");
      note.textContent = error || said;
      note.classList.toggle("vz-input-error", Boolean(error));
      delete this.element.dataset.state;
      const values = model.get("inputs") || {};
      for (const f of this.element.querySelectorAll(".vz-input")) if (f.dataset.name in values) f.value = String(values[f.dataset.name]);
    };
    model.on("change:input_error", this.onError);
  }
  // a button asking Python to check this step's result by central differences of the
  // function itself, and what it says
  differences(model, step, secret) {
    const said = h("span", { class: "vz-muted vz-difference", "aria-live": "polite" });
    const button = h("button", {
      class: "vz-check-differences",
      text: "check by differences",
      title: "this step's result against central differences of the function (Python computes it)",
      onclick: () => {
        if (secret(step() - 1)) {
          said.textContent = "answer this step's questions first";
          return;
        }
        said.textContent = "checking…";
        model.set("difference_request", { step: step(), ask: Date.now() });
        model.save_changes();
      }
    });
    this.onDifferences = () => {
      const r = model.get("differences") || {};
      said.textContent = r.text || "";
      said.classList.toggle("vz-differ", r.agree === false);
    };
    model.on("change:differences", this.onDifferences);
    return h("span", { class: "vz-differences" }, [button, said]);
  }
  close() {
    if (this.onError) this.model.off("change:input_error", this.onError);
    if (this.onDifferences) this.model.off("change:differences", this.onDifferences);
  }
};

// vizad/view/widget/static/stepper/panel.js
var TABLE_ROWS = 40;
var KEEP_ROWS = 6;
var FILL = /^#[0-9a-f]{6}$/i;
var FINE_ROWS = 12;
var FINE_COLUMNS = 24;
var FINE_CELLS = 12 * 24;
function shown(v) {
  if (typeof v === "string") return [v];
  if (v.muted !== void 0) return [h("span", { class: "vz-muted", text: v.muted })];
  if (v.tuple) return ["(", ...v.tuple.flatMap((x, j) => j ? [", ", ...shown(x)] : shown(x)), ")"];
  if (!v.heat) return [];
  const { columns, cells, label, caption } = v.heat;
  const fine = Number(columns) > FINE_COLUMNS || cells.length > FINE_CELLS || cells.length > FINE_ROWS * Number(columns);
  const grid = h("span", { class: fine ? "vz-heat vz-heat-fine" : "vz-heat", role: "img", "aria-label": label }, cells.map(([fill, tip]) => {
    const cell = h("span", { title: tip });
    if (FILL.test(fill)) cell.style.backgroundColor = fill;
    return cell;
  }));
  grid.style.gridTemplateColumns = `repeat(${Number(columns)},auto)`;
  return [grid, h("span", { class: "vz-scale", text: caption })];
}
var parts = (list) => list.flatMap(shown);
var words = (text) => text.split(" ").flatMap((w, k) => [
  ...k ? [" "] : [],
  ...w.split(/(?<=\/)(?=.)/).map((part) => h("span", { class: "vz-word", text: part }))
]);
function panelElement(p, head, cells = {}) {
  const box = h("div", { class: "vz-panel" }, [
    h("div", { class: "vz-head", text: p.head }),
    h("div", { class: "vz-muted" }, parts(p.about))
  ]);
  if (p.note !== void 0) box.append(h("div", { class: "vz-muted", text: p.note }));
  if (p.rows) {
    box.append(h("table", { class: "vz-contributions" }, [
      h("thead", {}, [h("tr", {}, head.map((name) => h("th", {}, words(name))))]),
      h("tbody", {}, p.rows.map((row) => h("tr", {}, row.map((cell) => h("td", {}, parts(cell))))))
    ]));
  }
  const sum = h("div", { class: "vz-sum" }, [p.sum, h("b", {}, shown(p.total))]);
  box.append(sum);
  const fine = sum.querySelector(":scope > b > .vz-heat-fine");
  if (fine) zoomable(fine, cells);
  if (p.elements) elementCells(sum, p.elements, cells);
  else if (p.cells?.ask && cells.ask) elementCells(sum, p.asked ??= [], cells);
  else if (p.cells?.fine && cells.fine) box.append(h("div", { class: "vz-muted vz-cells-note", text: "drawing it cell by cell…" }));
  else if (p.cells) box.append(h("div", { class: "vz-muted vz-cells-note", text: p.cells.why }));
  box.append(h("div", { class: "vz-math", text: p.line }));
  if (p.source !== void 0) box.append(h("div", { class: "vz-muted vz-source", text: p.source }));
  if (p.nonfinite !== void 0) box.append(h("div", { class: "vz-nan-note", text: p.nonfinite }));
  if (p.fail !== void 0) box.append(h("div", { class: "vz-fail", text: p.fail }));
  return box;
}
var CELL_PX = [5, 10, 15, 20];
var PAN_PX = 4;
var PAN_KEY_PX = 40;
function zoomable(grid, { zoom = 0, onZoom = () => {
} } = {}) {
  let level = Math.max(0, Math.min(CELL_PX.length - 1, zoom));
  const box = h("span", { class: "vz-heat-box" });
  grid.replaceWith(box);
  box.append(grid);
  const button = (text, label, by) => h("button", {
    type: "button",
    class: "vz-zoom-cells",
    text,
    title: label,
    "aria-label": label,
    onclick: () => set(level + by)
  });
  const less = button("−", "smaller heatmap cells", -1);
  const more = button("+", "larger heatmap cells", 1);
  box.after(h("span", { class: "vz-heat-zoom", role: "group", "aria-label": "heatmap zoom" }, [less, more]));
  const apply = () => {
    grid.style.setProperty("--vz-cell", `${CELL_PX[level]}px`);
    box.dataset.zoom = String(CELL_PX[level]);
    less.disabled = level === 0;
    more.disabled = level === CELL_PX.length - 1;
  };
  const set = (next) => {
    next = Math.max(0, Math.min(CELL_PX.length - 1, next));
    if (next === level) return;
    const by = CELL_PX[next] / CELL_PX[level];
    const x = box.scrollLeft + box.clientWidth / 2, y = box.scrollTop + box.clientHeight / 2;
    level = next;
    apply();
    box.scrollLeft = x * by - box.clientWidth / 2;
    box.scrollTop = y * by - box.clientHeight / 2;
    scrolls();
    onZoom(level);
  };
  const scrolls = () => {
    const over = box.scrollWidth > box.clientWidth + 1 || box.scrollHeight > box.clientHeight + 1;
    if (over) {
      box.setAttribute("tabindex", "0");
      box.setAttribute("role", "region");
      box.setAttribute("aria-label", "the heatmap, zoomed: scroll or drag to pan");
    } else for (const a of ["tabindex", "role", "aria-label"]) box.removeAttribute(a);
  };
  box.addEventListener("keydown", (e) => {
    const by = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowDown: [0, 1], ArrowUp: [0, -1] }[e.key];
    if (e.target !== box || !by || e.altKey || e.ctrlKey || e.metaKey) return;
    e.preventDefault();
    e.stopPropagation();
    box.scrollBy(by[0] * PAN_KEY_PX, by[1] * PAN_KEY_PX);
  });
  let press = null;
  box.addEventListener("pointerdown", (e) => {
    if (e.button !== 0) return;
    press = { x: e.clientX, y: e.clientY, left: box.scrollLeft, top: box.scrollTop, id: e.pointerId, moved: false };
  });
  box.addEventListener("pointermove", (e) => {
    if (!press || e.pointerId !== press.id) return;
    const dx = e.clientX - press.x, dy = e.clientY - press.y;
    if (!press.moved && Math.hypot(dx, dy) < PAN_PX) return;
    if (!press.moved) {
      press.moved = true;
      box.setPointerCapture?.(e.pointerId);
      box.classList.add("vz-panning");
    }
    box.scrollLeft = press.left - dx;
    box.scrollTop = press.top - dy;
  });
  const release = () => {
    box.classList.remove("vz-panning");
    if (press?.moved) {
      const swallow = (e) => {
        e.stopPropagation();
        e.preventDefault();
      };
      box.addEventListener("click", swallow, { capture: true, once: true });
      setTimeout(() => box.removeEventListener("click", swallow, { capture: true }), 0);
    }
    press = null;
  };
  box.addEventListener("pointerup", release);
  box.addEventListener("pointercancel", release);
  apply();
  if (level) requestAnimationFrame(scrolls);
}
function elementCells(sum, elements, { opened = null, onOpen = () => {
}, ask = null } = {}) {
  const grid = sum.querySelector(".vz-heat");
  if (!grid) return;
  const cells = [...grid.children];
  grid.setAttribute("role", "group");
  const shownBox = h("div", { class: "vz-element", "aria-live": "polite" });
  const opens = (k) => ask ? elements[k] !== null : Boolean(elements[k]);
  let asking = null;
  const show2 = (k, e) => {
    const terms = e.terms.map(([label, value]) => h("li", {}, [
      h("span", { class: "vz-term-label", text: label }),
      " ",
      h("span", { class: "vz-term-value", text: value })
    ]));
    shownBox.replaceChildren(
      h("div", { class: "vz-math", text: e.line }),
      h("ul", { class: "vz-element-terms", "aria-label": "its terms" }, terms),
      ...e.more ? [h("div", { class: "vz-muted", text: `… and ${e.more} more terms` })] : [],
      ...e.read ? [h("div", { class: "vz-muted", text: e.read })] : [],
      h("div", { class: "vz-muted", text: e.note })
    );
    onOpen(k, e.lit || []);
  };
  const say = (text) => shownBox.replaceChildren(h("div", { class: "vz-muted", text }));
  const open = (k) => {
    cells.forEach((cell, j) => cell.classList.toggle("vz-cell-open", j === k));
    asking = null;
    if (elements[k]) return show2(k, elements[k]);
    asking = k;
    say(`asking Python for element ${cells[k].title.split(" =")[0]}…`);
    onOpen(k, []);
    ask(k).then((entry) => {
      elements[k] = entry ?? null;
      if (asking !== k || !shownBox.isConnected) return;
      asking = null;
      if (entry) return show2(k, entry);
      say("no element walkthrough for this cell: an op on its way has no element rule");
      cells[k].classList.remove("vz-cell-click");
    }, (err) => {
      if (asking === k) say(`Python could not make this cell's walkthrough: ${err.message || err}`);
      if (asking === k) asking = null;
    });
  };
  cells.forEach((cell, k) => {
    if (!opens(k)) return;
    cell.setAttribute("tabindex", "0");
    cell.setAttribute("role", "button");
    cell.setAttribute("aria-label", `${cell.title}: show its terms`);
    cell.classList.add("vz-cell-click");
    cell.addEventListener("click", () => open(k));
    cell.addEventListener("keydown", (event) => {
      const columns = Number(grid.style.gridTemplateColumns.match(/\d+/)?.[0]) || 1;
      const by = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: columns, ArrowUp: -columns }[event.key];
      if (event.key !== "Enter" && event.key !== " " && !by) return;
      event.preventDefault();
      event.stopPropagation();
      let j = k;
      if (by) do
        j += by;
      while (j >= 0 && j < cells.length && !opens(j));
      if (j < 0 || j >= cells.length) return;
      cells[j].focus();
      open(j);
    });
  });
  sum.after(shownBox);
  if (opened !== null && opens(opened)) open(opened);
}
var KERNEL_WAIT_MS = 12e4;
var CellAsker = class {
  constructor(model) {
    this.model = model;
    this.kernel = model.get("connected") !== false && typeof model.send === "function";
    this.waiting = /* @__PURE__ */ new Map();
    this.onMessage = (msg) => this.received(msg);
    if (this.kernel) model.on("msg:custom", this.onMessage);
  }
  // step i's (0-based) cell k: a promise of its entry (null: it has none)
  ask(i, k) {
    return this.request({ kind: "element", step: i, cell: k }).then((msg) => msg.entry ?? null);
  }
  // step i's result cell by cell: a promise of { total, cells } (vizad/trace/panel.py's fine_total)
  fine(i) {
    return this.request({ kind: "fine", step: i });
  }
  request(content) {
    const id = `${content.kind} ${content.step} ${content.cell ?? ""}`;
    if (!this.waiting.has(id)) {
      const w = {};
      w.promise = new Promise((resolve, reject) => {
        w.resolve = resolve;
        w.reject = reject;
      });
      this.waiting.set(id, w);
      this.model.send(content);
      setTimeout(() => {
        if (this.waiting.get(id) !== w) return;
        this.waiting.delete(id);
        w.reject(new Error("the kernel did not answer: run the cell again"));
      }, KERNEL_WAIT_MS);
    }
    return this.waiting.get(id).promise;
  }
  received(msg) {
    if (!msg || msg.kind !== "element" && msg.kind !== "fine") return;
    const id = `${msg.kind} ${msg.step} ${msg.cell ?? ""}`;
    const w = this.waiting.get(id);
    if (!w) return;
    this.waiting.delete(id);
    if (msg.error) w.reject(new Error(msg.error));
    else w.resolve(msg);
  }
  close() {
    if (this.kernel) this.model.off?.("msg:custom", this.onMessage);
  }
};
function rowElement(row, now) {
  const tr = h("tr", row.bad ? { class: "vz-bad" } : {}, row.cells.map((cell) => h("td", {}, parts(cell))));
  if (now) tr.setAttribute("data-now", "true");
  if (row.key) tr.querySelector(".vz-heat")?.setAttribute("data-key", row.key);
  return tr;
}
var Panel = class {
  // `data`: the walkthrough (its steps' panels and table rows); `quiz`: which steps ask
  // `asker`: a live widget's CellAsker (the cells the page does not carry, made by Python)
  constructor({ data, quiz, asker = null }) {
    this.data = data;
    this.quiz = quiz;
    this.asker = asker?.kernel ? asker : null;
    this.zoom = 0;
    this.panel = h("div", { class: "vz-step-panel" });
    this.table = h("div", { class: "vz-table" });
    this.element = h("div", { class: "vz-below" }, [this.panel, this.table]);
    this.opened = null;
    this.lit = [];
    this.litCells = [];
    this.onLight = null;
  }
  // the cells the open element's terms read, outlined in the running table's heatmaps and
  // (onLight) in the drawing's boxes; the earlier ones no longer
  light() {
    for (const c of this.litCells) c.classList.remove("vz-lit");
    this.litCells = [];
    const grids = new Map([...this.table.querySelectorAll(".vz-heat[data-key]")].map((g) => [g.dataset.key, g]));
    for (const [key, cell] of this.lit) {
      const c = grids.get(key)?.children[cell];
      if (c) {
        c.classList.add("vz-lit");
        this.litCells.push(c);
      }
    }
    this.onLight?.(this.lit);
  }
  // the table of partial adjoints shrinks (stacked, stepper.css) no lower than its head and
  // KEEP_ROWS rows, or all when fewer: the terms the derivation line adds stay in view. The
  // height the step panel needs so (its key lines, those rows and the rest) goes to `onNeed`
  // (room.js gives the panel that height when the graph's frame can spare it)
  keepRows() {
    const box = this.panel;
    if (!box.offsetHeight) return;
    const table = box.querySelector(".vz-contributions");
    const rows = table ? table.querySelectorAll("tr") : [];
    const last = rows[Math.min(rows.length, KEEP_ROWS + 1) - 1];
    let need = box.scrollHeight;
    if (last) {
      const least = last.offsetTop + last.offsetHeight + 1;
      table.style.minHeight = `${least}px`;
      need += least - table.clientHeight;
      const top = box.getBoundingClientRect().top - box.scrollTop;
      const bottom = last.getBoundingClientRect().bottom + table.scrollTop;
      need = Math.max(need, bottom - top + parseFloat(getComputedStyle(box).paddingBottom) + 2);
    }
    this.onNeed?.(Math.ceil(need));
  }
  // step i (0-based): its panel, or its question, and the table's rows up to it
  show(i) {
    const { data, quiz, panel } = this;
    this.shown = i;
    const feedback = quiz.takeFeedback(i);
    const asking = quiz.asks(i);
    if (asking) quiz.ask(i, panel);
    else {
      if (this.opened?.step !== i) this.opened = null;
      this.lit = [];
      let building = true;
      const onOpen = (cell, lit) => {
        this.opened = { step: i, cell };
        this.lit = lit;
        if (!building) this.light();
      };
      const p = data.steps[i].panel;
      panel.replaceChildren(panelElement(
        p,
        data.contributionsHead || [],
        {
          opened: this.opened?.cell ?? null,
          onOpen,
          ask: this.asker && ((k) => this.asker.ask(i, k)),
          zoom: this.zoom,
          onZoom: (level) => {
            this.zoom = level;
          },
          fine: Boolean(this.asker)
        }
      ));
      if (p.cells?.fine && this.asker) this.drawFine(i, p);
      building = false;
      if (feedback) panel.prepend(feedback);
      this.keepRows();
    }
    const rows = [];
    for (let j = asking ? i - 1 : i; j >= Math.max(0, i - TABLE_ROWS + 1); j--) {
      if (j === i || !quiz.asks(j)) rows.push(rowElement(data.steps[j].row, j === i));
    }
    const earlier = Math.max(0, i - TABLE_ROWS + 1);
    const word = data.mode === "reverse" ? "adjoints" : "tangents";
    this.table.replaceChildren(
      h("div", { class: "vz-muted", text: `${word} so far` }),
      h("table", {}, [h("tbody", {}, rows)]),
      ...earlier ? [h("div", { class: "vz-muted", text: `… and ${earlier} earlier` })] : []
    );
    if (asking) this.lit = [];
    this.light();
  }
  // a live widget: step i's result, averaged in blocks for the walkthrough's budget of cells
  // drawn one by one, drawn so by Python (no block averaging unless a page must carry it), its
  // cells opening as any it does not carry; the step shown again if it still is
  drawFine(i, p) {
    this.asker.fine(i).then(({ total, cells }) => {
      const step = this.data.steps[i];
      if (step.panel !== p) return;
      step.panel = { ...p, total };
      if (cells) step.panel.cells = cells;
      else delete step.panel.cells;
      if (this.shown === i) this.show(i);
    }, (err) => {
      const step = this.data.steps[i];
      if (step.panel !== p) return;
      step.panel = { ...p, cells: { why: `${p.cells.why} (Python could not draw it cell by cell: ${err.message || err})` } };
      if (this.shown === i) this.show(i);
    });
  }
  close() {
    this.asker?.close();
  }
};

// vizad/view/widget/static/stepper/expand.js
var OPEN_PREFIX = "cluster_open_";
var KERNEL_WAIT_MS2 = 12e4;
function applyPatch(base, patch) {
  const frame = { ...base };
  delete frame.svg;
  delete frame.dot;
  delete frame.opens;
  for (const k of ["dot", "svg", "scope", "note", "collapsed"]) if (k in patch) frame[k] = patch[k];
  for (const k of ["owner", "hides", "tips", "edgeTips", "clicks", "links"]) frame[k] = { ...base[k], ...patch[k] };
  frame.steps = base.steps.map((s, i) => patch.steps[i] ?? s);
  frame.find = base.find.map((e, i) => patch.find[i] ?? e);
  if (patch.memoryBoxes && base.memoryBoxes) frame.memoryBoxes = base.memoryBoxes.map((b, i) => i in patch.memoryBoxes ? patch.memoryBoxes[i] : b);
  return frame;
}
var decorated = /* @__PURE__ */ new WeakSet();
var unpacked = /* @__PURE__ */ new WeakMap();
function unpackOpens(packed) {
  if (!unpacked.has(packed)) unpacked.set(packed, inflateJson(packed.gz).then(resolveOpens));
  return unpacked.get(packed);
}
function resolveOpens({ lines, patches }) {
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
var Opener = class {
  // `model`: the widget's (with a kernel it has `send`); `data`: the walkthrough
  constructor({ model, data }) {
    this.model = model;
    this.data = data;
    this.kernel = typeof model.send === "function";
    this.open = /* @__PURE__ */ new Map();
    this.frames = /* @__PURE__ */ new Map();
    this.waiting = /* @__PURE__ */ new Map();
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
      if (how) frame.tips[id] = { ...frame.tips[id], head: `${frame.tips[id].head}
(${how})` };
    }
  }
  // a view's data, asked of the kernel (laid out there when first asked for)
  fetchView(v) {
    if (!this.kernel) {
      return Promise.reject(new Error(`the ${v} view was not laid out when this output was saved: run the cell again to see it`));
    }
    return this.ask({ kind: "view", view: v });
  }
  // view `v` with box `id` opened (or closed, if it is open): its data, patched
  async toggle(v, id) {
    const base = this.data.frames[v];
    const open = this.opened(v);
    let next;
    if (open.includes(id)) next = open.filter((b) => b !== id);
    else next = this.kernel ? [...open, id].sort() : [id];
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
      w.promise = new Promise((resolve, reject) => {
        w.resolve = resolve;
        w.reject = reject;
      });
      this.waiting.set(id, w);
      this.model.send(content);
      setTimeout(() => {
        if (this.waiting.get(id) !== w) return;
        this.waiting.delete(id);
        w.reject(new Error("the kernel did not answer: run the cell again to see this"));
      }, KERNEL_WAIT_MS2);
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
};
function openedFrames(stage) {
  const found = /* @__PURE__ */ new Map();
  for (const g of stage.querySelectorAll("g.cluster")) {
    const title = g.querySelector(":scope > title")?.textContent || "";
    if (title.startsWith(OPEN_PREFIX)) found.set(title.slice(OPEN_PREFIX.length), g);
  }
  return found;
}

// vizad/view/widget/static/stepper/search.js
var SUBSCRIPTS = { "₀": "0", "₁": "1", "₂": "2", "₃": "3", "₄": "4", "₅": "5", "₆": "6", "₇": "7", "₈": "8", "₉": "9" };
var ACCENTS = { "̄": "bar", "̇": "dot" };
function plainText(text) {
  return text.replace(/[₀-₉]/g, (c) => SUBSCRIPTS[c]).normalize("NFD").replace(/\p{M}/gu, "");
}
function typedText(text) {
  return plainText(text.normalize("NFD").replace(/[\u0304\u0307]/g, (c) => ACCENTS[c])).toLowerCase();
}
function looseText(text) {
  return typedText(text).replace(/v(?:bar|dot)(?=\d)/g, "v");
}
function formatNumber(x, decimals) {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? "nan" : x > 0 ? "inf" : "-inf";
  if (x !== 0 && (Math.abs(x) >= 1e6 || Math.abs(x) < 10 ** -decimals)) {
    return x.toExponential(Math.max(decimals - 1, 1));
  }
  const text = decimals > 0 ? x.toFixed(decimals).replace(/0+$/, "").replace(/\.$/, "") : x.toFixed(0);
  return text === "-0" || text === "" ? "0" : text;
}
var NUMBER = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?$/i;
var NUMBERS = /[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?/gi;
function numberMatch(typed, shown2, decimals) {
  const x = Number(typed);
  const prefix = /\.\d/.test(typed) ? typed.replace(/^\+/, "").replace(/^(-?)\./, "$10.") : null;
  let found = 0;
  for (const line of shown2) {
    for (const s of line.match(NUMBERS) || []) {
      if (Number(s) === x || decimals != null && formatNumber(x, decimals) === s) return 2;
      if (prefix && s.startsWith(prefix)) found = 1;
    }
  }
  return found;
}
function namesOf([text, , , shown2]) {
  return [text.split(" ")[0], ...(shown2 || []).filter((l) => !l.startsWith("=")).map((l) => l.split(" ")[0])];
}
var Finder = class {
  // `frame()`: the view's data shown; `box(id)`: its <g>; `go(k)`: go to step k (1-based);
  // `reveal(g)`: bring a box into view; `open(id)`: open a collapsed box (a promise)
  constructor({ stage, frame, box, go, reveal: reveal2, open, canOpen }) {
    Object.assign(this, { stage, frame, box, go, reveal: reveal2, open, canOpen });
    this.hits = [];
    this.at = -1;
    this.found = null;
    this.traced = null;
    this.input = h("input", {
      class: "vz-find-input",
      type: "search",
      placeholder: "find a node…",
      "aria-label": "find a node by name or value",
      autocomplete: "off",
      spellcheck: "false"
    });
    this.regex = h("button", {
      class: "vz-find-re",
      title: "a regular expression",
      "aria-pressed": "false",
      text: ".*",
      onclick: () => {
        this.regex.setAttribute("aria-pressed", String(this.regex.getAttribute("aria-pressed") !== "true"));
        this.search();
      }
    });
    this.prevButton = h("button", { class: "vz-find-prev", title: "previous match (Shift+Enter)", text: "‹", onclick: () => this.step(-1) });
    this.nextButton = h("button", { class: "vz-find-next", title: "next match (Enter)", text: "›", onclick: () => this.step(1) });
    this.note = h("span", { class: "vz-find-note", "aria-live": "polite" });
    this.openButton = h("button", {
      class: "vz-find-open",
      hidden: "",
      text: "open it",
      title: "open the collapsed box holding the node found"
    });
    this.traceButton = h("button", {
      class: "vz-trace",
      text: "trace",
      title: "highlight what this box is computed from and what uses it (or shift+click a box)",
      onclick: () => this.toggleTrace()
    });
    this.element = h(
      "div",
      { class: "vz-find", role: "search" },
      [this.input, this.regex, this.prevButton, this.nextButton, this.traceButton, this.openButton, this.note]
    );
    this.input.addEventListener("input", () => this.search());
    this.input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") {
        e.preventDefault();
        this.step(e.shiftKey ? -1 : 1);
      } else if (e.key === "Escape") {
        this.input.value = "";
        this.search();
      }
    });
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
      try {
        re = new RegExp(text, "imu");
      } catch (err) {
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
      const shown2 = e[3] || [];
      const value = number !== null ? numberMatch(number, shown2, decimals) : 0;
      if (!value && !test(number !== null ? e[0] : [e[0], ...shown2].join("\n"))) return null;
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
  jump([text, boxId, step, shown2 = []]) {
    this.openButton.hidden = true;
    if (step >= 0) this.go(step + 1);
    this.found?.classList.remove("vz-found");
    const g = this.found = this.box(boxId);
    const where = step >= 0 ? `step ${step + 1}` : "no step of its own";
    const of = `${this.at + 1} of ${this.hits.length}: ${[text, ...shown2].join(" ")} (${where})`;
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
    if (this.traced) {
      this.clearTrace();
      return;
    }
    const id = this.found?.isConnected ? this.found.id : this.stage.querySelector("g.node.vz-s-current, g.node.vz-s-failed")?.id;
    if (id) this.trace(id);
  }
  // the boxes `id` is computed from (up) and that use it (down), and the edges between them
  trace(id) {
    this.clearTrace();
    const frame = this.frame();
    const succ = /* @__PURE__ */ new Map(), pred = /* @__PURE__ */ new Map();
    for (const [e, [tail, head]] of Object.entries(frame.links || {})) {
      if (!succ.has(tail)) succ.set(tail, []);
      if (!pred.has(head)) pred.set(head, []);
      succ.get(tail).push([head, e]);
      pred.get(head).push([tail, e]);
    }
    const reach = (from, next) => {
      const seen = /* @__PURE__ */ new Set([from]), edges = /* @__PURE__ */ new Set(), todo = [from];
      while (todo.length) {
        for (const [n, e] of next.get(todo.pop()) || []) {
          edges.add(e);
          if (!seen.has(n)) {
            seen.add(n);
            todo.push(n);
          }
        }
      }
      seen.delete(from);
      return { boxes: seen, edges };
    };
    const up = reach(id, pred), down = reach(id, succ);
    const mark = (ids, cls) => {
      for (const i of ids) this.stage.querySelector(`g[id="${CSS.escape(i)}"]`)?.classList.add(cls);
    };
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
};

// vizad/view/widget/static/stepper/minimap.js
var MINIMAP = { w: 220, h: 110, min: 2 };
var MINIMAP_CORNERS = [["right", "bottom"], ["left", "bottom"], ["right", "top"], ["left", "top"]];
var Minimap = class {
  // `viewport`: the view it maps; `current()`: the current step's <g>, or null
  constructor({ viewport, current }) {
    this.viewport = viewport;
    this.current = current;
    this.scale = 1;
    this.svg = null;
    this.drawn = false;
    this.canvas = h("canvas", { class: "vz-minimap-map" });
    this.here = h("div", { class: "vz-minimap-here" });
    this.mark = h("div", { class: "vz-minimap-view" });
    this.element = h("div", {
      class: "vz-minimap",
      role: "img",
      hidden: "",
      "aria-label": "the whole graph; the part in view is marked",
      title: "the whole graph: click or drag to move the view"
    }, [this.canvas, this.here, this.mark]);
    viewport.element.append(this.element);
    let dragging = false;
    this.element.addEventListener("pointerdown", (e) => {
      e.stopPropagation();
      e.preventDefault();
      dragging = true;
      this.element.setPointerCapture(e.pointerId);
      this.moveTo(e);
    });
    this.element.addEventListener("pointermove", (e) => {
      if (dragging) this.moveTo(e);
    });
    const end = () => {
      dragging = false;
    };
    this.element.addEventListener("pointerup", end);
    this.element.addEventListener("pointercancel", end);
  }
  // the drawing now in the stage (its <svg>), or null (none)
  show(svg2) {
    this.svg = svg2;
    this.drawn = false;
    if (!svg2) {
      this.element.hidden = true;
      return;
    }
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
      const x = (r.left - origin.left) / z * s, y = (r.top - origin.top) / z * s;
      const bw = Math.max(MINIMAP.min, r.width / z * s), bh = Math.max(MINIMAP.min, r.height / z * s);
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
    Object.assign(this.mark.style, {
      left: `${x0 * s}px`,
      top: `${y0 * s}px`,
      width: `${Math.max(4, (x1 - x0) * s)}px`,
      height: `${Math.max(4, (y1 - y0) * s)}px`
    });
    const g = this.current();
    this.here.hidden = !g;
    if (g) {
      const origin = this.svg.getBoundingClientRect(), b = g.getBoundingClientRect();
      Object.assign(this.here.style, {
        left: `${((b.left + b.right) / 2 - origin.left) / z.s * s}px`,
        top: `${((b.top + b.bottom) / 2 - origin.top) / z.s * s}px`
      });
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
};

// vizad/view/widget/static/stepper/refused.js
function showRefusals(model, el) {
  if (typeof model.on !== "function" || typeof model.send !== "function") return () => {
  };
  const note = h("div", { class: "vz-refused-note", role: "alert", hidden: "" });
  const onMessage = (msg) => {
    if (!msg || typeof msg !== "object" || msg.kind !== "refused") return;
    note.textContent = `not done: ${String(msg.error || "refused by the kernel")}`;
    note.hidden = false;
    if (!note.isConnected) el.prepend(note);
  };
  model.on("msg:custom", onMessage);
  return () => model.off?.("msg:custom", onMessage);
}

// vizad/view/widget/static/stepper/memory.js
function memoryTimeline(plan, keep) {
  const forward = plan.forward;
  const kept = keep == null ? null : new Set(keep);
  const dropped = /* @__PURE__ */ new Set();
  if (kept) forward.forEach((f, i) => !f.leaf && !kept.has(i) && dropped.add(i));
  const steps = forward.map((f, i) => ({
    phase: "forward",
    label: f.label,
    walkthrough: null,
    node: i,
    reads: f.inputs,
    takes: [],
    makes: []
  }));
  const recomputed = [];
  const again = /* @__PURE__ */ new Set();
  plan.reverse.forEach((r, j) => {
    const needed = /* @__PURE__ */ new Set();
    const stack = r.reads.filter((i) => dropped.has(i) && !again.has(i));
    while (stack.length) {
      const i = stack.pop();
      if (needed.has(i) || again.has(i)) continue;
      needed.add(i);
      for (const x of forward[i].inputs) if (dropped.has(x)) stack.push(x);
    }
    for (const i of [...needed].sort((a, b) => a - b)) {
      steps.push({
        phase: "recompute",
        label: forward[i].label,
        walkthrough: null,
        node: i,
        reads: forward[i].inputs,
        takes: [],
        makes: []
      });
      recomputed.push(i);
      again.add(i);
    }
    steps.push({
      phase: "reverse",
      label: r.label,
      walkthrough: j + 1,
      node: r.node,
      reads: r.reads,
      takes: r.takes,
      makes: r.makes
    });
  });
  const lives = [];
  const current = /* @__PURE__ */ new Map();
  const made = /* @__PURE__ */ new Map();
  const backward = steps.findIndex((s) => s.phase !== "forward");
  steps.forEach((s, t) => {
    if (t === backward) for (const i of dropped) current.delete(i);
    for (const i of s.reads) {
      const life = current.get(i);
      life.end = Math.max(life.end, t);
    }
    for (const v of s.takes) {
      const life = made.get(v);
      life.end = Math.max(life.end, t);
    }
    if (s.phase !== "reverse") {
      const life = { made: t, end: t, bytes: forward[s.node].bytes, node: s.node, value: null };
      current.set(s.node, life);
      lives.push(life);
    } else {
      for (const v of s.makes) {
        const life = { made: t, end: t, bytes: plan.values[v].bytes, node: null, value: v };
        made.set(v, life);
        lives.push(life);
      }
    }
  });
  const last = steps.length - 1;
  const stepOf = /* @__PURE__ */ new Map();
  steps.forEach((s, t) => s.phase === "reverse" && s.node != null && stepOf.set(s.node, t));
  for (const life of lives) {
    if (life.value != null && plan.values[life.value].result) life.end = last;
    else if (kept && life.node != null && steps[life.made].phase === "forward" && (kept.has(life.node) || forward[life.node].leaf) && stepOf.has(life.node))
      life.end = Math.max(life.end, stepOf.get(life.node));
  }
  const count = new Array(steps.length + 1).fill(0);
  const size2 = new Array(steps.length + 1).fill(0);
  for (const life of lives) {
    count[life.made] += 1;
    count[life.end + 1] -= 1;
    size2[life.made] += life.bytes;
    size2[life.end + 1] -= life.bytes;
  }
  let values = 0;
  let bytes = 0;
  let peakValues = 0;
  let peakBytes = 0;
  let peakStep = 0;
  const out = steps.map((s, t) => {
    values += count[t];
    bytes += size2[t];
    if (values > peakValues) [peakValues, peakStep] = [values, t + 1];
    peakBytes = Math.max(peakBytes, bytes);
    return { phase: s.phase, label: s.label, walkthrough: s.walkthrough, values, bytes };
  });
  return { steps: out, peakValues, peakBytes, peakStep, recomputed, lives };
}
function aliveAt(timeline, number) {
  const t = number - 1;
  const alive = { forward: [], values: [] };
  for (const life of timeline.lives) {
    if (life.made <= t && t <= life.end) {
      if (life.node != null) alive.forward.push(life.node);
      else alive.values.push(life.value);
    }
  }
  return alive;
}

// vizad/view/widget/static/stepper/timeline.js
var SVG = "http://www.w3.org/2000/svg";
var WIDTH = 600;
var HEIGHT = 64;
var PAD = 4;
function svg(tag, attrs = {}) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}
function size(n) {
  for (const [unit, scale] of [["GiB", 2 ** 30], ["MiB", 2 ** 20], ["KiB", 2 ** 10]]) {
    if (n >= scale) return `${(n / scale).toFixed(1)} ${unit}`;
  }
  return `${n} B`;
}
function summary(timeline, kept) {
  const peak = timeline.steps[timeline.peakStep - 1];
  const walk = peak?.walkthrough != null ? `, the walkthrough's step ${peak.walkthrough}` : "";
  const where = peak ? ` at step ${timeline.peakStep} of ${timeline.steps.length} (${peak.phase} ${peak.label}${walk})` : "";
  const policy = kept == null ? "every value stored" : `${kept.length} checkpoint${kept.length === 1 ? "" : "s"}`;
  const again = timeline.recomputed.length;
  return `memory: peak ${timeline.peakValues} values, ${size(timeline.peakBytes)}${where}; ${policy}; ${again} forward op${again === 1 ? "" : "s"} run again`;
}
var MemoryTimeline = class {
  // `memory`: the data's memory ({plan}); `stage`: the graph's stage (its boxes are outlined,
  // and clicked in the editor); `frame()`: the view shown, whose `memoryBoxes` give the box of
  // each forward value; `step()`: the walkthrough's step (1-based); `go(k)`: go to step k;
  // `changed()`: the checkpoints (or the editing) changed (the frame's edge marks them);
  // `model`: its `memory_keep` holds the checkpoints by name, Python's and the editor's
  constructor({ memory, stage, frame, step, go, changed = () => {
  }, model = null }) {
    this.plan = memory.plan;
    this.stage = stage;
    this.frame = frame;
    this.step = step;
    this.go = go;
    this.changed = changed;
    this.model = model;
    this.keep = this.positions(model?.get("memory_keep"));
    this.onModel = () => {
      const keep = this.positions(model.get("memory_keep"));
      const key = (k) => k === null ? "all" : k.join(" ");
      if (key(keep) !== key(this.keep)) this.setKeep(keep, false);
    };
    model?.on("change:memory_keep", this.onModel);
    this.editing = false;
    this.words = h("span", { class: "vz-memory-words", role: "status" });
    this.edit = h("button", {
      class: "vz-memory-edit",
      "aria-pressed": "false",
      text: "edit checkpoints",
      title: "then click boxes of the graph: a box kept is a checkpoint, the other values are computed again when needed",
      onclick: () => this.setEditing(!this.editing)
    });
    this.reset = h("button", {
      class: "vz-memory-reset",
      text: "store all",
      title: "no checkpoints: every value stored",
      onclick: () => this.setKeep(null)
    });
    this.chart = svg("svg", {
      class: "vz-memory-chart",
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      preserveAspectRatio: "none",
      role: "img",
      "aria-label": "values alive at each step"
    });
    this.element = h(
      "div",
      { class: "vz-memory", role: "group", "aria-label": "memory timeline" },
      [h("div", { class: "vz-memory-head" }, [this.words, this.edit, this.reset])]
    );
    this.element.append(this.chart);
    this.onClick = (e) => {
      if (!this.editing) return;
      if (e.type === "keydown" && e.key !== "Enter" && e.key !== " ") return;
      const g = e.target instanceof Element && this.stage.contains(e.target) ? e.target.closest("g.node") : null;
      const shown2 = g ? this.boxes().map((box, i2) => box === g.id ? i2 : -1).filter((i2) => i2 >= 0) : [];
      if (shown2.length !== 1) return;
      const i = shown2[0];
      e.stopImmediatePropagation();
      e.preventDefault();
      if (!this.plan.forward[i].leaf) this.toggle(i);
    };
    stage.addEventListener("click", this.onClick, true);
    window.addEventListener("keydown", this.onClick, true);
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
    return this.plan.forward.flatMap((v, i) => named.has(v.label) ? [i] : []);
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
    return PAD + (n > 1 ? t / (n - 1) * (WIDTH - 2 * PAD) : 0);
  }
  y(values) {
    return HEIGHT - PAD - values / Math.max(1, this.timeline.peakValues) * (HEIGHT - 2 * PAD);
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
};

// vizad/view/widget/static/stepper/mount.js
var SNAPSHOT_STYLE = [
  ["fill", ""],
  ["stroke", "none"],
  ["stroke-width", "1px"],
  ["stroke-dasharray", "none"],
  ["opacity", "1"],
  ["font-weight", "400"]
];
var SNAPSHOT_SHAPES = "path, polygon, polyline, ellipse, rect, text";
var layoutJobs = /* @__PURE__ */ new WeakMap();
var PREPARED = 2;
var BIG_VIEW_NODES = 40;
var bigView = (frame) => (frame.collapsed || []).length > 0 || (frame.find || []).length > BIG_VIEW_NODES;
var Stepper = class {
  constructor({ model, el, data }) {
    this.model = model;
    this.data = data;
    const n = this.n = data.n;
    for (const f of Object.values(data.frames)) {
      if (f.stepsOf) f.steps = data.frames[f.stepsOf].steps;
      if (f.findOf) f.find = data.frames[f.findOf].find;
    }
    this.view = model.get("view") || data.view;
    const root = this.root = h("div", { class: "vizad-stepper mathjax_ignore tex2jax_ignore", tabindex: "0" });
    const showStep = () => this.showStep();
    this.player = new Player({ model, n, root, changed: showStep, nonfinite: data.nonfinite });
    this.viewport = new Viewport({
      root,
      scale: () => model.get("scale") || 1,
      target: () => this.drawing.ranked(this.player.step() - 1),
      ready: () => this.drawing.size > 0,
      legend: data.legend
    });
    this.drawing = new Drawing({
      stage: this.viewport.stage,
      root,
      failed: new Set(data.failed),
      step: () => this.player.step(),
      go: (k) => this.player.go(k),
      secret: (i) => this.quiz.asks(i)
      // a quiz step's values stay out of the tooltips
    });
    this.memory = data.memory ? new MemoryTimeline({
      memory: data.memory,
      stage: this.viewport.stage,
      frame: () => this.drawing.frame,
      step: () => this.player.step(),
      go: (k) => this.player.go(k),
      changed: () => this.viewport.markEdges(),
      model
    }) : null;
    this.viewport.also = () => this.memory?.keptBoxes() ?? [];
    this.quiz = new Quiz({ model, questions: data.quiz || null, rule: data.rule, root, changed: showStep });
    this.inputs = new Inputs({ model, inputs: data.inputs, step: () => this.player.step(), secret: (i) => this.quiz.asks(i) });
    this.opener = new Opener({ model, data });
    this.listening = /* @__PURE__ */ new WeakSet();
    this.revealAfter = null;
    this.prepared = /* @__PURE__ */ new Set();
    this.finder = new Finder({
      stage: this.viewport.stage,
      frame: () => this.drawing.frame,
      box: (id) => this.drawing.boxes.get(id),
      go: (k) => this.player.go(k),
      reveal: (g) => this.reveal(g),
      open: (id) => this.toggleBox(id),
      canOpen: (id) => this.opener.canOpen(this.view, id)
    });
    this.minimap = new Minimap({
      viewport: this.viewport,
      current: () => this.drawing.frame && this.drawing.focus(this.player.step() - 1)?.[0]
    });
    this.viewport.onApply = () => {
      this.minimap.update();
      this.access?.showRing();
    };
    this.closeButton = h("button", {
      class: "vz-close-opened",
      hidden: "",
      title: "close the boxes opened",
      text: "close opened",
      onclick: () => this.closeBoxes()
    });
    this.viewport.stage.addEventListener("click", (e) => {
      if (e.shiftKey || e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.target.closest("g.node.vz-sealed")) this.saySealed();
      const g = e.target.closest("g.node.vz-collapsible, g.cluster.vz-opened-frame");
      if (!g) return;
      e.stopImmediatePropagation();
      this.toggleBox(g.classList.contains("cluster") ? g.dataset.box : g.id);
    }, true);
    this.viewport.element.addEventListener("pointerdown", () => this.viewport.element.querySelector(".vz-sealed-note")?.remove(), true);
    this.viewport.stage.addEventListener("pointerdown", (e) => {
      if (e.target.closest("g.cluster.vz-opened-frame")) e.stopPropagation();
    });
    this.panel = new Panel({ data, quiz: this.quiz, asker: new CellAsker(model) });
    this.panel.onLight = (lit) => this.drawing.light(lit);
    this.room = new Room({
      root,
      viewport: this.viewport,
      player: this.player,
      panel: this.panel,
      release: () => this.quiz.release()
    });
    this.counter = h("div", { class: "vz-counter" });
    this.access = new Access({
      root,
      viewport: this.viewport,
      drawing: this.drawing,
      panel: this.panel,
      data,
      step: () => this.player.step(),
      asks: (i) => this.quiz.asks(i),
      view: () => this.view
    });
    this.note = h("div", { class: "vz-note" });
    this.offline = model.get("connected") === false && model.get("notebook") ? h(
      "div",
      {
        class: "vz-muted vz-offline",
        title: "this is the walkthrough saved in the notebook's output; run the cell (in a front end with vizad's extension or a widget manager) to step it with Python"
      },
      ["not connected to Python: stepping here does not change ", h("code", { text: "stepper.step" })]
    ) : null;
    this.findRow = h("div", { class: "vz-top vz-find-row" }, [this.closeButton, this.finder.element]);
    this.views = h("div", { class: "vz-views", role: "group", "aria-label": "views" });
    for (const v of data.views) {
      this.views.append(
        h("button", {
          class: "vz-view",
          "data-view": v.name,
          title: v.title,
          text: v.name,
          onclick: () => this.setView(v.name)
        })
      );
    }
    const scaleInput = this.scaleInput = h("select", { class: "vz-scale", title: "presentation scale", "aria-label": "scale" });
    for (const s of [0.75, 1, 1.25, 1.5, 2]) {
      scaleInput.append(h("option", { value: String(s), text: `${Math.round(s * 100)}%` }));
    }
    scaleInput.addEventListener("change", () => {
      model.set("scale", parseFloat(scaleInput.value));
      model.save_changes();
    });
    root.append(
      h("style", { text: data.css }),
      h("div", { class: "vz-head-row" }, [h("div", { class: "vz-title", text: data.title, title: data.title }), this.counter, this.inputs.element, this.quiz.scoreBox]),
      h("div", { class: "vz-top" }, [
        this.views,
        this.viewport.bar,
        // the word "scale" goes when narrow (the menu's title says it), so the row stays one row
        h("label", { class: "vz-scale-label" }, [h("span", { class: "vz-wordy", text: "scale " }), scaleInput]),
        this.room.button
      ]),
      ...this.offline ? [this.offline] : [],
      this.viewport.legend,
      this.note,
      this.findRow,
      this.room.body,
      // the graph's frame with the player, and the step panel
      this.drawing.tip,
      this.access.announcer
    );
    if (this.memory) this.room.graph.append(this.memory.element);
    el.append(root);
    this.listeners = [
      ["change:step", showStep],
      ["change:view", () => {
        if (model.get("view") !== this.view) this.setView(model.get("view"));
      }],
      ["change:scale", () => this.applyScale()]
    ];
    for (const [event, fn] of this.listeners) model.on(event, fn);
    this.stopFrameReport = reportFrame(model, this.viewport.element, () => this.room.presenting());
    this.applyScale();
    this.setView(data.views.some((x) => x.name === this.view) ? this.view : data.view);
  }
  // -- views ---------------------------------------------------------------------------------
  setView(v) {
    const { data, model } = this;
    if (!data.views.some((x) => x.name === v)) return;
    this.view = v;
    if (model.get("view") !== v) {
      model.set("view", v);
      model.save_changes();
    }
    for (const b of this.views.querySelectorAll("button")) {
      b.setAttribute("aria-pressed", String(b.dataset.view === v));
    }
    const frame = this.opener.frame(v);
    if (frame) this.showFrame(frame, `the ${v} view`);
    else this.fetchView(v);
  }
  // a view Python has not sent yet: asked of the kernel, which lays it out when first asked
  fetchView(v) {
    const { root, viewport } = this;
    this.drawing.use(null);
    this.minimap.show(null);
    viewport.clear();
    viewport.say(`laying out the ${v} view…`);
    root.dataset.layout = "busy";
    this.showStep();
    this.opener.fetchView(v).then((frame) => {
      this.data.frames[v] ??= frame;
      viewport.say(null);
      if (this.view === v) this.setView(v);
    }, (err) => {
      if (this.view !== v) return;
      root.dataset.layout = "failed";
      viewport.say(`${err.message || err}`);
    });
  }
  // a view's data (perhaps with boxes opened) in the stage: its SVG, or its layout first
  showFrame(frame, what) {
    this.opener.decorate(this.view, frame);
    this.drawing.tip.style.display = "none";
    this.drawing.use(frame);
    this.finder.reset();
    if (frame.svg === void 0) {
      this.layOutFrame(frame, what);
      return false;
    }
    this.viewport.say(null);
    this.root.dataset.layout = "done";
    if (frame.laidOut) {
      this.root.dataset.layoutMs = frame.laidOut.ms.toFixed(0);
      this.root.dataset.layoutThread = frame.laidOut.thread;
    }
    const keep = this.access.holding();
    this.viewport.show(frame.svg, this.view);
    this.note.textContent = frame.note || "";
    const big = bigView(frame);
    this.findRow.hidden = !big;
    this.drawing.index();
    for (const id of frame.collapsed || []) {
      const open = this.opener.canOpen(this.view, id);
      this.drawing.boxes.get(id)?.classList.add(open ? "vz-collapsible" : "vz-sealed");
    }
    if (!this.opener.opened(this.view).length) this.prepare(this.view);
    for (const [id, g] of openedFrames(this.viewport.stage)) {
      g.classList.add("vz-opened-frame");
      g.dataset.box = id;
    }
    const opened = this.opener.opened(this.view);
    this.root.dataset.opened = opened.join(" ");
    this.closeButton.hidden = !opened.length;
    this.minimap.show(big ? this.viewport.stage.querySelector("svg") : null);
    this.showStep();
    this.access.index(keep);
    if (this.finder.input.value.trim()) this.finder.search();
    if (this.revealAfter && opened.includes(this.revealAfter)) this.revealOpened(this.revealAfter);
    this.revealAfter = null;
    return true;
  }
  // a view (or a view with boxes opened) sent as DOT: laid out once, here, in a worker; the
  // panels, the steps and the rest of the page work meanwhile
  layOutFrame(frame, what) {
    const { root, viewport } = this;
    viewport.clear();
    this.minimap.show(null);
    viewport.say(null);
    root.dataset.layout = "busy";
    if (!layoutJobs.has(frame)) layoutJobs.set(frame, layOutOffThread(this.model.get("_graphviz"), frame.dot));
    const job = layoutJobs.get(frame);
    viewport.element.append(busyNote(`laying out ${what}…`, job));
    this.showStep();
    if (this.listening.has(job)) return;
    this.listening.add(job);
    job.promise.then(({ svg: svg2, ms, thread }) => {
      frame.svg = svg2;
      frame.laidOut = { ms, thread };
      if (this.drawing.frame !== frame) return;
      this.showFrame(frame, what);
    }, (err) => {
      if (layoutJobs.get(frame) === job) layoutJobs.delete(frame);
      if (this.drawing.frame !== frame) return;
      root.dataset.layout = "failed";
      viewport.say(`vizad could not lay out ${what} in the browser: ${err.message || err}` + (err.name === "LayoutStopped" ? " (the steps and the panels still work; show the view again to retry)" : ""));
    });
  }
  // A page that opens boxes itself (no kernel) gets ready to open those of view `v` while the
  // person reads: a layout worker warmed up, then the first PREPARED boxes (the one holding
  // the current step first) laid out in it one after another, so that a click shows one at
  // once (a layout is seconds of WebAssembly on a busy machine). Once per view.
  prepare(v) {
    if (this.prepared.has(v)) return;
    this.prepared.add(v);
    const ids = this.opener.carriedBoxes(v, this.player.step() - 1, PREPARED);
    if (!ids.length) return;
    const graphviz = this.model.get("_graphviz");
    const idle = (fn) => (window.requestIdleCallback || setTimeout)(fn, { timeout: 500 });
    idle(() => {
      warmWorker(graphviz);
      ids.reduce((before, id) => before.then(async () => {
        const frame = await this.opener.carried(v, id);
        if (frame.svg !== void 0 || layoutJobs.has(frame)) return layoutJobs.get(frame)?.promise;
        const job = layOutOffThread(graphviz, frame.dot);
        layoutJobs.set(frame, job);
        return job.promise.then(({ svg: svg2, ms, thread }) => {
          if (frame.svg === void 0) Object.assign(frame, { svg: svg2, laidOut: { ms, thread } });
          this.root.dataset.prepared = `${this.root.dataset.prepared ?? ""} ${id}`.trim();
        }, () => {
          if (layoutJobs.get(frame) === job) layoutJobs.delete(frame);
        });
      }).catch(() => {
      }), Promise.resolve());
    });
  }
  // open a collapsed box of the view shown (or close it, if open), and show the step in it
  toggleBox(id) {
    const v = this.view;
    const label = (this.drawing.frame?.tips[id]?.head || id).split("\n")[0];
    const wasOpen = this.opener.opened(v).includes(id);
    if (!wasOpen) this.viewport.say(`opening “${label}”…`);
    return this.opener.toggle(v, id).then((frame) => {
      if (this.view !== v) return null;
      this.revealAfter = wasOpen ? null : id;
      if (this.showFrame(frame, `“${label}” opened`)) return null;
      return layoutJobs.get(frame)?.promise.then(() => null);
    }).catch((err) => {
      this.viewport.say(`vizad could not open “${label}”: ${err.message || err}`);
    });
  }
  // a click on a box that stands for others this page cannot open: why, in plain words (a
  // notebook output without Python: a saved notebook, nbconvert's page, no widget manager)
  saySealed() {
    this.viewport.element.querySelector(".vz-sealed-note")?.remove();
    this.viewport.element.append(h("div", {
      class: "vz-busy vz-sealed-note",
      role: "status",
      text: this.offline ? "opening this block needs Python: run the cell" : "this page does not carry the boxes inside this block: opening it needs Python (vz.step)"
    }));
  }
  closeBoxes() {
    this.showFrame(this.opener.close(this.view), `the ${this.view} view`);
  }
  // after a box opened: its frame framed, centred on the current step's box when it is inside
  revealOpened(id) {
    const g = openedFrames(this.viewport.stage).get(id);
    if (!g) return;
    const current = this.drawing.focus(this.player.step() - 1)?.[0];
    const f = g.getBoundingClientRect();
    const c = current?.getBoundingClientRect();
    const inside = c && c.left >= f.left && c.right <= f.right && c.top >= f.top && c.bottom <= f.bottom;
    this.viewport.frameOn(g, inside ? current : null);
  }
  // bring `g` (a box, a frame) into view at a readable zoom, its start first when it is wider
  reveal(g) {
    this.viewport.frameOn(g);
  }
  // -- one step: restyle by id, fill the panels ----------------------------------------------
  showStep() {
    const k = this.player.step();
    const i = k - 1;
    this.quiz.arrive(i);
    if (this.drawing.frame) this.drawing.restyle(i);
    this.counter.textContent = `Step ${k} of ${this.n}: ${this.data.steps[i].label}`;
    if (this.quiz.asks(i) && this.drawing.frame) this.drawing.hideOwn(i);
    this.panel.show(i);
    this.player.show(k);
    this.viewport.settle();
    this.minimap.update();
    this.access.showStep();
    this.memory?.show();
    if (this.root.contains(this.root.getRootNode().activeElement)) this.room.bringIntoView();
    const detail = { step: k, snapshot: () => this.snapshot() };
    this.root.dispatchEvent(new CustomEvent("vizad-step", { bubbles: true, detail }));
  }
  // The step shown as static parts, for the picture a saved notebook carries (what GitHub
  // shows): the drawing as SVG text with its computed styles written in (an image keeps no
  // page CSS) on the page's background, and the step's panel. null while a quiz asks.
  snapshot() {
    const svg2 = this.viewport.stage.querySelector("svg");
    if (!svg2 || this.quiz.asks(this.player.step() - 1)) return null;
    const copy = svg2.cloneNode(true);
    const from = svg2.querySelectorAll(SNAPSHOT_SHAPES);
    const to = copy.querySelectorAll(SNAPSHOT_SHAPES);
    for (let j = 0; j < from.length; j++) {
      const s = getComputedStyle(from[j]);
      const style = [];
      for (const [p, plain] of SNAPSHOT_STYLE) {
        const v = s.getPropertyValue(p);
        if (v !== plain) style.push(`${p}:${v}`);
      }
      to[j].setAttribute("style", style.join(";"));
    }
    let behind = this.root;
    while (behind.parentElement && /^(transparent|rgba\(0, 0, 0, 0\))$/.test(getComputedStyle(behind).backgroundColor)) {
      behind = behind.parentElement;
    }
    copy.setAttribute("style", `background:${getComputedStyle(behind).backgroundColor}`);
    return { svg: new XMLSerializer().serializeToString(copy), panel: this.panel.panel.innerHTML };
  }
  // -- presentation scale ----------------------------------------------------------------------
  applyScale() {
    const s = this.model.get("scale") || 1;
    this.root.style.setProperty("--vz-scale", String(s));
    this.scaleInput.value = String(s);
    if (this.drawing.frame) {
      this.viewport.refit();
      this.showStep();
    }
  }
  close() {
    for (const [event, fn] of this.listeners) this.model.off(event, fn);
    this.stopFrameReport();
    this.quiz.close();
    this.inputs.close();
    this.player.close();
    this.access.close();
    this.viewport.close();
    this.minimap.close();
    this.opener.dispose();
    this.room.close();
    this.memory?.close();
    this.panel.close();
  }
};
function localModel(values) {
  const state = { ...values };
  const listeners = {};
  return {
    get: (name) => state[name],
    set: (name, value) => {
      if (state[name] === value) return;
      state[name] = value;
      (listeners[`change:${name}`] || []).forEach((fn) => fn());
    },
    on: (event, fn) => {
      (listeners[event] = listeners[event] || []).push(fn);
    },
    off: (event, fn) => {
      listeners[event] = (listeners[event] || []).filter((f) => f !== fn);
    },
    save_changes: () => {
    },
    inPage: true
  };
}
function hostState(model) {
  const data = model.get("data");
  const state = { data, connected: false, view: model.get("view") ?? data?.view, step: model.get("step") ?? data?.step ?? 1 };
  for (const k of ["scale", "_graphviz", "picture", "notebook"]) if (model.get(k) !== void 0) state[k] = model.get(k);
  return state;
}
function render({ model, el }) {
  if (model.get("connected") === false && !model.inPage) model = localModel(hostState(model));
  if (model.get("_graphviz")) globalThis.vizadGraphviz ??= model.get("_graphviz");
  if (model.get("picture")) return renderPicture({ model, el });
  if (model.get("data") === void 0 && model.get("_data")) {
    return inflateJson(model.get("_data")).then((data) => show(model, el, data));
  }
  return show(model, el, model.get("data"));
}
function show(model, el, data) {
  if (!data || !data.n) {
    el.textContent = "vizad: this walkthrough has no steps";
    return;
  }
  let stepper = new Stepper({ model, el, data });
  if (model.get("connected") !== false && typeof model.send === "function") model.send({ kind: "shown" });
  let latest = 0;
  const redraw = async () => {
    const asked = ++latest;
    const packed = model.get("_data");
    const next = model.get("data") ?? (packed ? await inflateJson(packed) : null);
    if (asked !== latest || !next?.n) return;
    stepper.close();
    el.replaceChildren();
    stepper = new Stepper({ model, el, data: next });
  };
  model.on("change:data", redraw);
  model.on("change:_data", redraw);
  const stopRefusals = showRefusals(model, el);
  return () => {
    model.off("change:data", redraw);
    model.off("change:_data", redraw);
    stepper.close();
    stopRefusals();
  };
}
async function mount(rootId, dataId, { focus = false, replace = false, graphvizId = null, graphviz: text = "", scale = 1, notebook = false } = {}) {
  const root = document.getElementById(rootId);
  let data = JSON.parse(document.getElementById(dataId).textContent);
  if (data.gz) data = await inflateJson(data.gz);
  if (data.hidden) data = JSON.parse(reveal(data.hidden, 0));
  const graphviz = graphvizId ? JSON.parse(document.getElementById(graphvizId).textContent) : text;
  const step = Number(root.dataset.vizadStep) || data.step || 1;
  if (replace) root.replaceChildren();
  const model = localModel({ data, step, view: data.view, scale, _graphviz: graphviz, connected: false, notebook });
  render({ model, el: root });
  if (focus) root.querySelector(".vizad-stepper").focus();
}
function mountPicture(rootId, dataId, { graphvizId = null, graphviz: text = "" } = {}) {
  const root = document.getElementById(rootId);
  const picture = JSON.parse(document.getElementById(dataId).textContent);
  const graphviz = graphvizId ? JSON.parse(document.getElementById(graphvizId).textContent) : text;
  root.replaceChildren();
  renderPicture({ model: localModel({ picture, _graphviz: graphviz }), el: root });
}
var mount_default = { render };
globalThis.vizadComponent ??= { mount, mountPicture, render };
export {
  mount_default as default,
  localModel,
  mount
};
