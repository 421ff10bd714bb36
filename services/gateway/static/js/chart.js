// A small range chart as inline SVG: one row per group (동 or 평형), a bar from the lowest to the
// highest price and a dot at the median. Text is in the SVG too, so it reads without the table.
import { svg, h, list, number, record, text } from "./dom.js";
import { manwon } from "./format.js";

const ROW = 28;
const LABEL = 84;
const WIDTH = 720;
const VALUE = 104;

export function rangeChart(title, rows) {
  const usable = list(rows)
    .map((r) => ({ key: text(r.key), ...pick(record(r.stats)) }))
    .filter((r) => r.key && r.min !== null && r.max !== null && r.median !== null);
  if (usable.length < 2) return null;
  const top = Math.max(...usable.map((r) => r.max));
  const x = (value) => LABEL + ((WIDTH - LABEL - VALUE) * value) / top;
  const height = usable.length * ROW + 8;
  const chart = svg("svg", { viewBox: `0 0 ${WIDTH} ${height}`, role: "img", "aria-label": `${title}: 최저·중앙값·최고 가격`, class: "range-chart" },
    usable.map((r, i) => {
      const y = i * ROW + 18;
      return svg("g", {},
        svg("title", {}, `${r.key}: 최저 ${manwon(r.min)}, 중앙값 ${manwon(r.median)}, 최고 ${manwon(r.max)} (${r.count ?? "?"}건)`),
        svg("text", { x: 0, y: y + 4, class: "label" }, r.key),
        svg("line", { x1: LABEL, x2: WIDTH - VALUE, y1: y, y2: y, class: "track" }),
        svg("rect", { x: x(r.min), y: y - 5, width: Math.max(2, x(r.max) - x(r.min)), height: 10, rx: 5, class: "span" }),
        svg("circle", { cx: x(r.median), cy: y, r: 5.5, class: "median" }),
        svg("text", { x: WIDTH, y: y + 4, class: "value", "text-anchor": "end" }, manwon(r.median)),
      );
    }),
  );
  return h("figure", { class: "chart" },
    h("figcaption", {}, title, h("span", { class: "legend" }, h("span", { class: "legend-span" }), "가격 범위", h("span", { class: "legend-dot" }), "중앙값")),
    chart,
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
    for (const region of list(stats.regions)) {
      const name = text(record(region).region) || text(stats.scope);
      charts.push(rangeChart(`${name} 동별 가격`, record(region).by_dong));
      charts.push(rangeChart(`${name} 평형별 가격`, record(region).by_band));
    }
  }
  return charts.filter(Boolean);
}
