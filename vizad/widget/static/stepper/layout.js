// layout.js: layout in the browser. The Graphviz module, imported once per page from its text
// (every stepper and picture of a notebook sends the same text), lays out DOT source.

const graphvizModules = (globalThis.__vizadGraphviz ??= new Map());

function importGraphviz(text) {
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
async function layOut(text, source) {
  const graphviz = await importGraphviz(text);
  await graphviz.version(); // WebAssembly compiled once per page, before the timing
  await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0))); // paint first
  const start = performance.now();
  const svg = await graphviz.layout(source);
  return { svg: svg.slice(svg.indexOf("<svg")), ms: performance.now() - start };
}
