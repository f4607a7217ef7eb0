// panel.js: below the drawing, the step panel (the step's derivation, or the quiz's question)
// and the running table of the results so far. Python sends each step's panel and row as data
// (vizad/trace/panel.py: text, shown values, table rows as lists of cells); the elements are
// built here, every piece of text set as text (vizad/view/widget/snapshot.py builds the same
// elements for a stepper's static picture).

import { h } from "./helpers.js";

const TABLE_ROWS = 40; // rows of the running table shown at once
const KEEP_ROWS = 6; // rows of the table of partial adjoints kept in view, stacked
const FILL = /^#[0-9a-f]{6}$/i; // a heatmap cell's colour, from Python's palette
// a heatmap of more rows, columns or cells than the drawings' (the step's result in its panel,
// up to 64 × 64 cells) draws smaller cells (vz-heat-fine; snapshot.py's FINE_ROWS, …): a tall
// one (an LSTM's 16×3 weight) leaves the table of partial adjoints room in a stacked panel
const FINE_ROWS = 12;
const FINE_COLUMNS = 24;
const FINE_CELLS = 12 * 24;

// a shown value (vizad/trace/values.py): its text, a muted note, a tuple's values, or a
// tensor's heatmap (its cells' colours Python's, their numbers on hover), as nodes and text
export function shown(v) {
  if (typeof v === "string") return [v];
  if (v.muted !== undefined) return [h("span", { class: "vz-muted", text: v.muted })];
  if (v.tuple) return ["(", ...v.tuple.flatMap((x, j) => (j ? [", ", ...shown(x)] : shown(x))), ")"];
  if (!v.heat) return [];
  const { columns, cells, label, caption } = v.heat;
  const fine = Number(columns) > FINE_COLUMNS || cells.length > FINE_CELLS
    || cells.length > FINE_ROWS * Number(columns);
  const grid = h("span", { class: fine ? "vz-heat vz-heat-fine" : "vz-heat", role: "img", "aria-label": label }, cells.map(([fill, tip]) => {
    const cell = h("span", { title: tip });
    if (FILL.test(fill)) cell.style.backgroundColor = fill;
    return cell;
  }));
  grid.style.gridTemplateColumns = `repeat(${Number(columns)},auto)`;
  return [grid, h("span", { class: "vz-scale", text: caption })];
}

// a list of parts (text and shown values), as nodes and text
export const parts = (list) => list.flatMap(shown);

// a table head's words, each kept whole (a span that does not wrap: "consumer", "value"),
// the spaces between them where it may wrap; a fraction may wrap after its slash ("∂vⱼ/", "∂vᵢ")
const words = (text) => text.split(" ").flatMap((w, k) => [...(k ? [" "] : []),
  ...w.split(/(?<=\/)(?=.)/).map((part) => h("span", { class: "vz-word", text: part }))]);

// step `p`'s panel (vizad/trace/panel.py's step_panel); `head`: its table's head, sent once;
// `cells`: the element cell open at first (`opened`) and what opening one calls (`onOpen`)
export function panelElement(p, head, cells = {}) {
  const box = h("div", { class: "vz-panel" }, [
    h("div", { class: "vz-head", text: p.head }),
    h("div", { class: "vz-muted" }, parts(p.about)),
  ]);
  if (p.note !== undefined) box.append(h("div", { class: "vz-muted", text: p.note }));
  if (p.rows) {
    box.append(h("table", { class: "vz-contributions" }, [
      h("thead", {}, [h("tr", {}, head.map((name) => h("th", {}, words(name))))]),
      h("tbody", {}, p.rows.map((row) => h("tr", {}, row.map((cell) => h("td", {}, parts(cell)))))),
    ]));
  }
  const sum = h("div", { class: "vz-sum" }, [p.sum, h("b", {}, shown(p.total))]);
  box.append(sum);
  const fine = sum.querySelector(":scope > b > .vz-heat-fine"); // up to 64 × 64 cells
  if (fine) zoomable(fine, cells);
  if (p.elements) elementCells(sum, p.elements, cells);
  else if (p.cells?.ask && cells.ask) elementCells(sum, (p.asked ??= []), cells); // asked of Python
  // a live widget draws a heatmap averaged for the walkthrough's budget cell by cell (Panel
  // asks Python, then shows the step again): said meanwhile
  else if (p.cells?.fine && cells.fine) box.append(h("div", { class: "vz-muted vz-cells-note", text: "drawing it cell by cell…" }));
  // why its cells do not open here (no kernel to make them: past the page's budgets; or each
  // cell the mean of a block), in a muted line under the heatmap
  else if (p.cells) box.append(h("div", { class: "vz-muted vz-cells-note", text: p.cells.why }));
  box.append(h("div", { class: "vz-math", text: p.line }));
  if (p.source !== undefined) box.append(h("div", { class: "vz-muted vz-source", text: p.source }));
  if (p.nonfinite !== undefined) box.append(h("div", { class: "vz-nan-note", text: p.nonfinite }));
  if (p.fail !== undefined) box.append(h("div", { class: "vz-fail", text: p.fail }));
  return box;
}

// a fine heatmap's cell, in CSS px, at each zoom (stepper.css's --vz-cell): 64 cells of 5 px
// are 320 px, the box it scrolls in at most that (so a zoom never changes the panel's height)
export const CELL_PX = [5, 10, 15, 20];
const PAN_PX = 4; // a press that moves this far pans the box (not a click on a cell)
const PAN_KEY_PX = 40; // an arrow key on the box scrolls it this far

// The fine heatmap `grid` (the step's result, up to 64 × 64) in a box that scrolls, with a
// control beside it, "−" and "+", that scales its cells (CELL_PX); the box pans by scrolling, by
// dragging, and by the arrows when it has the focus. `zoom`: the zoom it opens at (an index of
// CELL_PX), `onZoom(level)` told each change (Panel keeps it from step to step).
function zoomable(grid, { zoom = 0, onZoom = () => {} } = {}) {
  let level = Math.max(0, Math.min(CELL_PX.length - 1, zoom));
  const box = h("span", { class: "vz-heat-box" });
  grid.replaceWith(box);
  box.append(grid);
  const button = (text, label, by) => h("button", { type: "button", class: "vz-zoom-cells", text, title: label,
    "aria-label": label, onclick: () => set(level + by) });
  const less = button("−", "smaller heatmap cells", -1);
  const more = button("+", "larger heatmap cells", 1);
  box.after(h("span", { class: "vz-heat-zoom", role: "group", "aria-label": "heatmap zoom" }, [less, more]));
  const apply = () => {
    grid.style.setProperty("--vz-cell", `${CELL_PX[level]}px`);
    box.dataset.zoom = String(CELL_PX[level]);
    less.disabled = level === 0;
    more.disabled = level === CELL_PX.length - 1;
  };
  // the box keeps the point at its middle in the middle (the cells grow around it)
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
  // a box that scrolls is reached by Tab (its arrows scroll it: player.js leaves them to it)
  const scrolls = () => {
    const over = box.scrollWidth > box.clientWidth + 1 || box.scrollHeight > box.clientHeight + 1;
    if (over) {
      box.setAttribute("tabindex", "0");
      box.setAttribute("role", "region");
      box.setAttribute("aria-label", "the heatmap, zoomed: scroll or drag to pan");
    } else for (const a of ["tabindex", "role", "aria-label"]) box.removeAttribute(a);
  };
  // the arrows on the focused box scroll it (here: the notebook's own keys would take them)
  box.addEventListener("keydown", (e) => {
    const by = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowDown: [0, 1], ArrowUp: [0, -1] }[e.key];
    if (e.target !== box || !by || e.altKey || e.ctrlKey || e.metaKey) return;
    e.preventDefault();
    e.stopPropagation();
    box.scrollBy(by[0] * PAN_KEY_PX, by[1] * PAN_KEY_PX);
  });
  // drag to pan: a press that moves pans, and is no click on a cell
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
      // the click that ends a drag opens no cell
      const swallow = (e) => { e.stopPropagation(); e.preventDefault(); };
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

// the heatmap of v̄ᵢ in `sum`: a click (or Enter) on a cell shows that element's walkthrough
// below it, its terms and their sum (`elements`: vizad/trace/panel.py's element_cells, one per
// cell, null where the element has none); `onOpen(k, lit)` is told the cell opened and the
// cells its terms read ([tensor key, cell]: Panel lights them); `opened`: the cell open at first;
// `ask(k)`: a live widget's promise of cell k's entry made by Python (element_entry), for the
// cells the page does not carry (`elements[k]` undefined until it answers, kept there)
function elementCells(sum, elements, { opened = null, onOpen = () => {}, ask = null } = {}) {
  const grid = sum.querySelector(".vz-heat");
  if (!grid) return;
  const cells = [...grid.children];
  grid.setAttribute("role", "group"); // (an image holds no buttons: a group of them)
  const shownBox = h("div", { class: "vz-element", "aria-live": "polite" });
  const opens = (k) => (ask ? elements[k] !== null : Boolean(elements[k]));
  let asking = null; // the cell whose entry Python is making
  const show = (k, e) => {
    // the terms as a list in columns (stepper.css): eight of them take two or three lines
    const terms = e.terms.map(([label, value]) => h("li", {}, [
      h("span", { class: "vz-term-label", text: label }), " ", h("span", { class: "vz-term-value", text: value })]));
    shownBox.replaceChildren(
      h("div", { class: "vz-math", text: e.line }),
      h("ul", { class: "vz-element-terms", "aria-label": "its terms" }, terms),
      ...(e.more ? [h("div", { class: "vz-muted", text: `… and ${e.more} more terms` })] : []),
      ...(e.read ? [h("div", { class: "vz-muted", text: e.read })] : []),
      h("div", { class: "vz-muted", text: e.note }),
    );
    onOpen(k, e.lit || []);
  };
  const say = (text) => shownBox.replaceChildren(h("div", { class: "vz-muted", text }));
  const open = (k) => {
    cells.forEach((cell, j) => cell.classList.toggle("vz-cell-open", j === k));
    asking = null;
    if (elements[k]) return show(k, elements[k]);
    asking = k;
    say(`asking Python for element ${cells[k].title.split(" =")[0]}…`);
    onOpen(k, []);
    ask(k).then((entry) => {
      elements[k] = entry ?? null;
      if (asking !== k || !shownBox.isConnected) return; // another cell, or step, since
      asking = null;
      if (entry) return show(k, entry);
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
      // Enter or Space opens the cell; the arrows move to the next cell that opens (not the
      // stepper's step: its keys listen on the window, after the cell)
      const columns = Number(grid.style.gridTemplateColumns.match(/\d+/)?.[0]) || 1;
      const by = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: columns, ArrowUp: -columns }[event.key];
      if (event.key !== "Enter" && event.key !== " " && !by) return;
      event.preventDefault();
      event.stopPropagation();
      let j = k;
      if (by) do j += by; while (j >= 0 && j < cells.length && !opens(j));
      if (j < 0 || j >= cells.length) return;
      cells[j].focus();
      open(j);
    });
  });
  sum.after(shownBox);
  if (opened !== null && opens(opened)) open(opened);
}

// A live widget's requests for what its page does not carry (vizad/view/widget/messages.py's
// element): a cell's entry (Python's element_entry), and a step's result cell by cell past the
// walkthrough's budget of such cells (fine_total); each asked once
const KERNEL_WAIT_MS = 120_000; // an answer not come by then has failed
export class CellAsker {
  constructor(model) {
    this.model = model;
    // a kernel answers: a live widget's model (a page's model has no send)
    this.kernel = model.get("connected") !== false && typeof model.send === "function";
    this.waiting = new Map(); // "kind step cell" -> { promise, resolve, reject }
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
      w.promise = new Promise((resolve, reject) => { w.resolve = resolve; w.reject = reject; });
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
    if (!msg || (msg.kind !== "element" && msg.kind !== "fine")) return;
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
}

// a row of the running table (vizad/trace/panel.py's running_row); `now`: the current step's
export function rowElement(row, now) {
  const tr = h("tr", row.bad ? { class: "vz-bad" } : {}, row.cells.map((cell) => h("td", {}, parts(cell))));
  if (now) tr.setAttribute("data-now", "true");
  // the tensor its heatmap shows, by key: an open element lights the cells it reads there
  if (row.key) tr.querySelector(".vz-heat")?.setAttribute("data-key", row.key);
  return tr;
}

export class Panel {
  // `data`: the walkthrough (its steps' panels and table rows); `quiz`: which steps ask
  // `asker`: a live widget's CellAsker (the cells the page does not carry, made by Python)
  constructor({ data, quiz, asker = null }) {
    this.data = data;
    this.quiz = quiz;
    this.asker = asker?.kernel ? asker : null;
    this.zoom = 0; // the zoom of the step's fine heatmap (CELL_PX), kept from step to step
    this.panel = h("div", { class: "vz-step-panel" });
    this.table = h("div", { class: "vz-table" });
    this.element = h("div", { class: "vz-below" }, [this.panel, this.table]);
    this.opened = null; // the element cell open: { step, cell }, kept while its step is shown
    this.lit = []; // [tensor key, cell] its terms read
    this.litCells = []; // the cells of the running table lit for them
    this.onLight = null; // onLight(lit): the drawing lights them in its boxes (mount.js)
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
    if (!box.offsetHeight) return; // no height (not on screen yet)
    const table = box.querySelector(".vz-contributions");
    const rows = table ? table.querySelectorAll("tr") : [];
    const last = rows[Math.min(rows.length, KEEP_ROWS + 1) - 1];
    let need = box.scrollHeight;
    if (last) {
      const least = last.offsetTop + last.offsetHeight + 1;
      table.style.minHeight = `${least}px`;
      need += least - table.clientHeight;
      // and at least down to that row's bottom, as the browser places it: a panel held to its
      // height shrinks its contents (flex), which scrollHeight then under-counts
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
      let building = true; // the cell reopened while the table is made: lit after it
      const onOpen = (cell, lit) => {
        this.opened = { step: i, cell };
        this.lit = lit;
        if (!building) this.light();
      };
      const p = data.steps[i].panel;
      panel.replaceChildren(panelElement(p, data.contributionsHead || [],
        { opened: this.opened?.cell ?? null, onOpen, ask: this.asker && ((k) => this.asker.ask(i, k)),
          zoom: this.zoom, onZoom: (level) => { this.zoom = level; }, fine: Boolean(this.asker) }));
      if (p.cells?.fine && this.asker) this.drawFine(i, p);
      building = false;
      if (feedback) panel.prepend(feedback);
      this.keepRows();
    }
    // the running table: the newest rows (a long walkthrough shows its last TABLE_ROWS)
    const rows = [];
    for (let j = asking ? i - 1 : i; j >= Math.max(0, i - TABLE_ROWS + 1); j--) {
      if (j === i || !quiz.asks(j)) rows.push(rowElement(data.steps[j].row, j === i));
    }
    const earlier = Math.max(0, i - TABLE_ROWS + 1); // steps older than the oldest row
    const word = data.mode === "reverse" ? "adjoints" : "tangents";
    this.table.replaceChildren(
      h("div", { class: "vz-muted", text: `${word} so far` }),
      h("table", {}, [h("tbody", {}, rows)]),
      ...(earlier ? [h("div", { class: "vz-muted", text: `… and ${earlier} earlier` })] : []),
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
    }, (err) => { // said under the heatmap, not asked again
      const step = this.data.steps[i];
      if (step.panel !== p) return;
      step.panel = { ...p, cells: { why: `${p.cells.why} (Python could not draw it cell by cell: ${err.message || err})` } };
      if (this.shown === i) this.show(i);
    });
  }

  close() {
    this.asker?.close();
  }
}
