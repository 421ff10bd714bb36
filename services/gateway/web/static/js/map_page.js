// The map page (/map): pick a 구 and a deal type, filter by price, area, 세대수, 준공 and walking minutes,
// see the list and the map together, open a complex's card and ask about it in the conversation (the
// main page asks `/?ask=...` in its open conversation). The filters are those of /api/map/complexes
// and /api/map/dongs, both asked again on every change, so the list, the markers and the 동 colours
// always agree; the filters live in the address too, so a reload or a shared link shows the same map.
import { h, list, number, record, text } from "./dom.js";
import { M2_PER_PYEONG, areaRange, manwon, plain } from "./format.js";
import { DEAL_KO, fetchJson, mapView, rangeText } from "./map.js";

// The 구 the snapshot lists (the gateway's /api/map/dongs answers 404 for any other).
const GUS = ["강남구", "서초구", "송파구"];
const KINDS = { apartment: "아파트", officetel: "오피스텔" };
const HOUSEHOLDS = [["", "전체"], ["100", "100세대 이상"], ["300", "300세대 이상"], ["500", "500세대 이상"], ["1000", "1,000세대 이상"]];
const BUILT = [["", "전체"], ["2020", "2020년 이후"], ["2015", "2015년 이후"], ["2010", "2010년 이후"], ["2000", "2000년 이후"]];
const WALK = [["", "전체"], ["5", "5분 이내"], ["10", "10분 이내"], ["15", "15분 이내"]];
const SORTS = {
  price: ["가격 낮은 순", (a, b) => cmp(a.asking_manwon, b.asking_manwon)],
  "-price": ["가격 높은 순", (a, b) => cmp(b.asking_manwon, a.asking_manwon)],
  households: ["세대수 많은 순", (a, b) => cmp(b.households, a.households)],
  built: ["최근 준공 순", (a, b) => text(b.completion_ym).localeCompare(text(a.completion_ym))],
  walk: ["역에서 가까운 순", (a, b) => cmp(a.walk_min, b.walk_min)],
  name: ["이름 순", (a, b) => text(a.name).localeCompare(text(b.name), "ko")],
};
const DEBOUNCE_MS = 250;

const $ = (selector) => document.querySelector(selector);
const form = $("#filters");
const summary = $("#summary");
const listing = $("#complex-list");
const side = $("#map-side");
const view = mapView({ deal: "sale", onAsk: askAbout });
side.append(view.element);

let points = [];
let picked = null;
let ticket = 0;
let timer = null;

// Nulls last whichever way a list is sorted.
function cmp(a, b) {
  if (a == null || b == null) return a == null ? (b == null ? 0 : 1) : -1;
  return a - b;
}

function options(select, pairs) {
  select.replaceChildren(...pairs.map(([value, label]) => h("option", { value }, label)));
}

function build() {
  options($("#gu"), GUS.map((g) => [g, g]));
  $("#deal").append(...Object.entries(DEAL_KO).map(([value, label], i) =>
    h("label", {}, h("input", { type: "radio", name: "deal", value, checked: i === 0 }), h("span", {}, label))));
  $("#kinds").append(...Object.entries(KINDS).map(([value, label]) =>
    h("label", { class: "check" }, h("input", { type: "checkbox", name: "kind", value, checked: true }), label)));
  options($("#households_min"), HOUSEHOLDS);
  options($("#built_from"), BUILT);
  options($("#walk_max"), WALK);
  options($("#sort"), Object.entries(SORTS).map(([key, [label]]) => [key, label]));
  // A phone shows the map first: the further conditions fold away behind their button.
  const phone = window.matchMedia("(max-width: 860px)");
  fold(phone.matches);
  phone.addEventListener("change", (event) => fold(event.matches));
}

function fold(folded) {
  form.classList.toggle("folded", folded);
  $("#toggle-filters").setAttribute("aria-expanded", String(!folded));
}

// The form as the page's state; prices in 억 (매매·전세) or 만원 (월세), areas in 평, as people say them.
function state() {
  const data = new FormData(form);
  const deal = text(data.get("deal")) || "sale";
  const value = (name) => { const v = text(data.get(name)).trim(); return v === "" || !Number.isFinite(+v) ? "" : v; };
  return {
    gu: text(data.get("gu")) || GUS[0],
    deal,
    kinds: data.getAll("kind").map(text),
    price_min: value("price_min"), price_max: value("price_max"),
    area_min: value("area_min"), area_max: value("area_max"),
    households_min: value("households_min"), built_from: value("built_from"), walk_max: value("walk_max"),
    sort: text(data.get("sort")) || "price",
  };
}

// What the gateway is asked: the same filters for the points and for the 동's medians.
function query(s) {
  const price = (v) => (v === "" ? undefined : Math.round(s.deal === "monthly" ? +v : +v * 10000));
  const area = (v) => (v === "" ? undefined : Math.round(+v * M2_PER_PYEONG * 100) / 100);
  const kinds = s.kinds.length === Object.keys(KINDS).length ? [] : s.kinds.length ? s.kinds : ["none"];
  return {
    gu: s.gu, deal: s.deal, property_type: kinds,
    price_min: price(s.price_min), price_max: price(s.price_max),
    area_min: area(s.area_min), area_max: area(s.area_max),
    households_min: s.households_min || undefined, built_from: s.built_from || undefined, walk_max: s.walk_max || undefined,
  };
}

// The address holds the form (gu, deal, kind…), so a reload or a link opens the same map.
function restore() {
  const params = new URLSearchParams(location.search);
  for (const element of form.elements) {
    if (!element.name || !params.has(element.name)) continue;
    if (element.type === "radio") element.checked = params.get(element.name) === element.value;
    else if (element.type === "checkbox") element.checked = params.getAll(element.name).includes(element.value);
    else element.value = params.get(element.name);
  }
  if (params.has("gu") && !GUS.includes(params.get("gu"))) $("#gu").value = GUS[0];
}

function remember(s) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(s)) {
    if (key === "kinds") { if (value.length !== Object.keys(KINDS).length) value.forEach((k) => params.append("kind", k)); }
    else if (value !== "" && !(key === "sort" && value === "price")) params.set(key, value);
  }
  history.replaceState(null, "", `${location.pathname}?${params}`);
}

function labels(s) {
  $("#price-label").textContent = s.deal === "monthly" ? "월세 (만원)" : `${DEAL_KO[s.deal]}가 (억원)`;
  const active = ["price_min", "price_max", "area_min", "area_max", "households_min", "built_from", "walk_max"].filter((k) => s[k] !== "").length;
  $("#active-count").textContent = active ? `${active}` : "";
  $("#reset").hidden = !active;
}

async function refresh() {
  const s = state();
  labels(s);
  remember(s);
  const mine = ++ticket;
  side.dataset.state = "loading";
  summary.textContent = "불러오는 중…";
  try {
    const params = query(s);
    const [found, dongs] = await Promise.all([fetchJson("/api/map/complexes", params), fetchJson("/api/map/dongs", params)]);
    if (mine !== ticket) return; // a later change has asked again
    points = list(record(found).complexes).map(record);
    view.draw(dongs, points);
    drawList(s);
    summary.replaceChildren(h("span", { class: "sr-only" }, `${s.gu} ${DEAL_KO[s.deal]} `), "단지 ", h("strong", { id: "count" }, plain(points.length)), "곳");
    side.dataset.state = "ready";
    if (picked && !view.focus(picked)) picked = null;
  } catch (error) {
    if (mine !== ticket) return;
    side.dataset.state = "failed";
    summary.textContent = "지도를 불러오지 못했어요. 잠시 후 다시 시도해 주세요.";
    console.warn(error);
  }
}

function drawList(s) {
  const ordered = [...points].sort(SORTS[s.sort]?.[1] ?? SORTS.price[1]);
  listing.replaceChildren(...ordered.map((p) => complexItem(p, s.deal)));
  if (!ordered.length) listing.append(h("li", { class: "empty muted" }, "조건에 맞는 단지가 없어요. 조건을 넓혀 보세요."));
}

function complexItem(p, deal) {
  const area = areaRange(number(p.area_min_m2), number(p.area_max_m2));
  const facts = [
    p.households ? `${plain(p.households)}세대` : null,
    p.completion_ym ? `${text(p.completion_ym).slice(0, 4)}년` : null,
    area.py || null,
    p.station ? `${text(p.station)}${number(p.walk_min) !== null ? ` ${p.walk_min}분` : ""}` : null,
  ].filter(Boolean);
  const id = text(p.complex_id);
  return h("li", { class: "complex-item", "data-id": id, "data-name": text(p.name) },
    h("button", { type: "button", "aria-pressed": String(id === picked), onclick: () => pick(id) },
      h("span", { class: "item-name" }, text(p.name), h("small", {}, `${text(p.dong)} · ${KINDS[p.property_type] ?? ""}`)),
      h("span", { class: "item-price" }, `${DEAL_KO[deal]} ${rangeText(record(p.ranges)[deal])}`),
      h("span", { class: "item-facts" }, facts.join(" · "))));
}

function pick(id) {
  picked = id;
  view.focus(id);
  for (const item of listing.querySelectorAll(".complex-item")) item.firstChild.setAttribute("aria-pressed", String(item.dataset.id === id));
  // On a phone the map is above the list: bring the card into sight.
  if (window.matchMedia("(max-width: 860px)").matches) side.scrollIntoView({ block: "start", behavior: "smooth" });
}

// The card's question, asked in the main page's open conversation: "송파구 헬리오시티 전세 시세와 위험도"
// (the 구 first, so the planner searches that 구's market, and a name found in two 구 is one complex).
function askAbout(p, deal) {
  const question = `${text(p.gu)} ${text(p.name)} ${DEAL_KO[deal] ?? ""} 시세와 위험도`;
  location.assign(`/?ask=${encodeURIComponent(question)}`);
}

function later() {
  side.dataset.state = "loading"; // at once, so nothing reads the old map as the new one
  clearTimeout(timer);
  timer = setTimeout(refresh, DEBOUNCE_MS);
}

build();
restore();
form.addEventListener("change", later);
$("#sort").addEventListener("change", () => {
  drawList(state()); // the order is the page's own: nothing to ask again
  remember(state());
});
form.addEventListener("input", (event) => { if (event.target.type === "number") later(); });
form.addEventListener("submit", (event) => { event.preventDefault(); refresh(); });
$("#toggle-filters").addEventListener("click", () => fold(!form.classList.contains("folded")));
$("#reset").addEventListener("click", () => {
  for (const name of ["price_min", "price_max", "area_min", "area_max", "households_min", "built_from", "walk_max"]) form.elements[name].value = "";
  refresh();
});
refresh();
