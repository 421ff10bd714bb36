// The answer's "markdown-ish" text as DOM: headings, lists, tables, paragraphs, **bold** and `code`.
// Every piece of text becomes a text node: there is no HTML parsing at all, so escaping is implicit.
import { h } from "./dom.js";

const HEADING = /^(#{1,6})\s+(.*)$/;
const BULLET = /^\s*[-*•]\s+(.*)$/;
const NUMBERED = /^\s*\d+[.)]\s+(.*)$/;
const TABLE_ROW = /^\s*\|.*\|\s*$/;
const NUMERIC = /^[-+]?[\d,.]+(~[\d,.]+)?\s?[^\s\d|]{0,4}$/; // "321 건", "18,000 만원", "50.7~230.7"
const TABLE_RULE = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;

export function renderMarkdown(source) {
  const lines = String(source ?? "").replace(/\r\n?/g, "\n").split("\n");
  const out = document.createDocumentFragment();
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) {
      i += 1;
    } else if (HEADING.test(line)) {
      const [, marks, title] = line.match(HEADING);
      out.append(h(`h${Math.min(6, marks.length + 2)}`, { class: "md-heading" }, inline(title)));
      i += 1;
    } else if (TABLE_ROW.test(line)) {
      i = table(lines, i, out);
    } else if (BULLET.test(line) || NUMBERED.test(line)) {
      i = listBlock(lines, i, out);
    } else {
      i = paragraph(lines, i, out);
    }
  }
  return out;
}

function listBlock(lines, start, out) {
  const ordered = NUMBERED.test(lines[start]) && !BULLET.test(lines[start]);
  const pattern = ordered ? NUMBERED : BULLET;
  const items = [];
  let i = start;
  while (i < lines.length && pattern.test(lines[i])) {
    items.push(h("li", {}, inline(lines[i].match(pattern)[1])));
    i += 1;
    // An indented line continues the item; an unindented one starts a paragraph after the list.
    while (i < lines.length && /^\s+\S/.test(lines[i]) && isContinuation(lines[i])) {
      items.at(-1).append(h("br"), ...inline(lines[i].trim()));
      i += 1;
    }
  }
  out.append(h(ordered ? "ol" : "ul", { class: "md-list" }, items));
  return i;
}

function isContinuation(line) {
  return line.trim() && !HEADING.test(line) && !BULLET.test(line) && !NUMBERED.test(line) && !TABLE_ROW.test(line);
}

function paragraph(lines, start, out) {
  const parts = [];
  let i = start;
  while (i < lines.length && lines[i].trim() && isContinuation(lines[i])) {
    if (parts.length) parts.push(h("br"));
    parts.push(...inline(lines[i].trim()));
    i += 1;
  }
  out.append(h("p", {}, parts));
  return i;
}

function table(lines, start, out) {
  const rows = [];
  let i = start;
  while (i < lines.length && TABLE_ROW.test(lines[i])) {
    if (!TABLE_RULE.test(lines[i])) rows.push(cells(lines[i]));
    i += 1;
  }
  const hasHeader = start + 1 < lines.length && TABLE_RULE.test(lines[start + 1]);
  const [head, body] = hasHeader ? [rows[0], rows.slice(1)] : [null, rows];
  out.append(
    h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": "표" },
      h("table", { class: "md-table" },
        head && h("thead", {}, h("tr", {}, head.map((c) => h("th", { scope: "col" }, inline(c))))),
        h("tbody", {}, body.map((row) => h("tr", {}, row.map((c) => h("td", { class: NUMERIC.test(c) ? "num" : null }, inline(c)))))),
      ),
    ),
  );
  return i;
}

function cells(line) {
  return line.trim().replace(/^\|/, "").replace(/\|$/, "").split("|").map((c) => c.trim());
}

// **bold** and `code`; anything else is literal text.
function inline(source) {
  const nodes = [];
  const pattern = /\*\*(.+?)\*\*|`([^`]+)`/g;
  let last = 0;
  for (const match of source.matchAll(pattern)) {
    if (match.index > last) nodes.push(source.slice(last, match.index));
    nodes.push(match[1] !== undefined ? h("strong", {}, match[1]) : h("code", {}, match[2]));
    last = match.index + match[0].length;
  }
  if (last < source.length) nodes.push(source.slice(last));
  return nodes;
}
