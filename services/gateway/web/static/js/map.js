// The map: 동 polygons coloured by their median asking price (a choropleth with its legend), complexes
// as markers, a complex's card on hover or tap, the subway stations as small marks (placed by the
// snapshot's own station distances; their names where they fit, every one on hover or tap). Drawn as an SVG by this module from the gateway's GeoJSON
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
const STATION_FONT = 17; // the SVG's units, as the 동 names' 21

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
    canvas.querySelectorAll(".station.picked").forEach((s) => s.classList.remove("picked"));
    card.replaceChildren(complexCard(point, currentDeal, onAsk));
  };
  const openStation = (station, mark) => {
    markers.forEach((m) => m.classList.remove("picked"));
    canvas.querySelectorAll(".station").forEach((s) => s.classList.toggle("picked", s === mark));
    card.replaceChildren(stationCard(station, shown));
  };

  const draw = (dongMap, points, { labelled = list(points).length <= LABELLED_MARKERS } = {}) => {
    const collection = record(dongMap);
    currentDeal = text(collection.deal) || currentDeal;
    const features = list(collection.features).map(record);
    const bands = list(collection.bands).map(record);
    const stations = list(collection.stations).map(record).filter((s) => number(s.lat) !== null && number(s.lon) !== null);
    const project = projection(features, stations);
    canvas.setAttribute("viewBox", `0 0 ${WIDTH} ${project.height.toFixed(0)}`);
    canvas.setAttribute("aria-label", `${list(collection.gus).map(text).join("·")} ${DEAL_KO[currentDeal] ?? ""} 지도: 동별 호가 중앙값과 단지 ${list(points).length}곳`);
    markers.clear();
    shown = list(points).map(record).filter((p) => number(p.lat) !== null && number(p.lon) !== null);
    canvas.replaceChildren(
      svg("g", { class: "dongs" }, features.map((f) => dongShape(f, project))),
      svg("g", { class: "dong-names", "aria-hidden": "true" }, features.map((f) => dongName(f, project))),
      svg("g", { class: "stations" }, stationMarks(stations, project, features, shown, list(collection.gus).map(text)).map(([station, mark]) => {
        mark.addEventListener("pointerenter", () => openStation(station, mark));
        mark.addEventListener("click", () => openStation(station, mark));
        mark.addEventListener("keydown", (event) => { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); openStation(station, mark); } });
        return mark;
      })),
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
// The frame holds the 동 and the stations drawn with them (a few lie just over the 구's boundary).
function projection(features, stations = []) {
  const points = [...features.flatMap((f) => rings(record(f.geometry)).flat()), ...stations.map((s) => [s.lon, s.lat])];
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
function dongNameAt(feature, project) {
  const ring = rings(record(feature.geometry)).sort((a, b) => b.length - a.length)[0] ?? [];
  if (!ring.length) return null;
  const xy = ring.map(([lon, lat]) => project.at(lon, lat));
  const xs = xy.map((p) => p[0]);
  const ys = xy.map((p) => p[1]);
  return [(Math.min(...xs) + Math.max(...xs)) / 2, (Math.min(...ys) + Math.max(...ys)) / 2];
}

function dongName(feature, project) {
  const at = dongNameAt(feature, project);
  if (!at) return null;
  return svg("text", { x: at[0].toFixed(1), y: at[1].toFixed(1), class: "dong-name" }, text(record(feature.properties).dong));
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

// The stations as small marks, each named by its <title> and its card; a name is written beside the
// mark only where it covers no other name (the 동's included) and no complex, the busiest stations
// placed first. Those outside the asked 구 are drawn fainter.
function stationMarks(stations, project, features, points, gus) {
  const taken = [
    ...features.map((f) => textBox(dongNameAt(f, project), text(record(f.properties).dong), 21)).filter(Boolean),
    ...points.map((p) => { const [x, y] = project.at(p.lon, p.lat); return { x0: x - 7, x1: x + 7, y0: y - 7, y1: y + 7 }; }),
  ];
  const order = [...stations].sort((a, b) => (number(b.rows) ?? 0) - (number(a.rows) ?? 0));
  const labelled = new Map();
  for (const s of order) {
    const [x, y] = project.at(s.lon, s.lat);
    const name = shortName(s);
    taken.push({ x0: x - 6, x1: x + 6, y0: y - 6, y1: y + 6 });
    const spots = [[x + 9, y + 5, "start"], [x - 9, y + 5, "end"], [x, y - 10, "middle"], [x, y + 20, "middle"]];
    for (const [lx, ly, anchor] of spots) {
      const width = name.length * STATION_FONT;
      const x0 = anchor === "start" ? lx : anchor === "end" ? lx - width : lx - width / 2;
      const box = { x0, x1: x0 + width, y0: ly - STATION_FONT, y1: ly + 3 };
      if (!taken.some((t) => overlaps(t, box))) { taken.push(box); labelled.set(s, [lx, ly, anchor]); break; }
    }
  }
  return [...stations].sort((a, b) => text(a.name).localeCompare(text(b.name), "ko")).map((s) => {
    const [x, y] = project.at(s.lon, s.lat);
    const lines = list(s.lines).map(text).join("·");
    const at = labelled.get(s);
    const outside = !gus.includes(text(s.gu));
    const mark = svg("g", {
      class: `station${at ? " labelled" : ""}${outside ? " outside" : ""}`, tabindex: "0", role: "button",
      "aria-label": `${text(s.name)} ${lines}`,
      "data-name": text(s.name), "data-lines": lines, "data-x": x.toFixed(2), "data-y": y.toFixed(2),
    },
    svg("circle", { cx: x.toFixed(1), cy: y.toFixed(1), r: 14, class: "hit" }), // a finger's target
    svg("rect", { x: (x - 4.5).toFixed(1), y: (y - 4.5).toFixed(1), width: 9, height: 9, rx: 2 }),
    at && svg("text", { x: at[0].toFixed(1), y: at[1].toFixed(1), "text-anchor": at[2], class: "station-label" }, shortName(s)),
    svg("title", {}, `${text(s.name)} (${lines})`));
    return [s, mark];
  });
}

const shortName = (station) => text(station.name).replace(/역$/, ""); // "잠실", as maps write it

function overlaps(a, b) {
  return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}

// About where a centred name lies (Hangul runs about one em a letter).
function textBox(at, label, size) {
  if (!at) return null;
  const width = label.length * size;
  return { x0: at[0] - width / 2, x1: at[0] + width / 2, y0: at[1] - size, y1: at[1] + 3 };
}

// The station's card: its lines and the complexes on the map that name it as theirs.
function stationCard(station, points) {
  const name = text(station.name);
  const near = points.filter((p) => text(p.station) === name);
  const walks = near.map((p) => number(p.walk_min)).filter((m) => m !== null);
  const facts = [
    ["노선", list(station.lines).map(text).join(", ") || "-"],
    ["가까운 단지", near.length ? `${plain(near.length)}곳${walks.length ? ` · 도보 ${Math.min(...walks)}~${Math.max(...walks)}분` : ""}` : "지도의 단지 중 없음"],
    ["위치", `단지별 역 거리로 계산 (오차 약 ${number(station.rms_m)?.toFixed(1) ?? "-"} m)`],
  ];
  return h("article", { class: "station-card", "data-name": name },
    h("h5", {}, name, h("small", {}, text(station.gu) || "구 경계 밖")),
    h("dl", {}, facts.map(([label, value]) => [h("dt", {}, label), h("dd", {}, value)])));
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
