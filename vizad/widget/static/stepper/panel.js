// panel.js: below the drawing, the step panel (the step's derivation as Python made it, or the
// quiz's question) and the running table of the results so far.

import { h } from "./helpers.js";

const TABLE_ROWS = 40; // rows of the running table shown at once

export class Panel {
  // `data`: the walkthrough (its steps' panels and table rows); `quiz`: which steps ask
  constructor({ data, quiz }) {
    this.data = data;
    this.quiz = quiz;
    this.panel = h("div", { class: "vz-step-panel" });
    this.table = h("div", { class: "vz-table" });
    this.element = h("div", { class: "vz-below" }, [this.panel, this.table]);
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
