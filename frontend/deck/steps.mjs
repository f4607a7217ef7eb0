// The deck's arithmetic, apart from the page: which steps a deck has, the address of a step,
// the scale that fits the deck to a window, and what a key asks for. No DOM here, so Node
// tests it as it is (frontend/tests/deck.test.mjs); deck.mjs does the rest.
//
// A deck is a list of slides (nbconvert's <section>s, sub-slides included, in reading order);
// a slide holds fragments (class="fragment") that appear one by one. A step is a slide with
// `shown` of its fragments visible: slide k has fragments(k) + 1 steps, 0 … fragments(k).

// The steps of a deck whose slides hold counts[k] fragments each, in order: [{slide, shown}].
export function stepsOf(counts) {
  const steps = [];
  counts.forEach((fragments, slide) => {
    for (let shown = 0; shown <= fragments; shown += 1) steps.push({ slide, shown });
  });
  return steps;
}

const clamp = (x, low, high) => Math.min(Math.max(x, low), high);

// The index in `steps` of slide `slide` (0-based) with `shown` fragments visible; a slide past
// either end is the first or last slide, a number of fragments past either end 0 or all.
export function stepIndex(steps, slide, shown = 0) {
  if (steps.length === 0) return -1;
  const last = steps[steps.length - 1].slide;
  const want = clamp(Math.trunc(slide) || 0, 0, last);
  const start = steps.findIndex((s) => s.slide === want);
  let end = start;
  while (end + 1 < steps.length && steps[end + 1].slide === want) end += 1;
  return start + clamp(Math.trunc(shown) || 0, 0, end - start);
}

// The address of a step, as a person reads it: "#/3" for slide 3 (counted from 1, as the
// deck's "3 / 12" says), "#/3/2" when 2 of its fragments are shown.
export function hashOf({ slide, shown }) {
  return shown > 0 ? `#/${slide + 1}/${shown}` : `#/${slide + 1}`;
}

// The step an address names: "#/3", "#3", "#/3/2" → {slide: 2, shown: 0 | 2} (slide 0-based),
// or null for any other address (an anchor's id: deck.mjs looks for the element).
export function parseHash(hash) {
  const found = /^#\/?(\d{1,6})(?:\/(\d{1,6}))?$/.exec(hash);
  if (!found) return null;
  return { slide: Number(found[1]) - 1, shown: Number(found[2] ?? 0) };
}

// The scale that fits a deck designed at design.width × design.height into room.width ×
// room.height whole, keeping its aspect (never below `min` nor above `max`).
export function fitScale(design, room, { min = 0.2, max = 2 } = {}) {
  const scale = Math.min(room.width / design.width, room.height / design.height);
  return Number.isFinite(scale) ? clamp(scale, min, max) : 1;
}

// What a key press asks of the deck: "next", "prev", "first", "last", or null (a key the deck
// leaves alone; with Alt, Ctrl or Meta too, the browser's and the system's shortcuts).
export function moveOfKey({
  key,
  shiftKey = false,
  altKey = false,
  ctrlKey = false,
  metaKey = false,
}) {
  if (altKey || ctrlKey || metaKey) return null;
  if (key === " ") return shiftKey ? "prev" : "next";
  if (key === "ArrowRight" || key === "ArrowDown" || key === "PageDown") return "next";
  if (key === "ArrowLeft" || key === "ArrowUp" || key === "PageUp") return "prev";
  if (key === "Home") return "first";
  if (key === "End") return "last";
  return null;
}
