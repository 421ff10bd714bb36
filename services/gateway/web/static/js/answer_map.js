// The map beside an answer that names places or complexes: the complexes of its listings, or those
// behind its market figures (the 동 of its by-동 table, its deal and property types), inside the map of
// their 구 coloured by each 동's median asking price for the deal asked.
import { h, list, record, text } from "./dom.js";
import { DEAL_KO, fetchJson, mapView } from "./map.js";

const TYPES = { 아파트: "apartment", 오피스텔: "officetel" };

// What the answer is about, from its data: null when it names no place and no complex.
export function answerPlaces(data, metadata) {
  const complexes = list(data.listings).map(record).filter((r) => r.kind === "complex" && r.listing_id);
  const stats = Object.values(record(metadata.step_data)).map((d) => record(record(d).market_stats)).find((s) => list(s.regions).length);
  // The types counted: the answer's own label of its scope ("송파구 아파트 전세"), else its complexes' types.
  const scoped = Object.entries(TYPES).filter(([ko]) => text(stats?.scope).includes(ko)).map(([, type]) => type);
  const property_type = scoped.length ? scoped : [...new Set(complexes.map((r) => text(r.property_type)).filter((t) => Object.values(TYPES).includes(t)))];
  if (complexes.length) {
    const deal = text(complexes.find((r) => r.deal_type)?.deal_type) || text(stats?.deal_type) || "sale";
    return { deal: DEAL_KO[deal] ? deal : "sale", complex_id: complexes.map((r) => text(r.listing_id)), property_type };
  }
  if (!stats) return null;
  const deal = DEAL_KO[text(stats.deal_type)] ? text(stats.deal_type) : "sale";
  const dong = list(stats.regions).flatMap((r) => list(record(r).by_dong).map((g) => text(record(g).key))).filter(Boolean);
  return dong.length ? { deal, dong, property_type } : null;
}

export function answerMap(data, metadata) {
  const places = answerPlaces(record(data), record(metadata));
  if (!places) return null;
  const view = mapView({ deal: places.deal });
  const status = h("p", { class: "muted map-status" }, "지도를 그리는 중…");
  const element = h("section", { class: "backing answer-map", "aria-label": "지도", "data-state": "loading" },
    h("h4", {}, `지도 · ${DEAL_KO[places.deal]}`), status, view.element);
  draw(view, places).then(
    (count) => { status.textContent = `단지 ${count}곳`; element.dataset.state = "ready"; },
    () => { status.textContent = "지도를 불러오지 못했어요."; element.dataset.state = "failed"; },
  );
  return { element, focus: view.focus };
}

async function draw(view, places) {
  const points = list(record(await fetchJson("/api/map/complexes", places)).complexes);
  const gus = [...new Set(points.map((p) => text(record(p).gu)))].filter(Boolean);
  if (!gus.length) throw new Error("no complex to show");
  const dongs = await fetchJson("/api/map/dongs", { gu: gus, deal: places.deal, property_type: places.property_type });
  view.draw(dongs, points);
  return points.length;
}
