// sanitize.js: the SVG a drawing brings (Graphviz's, from the `dot` program in Python or from
// Graphviz in the page) made inert before it is in the page: parsed in a <template> (where
// nothing loads or runs), then stripped of every element that can run or fetch something
// (script, foreignObject, animation, use, iframe…), every event handler (on…), every link
// (href, xlink:href) and every attribute whose value is a javascript:, data: or vbscript: URL.
// Names are data: no text of a graph can add a link or a script to the page.

const UNSAFE_ELEMENTS = "script, foreignObject, iframe, object, embed, use, animate, set, " +
  "animateMotion, animateTransform, image, feImage, audio, video, handler, listener, discard";
const UNSAFE_URL = /^(?:javascript|data|vbscript):/i;

// the nodes of SVG text `text`, inert: a DocumentFragment to insert with append/replaceChildren
export function safeSvg(text) {
  const t = document.createElement("template");
  // eslint-disable-next-line no-restricted-syntax -- the sanitizer: parsed inert, then stripped
  t.innerHTML = text;
  const root = t.content;
  for (const e of root.querySelectorAll(UNSAFE_ELEMENTS)) e.remove();
  for (const e of root.querySelectorAll("*")) {
    for (const a of [...e.attributes]) {
      const name = a.localName.toLowerCase();
      // browsers ignore control characters and spaces in a URL's scheme ("java\tscript:")
      // eslint-disable-next-line no-control-regex -- the controls are what is stripped
      const value = a.value.replace(/[\u0000-\u0020\u007f-\u00a0]+/g, "");
      if (name.startsWith("on") || name === "href" || name === "src" || name === "action" ||
          name === "formaction" || UNSAFE_URL.test(value)) e.removeAttributeNode(a);
    }
  }
  return root;
}
