// vizad's slide deck: shows the slides of a notebook that nbconvert's slides exporter wrote
// (`python -m vizad slides NOTEBOOK`, template vizad/view/slides/template/index.html.j2), one
// at a time. frontend/build-slides.mjs bundles it, with KaTeX, into vizad/view/slides/deck.js,
// which the page inlines; the page calls `vizadSlides.start({ width, height })`.
//
// The page: <div class="vz-deck"><main class="vz-deck-stage"><div class="vz-slides"> holding
// nbconvert's <section>s (a slide's sub-slides are <section>s inside it) and their
// class="fragment" parts. Every such <section> without a <section> inside is a slide of its
// own, in reading order; its fragments appear one by one on "next" before the next slide (and
// hide again going back). steps.mjs does the counting.
//
// Every element is made with DOM calls and every text set as text: no markup is made from
// text here (tests/test_no_markup_from_data.py, ESLint's no-restricted-syntax).
//
// For tests and for a page's own script, `window.vizadDeck`:
//   ready        a Promise, resolved once the deck shows its first step
//   index()      the current slide, counted from 0;  fragment(): how many of its fragments show
//   count()      how many slides
//   go(i, f)     to slide i (from 0) with f of its fragments shown (default 0); clamped
//   next() prev() one step on or back (a fragment, or the next/previous slide)
//   current()    the current slide's <section>;  indexOf(element): the slide holding it, or -1
//   on("change", fn)  fn({ index, fragment, count }) after each move; returns a function
//                that removes fn
import { fitScale, hashOf, moveOfKey, parseHash, stepIndex, stepsOf } from "./steps.mjs";

// an element `tag` with these attributes and this text (set as text)
function element(tag, attributes = {}, text = "") {
  const made = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
  if (text) made.textContent = text;
  return made;
}

// whether a key pressed on `target` belongs to it: typed into a field of a slide (a widget's
// input), or Space pressing a focused button or link (the browser clicks it on its own)
function keyBelongsTo(target, key) {
  if (!(target instanceof Element)) return false;
  if (target.closest("input, textarea, select") || target.isContentEditable) return true;
  return key === " " && Boolean(target.closest("button, a[href], summary, [role='button']"));
}

// The heading a slide opens with, for the announcement of a move ("" when it has none): its
// text without the anchor link's "¶" and with KaTeX's mathematics once (its MathML's text).
function headingOf(slide) {
  const heading = slide.querySelector("h1, h2, h3");
  if (!heading) return "";
  const copy = heading.cloneNode(true);
  for (const drop of copy.querySelectorAll(".anchor-link, .katex-html, annotation")) drop.remove();
  return copy.textContent.replace(/\s+/g, " ").trim();
}

export function start({ width = 960, height = 700, root = document.querySelector(".vz-deck") }) {
  if (!(width > 0 && height > 0)) [width, height] = [960, 700]; // a size that cannot be drawn
  const stage = root.querySelector(".vz-deck-stage");
  const box = root.querySelector(".vz-slides");
  // nbconvert's sections: a slide, or a stack of sub-slides (a <section> in a <section>);
  // a <section> inside a cell's output is that output's own
  const sections = [...box.querySelectorAll(":scope > section, :scope > section > section")];
  const slides = sections.filter((s) => !s.querySelector(":scope > section"));
  const fragments = slides.map((s) => [...s.querySelectorAll(".fragment")]);
  const steps = stepsOf(fragments.map((f) => f.length));
  const listeners = { change: new Set() };
  let now = -1; // the current step's index in `steps`

  // each slide: a group named by its place, focusable by script only (see move())
  slides.forEach((slide, k) => {
    slide.classList.add("vz-slide");
    slide.setAttribute("role", "group");
    slide.setAttribute("aria-label", `slide ${k + 1} of ${slides.length}`);
    slide.setAttribute("tabindex", "-1");
  });

  // the bar: previous, "3 / 12", next; a progress line; a polite live region for screen
  // readers (the move, with the slide's heading)
  const prev = element(
    "button",
    { type: "button", class: "vz-deck-prev", "aria-label": "previous slide" },
    "‹",
  );
  const next = element(
    "button",
    { type: "button", class: "vz-deck-next", "aria-label": "next slide" },
    "›",
  );
  const number = element("span", { class: "vz-deck-number" });
  const bar = element("nav", { class: "vz-deck-bar", "aria-label": "slides" });
  bar.append(prev, number, next);
  const progress = element("div", { class: "vz-deck-progress", "aria-hidden": "true" });
  const done = element("div", { class: "vz-deck-done" });
  progress.append(done);
  const status = element("div", { class: "vz-deck-status", "aria-live": "polite" });
  root.append(progress, bar, status);
  prev.addEventListener("click", () => move(now - 1));
  next.addEventListener("click", () => move(now + 1));

  // Show step k: its slide and the sections holding it, every other section hidden (`hidden`
  // and aria-hidden: neither seen, nor reached by Tab, nor read), its first `shown`
  // fragments; then the bar, the address (replaced, so that Back leaves the deck rather than
  // walking every step), the announcement and the listeners.
  function move(k, { announce = true } = {}) {
    if (steps.length === 0) return;
    k = Math.min(Math.max(k, 0), steps.length - 1);
    if (k === now) return;
    const before = now >= 0 ? slides[steps[now].slide] : null;
    const { slide, shown } = steps[k];
    const current = slides[slide];
    now = k;
    for (const section of sections) {
      const showing = section.contains(current);
      section.hidden = !showing;
      if (showing) section.removeAttribute("aria-hidden");
      else section.setAttribute("aria-hidden", "true");
    }
    // the fragments: all those of the slides before, `shown` of this one, none after
    fragments.forEach((parts, j) => {
      const visible = j < slide ? parts.length : j === slide ? shown : 0;
      parts.forEach((fragment, f) => fragment.classList.toggle("visible", f < visible));
    });
    if (current !== before) {
      current.scrollTop = 0;
      // the focus was on the slide that went: to the new one (else it would fall to <body>)
      if (before && before.contains(document.activeElement)) current.focus({ preventScroll: true });
      if (announce) {
        const heading = headingOf(current);
        status.textContent = `slide ${slide + 1} of ${slides.length}${heading ? `: ${heading}` : ""}`;
      }
    } else if (shown > 0) {
      fragments[slide][shown - 1].scrollIntoView({ block: "nearest", inline: "nearest" });
    }
    number.textContent = `${slide + 1} / ${slides.length}`;
    prev.disabled = k === 0;
    next.disabled = k === steps.length - 1;
    done.style.width = `${steps.length > 1 ? (100 * k) / (steps.length - 1) : 100}%`;
    const hash = hashOf(steps[k]);
    if (location.hash !== hash) history.replaceState(history.state, "", hash);
    const detail = { index: slide, fragment: shown, count: slides.length };
    for (const fn of listeners.change) fn(detail);
  }

  // The step an address names: "#/3" (slide 3), "#/3/2", or an element's id (the slide that
  // holds it, as a link to a heading's anchor); null for none.
  function stepOfAddress(hash) {
    const named = parseHash(hash);
    if (named) return stepIndex(steps, named.slide, named.shown);
    let target = null;
    try {
      target = hash.length > 1 ? document.getElementById(decodeURIComponent(hash.slice(1))) : null;
    } catch {
      target = null; // a malformed %-escape
    }
    const k = target ? slides.findIndex((s) => s.contains(target)) : -1;
    return k >= 0 ? stepIndex(steps, k, fragments[k].length) : null;
  }

  // Scale the deck's design size to the room above the bar, whole, centred.
  function fit() {
    const scale = fitScale(
      { width, height },
      { width: stage.clientWidth, height: stage.clientHeight },
    );
    box.style.transform = `scale(${scale})`;
  }
  box.style.width = `${width}px`;
  box.style.height = `${height}px`;
  box.style.marginLeft = `${-width / 2}px`;
  box.style.marginTop = `${-height / 2}px`;

  document.addEventListener("keydown", (e) => {
    // a key a widget of the slide took (the stepper's arrows), or typed into a field
    const target = e.composedPath()[0] ?? e.target;
    if (e.defaultPrevented || keyBelongsTo(target, e.key)) return;
    const wanted = moveOfKey(e);
    if (!wanted) return;
    e.preventDefault();
    if (wanted === "next") move(now + 1);
    else if (wanted === "prev") move(now - 1);
    else if (wanted === "first") move(0);
    else move(steps.length - 1);
  });
  window.addEventListener("hashchange", () => {
    const k = stepOfAddress(location.hash);
    if (k !== null) move(k);
  });
  window.addEventListener("resize", fit);

  fit();
  move(stepOfAddress(location.hash) ?? 0, { announce: false });

  const api = {
    ready: Promise.resolve(),
    index: () => (now >= 0 ? steps[now].slide : -1),
    fragment: () => (now >= 0 ? steps[now].shown : 0),
    count: () => slides.length,
    go: (i, shown = 0) => move(stepIndex(steps, i, shown)),
    next: () => move(now + 1),
    prev: () => move(now - 1),
    current: () => (now >= 0 ? slides[steps[now].slide] : null),
    indexOf: (node) => slides.findIndex((s) => s.contains(node)),
    on(event, fn) {
      if (!(event in listeners)) throw new Error(`vizadDeck.on: no event ${event}`);
      listeners[event].add(fn);
      return () => listeners[event].delete(fn);
    },
  };
  window.vizadDeck = api;
  return api;
}
