// A few lines of DOM for the unit tests of the component's logic under Node (no jsdom): the
// elements that h() makes, with attributes, children, listeners, style and a size that a test
// sets. Enough for the parts whose maths is tested here (viewport, search); the real DOM is
// exercised by the Playwright tests (tests/browser/).

class FakeElement {
  constructor(tag) {
    this.tagName = tag.toUpperCase();
    this.attributes = new Map();
    this.children = [];
    this.listeners = {};
    this.style = { setProperty() {}, getPropertyValue: () => "" };
    this.dataset = {};
    this.textContent = "";
    this.className = "";
    this.hidden = false;
    this.value = "";
    this.clientWidth = 0;
    this.clientHeight = 0;
    this.clientLeft = 0;
    this.clientTop = 0;
    this.rect = { left: 0, top: 0, right: 0, bottom: 0, width: 0, height: 0 };
    const classes = new Set();
    this.classList = {
      add: (...c) => c.forEach((x) => classes.add(x)),
      remove: (...c) => c.forEach((x) => classes.delete(x)),
      toggle: (c, on = !classes.has(c)) => (on ? classes.add(c) : classes.delete(c), on),
      contains: (c) => classes.has(c),
    };
  }
  setAttribute(k, v) {
    this.attributes.set(k, String(v));
  }
  getAttribute(k) {
    return this.attributes.has(k) ? this.attributes.get(k) : null;
  }
  removeAttribute(k) {
    this.attributes.delete(k);
  }
  addEventListener(type, fn) {
    (this.listeners[type] ??= []).push(fn);
  }
  removeEventListener(type, fn) {
    this.listeners[type] = (this.listeners[type] || []).filter((f) => f !== fn);
  }
  append(...nodes) {
    this.children.push(...nodes);
  }
  prepend(...nodes) {
    this.children.unshift(...nodes);
  }
  replaceChildren(...nodes) {
    this.children = nodes;
  }
  remove() {}
  querySelector() {
    return null;
  }
  querySelectorAll() {
    return [];
  }
  getBoundingClientRect() {
    return this.rect;
  }
}

// Installs the fake document, ResizeObserver and CSS.escape on globalThis (once).
export function installFakeDom() {
  globalThis.document ??= { createElement: (tag) => new FakeElement(tag) };
  globalThis.ResizeObserver ??= class {
    observe() {}
    disconnect() {}
  };
  globalThis.CSS ??= { escape: (s) => s };
  return FakeElement;
}
