// picture.js: a single drawing laid out in the browser (how vz.draw is displayed in a notebook
// when Python has no `dot` program), not a walkthrough.

import { h, busy } from "./helpers.js";
import { centreLines } from "./layout.js";
import { layOutOffThread } from "./worker.js";
import { safeSvg } from "./sanitize.js";

// A drawing laid out in the browser, sized like vz.draw's SVG in a notebook: its natural
// size, narrower when wider than maxWidth px but never below minScale of it.
export function renderPicture({ model, el }) {
  const { dot, maxWidth, minScale, titles = {} } = model.get("picture");
  const root = h("div", { class: "vizad-picture mathjax_ignore tex2jax_ignore", "data-layout": "busy" },
    [busy("laying out the graph…")]);
  el.append(root);
  layOutOffThread(model.get("_graphviz"), dot).promise.then(({ svg, ms }) => {
    root.replaceChildren(safeSvg(svg));
    // DOT names boxes by vizad's ids: their titles (tooltips) say their names, as text
    for (const t of root.querySelectorAll("g.node > title, g.edge > title")) {
      const id = t.parentNode.id;
      if (Object.hasOwn(titles, id)) t.textContent = titles[id];
      else t.remove();
    }
    const e = root.querySelector("svg");
    centreLines(e);
    const natural = e.width.baseVal.value; // Graphviz's pt, in CSS px
    const scale = natural <= maxWidth ? 1 : Math.max(maxWidth / natural, minScale);
    // as wide as the output allows, up to that size, never below minScale (then it scrolls)
    e.removeAttribute("width");
    e.removeAttribute("height");
    e.style.width = `max(100%, ${(natural * minScale).toFixed(0)}px)`;
    e.style.maxWidth = `${(natural * scale).toFixed(0)}px`;
    e.style.height = "auto";
    root.dataset.layout = "done";
    root.dataset.layoutMs = ms.toFixed(0);
  }, (err) => {
    root.dataset.layout = "failed";
    root.replaceChildren(busy(`vizad could not lay out this graph in the browser: ${err.message || err}`));
  });
}
