// room.js: the component's room. The graph and the step panel side by side when the output is
// wide enough, stacked otherwise, sized to fit the visible height together; and presentation
// mode (the whole screen, large type). It sets the classes vz-wide, vz-present and
// vz-present-window on the component's root and the heights --vz-frame-h and --vz-panel-h
// (stepper.css). "Layout" is Graphviz's placing of the boxes (layout.js), never this.

import { h } from "./helpers.js";

const WIDE = 820; // px: from this width of the component, the step panel is beside the graph
const MIN_FRAME = 220; // px: the graph's frame is never shorter
const GRAPH_SHARE = 0.58; // of the height left, stacked: the graph's; the step panel gets the rest
const PANEL_MIN = 110; // px: the step panel's least height, stacked (it scrolls inside)
const STACKED_FRAME = 200; // px: stacked, the frame's least height when the room is shared

// The component's room: its body (the graph's frame and the player in one column, the step
// panel in the other, side by side from WIDE px, else stacked), sized so that graph and panel
// fit the visible height together (the notebook's scrolled area, or the window); and the
// presentation mode: the component alone on the whole screen (the Fullscreen API, or the
// whole window where that is refused), with large type. `F` and the button toggle it.
export class Room {
  // `release()`: the keys to the component itself, not to a field in it (leaving the mode)
  constructor({ root, viewport, player, panel, release = () => root.focus({ preventScroll: true }) }) {
    this.release = release;
    this.root = root;
    this.viewport = viewport;
    this.player = player;
    this.panel = panel;
    this.graph = h("div", { class: "vz-graph" }, [viewport.element, player.element]);
    // a region the keyboard reaches (it scrolls when the panel is taller than the room)
    this.side = h("div", { class: "vz-side", tabindex: "0", role: "region", "aria-label": "the step's panel" }, [panel.element]);
    this.body = h("div", { class: "vz-body" }, [this.graph, this.side]);
    this.words = h("span", { class: "vz-wordy", text: " present" }); // hidden when narrow
    this.button = h("button", { class: "vz-present-button", title: "presentation mode: the whole screen (F; Esc leaves)",
      "aria-label": "present (presentation mode)", "aria-pressed": "false", onclick: () => this.toggle() }, ["⤢", this.words]);
    player.bind("f", () => this.toggle());
    player.bind("Escape", () => (this.presenting() ? this.leave() : false));
    this.onFullscreen = () => this.fullscreenChanged();
    document.addEventListener("fullscreenchange", this.onFullscreen);
    this.onResize = () => this.size();
    window.addEventListener("resize", this.onResize);
    this.area = null; // the notebook's scrolled area, once found
    this.resize = new ResizeObserver(() => this.size());
    this.resize.observe(root);
    this.need = 0; // px the step panel needs, stacked (the most of the steps shown: no jumps)
    panel.onNeed = (px) => {
      if (px <= this.need) return;
      this.need = px;
      this.size();
    };
  }

  presenting() {
    return this.root.classList.contains("vz-present");
  }

  toggle() {
    if (this.presenting()) this.leave();
    else this.enter();
  }

  // the whole screen when the page may have it (else the whole window), then large type
  enter() {
    const root = this.root;
    const fallback = () => { root.classList.add("vz-present", "vz-present-window"); this.presented(); };
    if (root.requestFullscreen && document.fullscreenEnabled !== false) {
      root.requestFullscreen({ navigationUI: "hide" }).then(() => {
        root.classList.add("vz-present");
        this.presented();
      }, fallback);
    } else fallback();
  }

  // the element in the whole screen as the component's own document or shadow root sees it
  // (the document sees a shadow's host: marimo shows widgets in a shadow root)
  fullscreen() {
    return this.root.getRootNode().fullscreenElement ?? document.fullscreenElement;
  }

  leave() {
    if (this.fullscreen() === this.root) document.exitFullscreen();
    this.root.classList.remove("vz-present", "vz-present-window");
    this.presented();
  }

  // the browser left the whole screen (Esc, F11): so does the presentation
  fullscreenChanged() {
    if (this.fullscreen() !== this.root && this.presenting() &&
      !this.root.classList.contains("vz-present-window")) this.leave();
    else this.size();
  }

  presented() {
    const on = this.presenting();
    this.viewport.refit(); // a new room: its own automatic zoom (once its frame has its size)
    this.button.setAttribute("aria-pressed", String(on));
    this.button.firstChild.textContent = on ? "⤡" : "⤢";
    this.words.textContent = on ? " leave" : " present";
    // the name holds the words shown (WCAG 2.5.3, label in name)
    this.button.setAttribute("aria-label", on ? "leave presentation mode" : "present (presentation mode)");
    this.need = 0; // measured again at this type size
    this.panel.keepRows();
    this.size();
    // the keys stay the component's; leaving, not a question's field (one Esc leaves both)
    if (on) this.root.focus({ preventScroll: true });
    else this.release();
  }

  // the area the component scrolls in: a notebook's scrolled area (JupyterLab 4 and Notebook
  // 7, JupyterLab 3, the classic notebook), else the nearest area that scrolls (an output area
  // grows with its content); null: the window
  scroller() {
    const known = this.root.closest(".jp-WindowedPanel-outer, .jp-Notebook, #site");
    if (known && known !== this.area) {
      this.area = known; // its height changes with the panels around the notebook: sized again
      this.resize.observe(known);
    }
    if (known?.clientHeight) return known;
    for (let a = this.root.parentElement; a && a !== document.body; a = a.parentElement) {
      const o = getComputedStyle(a).overflowY;
      const scrolls = (o === "auto" || o === "scroll") && a.scrollHeight > a.clientHeight + 1;
      if (scrolls && a.clientHeight) return a;
    }
    return null;
  }

  // the height that shows at once: the window's, or the nearest scrolled area's (a notebook)
  visibleHeight() {
    if (this.presenting()) return window.innerHeight;
    const h = window.innerHeight;
    const area = this.scroller();
    if (area) return Math.min(h, area.clientHeight);
    // the window scrolls: a component near the top of its page (an exported page) is seen
    // whole with what is above it
    const top = this.root.getBoundingClientRect().top + window.scrollY;
    return top < h / 4 ? h - top : h;
  }

  // side by side or stacked, and the heights of the graph's frame and the step panel
  size() {
    const root = this.root;
    const width = root.clientWidth;
    if (!width) return;
    const wide = width >= WIDE;
    root.classList.toggle("vz-wide", wide);
    const top = root.getBoundingClientRect().top;
    const above = this.viewport.element.getBoundingClientRect().top - top; // title, views, legend
    // the player (and what goes under the graph: the memory timeline) and the gaps
    const below = [...this.graph.children].reduce((sum, c) => sum + (c === this.viewport.element ? 0 : c.offsetHeight), 0) + 16;
    const pad = this.presenting() ? 24 : 12;
    const rest = this.visibleHeight() - above - below - pad;
    // stacked, graph and panel fit together: the panel gets its share, or what it needs (its
    // key lines and 6 rows of its table: panel.js) as long as the frame keeps STACKED_FRAME px,
    // and at least PANEL_MIN
    const want = Math.max(rest * (1 - GRAPH_SHARE), this.need);
    const frame = Math.round(wide ? Math.max(MIN_FRAME, rest)
      : Math.max(Math.min(STACKED_FRAME, rest - PANEL_MIN), rest - want));
    const panel = Math.round(wide ? frame + below - 8 : Math.max(PANEL_MIN, rest - frame));
    this.set("--vz-frame-h", `${frame}px`);
    this.set("--vz-panel-h", `${panel}px`);
  }

  // A step taken in the component (it has the keys): the graph's frame, the player, what is
  // under the graph (the memory timeline) and, stacked, the step panel's head brought into view
  // when the area cuts them at its bottom (a component just under its code cell: the room is
  // sized for the component scrolled to its top). The area scrolls the least that shows them,
  // never taking the frame's top out of view.
  bringIntoView() {
    if (this.presenting()) return;
    const area = this.scroller();
    const seen = area ? area.getBoundingClientRect() : { top: 0, bottom: window.innerHeight };
    const top = Math.max(seen.top, 0), bottom = Math.min(seen.bottom, window.innerHeight);
    const head = this.root.classList.contains("vz-wide") ? null : this.side.querySelector(".vz-head");
    const want = Math.max(this.graph.getBoundingClientRect().bottom, head?.getBoundingClientRect().bottom ?? 0);
    const frame = this.viewport.element.getBoundingClientRect().top;
    const by = Math.min(want - bottom, frame - top);
    if (by < 1) return;
    if (area) area.scrollTop += by;
    else window.scrollBy(0, by);
  }

  set(name, value) {
    if (this.root.style.getPropertyValue(name) !== value) this.root.style.setProperty(name, value);
  }

  close() {
    if (this.presenting()) this.leave();
    this.resize.disconnect();
    document.removeEventListener("fullscreenchange", this.onFullscreen);
    window.removeEventListener("resize", this.onResize);
  }
}
