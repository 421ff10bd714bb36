// Korean number formats: 만원 amounts as 억/만, areas in ㎡ and 평, durations in 초/분.

export const M2_PER_PYEONG = 3.3058;
const grouped = new Intl.NumberFormat("ko-KR", { maximumFractionDigits: 1 });

export function plain(value) {
  return typeof value === "number" ? grouped.format(value) : String(value ?? "");
}

// 106500 (만원) -> "10억 6,500만", 9500 -> "9,500만"
export function manwon(value) {
  if (typeof value !== "number" || !Number.isFinite(value)) return "-";
  const rounded = Math.round(value);
  const eok = Math.floor(rounded / 10000);
  const rest = rounded % 10000;
  if (eok === 0) return `${grouped.format(rest)}만`;
  return rest ? `${grouped.format(eok)}억 ${grouped.format(rest)}만` : `${grouped.format(eok)}억`;
}

export const pyeong = (m2) => m2 / M2_PER_PYEONG;

export function areaRange(low, high) {
  if (low == null && high == null) return { m2: "-", py: "" };
  const lo = low ?? high;
  const hi = high ?? low;
  const fmt = (a, b, f) => (Math.round(f(a)) === Math.round(f(b)) ? `${Math.round(f(a))}` : `${Math.round(f(a))}~${Math.round(f(b))}`);
  return { m2: `${fmt(lo, hi, (x) => x)}㎡`, py: `${fmt(lo, hi, pyeong)}평` };
}

export function duration(ms) {
  if (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0) return "";
  const seconds = ms / 1000;
  if (seconds < 10) return `${seconds.toFixed(1)}초`;
  if (seconds < 60) return `${Math.round(seconds)}초`;
  return `${Math.floor(seconds / 60)}분 ${Math.round(seconds % 60)}초`;
}

export function since(iso, until = Date.now()) {
  const start = Date.parse(iso);
  return Number.isNaN(start) ? "" : duration(Math.max(0, until - start));
}

export function between(startIso, endIso) {
  const end = Date.parse(endIso);
  return Number.isNaN(end) ? "" : since(startIso, end);
}

export const percent = (value) => `${Math.round((value ?? 0) * 100)}%`;

// When something was said, as a person says it: "방금 전", "12분 전", "오늘 오후 3:20", "어제 오후 3:20",
// "12월 2일 오후 3:20", or with its year when it was another year.
const clock = new Intl.DateTimeFormat("ko-KR", { hour: "numeric", minute: "2-digit" });
const day = new Intl.DateTimeFormat("ko-KR", { month: "long", day: "numeric" });
const longDay = new Intl.DateTimeFormat("ko-KR", { year: "numeric", month: "long", day: "numeric" });
export const fullTime = new Intl.DateTimeFormat("ko-KR", { dateStyle: "long", timeStyle: "short" });

export function saidWhen(iso, now = new Date()) {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return "";
  const minutes = Math.floor((now - at) / 60_000);
  if (minutes < 1) return "방금 전";
  if (minutes < 60) return `${minutes}분 전`;
  const midnight = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  if (at >= midnight) return `오늘 ${clock.format(at)}`;
  if (at >= new Date(midnight - 86_400_000)) return `어제 ${clock.format(at)}`;
  if (at.getFullYear() === now.getFullYear()) return `${day.format(at)} ${clock.format(at)}`;
  return longDay.format(at);
}
