// quiz.js: a quiz: each step's result is typed before it is shown. The quiz asks for it in the
// step panel, checks the answer (a second try, then the answer), keeps the score (synced to
// Python as `score`) and what the last answer earned.

class Quiz {
  // `questions`: each step's question and encoded answer, or null (no quiz); `root`: the
  // component, whose keys go to the question; `answered()`: called after an answer is scored
  constructor({ model, questions, root, answered }) {
    this.model = model;
    this.questions = questions;
    this.root = root;
    this.answered = answered;
    this.shown = new Set(); // steps answered or revealed
    this.tries = new Map();
    this.score = { right: 0, asked: 0 };
    this.feedback = null; // what the last answer earned, shown above the revealed panel
    this.leaving = false; // Esc: the keys go back to the steps
    this.scoreBox = h("div", { class: "vz-score", "aria-live": "polite", text: questions ? "score 0/0" : "" });
    // the component getting the keys (a click, the page opening) gives them to the question
    root.addEventListener("focus", () => {
      const input = root.querySelector(".vz-answer");
      if (input && !this.leaving) input.focus({ preventScroll: true });
    });
  }

  // whether step i (0-based) still asks for its result (its value is not shown yet)
  asks(i) {
    return Boolean(this.questions && this.questions[i] && !this.shown.has(i));
  }

  // what the last answer earned (shown once), or null
  takeFeedback() {
    const feedback = this.feedback;
    this.feedback = null;
    return feedback;
  }

  // step i's question, in `panel`; it takes the keys if the component had them
  ask(i, panel) {
    const q = this.questions[i].q;
    const input = h("input", { class: "vz-answer", type: "text", inputmode: "decimal",
      "aria-label": `${q} =`, autocomplete: "off" });
    const note = h("div", { class: "vz-feedback", "aria-live": "polite" });
    const check = () => this.answer(i, input, note);
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") { e.preventDefault(); check(); }
      else if (e.key === "Escape") {
        e.preventDefault();
        this.leaving = true;
        this.root.focus({ preventScroll: true });
        this.leaving = false;
      }
    });
    const hadKeys = this.root.contains(document.activeElement); // before the old question goes
    panel.replaceChildren(h("div", { class: "vz-quiz" }, [
      h("div", { class: "vz-quiz-q" }, [h("b", { text: `${q} = ` }), input,
        h("button", { class: "vz-check", text: "check", onclick: check })]),
      h("div", { class: "vz-muted", text: "type the value, then Enter (Esc: back to the steps)" }),
      note,
    ]));
    if (hadKeys) input.focus({ preventScroll: true });
  }

  answer(i, input, note) {
    const q = this.questions[i].q;
    const typed = parseFloat(input.value.replace("−", "-").replace(",", "."));
    if (Number.isNaN(typed)) { note.textContent = "type a number"; return; }
    const right = parseFloat(reveal(this.questions[i].a, i));
    const ok = Number.isInteger(right) ? typed === right
      : Math.abs(typed - right) <= 1e-3 * Math.abs(right);
    const tried = (this.tries.get(i) || 0) + 1;
    this.tries.set(i, tried);
    if (!ok && tried < 2) {
      note.textContent = `not ${input.value}: try again (one more try)`;
      input.select();
      return;
    }
    const score = this.score;
    this.shown.add(i);
    score.asked += 1;
    if (ok) score.right += 1;
    this.scoreBox.textContent = `score ${score.right}/${score.asked}`;
    this.model.set("score", { ...score });
    this.model.save_changes();
    this.feedback = h("div", { class: ok ? "vz-right" : "vz-wrong",
      text: ok ? `right: ${q} = ${input.value}` : `the answer: ${q} = ${+right.toPrecision(6)}` });
    this.answered(); // the revealed panel: no question left to take the keys
    this.root.focus({ preventScroll: true });
  }
}
