// Building DOM nodes from data. Text always goes in as text nodes, never as HTML, so nothing the
// server or the person sends can inject markup.

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
}

export function replaceChildren(el, ...children) {
  el.replaceChildren();
  append(el, children);
}

// An icon as an SVG path (an emoji font may not exist on the machine that shows the page).
export const TRASH = "M5 7h14M10 7V4h4v3M7 7l1 13h8l1-13M10 11v6M14 11v6";
export function icon(path, size = 16) {
  return svg("svg", { viewBox: "0 0 24 24", width: size, height: size, "aria-hidden": "true", class: "glyph" },
    svg("path", { d: path, fill: "none", stroke: "currentColor", "stroke-width": 1.8, "stroke-linecap": "round", "stroke-linejoin": "round" }));
}

// Server data is untrusted: these coerce a field to the shape the page needs, or a harmless default.
export const list = (value) => (Array.isArray(value) ? value : []);
export const text = (value) => (typeof value === "string" ? value : value == null ? "" : String(value));
export const record = (value) => (value && typeof value === "object" && !Array.isArray(value) ? value : {});
export const number = (value) => (typeof value === "number" && Number.isFinite(value) ? value : null);
