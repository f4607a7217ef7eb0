// mount.js: the component's entry, the last part. A Stepper wires the parts together (the
// viewport with the drawing in it, the player, the quiz, the panel) with the views and the
// presentation scale; `render` (anywidget's, and the pages') makes one, `mount` runs one
// without a kernel. This part alone exports.

class Stepper {
  constructor({ model, el, data }) {
    this.model = model;
    this.data = data;
    const n = (this.n = data.n);
    // a view whose step states are those of another view is sent without them ("stepsOf")
    for (const f of Object.values(data.frames)) if (f.stepsOf) f.steps = data.frames[f.stepsOf].steps;
    this.view = model.get("view") || data.view;
    const root = (this.root = h("div", { class: "vizad-stepper mathjax_ignore tex2jax_ignore", tabindex: "0" }));
    const showStep = () => this.showStep();
    this.player = new Player({ model, n, root, changed: showStep });
    this.viewport = new Viewport({
      root,
      scale: () => model.get("scale") || 1,
      target: () => this.drawing.focus(this.player.step() - 1),
      ready: () => this.drawing.size > 0,
      legend: data.legend,
    });
    this.drawing = new Drawing({
      stage: this.viewport.stage,
      root,
      failed: new Set(data.failed),
      step: () => this.player.step(),
      go: (k) => this.player.go(k),
    });
    this.quiz = new Quiz({ model, questions: data.quiz || null, root, answered: showStep });
    this.panel = new Panel({ data, quiz: this.quiz });
    this.room = new Room({ root, viewport: this.viewport, player: this.player, panel: this.panel });
    this.counter = h("div", { class: "vz-counter", "aria-live": "polite" });
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
      h("div", { class: "vz-head-row" }, [h("div", { class: "vz-title", text: data.title, title: data.title }), this.counter, this.quiz.scoreBox]),
      h("div", { class: "vz-top" }, [this.views, this.viewport.bar,
        h("label", { class: "vz-scale-label", text: "scale " }, [scaleInput]), this.room.button]),
      this.viewport.legend,
      this.room.body, // the graph's frame with the player, and the step panel
      this.drawing.tip,
    );
    el.append(root);
    model.on("change:step", showStep);
    model.on("change:view", () => { if (model.get("view") !== this.view) this.setView(model.get("view")); });
    model.on("change:scale", () => this.applyScale());
    this.applyScale();
    this.setView(data.frames[this.view] ? this.view : data.view);
  }

  // -- views ---------------------------------------------------------------------------------
  setView(v) {
    const { data, model } = this;
    if (!data.frames[v]) return;
    this.view = v;
    if (model.get("view") !== v) {
      model.set("view", v);
      model.save_changes();
    }
    const frame = data.frames[v];
    for (const b of this.views.querySelectorAll("button")) {
      b.setAttribute("aria-pressed", String(b.dataset.view === v));
    }
    this.drawing.use(frame);
    if (frame.svg === undefined) {
      this.layOutView(v);
      return;
    }
    this.viewport.show(frame.svg, v);
    this.drawing.index();
    this.showStep();
  }

  // a view sent as DOT: laid out once, here; the panels work meanwhile
  layOutView(v) {
    const { root, viewport } = this;
    const f = this.drawing.frame;
    viewport.clear();
    viewport.say(`laying out the ${v} view…`);
    root.dataset.layout = "busy";
    this.showStep();
    layOut(this.model.get("_graphviz"), f.dot).then(({ svg, ms }) => {
      f.svg = svg;
      root.dataset.layoutMs = ms.toFixed(0);
      root.dataset.layout = "done";
      viewport.say(null);
      if (this.view === v) this.setView(v);
    }, (err) => {
      root.dataset.layout = "failed";
      viewport.say(`vizad could not lay out this view in the browser: ${err.message || err}`);
    });
  }

  // -- one step: restyle by id, fill the panels ----------------------------------------------
  showStep() {
    const k = this.player.step(); // 1-based
    const i = k - 1;
    this.drawing.restyle(i);
    this.counter.textContent = `Step ${k} of ${this.n}: ${this.data.steps[i].label}`;
    // a quiz step not answered yet: its own boxes keep their values hidden
    if (this.quiz.asks(i)) this.drawing.hideOwn(i);
    this.panel.show(i);
    this.player.show(k);
    this.viewport.settle();
  }

  // -- presentation scale ----------------------------------------------------------------------
  applyScale() {
    const s = this.model.get("scale") || 1;
    this.root.style.setProperty("--vz-scale", String(s));
    this.scaleInput.value = String(s);
    if (this.drawing.frame) { this.viewport.refit(); this.showStep(); }
  }

  close() {
    this.player.close();
    this.viewport.close();
    this.room.close();
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
    off: () => {},
    save_changes: () => {},
  };
}

// anywidget's entry point, exported as the default object's `render` (anywidget >= 0.9 warns
// about a module exporting `render` by name); the pages call it through `mount`
function render({ model, el }) {
  if (model.get("picture")) return renderPicture({ model, el });
  const data = model.get("data");
  if (!data || !data.n) {
    el.textContent = "vizad: this walkthrough has no steps";
    return;
  }
  const stepper = new Stepper({ model, el, data });
  return () => stepper.close();
}

// Run the component without a kernel on element `rootId`, from the JSON in element `dataId`
// (the exported page, a notebook output's HTML rendering): `replace` first empties the
// element (a static picture of the step), `focus` gives it the keys; `graphvizId` is the
// element holding the Graphviz module's text (as JSON) when views are laid out here.
export function mount(rootId, dataId, { focus = false, replace = false, graphvizId = null } = {}) {
  const root = document.getElementById(rootId);
  let data = JSON.parse(document.getElementById(dataId).textContent);
  if (data.hidden) data = JSON.parse(reveal(data.hidden, 0)); // a quiz page
  const graphviz = graphvizId ? JSON.parse(document.getElementById(graphvizId).textContent) : "";
  if (replace) root.replaceChildren();
  const model = localModel({ data, step: data.step || 1, view: data.view, scale: 1, _graphviz: graphviz });
  render({ model, el: root });
  if (focus) root.querySelector(".vizad-stepper").focus();
}

export default { render };
