// player.js: stepping. The step (1-based) is the model's `step`, the one piece of state shared
// with Python; the player moves it with its buttons, slider, play timer and keys, and calls
// `changed()` after each move. Keys, when the component has focus: → PageDown next, ← PageUp
// previous (what presenter clickers send), Home, End, Space play/pause; other parts bind more
// (`bind`). Space on a focused button presses that button, once, as everywhere on the web. On
// a focused box of the graph the arrows and Enter are access.js's (they move among the boxes).

import { h, clamp } from "./helpers.js";
import { BOX_KEYS } from "./access.js";

const KEYS_NEXT = new Set(["ArrowRight", "PageDown"]);
const KEYS_PREV = new Set(["ArrowLeft", "PageUp"]);

export class Player {
  // `n`: the number of steps; `root`: the component, whose focus gives the keys to the player;
  // `nonfinite`: the step where a NaN or infinite value first appears (a button and the key N
  // go there), or null
  constructor({ model, n, root, changed, nonfinite = null }) {
    this.model = model;
    this.n = n;
    this.root = root;
    this.changed = changed;
    this.timer = null;
    this.bound = new Map(); // more keys (lower case) → what they do
    const button = (cls, label, text, fn) =>
      h("button", { class: cls, title: label, "aria-label": label, text, onclick: fn });
    this.first = button("vz-first", "first step (Home)", "|◀", () => this.go(1));
    this.prev = button("vz-prev", "previous step (←, PageUp)", "◀", () => this.go(this.step() - 1));
    this.play = button("vz-play", "play / pause (Space)", "▶ play", () => this.toggle());
    this.next = button("vz-next", "next step (→, PageDown)", "▶", () => this.go(this.step() + 1));
    this.last = button("vz-last", "last step (End)", "▶|", () => this.go(n));
    this.slider = h("input", { class: "vz-slider", type: "range", min: "1", max: String(n), step: "1", "aria-label": "step" });
    this.slider.addEventListener("input", () => this.go(parseInt(this.slider.value, 10)));
    this.speed = h("input", { class: "vz-speed", type: "number", min: "0.25", max: "10", step: "0.25", value: "1.25", "aria-label": "steps per second" });
    this.speed.addEventListener("change", () => { if (this.timer) { this.stop(); this.toggle(); } });
    const buttons = [this.first, this.prev, this.play, this.next, this.last];
    if (nonfinite) {
      this.nonfinite = button("vz-nonfinite", `first NaN or infinite value: step ${nonfinite} (N)`,
        "⚠ NaN", () => this.go(nonfinite));
      buttons.push(this.nonfinite);
      this.bind("n", () => this.go(nonfinite));
    }
    this.element = h("div", { class: "vz-controls" }, [...buttons, this.slider,
      h("label", { text: "steps/s " }, [this.speed])]);
    this.onKey = (e) => this.key(e);
    window.addEventListener("keydown", this.onKey, true);
    root.addEventListener("pointerdown", (e) => {
      if (!e.target.closest("input, select, button")) root.focus({ preventScroll: true });
    });
  }

  // key `key` (a KeyboardEvent key, any case) calls fn() when the component has focus; fn
  // returns false when it leaves the key to the page
  bind(key, fn) {
    this.bound.set(key.toLowerCase(), fn);
  }

  step() {
    return clamp(this.model.get("step") || 1, 1, this.n);
  }

  go(k) {
    k = clamp(Math.round(k), 1, this.n);
    if (k !== this.model.get("step")) {
      this.model.set("step", k);
      this.model.save_changes();
    }
    this.changed();
  }

  toggle() {
    if (this.timer) return this.stop();
    if (this.step() === this.n) this.go(1);
    this.play.textContent = "❚❚ pause"; // U+23F8 is missing from common fonts (DejaVu, Noto)
    const rate = clamp(parseFloat(this.speed.value) || 1.25, 0.25, 10);
    this.timer = setInterval(() => {
      this.go(this.step() + 1);
      if (this.step() >= this.n) this.stop();
    }, 1000 / rate);
  }

  stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.play.textContent = "▶ play";
  }

  // the controls of step k (1-based)
  show(k) {
    this.slider.value = String(k);
    this.first.disabled = this.prev.disabled = k === 1;
    this.next.disabled = this.last.disabled = k === this.n;
  }

  // keys, when the component has focus: on the window, in the capture phase, before the
  // notebook's own shortcuts (Notebook 7 handles keys at the document before they reach a
  // widget)
  key(e) {
    // the element the key went to: inside a shadow root (marimo shows widgets in one) the
    // window sees e.target as the shadow's host
    const t = e.composedPath()[0] ?? e.target;
    // in presentation mode the component has the screen: its keys wherever the focus went
    const presenting = this.root.classList.contains("vz-present");
    if (!(t instanceof Node) || !(this.root.contains(t) || presenting)) return;
    // the speed box and the scale menu keep their keys; on the slider the keys are ours
    // (handled here, and the slider's own move prevented: one step per key press)
    const typing = t !== this.slider && t instanceof Element && t.closest("input, select, textarea");
    // presenting, Esc leaves from a field too (one Esc: the field and the mode)
    if ((typing && !(presenting && e.key === "Escape")) || e.altKey || e.ctrlKey || e.metaKey) return;
    // on a box of the graph, the arrows move among the boxes (access.js)
    if (BOX_KEYS.has(e.key) && t instanceof Element && t.matches(".vz-stage g.node")) return;
    // on a heatmap cell that opens its element, the arrows, Enter and Space are the cell's
    // (panel.js's elementCells)
    if ((BOX_KEYS.has(e.key) || e.key === " ") && t instanceof Element && t.matches(".vz-cell-click")) return;
    // on a zoomed heatmap's box (panel.js's zoomable), the arrows scroll it
    if (BOX_KEYS.has(e.key) && t instanceof Element && t.matches(".vz-heat-box")) return;
    if (e.key === " " && t instanceof Element && t.closest("button")) {
      // the browser presses the focused button on its own (on key up): not the notebook
      e.stopPropagation();
      return;
    }
    let handled = true;
    if (KEYS_NEXT.has(e.key)) this.go(this.step() + 1);
    else if (KEYS_PREV.has(e.key)) this.go(this.step() - 1);
    else if (e.key === "Home") this.go(1);
    else if (e.key === "End") this.go(this.n);
    else if (e.key === " ") this.toggle();
    else if (this.bound.has(e.key.toLowerCase())) handled = this.bound.get(e.key.toLowerCase())() !== false;
    else handled = false;
    if (handled) { e.preventDefault(); e.stopPropagation(); }
  }

  close() {
    this.stop();
    window.removeEventListener("keydown", this.onKey, true);
  }
}
