// A small range chart: one row per group (동 or 평형), a bar from the lowest to the highest price and a
// dot at the median. Each bar is an inline SVG laid out in percentages, and the labels are HTML text,
// so the chart reads at the same size on a phone as on a laptop.
import { h, list, number, record, svg, text } from "./dom.js";
import { manwon } from "./format.js";

export function rangeChart(title, rows) {
  const usable = list(rows)
    .map((r) => ({ key: text(record(r).key), ...pick(record(record(r).stats)) }))
    .filter((r) => r.key && r.min !== null && r.max !== null && r.median !== null);
  if (usable.length < 2) return null;
  const top = Math.max(...usable.map((r) => r.max));
  const at = (value) => `${((100 * value) / top).toFixed(2)}%`;
  return h("figure", { class: "chart" },
    h("figcaption", {}, title,
      h("span", { class: "legend", "aria-hidden": "true" }, h("span", { class: "legend-span" }), "가격 범위", h("span", { class: "legend-dot" }), "중앙값")),
    h("ul", { class: "chart-rows" }, usable.map((r) =>
      h("li", { "aria-label": `${r.key}: 최저 ${manwon(r.min)}, 중앙값 ${manwon(r.median)}, 최고 ${manwon(r.max)}${r.count ? `, ${r.count}건` : ""}` },
        h("span", { class: "chart-label", "aria-hidden": "true" }, r.key),
        svg("svg", { class: "chart-bar", "aria-hidden": "true", height: 14 },
          svg("line", { x1: "0%", x2: "100%", y1: 7, y2: 7, class: "track" }),
          svg("rect", { x: at(r.min), width: at(Math.max(r.max - r.min, top / 200)), y: 2, height: 10, rx: 5, class: "span" }),
          svg("circle", { cx: at(r.median), cy: 7, r: 5.5, class: "median" }),
        ),
        h("span", { class: "chart-value", "aria-hidden": "true" }, manwon(r.median)),
      ))),
  );
}

function pick(stats) {
  return { min: number(stats.min), max: number(stats.max), median: number(stats.median), count: number(stats.count) };
}

// The market statistics a search step left in `metadata.step_data`, wherever they are.
export function marketCharts(stepData) {
  const charts = [];
  for (const data of Object.values(record(stepData))) {
    const stats = record(record(data).market_stats);
    for (const region of list(stats.regions).map(record)) {
      const name = text(region.region) || text(stats.scope);
      charts.push(rangeChart(`${name} 동별 가격`, region.by_dong));
      charts.push(rangeChart(`${name} 평형별 가격`, region.by_band));
    }
  }
  return charts.filter(Boolean);
}
