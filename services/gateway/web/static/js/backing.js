// What backs an answer: statute citations (expandable to the article's text), a sortable listings
// table, figures with their basis, generated documents with a download button.
import { h, list, number, record, text } from "./dom.js";
import { areaRange, manwon, plain, pyeong } from "./format.js";

export function citationsSection(citations) {
  const items = list(citations).map(record).filter((c) => c.law || c.article);
  if (!items.length) return null;
  return section("근거 조문", items.length,
    h("div", { class: "citations" }, items.map((c) =>
      h("details", { class: "citation" },
        h("summary", {},
          h("span", { class: "law" }, text(c.law)),
          h("strong", {}, text(c.article)),
          c.title && h("span", { class: "title" }, text(c.title)),
        ),
        h("p", { class: "article-text" }, text(c.text) || "조문 내용이 없습니다."),
      ))),
  );
}

const DEALS = { jeonse: "전세", sale: "매매", monthly: "월세", wolse: "월세" };
const COLUMNS = [
  { key: "name", label: "이름", value: (r) => text(r.name) },
  { key: "place", label: "위치", value: (r) => `${text(r.gu)} ${text(r.dong)}`.trim() },
  { key: "price", label: "가격", value: (r) => number(r.price_min_manwon) ?? number(r.price_max_manwon), numeric: true },
  { key: "area", label: "면적", value: (r) => number(r.area_min_m2) ?? number(r.area_max_m2), numeric: true },
  { key: "walk", label: "역·도보", value: (r) => number(r.walk_min), numeric: true },
];

// `find(listingId)`, when a map is beside the table: a click on a row finds its complex on the map.
export function listingsSection(listings, find) {
  const rows = list(listings).map(record).filter((r) => r.name);
  if (!rows.length) return null;
  const sort = { key: null, ascending: true };
  const body = h("tbody");
  const heads = COLUMNS.map((column) => {
    const button = h("button", { type: "button", class: "sort", onclick: () => sortBy(column) }, column.label, h("span", { class: "sort-mark", "aria-hidden": "true" }));
    return h("th", { scope: "col", "aria-sort": "none", class: column.numeric ? "num" : "" }, button);
  });
  const draw = () => body.replaceChildren(...ordered(rows, sort).map((r) => listingRow(r, find)));
  const sortBy = (column) => {
    sort.ascending = sort.key === column.key ? !sort.ascending : true;
    sort.key = column.key;
    heads.forEach((th, i) => th.setAttribute("aria-sort", COLUMNS[i].key === sort.key ? (sort.ascending ? "ascending" : "descending") : "none"));
    draw();
  };
  draw();
  return section("매물", rows.length,
    h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": "매물 표" },
      h("table", { class: "listings stack" },
        h("caption", { class: "sr-only" }, "매물 목록. 열 제목을 누르면 정렬됩니다."),
        h("thead", {}, h("tr", {}, heads)),
        body,
      )),
    h("p", { class: "footnote" }, "가격은 호가 기준(만원), 1평 = 3.3058㎡."),
  );
}

function ordered(rows, sort) {
  const column = COLUMNS.find((c) => c.key === sort.key);
  if (!column) return rows;
  const sign = sort.ascending ? 1 : -1;
  return [...rows].sort((a, b) => {
    const [x, y] = [column.value(a), column.value(b)];
    if (x === null || x === "") return 1; // missing values stay last either way
    if (y === null || y === "") return -1;
    return sign * (column.numeric ? x - y : String(x).localeCompare(String(y), "ko"));
  });
}

function listingRow(r, find) {
  const area = areaRange(number(r.area_min_m2), number(r.area_max_m2));
  const deal = DEALS[text(r.deal_type)] ?? text(r.deal_type);
  const monthly = number(r.monthly_rent_min_manwon) ?? number(r.monthly_rent_max_manwon);
  // data-label names each cell where a phone shows the row as a card (styles.css).
  const onMap = find && r.kind === "complex" ? () => find(text(r.listing_id)) : null;
  return h("tr", { class: onMap ? "on-map" : "", title: onMap ? "지도에서 찾기" : null, onclick: onMap },
    h("th", { scope: "row" }, text(r.name), r.households ? h("small", {}, `${plain(r.households)}세대${r.completion_ym ? ` · ${text(r.completion_ym).slice(0, 4)}년` : ""}`) : null),
    h("td", { dataset: { label: "위치" } }, `${text(r.gu)} ${text(r.dong)}`.trim()),
    h("td", { class: "num", dataset: { label: deal ? `가격 (${deal})` : "가격" } }, priceRange(number(r.price_min_manwon), number(r.price_max_manwon)),
      monthly !== null && h("small", {}, `월 ${manwon(monthly)}`)),
    h("td", { class: "num", dataset: { label: "면적" } }, area.m2, area.py && h("small", {}, area.py)),
    h("td", { class: "num", dataset: { label: "역·도보" } }, r.station ? [text(r.station), number(r.walk_min) !== null && h("small", {}, `도보 ${r.walk_min}분`)] : "-"),
  );
}

// "3억 8,000만 ~ 7억", breaking only between the two ends.
function priceRange(low, high) {
  const ends = [low, high].filter((v) => v !== null);
  if (!ends.length) return "-";
  const [first, last] = [ends[0], ends.at(-1)];
  const end = (value) => h("span", { class: "nowrap" }, manwon(value));
  return first === last ? end(first) : [end(first), " ~ ", end(last)];
}

export function figuresSection(figures, title = "수치와 근거") {
  const items = list(figures).map(record).filter((f) => f.label);
  if (!items.length) return null;
  return section(title, items.length,
    h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": title },
      h("table", { class: "figures stack" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "항목"), h("th", { scope: "col", class: "num" }, "값"), h("th", { scope: "col" }, "근거"))),
        h("tbody", {}, items.map((f) => h("tr", {},
          h("th", { scope: "row" }, text(f.label)),
          h("td", { class: "num value", dataset: { label: "값" } }, figureValue(f)),
          h("td", { class: "basis", dataset: { label: "근거" } }, text(f.basis), f.source && h("small", {}, text(f.source))),
        ))),
      )),
  );
}

function figureValue(f) {
  const value = f.value;
  if (typeof value === "number" && text(f.unit) === "만원") return manwon(value);
  if (typeof value === "number" && text(f.unit) === "㎡") return `${plain(value)}㎡ (${plain(pyeong(value))}평)`;
  return `${plain(value)}${f.unit ? ` ${text(f.unit)}` : ""}`;
}

export function documentsSection(documents, actions) {
  const docs = list(documents).map(record).filter((d) => d.artifact_id);
  if (!docs.length) return null;
  return section("만든 문서", docs.length,
    h("ul", { class: "documents" }, docs.map((doc) => {
      const status = h("span", { class: "muted", role: "status" });
      return h("li", {},
        h("span", { class: "doc-icon", "aria-hidden": "true" }, kind(doc)),
        h("span", { class: "doc-name" }, text(doc.name)),
        h("button", {
          class: "primary", type: "button", "aria-label": `${text(doc.name)} 내려받기`,
          onclick: async () => {
            status.textContent = "내려받는 중…";
            try {
              await actions.download(doc);
              status.textContent = "";
            } catch {
              status.textContent = "내려받지 못했어요. 다시 시도해 주세요.";
            }
          },
        }, "내려받기"),
        status,
      );
    })),
  );
}

function kind(doc) {
  const type = text(doc.media_type);
  if (type.includes("wordprocessingml")) return "DOCX";
  if (type.includes("markdown")) return "MD";
  return "파일";
}

function section(title, count, ...body) {
  return h("section", { class: "backing", "aria-label": title },
    h("h4", {}, title, count ? h("span", { class: "count" }, `${count}`) : null),
    ...body,
  );
}
