// panel.js: below the drawing, the step panel (the step's derivation as Python made it, or the
// quiz's question) and the running table of the results so far.

import { h } from "./helpers.js";

const TABLE_ROWS = 40; // rows of the running table shown at once
const KEEP_ROWS = 3; // rows of the table of partial adjoints kept in view, stacked

export class Panel {
  // `data`: the walkthrough (its steps' panels and table rows); `quiz`: which steps ask
  constructor({ data, quiz }) {
    this.data = data;
    this.quiz = quiz;
    this.panel = h("div", { class: "vz-step-panel" });
    this.table = h("div", { class: "vz-table" });
    this.element = h("div", { class: "vz-below" }, [this.panel, this.table]);
  }

  // the table of partial adjoints shrinks (stacked, stepper.css) no lower than its head and
  // KEEP_ROWS rows, or all when fewer: the terms the derivation line adds stay in view. The
  // height the step panel needs so (its key lines, those rows and the rest) goes to `onNeed`
  // (layout.js gives the panel that room when the graph's frame can spare it)
  keepRows() {
    const box = this.panel;
    if (!box.offsetHeight) return; // not laid out (not on screen yet)
    const table = box.querySelector(".vz-contributions");
    const rows = table ? table.querySelectorAll("tr") : [];
    const last = rows[Math.min(rows.length, KEEP_ROWS + 1) - 1];
    let need = box.scrollHeight;
    if (last) {
      const least = last.offsetTop + last.offsetHeight + 1;
      table.style.minHeight = `${least}px`;
      need += least - table.clientHeight;
      // and at least down to that row's bottom, as laid out: a panel already held to its
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
    const rec = data.steps[i];
    const feedback = quiz.takeFeedback(i);
    const asking = quiz.asks(i);
    if (asking) quiz.ask(i, panel);
    else {
      panel.innerHTML = rec.panel;
      // the head of the table of contributions is the same in every step: sent once
      if (data.contributionsHead) panel.querySelector(".vz-contributions")?.insertAdjacentHTML("afterbegin", data.contributionsHead);
      if (feedback) panel.prepend(feedback);
      this.keepRows();
    }
    // the running table: the newest rows (a long walkthrough shows its last TABLE_ROWS)
    const rows = [];
    for (let j = asking ? i - 1 : i; j >= Math.max(0, i - TABLE_ROWS + 1); j--) {
      rows.push(j === i ? rec.row.replace("<tr", '<tr data-now="true"') : quiz.asks(j) ? "" : data.steps[j].row);
    }
    const earlier = Math.max(0, i - TABLE_ROWS + 1); // steps older than the oldest row
    const more = earlier ? `<div class="vz-muted">… and ${earlier} earlier</div>` : "";
    this.table.innerHTML = `<div class="vz-muted">${data.mode === "reverse" ? "adjoints" : "tangents"} so far</div><table><tbody>${rows.join("")}</tbody></table>${more}`;
  }
}
