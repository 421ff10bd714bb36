// The map: 동 polygons coloured by their median asking price (a choropleth with its legend), complexes
// as markers, a complex's card on hover or tap. Drawn as an SVG by this module from the gateway's GeoJSON
// (/api/map/...) with an equirectangular projection scaled by cos(latitude), which is exact enough at
// the scale of three 구; no tile server, no key, nothing fetched from anywhere but the gateway.
import { h, list, number, record, svg, text } from "./dom.js";
import { areaRange, manwon, plain } from "./format.js";

export const DEAL_KO = { sale: "매매", jeonse: "전세", monthly: "월세" };
// Cheapest to dearest; readable on white, distinguishable without colour too (the legend names values).
const BAND_COLOURS = ["#e3f1ea", "#b6dcc9", "#7fc0a2", "#3f9a74", "#12634a"];
const NO_DATA = "#f1f0ec";
const WIDTH = 1000;
const LABELLED_MARKERS = 12; // a few markers carry their name; past that only their card does

export async function fetchJson(path, params) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    for (const one of [value].flat()) if (one !== undefined && one !== null && one !== "") query.append(key, String(one));
  }
  const response = await fetch(`${path}?${query}`);
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return response.json();
}

// The range of a complex for a deal, "5억 ~ 7억 5,000만" (월세: the monthly rent).
export function rangeText(range) {
  const r = record(range);
  const [lo, hi] = [number(r.min_manwon), number(r.max_manwon)];
  if (lo === null && hi === null) return "-";
  if (lo === null || hi === null || lo === hi) return manwon(lo ?? hi);
  return `${manwon(lo)} ~ ${manwon(hi)}`;
}

// A map view: `draw(dongMap, points, { labelled })` (re)draws it, `focus(id)` finds a complex and opens
// its card. `onAsk(point)` makes the card's question button (the map page's "ask about it").
export function mapView({ deal, onAsk } = {}) {
  const canvas = svg("svg", { class: "map-svg", role: "img", "aria-label": "지도" });
  const legend = h("div", { class: "map-legend" });
  const card = h("div", { class: "map-card", role: "status", "aria-live": "polite" }, h("p", { class: "muted" }, "단지에 마우스를 올리거나 눌러 보세요."));
  const root = h("figure", { class: "map" }, h("div", { class: "map-frame" }, canvas), legend, card);
  const markers = new Map();
  let shown = [];
  let currentDeal = deal;

  const open = (point) => {
    markers.forEach((m) => m.classList.toggle("picked", m.dataset.id === point.complex_id));
    card.replaceChildren(complexCard(point, currentDeal, onAsk));
  };

  const draw = (dongMap, points, { labelled = list(points).length <= LABELLED_MARKERS } = {}) => {
    const collection = record(dongMap);
    currentDeal = text(collection.deal) || currentDeal;
    const features = list(collection.features).map(record);
    const bands = list(collection.bands).map(record);
    const project = projection(features);
    canvas.setAttribute("viewBox", `0 0 ${WIDTH} ${project.height.toFixed(0)}`);
    canvas.setAttribute("aria-label", `${list(collection.gus).map(text).join("·")} ${DEAL_KO[currentDeal] ?? ""} 지도: 동별 호가 중앙값과 단지 ${list(points).length}곳`);
    markers.clear();
    shown = list(points).map(record).filter((p) => number(p.lat) !== null && number(p.lon) !== null);
    canvas.replaceChildren(
      svg("g", { class: "dongs" }, features.map((f) => dongShape(f, project))),
      svg("g", { class: "dong-names", "aria-hidden": "true" }, features.map((f) => dongName(f, project))),
      svg("g", { class: "markers" }, shown.map((p) => {
        const marker = complexMarker(p, project, currentDeal, labelled);
        markers.set(p.complex_id, marker);
        marker.addEventListener("pointerenter", () => open(p));
        marker.addEventListener("click", () => open(p));
        marker.addEventListener("keydown", (event) => { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); open(p); } });
        return marker;
      })),
    );
    legend.replaceChildren(legendOf(bands, currentDeal, text(collection.source)));
  };

  const focus = (complexId) => {
    const point = shown.find((p) => p.complex_id === complexId);
    if (!point) return false;
    open(point);
    markers.get(complexId)?.scrollIntoView?.({ block: "nearest" });
    return true;
  };

  return { element: root, draw, focus };
}

// Longitude and latitude to the SVG's units: x east, y south, one degree of longitude cos(lat) of one of latitude.
function projection(features) {
  const points = features.flatMap((f) => rings(record(f.geometry)).flat());
  const lons = points.map((p) => p[0]);
  const lats = points.map((p) => p[1]);
  const [west, east, south, north] = [Math.min(...lons), Math.max(...lons), Math.min(...lats), Math.max(...lats)];
  const squash = Math.cos((((south + north) / 2) * Math.PI) / 180);
  const scale = WIDTH / Math.max((east - west) * squash, 1e-9);
  const at = (lon, lat) => [(lon - west) * squash * scale, (north - lat) * scale];
  return { at, height: Math.max((north - south) * scale, 1) };
}

function rings(geometry) {
  const coordinates = list(geometry.coordinates);
  if (geometry.type === "Polygon") return coordinates.map(list);
  if (geometry.type === "MultiPolygon") return coordinates.flatMap((polygon) => list(polygon).map(list));
  return [];
}

function pathOf(geometry, project) {
  return rings(geometry)
    .map((ring) => ring.map(([lon, lat], i) => `${i ? "L" : "M"}${project.at(lon, lat).map((v) => v.toFixed(1)).join(",")}`).join("") + "Z")
    .join("");
}

function dongShape(feature, project) {
  const p = record(feature.properties);
  const band = number(p.band);
  const median = number(p.median_manwon);
  const label = median === null ? `${text(p.dong)}: 매물 단지 없음` : `${text(p.dong)}: 호가 중앙값 ${manwon(median)} (단지 ${plain(p.complexes)}곳)`;
  return svg("path", {
    class: "dong",
    d: pathOf(record(feature.geometry), project),
    fill: band === null ? NO_DATA : BAND_COLOURS[Math.min(band, BAND_COLOURS.length - 1)],
    "data-gu": text(p.gu),
    "data-dong": text(p.dong),
    "data-median": median ?? "",
    "data-band": band ?? "",
  }, svg("title", {}, label));
}

// A 동's name at the centre of its largest ring's bounding box: close enough for labels of compact 동.
function dongName(feature, project) {
  const ring = rings(record(feature.geometry)).sort((a, b) => b.length - a.length)[0] ?? [];
  if (!ring.length) return null;
  const xy = ring.map(([lon, lat]) => project.at(lon, lat));
  const xs = xy.map((p) => p[0]);
  const ys = xy.map((p) => p[1]);
  const [x, y] = [(Math.min(...xs) + Math.max(...xs)) / 2, (Math.min(...ys) + Math.max(...ys)) / 2];
  return svg("text", { x: x.toFixed(1), y: y.toFixed(1), class: "dong-name" }, text(record(feature.properties).dong));
}

function complexMarker(point, project, deal, labelled) {
  const [x, y] = project.at(point.lon, point.lat);
  const range = rangeText(record(point.ranges)[deal]);
  const name = text(point.name);
  return svg("g", {
    class: "marker", tabindex: "0", role: "button",
    "aria-label": `${name} ${DEAL_KO[deal] ?? ""} ${range}`,
    "data-id": text(point.complex_id), "data-gu": text(point.gu), "data-dong": text(point.dong),
    "data-x": x.toFixed(2), "data-y": y.toFixed(2),
  },
  svg("circle", { cx: x.toFixed(1), cy: y.toFixed(1), r: 7 }),
  labelled && svg("text", { x: (x + 10).toFixed(1), y: (y + 4).toFixed(1), class: "marker-label" }, `${name} ${range}`),
  svg("title", {}, `${name} · ${DEAL_KO[deal] ?? ""} ${range}`));
}

function legendOf(bands, deal, source) {
  const deal_ko = DEAL_KO[deal] ?? "";
  return h("div", {},
    h("p", { class: "legend-title" }, `동별 ${deal_ko} 호가 중앙값 (단지별 호가 범위 중간값의 중앙값)`),
    h("ul", { class: "bands" },
      bands.map((b, i) => h("li", { class: "band", "data-lo": number(b.lo_manwon) ?? "", "data-hi": number(b.hi_manwon) ?? "", "data-dongs": number(b.dongs) ?? "" },
        h("span", { class: "swatch", style: `background:${BAND_COLOURS[Math.min(i, BAND_COLOURS.length - 1)]}`, "aria-hidden": "true" }),
        b.lo_manwon === b.hi_manwon ? manwon(b.lo_manwon) : `${manwon(b.lo_manwon)} ~ ${manwon(b.hi_manwon)}`,
        h("small", {}, ` ${plain(b.dongs)}개 동`))),
      h("li", { class: "band none" }, h("span", { class: "swatch", style: `background:${NO_DATA}`, "aria-hidden": "true" }), "매물 단지 없음"),
    ),
    source && h("p", { class: "footnote" }, source),
  );
}

// The complex's card: 세대수, 준공, 면적, station and minutes, schools, every deal's range.
export function complexCard(point, deal, onAsk) {
  const p = record(point);
  const area = areaRange(number(p.area_min_m2), number(p.area_max_m2));
  const ranges = record(p.ranges);
  const facts = [
    ["세대수", p.households ? `${plain(p.households)}세대${p.buildings ? ` · ${plain(p.buildings)}개 동` : ""}` : "-"],
    ["준공", text(p.completion_ym) || "-"],
    ["면적", `${area.m2}${area.py ? ` (${area.py})` : ""}`],
    ["역", p.station ? `${text(p.station)}${p.line ? ` ${text(p.line)}` : ""}${number(p.walk_min) !== null ? ` · 도보 ${p.walk_min}분` : ""}` : "-"],
    ["학교", list(p.schools).map(text).join(", ") || "-"],
    ...Object.entries(DEAL_KO).filter(([key]) => ranges[key]).map(([key, ko]) => [ko, `${rangeText(ranges[key])} (${plain(record(ranges[key]).listings)}건)`]),
  ];
  return h("article", { class: "complex-card", "data-id": text(p.complex_id) },
    h("h5", {}, text(p.name), h("small", {}, `${text(p.gu)} ${text(p.dong)} · ${p.property_type === "officetel" ? "오피스텔" : "아파트"}`)),
    h("dl", {}, facts.map(([label, value]) => [h("dt", {}, label), h("dd", { class: label === DEAL_KO[deal] ? "asked" : "" }, value)])),
    onAsk && h("button", { type: "button", class: "primary ask-about", onclick: () => onAsk(p, deal) }, `이 단지 ${DEAL_KO[deal] ?? ""} 시세와 위험도 묻기`),
  );
}
