// layout.js: Graphviz's layout in the browser (where the boxes of a view go). The Graphviz
// module, imported once per page from its text (every stepper and picture of a notebook sends
// the same text), lays out DOT source; each label line of the laid-out SVG is centred as dot
// centres it, and the SVG is cropped to what it shows once its legend has left it. The
// component's room (side by side or stacked, presentation mode) is room.js's.

const graphvizModules = (globalThis.__vizadGraphviz ??= new Map());

export function importGraphviz(text) {
  if (!text) {
    return Promise.reject(new Error("this page does not carry vizad's Graphviz module: run the " +
      "cell again in Jupyter, or install Graphviz's dot program"));
  }
  if (!graphvizModules.has(text)) {
    const url = URL.createObjectURL(new Blob([text], { type: "text/javascript" }));
    graphvizModules.set(text, import(url).finally(() => URL.revokeObjectURL(url)));
  }
  return graphvizModules.get(text);
}

// Graphviz's SVG of DOT `source` as an element-ready string (no XML prolog), and how long the
// layout took (ms). The caller shows a "laying out" state first: the layout blocks the page.
export async function layOut(text, source) {
  const graphviz = await importGraphviz(text);
  await graphviz.version(); // WebAssembly compiled once per page, before the timing
  await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0))); // paint first
  const start = performance.now();
  const svg = await graphviz.layout(source);
  // eslint-disable-next-line no-restricted-syntax -- finds the SVG element in Graphviz's output
  return { svg: svg.slice(svg.indexOf("<svg")), ms: performance.now() - start };
}

// Each line of a box's label centred on the box, as the dot program centres it. Graphviz
// writes every line of an HTML-like label as text starting at (the box's centre − half the
// width Graphviz estimated for that line); the browser's font is never exactly as wide, so
// lines that should share a centre come out ragged. A line that is one <text> becomes text
// anchored at its middle, on the centre of the box's outline (or, for a box without an
// outline, on the centre that the lines' estimated starts and measured widths agree on).
export function centreLines(svg) {
  for (const g of svg.querySelectorAll("g.node")) {
    if (g.id === "vz_legend") continue;
    const lines = new Map(); // y → the <text>s on that line
    for (const t of g.querySelectorAll(":scope > text")) {
      if (t.getAttribute("text-anchor") !== "start") continue;
      const y = t.getAttribute("y");
      lines.set(y, [...(lines.get(y) || []), t]);
    }
    const single = [...lines.values()].filter((l) => l.length === 1).map((l) => l[0]);
    if (!single.length) continue;
    const c = outlineCentre(g) ?? sharedCentre(single);
    if (c === null) continue;
    for (const t of single) {
      t.setAttribute("text-anchor", "middle");
      t.setAttribute("x", c.toFixed(2));
    }
  }
}

// the x of the centre of a box's outline (its first path, polygon or ellipse drawn with a
// stroke: heatmap cells have none), from its coordinates; null without one
function outlineCentre(g) {
  const shape = [...g.children].find((e) => ["path", "polygon", "ellipse"].includes(e.tagName) &&
    !["none", "transparent"].includes(e.getAttribute("stroke")));
  if (!shape) return null;
  if (shape.tagName === "ellipse") return parseFloat(shape.getAttribute("cx"));
  const numbers = (shape.getAttribute("points") || shape.getAttribute("d") || "").match(/-?[\d.]+(?:e-?\d+)?/g) || [];
  const xs = numbers.filter((_, k) => k % 2 === 0).map(Number);
  return xs.length ? (Math.min(...xs) + Math.max(...xs)) / 2 : null;
}

// the centre c of lines whose starts are x = c − k·width/2 (Graphviz's estimated widths are
// the measured ones times about k), by least squares over two lines or more; else null
function sharedCentre(texts) {
  if (texts.length < 2) return null;
  const m = texts.map((t) => t.getComputedTextLength());
  const x = texts.map((t) => parseFloat(t.getAttribute("x")));
  const mean = (a) => a.reduce((p, q) => p + q, 0) / a.length;
  const mm = mean(m), mx = mean(x);
  const v = m.reduce((p, q) => p + (q - mm) ** 2, 0);
  if (!(v > 1)) return null;
  const slope = m.reduce((p, q, j) => p + (q - mm) * (x[j] - mx), 0) / v; // −k/2
  return -slope > 0.3 && -slope < 0.7 ? mx - slope * mm : null;
}

// The drawing cropped to what it shows once its legend has left it (the legend took a corner
// of the layout, which would stay an empty band): the graph's label (title and notes, left
// aligned) moves to the left edge of the boxes, and the viewBox shrinks to the boxes, edges,
// clusters and label. Returns the new size in viewBox units, or null when the SVG is not of
// the expected form (then it is left as it was).
export function cropToContent(svg) {
  const g = svg.querySelector("g.graph");
  const vb = svg.viewBox.baseVal;
  const m = /^\s*scale\(1 1\) rotate\(0\) translate\(([-\d.]+) ([-\d.]+)\)\s*$/.exec(g?.getAttribute("transform") || "");
  if (!m || !vb || !vb.width) return null;
  const box = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
  const add = (x, y) => {
    box.x0 = Math.min(box.x0, x); box.x1 = Math.max(box.x1, x);
    box.y0 = Math.min(box.y0, y); box.y1 = Math.max(box.y1, y);
  };
  const shapes = g.querySelectorAll("g.node > :is(polygon, polyline, path), g.edge > :is(polygon, polyline, path), g.cluster > :is(polygon, path)");
  for (const e of shapes) {
    const n = (e.getAttribute("points") || e.getAttribute("d") || "").match(/-?[\d.]+(?:e-?\d+)?/g) || [];
    for (let k = 0; k + 1 < n.length; k += 2) add(+n[k], +n[k + 1]);
  }
  for (const e of g.querySelectorAll("g.node > ellipse")) {
    const [cx, cy, rx, ry] = ["cx", "cy", "rx", "ry"].map((a) => +e.getAttribute(a));
    add(cx - rx, cy - ry);
    add(cx + rx, cy + ry);
  }
  if (!Number.isFinite(box.x0)) return null;
  const texts = (sel) => [...g.querySelectorAll(sel)];
  for (const t of texts(":scope > text")) t.setAttribute("x", (box.x0 + 4).toFixed(2)); // the label
  // text: its anchor and an estimate of its width (the boxes' text lies inside their outlines)
  for (const t of texts(":scope > text, g.edge > text, g.cluster > text")) {
    const size = parseFloat(t.getAttribute("font-size")) || 14;
    const w = t.textContent.length * size * 0.62;
    const x = +t.getAttribute("x"), y = +t.getAttribute("y");
    const anchor = t.getAttribute("text-anchor");
    const left = anchor === "middle" ? x - w / 2 : anchor === "end" ? x - w : x;
    add(left, y - size);
    add(left + w, y + size * 0.3);
  }
  const pad = 4;
  const [tx, ty] = [+m[1], +m[2]];
  const crop = { x: box.x0 + tx - pad, y: box.y0 + ty - pad, w: box.x1 - box.x0 + 2 * pad, h: box.y1 - box.y0 + 2 * pad };
  if (crop.w >= vb.width && crop.h >= vb.height) return null;
  svg.setAttribute("viewBox", `${crop.x.toFixed(2)} ${crop.y.toFixed(2)} ${crop.w.toFixed(2)} ${crop.h.toFixed(2)}`);
  return crop;
}
