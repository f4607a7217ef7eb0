// refused.js: what the kernel refused. Python checks every value the page sends (a step, a
// view, an input, a quiz answer) and every request before it changes anything; what it
// refuses is rolled back (Python sends its own values again) and said in a message of kind
// "refused" (vizad/view/widget/stepper.py's REFUSED), shown here, as text, until the next one.

import { h } from "./helpers.js";

// Show `model`'s refusals at the top of `el`; gives the function that stops listening.
export function showRefusals(model, el) {
  if (typeof model.on !== "function" || typeof model.send !== "function") return () => {};
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
