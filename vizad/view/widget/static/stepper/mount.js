// mount.js: the component's entry module (bundled from here). A Stepper wires the parts
// together (the viewport with the drawing in it, the player, the quiz, the panel, and the room
// they share: room.js) with the views and the presentation scale; `render` (anywidget's, and
// the pages') makes one, `mount` runs one without a kernel.

import { h, reveal, inflateJson } from "./helpers.js";
import { Room } from "./room.js";
import { layOutOffThread, busyNote, warmWorker } from "./worker.js";
import { renderPicture } from "./picture.js";
import { Viewport, reportFrame } from "./viewport.js";
import { Drawing } from "./drawing.js";
import { Player } from "./player.js";
import { Quiz, Inputs } from "./quiz.js";
import { Panel, CellAsker } from "./panel.js";
import { Opener, openedFrames } from "./expand.js";
import { Finder } from "./search.js";
import { Minimap } from "./minimap.js";
import { showRefusals } from "./refused.js";
import { Access } from "./access.js";
import { MemoryTimeline } from "./timeline.js";

// what a step's restyling changes in the drawing, written into the snapshot's SVG where it
// differs from the plain value: the properties, and the elements that show them
const SNAPSHOT_STYLE = [["fill", ""], ["stroke", "none"], ["stroke-width", "1px"],
  ["stroke-dasharray", "none"], ["opacity", "1"], ["font-weight", "400"]];
const SNAPSHOT_SHAPES = "path, polygon, polyline, ellipse, rect, text";
const layoutJobs = new WeakMap(); // a view's data -> the job laying it out in a worker
const PREPARED = 2; // boxes of a view laid out ahead, in a page that opens them itself

// a view with more nodes than this (or with boxes to open) is a big one: it gets the find row
// and the minimap (a small graph has no use for them, and the map would cover its boxes)
const BIG_VIEW_NODES = 40;
const bigView = (frame) => (frame.collapsed || []).length > 0 || (frame.find || []).length > BIG_VIEW_NODES;

class Stepper {
  constructor({ model, el, data }) {
    this.model = model;
    this.data = data;
    const n = (this.n = data.n);
    // a view whose step states (search entries) are those of another view is sent without
    // them ("stepsOf", "findOf": vizad/view/widget/data.py's shared_steps)
    for (const f of Object.values(data.frames)) {
      if (f.stepsOf) f.steps = data.frames[f.stepsOf].steps;
      if (f.findOf) f.find = data.frames[f.findOf].find;
    }
    this.view = model.get("view") || data.view;
    const root = (this.root = h("div", { class: "vizad-stepper mathjax_ignore tex2jax_ignore", tabindex: "0" }));
    const showStep = () => this.showStep();
    this.player = new Player({ model, n, root, changed: showStep, nonfinite: data.nonfinite });
    this.viewport = new Viewport({
      root,
      scale: () => model.get("scale") || 1,
      target: () => this.drawing.ranked(this.player.step() - 1),
      ready: () => this.drawing.size > 0,
      legend: data.legend,
    });
    this.drawing = new Drawing({
      stage: this.viewport.stage,
      root,
      failed: new Set(data.failed),
      step: () => this.player.step(),
      go: (k) => this.player.go(k),
      secret: (i) => this.quiz.asks(i), // a quiz step's values stay out of the tooltips
    });
    // issue 49: the memory timeline and the checkpoint editor (its clicks before the boxes')
    this.memory = data.memory ? new MemoryTimeline({ memory: data.memory, stage: this.viewport.stage,
      frame: () => this.drawing.frame, step: () => this.player.step(), go: (k) => this.player.go(k),
      changed: () => this.viewport.markEdges(), model }) : null;
    // while the checkpoints are edited, those out of view are marked at the frame's edge
    this.viewport.also = () => this.memory?.keptBoxes() ?? [];
    this.quiz = new Quiz({ model, questions: data.quiz || null, rule: data.rule, root, changed: showStep });
    // what-if inputs and a check by finite differences (quiz.js)
    this.inputs = new Inputs({ model, inputs: data.inputs, step: () => this.player.step(), secret: (i) => this.quiz.asks(i) });
    // issue 25: views and boxes opened later, find and trace, the minimap
    this.opener = new Opener({ model, data });
    this.listening = new WeakSet(); // the layout jobs this component shows when they end
    this.revealAfter = null; // a box just opened, brought into view once laid out
    this.prepared = new Set(); // the views whose boxes this page got ready to open
    this.finder = new Finder({
      stage: this.viewport.stage,
      frame: () => this.drawing.frame,
      box: (id) => this.drawing.boxes.get(id),
      go: (k) => this.player.go(k),
      reveal: (g) => this.reveal(g),
      open: (id) => this.toggleBox(id),
      canOpen: (id) => this.opener.canOpen(this.view, id),
    });
    this.minimap = new Minimap({
      viewport: this.viewport,
      current: () => this.drawing.frame && this.drawing.focus(this.player.step() - 1)?.[0],
    });
    this.viewport.onApply = () => { this.minimap.update(); this.access?.showRing(); };
    this.closeButton = h("button", { class: "vz-close-opened", hidden: "", title: "close the boxes opened",
      text: "close opened", onclick: () => this.closeBoxes() });
    // a click on a box that stands for others opens it (before the drawing's click, which
    // goes to a step); a click on an opened box's title closes it
    this.viewport.stage.addEventListener("click", (e) => {
      if (e.shiftKey || e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.target.closest("g.node.vz-sealed")) this.saySealed(); // and the click goes to its step
      const g = e.target.closest("g.node.vz-collapsible, g.cluster.vz-opened-frame");
      if (!g) return;
      e.stopImmediatePropagation();
      this.toggleBox(g.classList.contains("cluster") ? g.dataset.box : g.id);
    }, true);
    // the note on a sealed box goes at the next press in the frame
    this.viewport.element.addEventListener("pointerdown", () => this.viewport.element.querySelector(".vz-sealed-note")?.remove(), true);
    this.viewport.stage.addEventListener("pointerdown", (e) => {
      if (e.target.closest("g.cluster.vz-opened-frame")) e.stopPropagation(); // a click, not a pan
    });
    this.panel = new Panel({ data, quiz: this.quiz, asker: new CellAsker(model) });
    this.panel.onLight = (lit) => this.drawing.light(lit); // an element's cells, in the boxes
    this.room = new Room({ root, viewport: this.viewport, player: this.player, panel: this.panel,
      release: () => this.quiz.release() });
    this.counter = h("div", { class: "vz-counter" }); // access.js's live region says the step
    // keyboard and screen reader: the graph named and described, its boxes reached by keys
    this.access = new Access({ root, viewport: this.viewport, drawing: this.drawing, panel: this.panel, data,
      step: () => this.player.step(), asks: (i) => this.quiz.asks(i), view: () => this.view });
    this.note = h("div", { class: "vz-note" }); // the layout's note: what was done to fit
    // a notebook output not connected to Python (a saved notebook, nbconvert, a front end
    // without the widget): said once, plainly, so that page and Python never silently
    // disagree; a page exported on purpose has no Python to disagree with, and says nothing
    this.offline = model.get("connected") === false && model.get("notebook") ? h("div", { class: "vz-muted vz-offline",
      title: "this is the walkthrough saved in the notebook's output; run the cell (in a front end with vizad's extension or a widget manager) to step it with Python" },
    ["not connected to Python: stepping here does not change ", h("code", { text: "stepper.step" })]) : null;
    // find and the boxes opened: for a graph too big to read at a glance (or with boxes to open)
    this.findRow = h("div", { class: "vz-top vz-find-row" }, [this.closeButton, this.finder.element]);
    this.views = h("div", { class: "vz-views", role: "group", "aria-label": "views" });
    for (const v of data.views) {
      this.views.append(
        h("button", { class: "vz-view", "data-view": v.name, title: v.title, text: v.name,
          onclick: () => this.setView(v.name) }),
      );
    }
    const scaleInput = (this.scaleInput = h("select", { class: "vz-scale", title: "presentation scale", "aria-label": "scale" }));
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
      h("div", { class: "vz-top" }, [this.views, this.viewport.bar,
        // the word "scale" goes when narrow (the menu's title says it), so the row stays one row
        h("label", { class: "vz-scale-label" }, [h("span", { class: "vz-wordy", text: "scale " }), scaleInput]), this.room.button]),
      ...(this.offline ? [this.offline] : []),
      this.viewport.legend,
      this.note,
      this.findRow,
      this.room.body, // the graph's frame with the player, and the step panel
      this.drawing.tip,
      this.access.announcer,
    );
    if (this.memory) this.room.graph.append(this.memory.element); // under the graph
    el.append(root);
    // the model's events this stepper listens to, let go when it closes (a what-if redraw)
    this.listeners = [
      ["change:step", showStep],
      ["change:view", () => { if (model.get("view") !== this.view) this.setView(model.get("view")); }],
      ["change:scale", () => this.applyScale()],
    ];
    for (const [event, fn] of this.listeners) model.on(event, fn);
    // the graph's frame, told to Python (a live widget), which chooses the picture for it
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
    this.drawing.tip.style.display = "none"; // the box hovered may be gone
    this.drawing.use(frame);
    this.finder.reset();
    if (frame.svg === undefined) {
      this.layOutFrame(frame, what);
      return false;
    }
    this.viewport.say(null);
    this.root.dataset.layout = "done";
    if (frame.laidOut) { // laid out in this page (when shown, or ahead: prepare): how, for tests
      this.root.dataset.layoutMs = frame.laidOut.ms.toFixed(0);
      this.root.dataset.layoutThread = frame.laidOut.thread;
    }
    const keep = this.access.holding(); // a box had the focus: the new drawing's takes it
    this.viewport.show(frame.svg, this.view);
    this.note.textContent = frame.note || ""; // what the picture is (bounded, folded, summarised)
    const big = bigView(frame);
    this.findRow.hidden = !big;
    this.drawing.index();
    for (const id of frame.collapsed || []) {
      // a box this page cannot open (no Python, and the output does not carry its boxes)
      // says so when clicked (sealed)
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
    // one layout per frame, whichever component of the page asked for it first
    if (!layoutJobs.has(frame)) layoutJobs.set(frame, layOutOffThread(this.model.get("_graphviz"), frame.dot));
    const job = layoutJobs.get(frame);
    viewport.element.append(busyNote(`laying out ${what}…`, job));
    this.showStep();
    if (this.listening.has(job)) return; // shown when done, by the handlers below
    this.listening.add(job);
    job.promise.then(({ svg, ms, thread }) => {
      frame.svg = svg;
      frame.laidOut = { ms, thread };
      if (this.drawing.frame !== frame) return;
      this.showFrame(frame, what);
    }, (err) => {
      if (layoutJobs.get(frame) === job) layoutJobs.delete(frame); // asked again, laid out again
      if (this.drawing.frame !== frame) return;
      root.dataset.layout = "failed";
      viewport.say(`vizad could not lay out ${what} in the browser: ${err.message || err}` +
        (err.name === "LayoutStopped" ? " (the steps and the panels still work; show the view again to retry)" : ""));
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
        if (frame.svg !== undefined || layoutJobs.has(frame)) return layoutJobs.get(frame)?.promise;
        const job = layOutOffThread(graphviz, frame.dot);
        layoutJobs.set(frame, job);
        return job.promise.then(({ svg, ms, thread }) => {
          if (frame.svg === undefined) Object.assign(frame, { svg, laidOut: { ms, thread } });
          this.root.dataset.prepared = `${this.root.dataset.prepared ?? ""} ${id}`.trim(); // (for tests)
        }, () => {
          if (layoutJobs.get(frame) === job) layoutJobs.delete(frame); // laid out again when opened
        });
      }).catch(() => {}), Promise.resolve()); // a failure is said when the box is opened
    });
  }

  // open a collapsed box of the view shown (or close it, if open), and show the step in it
  toggleBox(id) {
    const v = this.view;
    const label = (this.drawing.frame?.tips[id]?.head || id).split("\n")[0];
    const wasOpen = this.opener.opened(v).includes(id);
    if (!wasOpen) this.viewport.say(`opening “${label}”…`);
    // settled once the view is shown opened (laid out first, if need be)
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
    this.viewport.element.append(h("div", { class: "vz-busy vz-sealed-note", role: "status",
      text: this.offline ? "opening this block needs Python: run the cell"
        : "this page does not carry the boxes inside this block: opening it needs Python (vz.step)" }));
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
    const k = this.player.step(); // 1-based
    const i = k - 1;
    this.quiz.arrive(i); // going on past a question skips it (its values shown)
    if (this.drawing.frame) this.drawing.restyle(i);
    this.counter.textContent = `Step ${k} of ${this.n}: ${this.data.steps[i].label}`;
    // a quiz step not answered yet: its own boxes keep their values hidden
    if (this.quiz.asks(i) && this.drawing.frame) this.drawing.hideOwn(i);
    this.panel.show(i);
    this.player.show(k);
    this.viewport.settle();
    this.minimap.update();
    this.access.showStep();
    this.memory?.show();
    // a step taken here (the component has the keys): its graph and controls seen whole
    if (this.root.contains(this.root.getRootNode().activeElement)) this.room.bringIntoView();
    // for the page around it: vizad's JupyterLab extension writes the step into the notebook
    const detail = { step: k, snapshot: () => this.snapshot() };
    this.root.dispatchEvent(new CustomEvent("vizad-step", { bubbles: true, detail }));
  }

  // The step shown as static parts, for the picture a saved notebook carries (what GitHub
  // shows): the drawing as SVG text with its computed styles written in (an image keeps no
  // page CSS) on the page's background, and the step's panel. null while a quiz asks.
  snapshot() {
    const svg = this.viewport.stage.querySelector("svg");
    if (!svg || this.quiz.asks(this.player.step() - 1)) return null;
    const copy = svg.cloneNode(true);
    const from = svg.querySelectorAll(SNAPSHOT_SHAPES);
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
    let behind = this.root; // the first background behind the component
    while (behind.parentElement && /^(transparent|rgba\(0, 0, 0, 0\))$/.test(getComputedStyle(behind).backgroundColor)) {
      behind = behind.parentElement;
    }
    copy.setAttribute("style", `background:${getComputedStyle(behind).backgroundColor}`);
    // the panel's elements (built from data, panel.js) serialised: read, never assigned
    return { svg: new XMLSerializer().serializeToString(copy), panel: this.panel.panel.innerHTML };
  }

  // -- presentation scale ----------------------------------------------------------------------
  applyScale() {
    const s = this.model.get("scale") || 1;
    this.root.style.setProperty("--vz-scale", String(s));
    this.scaleInput.value = String(s);
    if (this.drawing.frame) { this.viewport.refit(); this.showStep(); }
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
}

// A model for pages without a kernel (the exported page, a saved notebook's HTML view): the
// same get/set/on/save_changes as an anywidget model, kept in the page.
export function localModel(values) {
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
    save_changes: () => {},
    inPage: true,
  };
}

// what the component reads of a host's model without a kernel; the view and the step default
// to the walkthrough's own
function hostState(model) {
  const data = model.get("data");
  const state = { data, connected: false, view: model.get("view") ?? data?.view, step: model.get("step") ?? data?.step ?? 1 };
  for (const k of ["scale", "_graphviz", "picture", "notebook"]) if (model.get(k) !== undefined) state[k] = model.get(k);
  return state;
}

// anywidget's entry point, exported as the default object's `render` (anywidget >= 0.9 warns
// about a module exporting `render` by name); the pages call it through `mount`
function render({ model, el }) {
  // a host's model without a kernel (MyST's {anywidget}: the directive's JSON as the state, a
  // model whose save_changes, off and send throw): the component keeps that state in the page
  if (model.get("connected") === false && !model.inPage) model = localModel(hostState(model));
  // the Graphviz module a live widget was sent serves the page's outputs that wait for it
  if (model.get("_graphviz")) globalThis.vizadGraphviz ??= model.get("_graphviz");
  if (model.get("picture")) return renderPicture({ model, el });
  // a live widget's walkthrough comes packed (`_data`, vizad/view/widget/stepper.py: gzip-
  // compressed JSON in base64), inflated here; a page's model holds it as `data`
  if (model.get("data") === undefined && model.get("_data")) {
    return inflateJson(model.get("_data")).then((data) => show(model, el, data));
  }
  return show(model, el, model.get("data"));
}

// the stepper of walkthrough `data` in `el`, drawn anew when Python sends another
function show(model, el, data) {
  if (!data || !data.n) {
    el.textContent = "vizad: this walkthrough has no steps";
    return;
  }
  let stepper = new Stepper({ model, el, data });
  // a front end shows this widget: Python stops updating its saved output (headless builds)
  if (model.get("connected") !== false && typeof model.send === "function") model.send({ kind: "shown" });
  // the walkthrough traced again (an input edited, what-if): drawn anew, at the same step
  let latest = 0; // the walkthrough sent last is the one drawn, whichever inflates first
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

// Run the component without a kernel on element `rootId`, from the JSON in element `dataId`
// (the exported page, a notebook output's HTML rendering) at the step of its
// `data-vizad-step` attribute (else data.step, else 1): `replace` first empties the
// element (a static picture of the step), `focus` gives it the keys; `graphvizId` is the
// element holding the Graphviz module's text (as JSON) when views are laid out here (else
// `graphviz`, that text itself); `scale`: the presentation scale it opens at (export_html's);
// `notebook`: a notebook output (static/boot.js), which says it is not connected to Python
// (an exported page does not).
export async function mount(rootId, dataId, { focus = false, replace = false, graphvizId = null, graphviz: text = "", scale = 1, notebook = false } = {}) {
  const root = document.getElementById(rootId);
  let data = JSON.parse(document.getElementById(dataId).textContent);
  if (data.gz) data = await inflateJson(data.gz); // an exported page's data, packed
  if (data.hidden) data = JSON.parse(reveal(data.hidden, 0)); // a quiz page
  const graphviz = graphvizId ? JSON.parse(document.getElementById(graphvizId).textContent) : text;
  const step = Number(root.dataset.vizadStep) || data.step || 1; // a notebook output's saved step
  if (replace) root.replaceChildren();
  const model = localModel({ data, step, view: data.view, scale, _graphviz: graphviz, connected: false, notebook });
  render({ model, el: root });
  if (focus) root.querySelector(".vizad-stepper").focus();
}

// A drawing laid out in the browser without a kernel (vz.draw's HTML output): the DOT and its
// sizes from the JSON in element `dataId`, the Graphviz module as for `mount`.
function mountPicture(rootId, dataId, { graphvizId = null, graphviz: text = "" } = {}) {
  const root = document.getElementById(rootId);
  const picture = JSON.parse(document.getElementById(dataId).textContent);
  const graphviz = graphvizId ? JSON.parse(document.getElementById(graphvizId).textContent) : text;
  root.replaceChildren();
  renderPicture({ model: localModel({ picture, _graphviz: graphviz }), el: root });
}

export default { render };

// The component for the notebook outputs that do not carry it (static/boot.js) and the widgets
// whose models do not (static/shim.js): the first copy loaded in the page, by an output that
// carries it or by the live widget.
globalThis.vizadComponent ??= { mount, mountPicture, render };
