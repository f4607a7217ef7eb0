// mount.js: the component's entry, the last part: `render` (anywidget's, and the pages') and
// `mount` (the pages without a kernel). It alone exports.

const STATES = ["current", "consumer", "involved", "done", "pending", "failed"];
const TABLE_ROWS = 40; // rows of the running table shown at once

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
  // a quiz: each step's result is typed before it is shown
  const quiz = data.quiz || null;
  const shown = new Set(); // steps answered or revealed
  const tries = new Map();
  const score = { right: 0, asked: 0 };

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
  const scoreBox = h("div", { class: "vz-score", "aria-live": "polite", text: quiz ? "score 0/0" : "" });
  const panel = h("div", { class: "vz-step-panel" });
  const table = h("div", { class: "vz-table" });
  const below = h("div", { class: "vz-below" }, [panel, table]);
  root.append(style, h("div", { class: "vz-head-row" }, [title, counter, scoreBox]), top, viewport.element, player.element, below, tip);
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
    const asking = quiz && quiz[i] && !shown.has(i);
    if (asking) {
      // the step's own boxes keep their values hidden until it is answered
      for (const [id, owner] of Object.entries(frame.owner)) {
        if (owner === i && id in frame.hides) hideValue(id, frame.hides[id]);
      }
      askPanel(i);
    } else {
      panel.innerHTML = rec.panel;
      // the head of the table of contributions is the same in every step: sent once
      if (data.contributionsHead) panel.querySelector(".vz-contributions")?.insertAdjacentHTML("afterbegin", data.contributionsHead);
      if (feedback) panel.prepend(feedback);
    }
    feedback = null;
    // the running table: the newest rows (a long walkthrough shows its last TABLE_ROWS)
    const rows = [];
    for (let j = asking ? i - 1 : i; j >= Math.max(0, i - TABLE_ROWS + 1); j--) {
      rows.push(j === i ? rec.row.replace("<tr", '<tr data-now="true"') : quiz && quiz[j] && !shown.has(j) ? "" : data.steps[j].row);
    }
    const earlier = Math.max(0, i - TABLE_ROWS + 1); // steps older than the oldest row
    const more = earlier ? `<div class="vz-muted">… and ${earlier} earlier</div>` : "";
    table.innerHTML = `<div class="vz-muted">${data.mode === "reverse" ? "adjoints" : "tangents"} so far</div><table><tbody>${rows.join("")}</tbody></table>${more}`;
    player.show(k);
    viewport.settle();
  }

  // -- a quiz: ask for the step's result, check it, keep the score ----------------------------
  let feedback = null; // what the last answer earned, shown above the revealed panel
  let leaving = false; // Esc: the keys go back to the steps
  // the component getting the keys (a click, the page opening) gives them to the question
  root.addEventListener("focus", () => {
    const input = panel.querySelector(".vz-answer");
    if (input && !leaving) input.focus({ preventScroll: true });
  });
  function askPanel(i) {
    const input = h("input", { class: "vz-answer", type: "text", inputmode: "decimal",
      "aria-label": `${quiz[i].q} =`, autocomplete: "off" });
    const note = h("div", { class: "vz-feedback", "aria-live": "polite" });
    const check = () => answer(i, input, note);
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") { e.preventDefault(); check(); }
      else if (e.key === "Escape") { e.preventDefault(); leaving = true; root.focus({ preventScroll: true }); leaving = false; }
    });
    const hadKeys = root.contains(document.activeElement); // before the old question goes
    panel.replaceChildren(h("div", { class: "vz-quiz" }, [
      h("div", { class: "vz-quiz-q" }, [h("b", { text: `${quiz[i].q} = ` }), input,
        h("button", { class: "vz-check", text: "check", onclick: check })]),
      h("div", { class: "vz-muted", text: "type the value, then Enter (Esc: back to the steps)" }),
      note,
    ]));
    if (hadKeys) input.focus({ preventScroll: true });
  }
  function answer(i, input, note) {
    const typed = parseFloat(input.value.replace("−", "-").replace(",", "."));
    if (Number.isNaN(typed)) { note.textContent = "type a number"; return; }
    const right = parseFloat(reveal(quiz[i].a, i));
    const ok = Number.isInteger(right) ? typed === right
      : Math.abs(typed - right) <= 1e-3 * Math.abs(right);
    const tried = (tries.get(i) || 0) + 1;
    tries.set(i, tried);
    if (!ok && tried < 2) {
      note.textContent = `not ${input.value}: try again (one more try)`;
      input.select();
      return;
    }
    shown.add(i);
    score.asked += 1;
    if (ok) score.right += 1;
    scoreBox.textContent = `score ${score.right}/${score.asked}`;
    model.set("score", { ...score });
    model.save_changes();
    feedback = h("div", { class: ok ? "vz-right" : "vz-wrong",
      text: ok ? `right: ${quiz[i].q} = ${input.value}` : `the answer: ${quiz[i].q} = ${+right.toPrecision(6)}` });
    showStep(); // the revealed panel: no question left to take the keys
    root.focus({ preventScroll: true });
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
