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
  if (p.elements) elementCells(sum, p.elements, cells);
  else if (p.cells?.ask && cells.ask) elementCells(sum, (p.asked ??= []), cells); // asked of Python
  // why its cells do not open here (no kernel to make them: past the page's budgets; or each
  // cell the mean of a block), in a muted line under the heatmap
  else if (p.cells) box.append(h("div", { class: "vz-muted vz-cells-note", text: p.cells.why }));
  box.append(h("div", { class: "vz-math", text: p.line }));
  if (p.source !== undefined) box.append(h("div", { class: "vz-muted vz-source", text: p.source }));
  if (p.nonfinite !== undefined) box.append(h("div", { class: "vz-nan-note", text: p.nonfinite }));
  if (p.fail !== undefined) box.append(h("div", { class: "vz-fail", text: p.fail }));
  return box;
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

// A live widget's requests for the entries of cells its page does not carry (vizad/view/
// widget/messages.py's element): one per cell asked, answered by Python's element_entry
const KERNEL_WAIT_MS = 120_000; // an answer not come by then has failed
export class CellAsker {
  constructor(model) {
    this.model = model;
    // a kernel answers: a live widget's model (a page's model has no send)
    this.kernel = model.get("connected") !== false && typeof model.send === "function";
    this.waiting = new Map(); // "step cell" -> { promise, resolve, reject }
    this.onMessage = (msg) => this.received(msg);
    if (this.kernel) model.on("msg:custom", this.onMessage);
  }

  // step i's (0-based) cell k: a promise of its entry (null: it has none)
  ask(i, k) {
    const id = `${i} ${k}`;
    if (!this.waiting.has(id)) {
      const w = {};
      w.promise = new Promise((resolve, reject) => { w.resolve = resolve; w.reject = reject; });
      this.waiting.set(id, w);
      this.model.send({ kind: "element", step: i, cell: k });
      setTimeout(() => {
        if (this.waiting.get(id) !== w) return;
        this.waiting.delete(id);
        w.reject(new Error("the kernel did not answer: run the cell again"));
      }, KERNEL_WAIT_MS);
    }
    return this.waiting.get(id).promise;
  }

  received(msg) {
    if (!msg || msg.kind !== "element") return;
    const id = `${msg.step} ${msg.cell}`;
    const w = this.waiting.get(id);
    if (!w) return;
    this.waiting.delete(id);
    if (msg.error) w.reject(new Error(msg.error));
    else w.resolve(msg.entry ?? null);
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
      panel.replaceChildren(panelElement(data.steps[i].panel, data.contributionsHead || [],
        { opened: this.opened?.cell ?? null, onOpen, ask: this.asker && ((k) => this.asker.ask(i, k)) }));
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

  close() {
    this.asker?.close();
  }
}
