// mount.js: the component's entry, the last part: `render` (anywidget's, and the pages') and
// `mount` (the pages without a kernel). It alone exports.

const STATES = ["current", "consumer", "involved", "done", "pending", "failed"];

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

export function render({ model, el }) {
  if (model.get("picture")) return renderPicture({ model, el });
  const data = model.get("data");
  if (!data || !data.n) {
    el.textContent = "vizad: this walkthrough has no steps";
    return;
  }
  const n = data.n;
  // a view whose step states are those of another view is sent without them ("stepsOf")
  for (const f of Object.values(data.frames)) if (f.stepsOf) f.steps = data.frames[f.stepsOf].steps;
  const failed = new Set(data.failed);
  let view = model.get("view") || data.view;
  let frame = null; // the current view's data
  let boxes = new Map(); // item id -> <g> of the current view
  let edges = new Map();
  let styled = []; // elements restyled by the last step

  const style = h("style", { text: data.css });
  const title = h("div", { class: "vz-title", text: data.title });
  const counter = h("div", { class: "vz-counter", "aria-live": "polite" });
  const views = h("div", { class: "vz-views", role: "group", "aria-label": "views" });
  for (const v of data.views) {
    views.append(
      h("button", { class: "vz-view", "data-view": v.name, title: v.title, text: v.name,
        onclick: () => setView(v.name) }),
    );
  }
  const scaleInput = h("select", { class: "vz-scale", title: "presentation scale", "aria-label": "scale" });
  for (const s of [0.75, 1, 1.25, 1.5, 2]) {
    scaleInput.append(h("option", { value: String(s), text: `${Math.round(s * 100)}%` }));
  }
  scaleInput.addEventListener("change", () => {
    model.set("scale", parseFloat(scaleInput.value));
    model.save_changes();
  });
  const root = h("div", { class: "vizad-stepper mathjax_ignore tex2jax_ignore", tabindex: "0" });
  const viewport = new Viewport({
    root,
    scale: () => model.get("scale") || 1,
    target: () => {
      const s = frame.steps[step() - 1];
      const g = s.current && boxes.get(s.current);
      return g ? [g, ...s.involved.map((id) => boxes.get(id)).filter(Boolean)] : null;
    },
    ready: () => frame !== null && boxes.size > 0,
  });
  const stage = viewport.stage;
  const player = new Player({ model, n, root, changed: () => showStep() });
  const step = () => player.step();
  const go = (k) => player.go(k);
  const top = h("div", { class: "vz-top" }, [views, viewport.bar, h("label", { class: "vz-scale-label", text: "scale " }, [scaleInput]), viewport.legend]);
  const tip = h("div", { class: "vz-tip", role: "tooltip" });
  const quiz = new Quiz({ model, questions: data.quiz || null, root, answered: () => showStep() });
  const panel = new Panel({ data, quiz });
  root.append(style, h("div", { class: "vz-head-row" }, [title, counter, quiz.scoreBox]), top, viewport.element, player.element, panel.element, tip);
  el.append(root);

  // -- views ---------------------------------------------------------------------------------
  function setView(v) {
    if (!data.frames[v]) return;
    view = v;
    if (model.get("view") !== v) {
      model.set("view", v);
      model.save_changes();
    }
    frame = data.frames[v];
    for (const b of views.querySelectorAll("button")) {
      b.setAttribute("aria-pressed", String(b.dataset.view === v));
    }
    boxes = new Map();
    edges = new Map();
    styled = [];
    if (frame.svg === undefined) {
      layOutView(v);
      return;
    }
    viewport.show(frame.svg);
    for (const g of stage.querySelectorAll("g.node")) boxes.set(g.id, g);
    for (const g of stage.querySelectorAll("g.edge")) edges.set(g.id, g);
    showStep();
  }

  // a view sent as DOT: laid out once, here; the panels work meanwhile
  function layOutView(v) {
    const f = frame;
    viewport.clear();
    viewport.say(`laying out the ${v} view…`);
    root.dataset.layout = "busy";
    showStep();
    layOut(model.get("_graphviz"), f.dot).then(({ svg, ms }) => {
      f.svg = svg;
      root.dataset.layoutMs = ms.toFixed(0);
      root.dataset.layout = "done";
      viewport.say(null);
      if (view === v) setView(v);
    }, (err) => {
      root.dataset.layout = "failed";
      viewport.say(`vizad could not lay out this view in the browser: ${err.message || err}`);
    });
  }

  // -- one step: restyle by id, fill the panels ----------------------------------------------
  function showStep() {
    const k = step(); // 1-based
    const i = k - 1;
    for (const e of styled) {
      e.classList.remove(...STATES.map((s) => `vz-s-${s}`), "vz-hot");
      for (const c of e.querySelectorAll(".vz-hidden")) c.classList.remove("vz-hidden");
    }
    styled = [];
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
      if (owner > i && id in frame.hides) hideValue(id, frame.hides[id]);
    }
    for (const g of styled) g.classList.remove("vz-marked");
    for (const id of s.edges) {
      const g = edges.get(id);
      if (g) { g.classList.add("vz-hot"); styled.push(g); }
    }
    const rec = data.steps[i];
    counter.textContent = `Step ${k} of ${n}: ${rec.label}`;
    if (quiz.asks(i)) {
      // the step's own boxes keep their values hidden until it is answered
      for (const [id, owner] of Object.entries(frame.owner)) {
        if (owner === i && id in frame.hides) hideValue(id, frame.hides[id]);
      }
    }
    panel.show(i);
    player.show(k);
    viewport.settle();
  }

  // a box whose value a later step computes shows its name and formula only
  function hideValue(id, cells) {
    const g = boxes.get(id);
    if (!g) return;
    const texts = g.querySelectorAll(":scope > text");
    if (texts.length > 1) texts[texts.length - 1].classList.add("vz-hidden");
    if (cells) {
      // heatmap cells: no stroke ("transparent" from Graphviz 2, "none" from later versions)
      const polys = g.querySelectorAll(':scope > polygon[stroke="transparent"], :scope > polygon[stroke="none"]');
      for (let c = Math.max(0, polys.length - cells); c < polys.length; c++) polys[c].classList.add("vz-hidden");
    }
  }

  // -- click a box to go to its step; hover for what it is ------------------------------------
  stage.addEventListener("click", (e) => {
    const g = e.target.closest("g.node");
    if (g && g.id in frame.clicks) go(frame.clicks[g.id] + 1);
  });
  stage.addEventListener("mouseover", (e) => {
    const g = e.target.closest("g.node, g.edge");
    if (!g) return;
    let text = "";
    if (g.classList.contains("node")) {
      const t = frame.tips[g.id];
      if (!t) return;
      const i = step() - 1;
      const owner = frame.owner[g.id];
      const known = !(g.id in frame.hides) || owner === undefined || owner <= i;
      text = t.head;
      if (t.value && known) text += `\n${t.value}`;
      if (t.result && t.at <= i) text += `\n${t.result}`;
      else if (t.result) text += "\n(its step comes later)";
    } else {
      text = frame.edgeTips[g.id] || "";
    }
    if (!text) return;
    tip.textContent = text;
    tip.style.display = "block";
    const r = root.getBoundingClientRect();
    tip.style.left = `${e.clientX - r.left + 12}px`;
    tip.style.top = `${e.clientY - r.top + 12}px`;
  });
  stage.addEventListener("mouseout", (e) => {
    if (!e.relatedTarget || !stage.contains(e.relatedTarget) || !e.relatedTarget.closest("g.node, g.edge")) {
      tip.style.display = "none";
    }
  });

  // -- presentation scale ----------------------------------------------------------------------
  function applyScale() {
    const s = model.get("scale") || 1;
    root.style.setProperty("--vz-scale", String(s));
    scaleInput.value = String(s);
    if (frame) { viewport.refit(); showStep(); }
  }

  model.on("change:step", showStep);
  model.on("change:view", () => { if (model.get("view") !== view) setView(model.get("view")); });
  model.on("change:scale", applyScale);
  applyScale();
  setView(data.frames[view] ? view : data.view);
  return () => { player.close(); viewport.close(); };
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
