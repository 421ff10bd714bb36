// The operator's page: asks for the token once (kept in sessionStorage, so it goes with the tab),
// then reads /api/operator/overview every few seconds and draws it. Every call sends the token.

import { h, list, number, record, replaceChildren, text } from "/static/js/dom.js";
import { duration, plain } from "/static/js/format.js";
import { teamLabel } from "/static/js/labels.js";

const TOKEN_KEY = "jipsa.operator.token";
const REFRESH_MS = 4000;
const OUTCOMES = {
  answer: "답변",
  guidance: "안내 (인사 등)",
  "answer with failed steps": "일부 단계 실패한 답변",
  error: "오류 답변",
  failed: "실패 (RunFailed)",
  rejected: "계획 거절",
  cancelled: "취소",
  none: "종료 전 (진행 중 포함)",
};
const CHECKPOINTS = { projections: "프로젝션", publisher: "발행기 (저장소 → NATS)" };
const $ = (id) => document.getElementById(id);

let timer = null;

class Refused extends Error {
  constructor(status) {
    super(`HTTP ${status}`);
    this.status = status;
  }
}

async function call(path, method = "GET") {
  const response = await fetch(path, {
    method,
    headers: { Authorization: `Bearer ${sessionStorage.getItem(TOKEN_KEY) ?? ""}` },
  });
  if (!response.ok) throw new Refused(response.status);
  return response.json();
}

// ---- token ----------------------------------------------------------------------------------------

function askForToken(message = "") {
  clearTimeout(timer);
  $("board").hidden = true;
  $("forget").hidden = true;
  $("login").hidden = false;
  $("login-error").textContent = message;
  $("refreshed").textContent = "";
  $("token").focus();
}

$("login").addEventListener("submit", (event) => {
  event.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, $("token").value.trim());
  $("token").value = "";
  $("login").hidden = true;
  refresh();
  showTimeline();
});

$("forget").addEventListener("click", () => {
  sessionStorage.removeItem(TOKEN_KEY);
  askForToken();
});

// ---- refreshing -----------------------------------------------------------------------------------

async function refresh() {
  clearTimeout(timer);
  try {
    draw(await call(`/api/operator/overview?minutes=${$("window").value}`));
    $("board").hidden = false;
    $("forget").hidden = false;
    $("refreshed").textContent = `${new Date().toLocaleTimeString("ko-KR")} 갱신 · ${REFRESH_MS / 1000}초마다 자동 갱신`;
  } catch (error) {
    if (error instanceof Refused && error.status === 401) return askForToken("토큰이 맞지 않습니다.");
    $("refreshed").textContent = `갱신 실패 (${error.message}) · 다시 시도합니다`;
  }
  timer = setTimeout(refresh, REFRESH_MS);
}

$("window").addEventListener("change", refresh);

function draw(overview) {
  drawRuns(record(overview.runs), number(overview.minutes));
  table($("steps"), ["팀", "단계", "실패", "p50", "p95"], list(overview.steps).map((s) => [
    teamLabel(s.team), plain(s.steps), plain(s.failed), ms(s.p50_ms), ms(s.p95_ms),
  ]), "이 기간에 끝난 단계가 없습니다");
  table($("llm"), ["호출 지점", "호출", "실패", "규칙 대체", "p50"], list(overview.llm).map((c) => [
    text(c.call_point), plain(c.calls), plain(c.failures), plain(c.fallbacks), ms(c.p50_ms),
  ]), "이 기간에 기록된 LLM 호출이 없습니다 (규칙 모드)");
  drawLetters(list(overview.dead_letters));
  table($("checkpoints"), ["읽는 쪽", "위치", "로그 끝", "뒤처짐"], list(overview.checkpoints).map((c) => [
    CHECKPOINTS[c.name] ?? text(c.name), plain(c.position), plain(c.head), behind(c.behind),
  ]), "체크포인트가 없습니다");
  drawConsumers(record(overview.consumers));
  drawSlowest(list(overview.slowest));
}

function drawRuns(runs, minutes) {
  const perMinute = list(runs.per_minute);
  const peak = Math.max(0, ...perMinute.map((m) => number(m.runs) ?? 0));
  const highest = Math.max(1, peak); // the bars' scale
  const lastMinute = perMinute.at(-1)?.runs ?? 0;
  const counted = runs.capped ? `최근 ${plain(runs.counted)}건만 집계` : `${plain(runs.counted)}건`;
  $("runs-summary").textContent = `최근 ${minutes}분 ${counted} · 이번 분 ${plain(lastMinute)}건 · 가장 많은 분 ${plain(peak)}건`;
  replaceChildren($("per-minute"), perMinute.map((m) => {
    const at = new Date(text(m.minute)).toLocaleTimeString("ko-KR", { hour: "2-digit", minute: "2-digit" });
    return h("span", {
      class: "bar",
      style: `height:${Math.round(((number(m.runs) ?? 0) / highest) * 100)}%`,
      title: `${at} · ${plain(m.runs)}건`,
    });
  }));
  $("axis-start").textContent = `${minutes}분 전`;
  const byOutcome = record(runs.by_outcome);
  table($("outcomes"), ["결과", "실행 수"], Object.entries(OUTCOMES).map(([code, label]) => [
    label, h("span", { class: (byOutcome[code] ?? 0) > 0 && ["error", "failed", "none"].includes(code) ? "warn" : "" }, plain(byOutcome[code] ?? 0)),
  ]), "", "결과별 실행 수");
}

function drawLetters(letters) {
  table($("letters"), ["#", "소비자", "주제", "사유", "전달", "보관 시각", ""], letters.map((d) => [
    `#${plain(d.id)}`,
    text(d.consumer),
    h("code", {}, text(d.subject)),
    h("span", { class: "reason" }, text(d.error)),
    plain(d.deliveries),
    clock(d.parked_at),
    d.replayed_at
      ? h("span", { class: "done" }, `재처리됨 ${clock(d.replayed_at)}`)
      : h("button", { type: "button", class: "primary", onclick: (event) => redrive(d.id, event.currentTarget) }, "재처리"),
  ]), "데드 레터가 없습니다", null, (d) => ({ "data-letter": d.id, class: d.replayed_at ? "redriven" : "" }), letters);
}

async function redrive(id, button) {
  button.disabled = true;
  try {
    const done = await call(`/api/operator/dead-letters/${encodeURIComponent(id)}/redrive`, "POST");
    toast(`#${id}을(를) ${text(done.subject)}(으)로 다시 보냈습니다`);
  } catch (error) {
    if (error instanceof Refused && error.status === 401) return askForToken("토큰이 맞지 않습니다.");
    toast(`#${id} 재처리 실패: ${error.message}`);
    button.disabled = false;
  }
  refresh();
}

function drawConsumers(consumers) {
  $("consumers-note").textContent = consumers.problem
    ? text(consumers.problem)
    : `스트림 ${text(consumers.stream)}의 영속 소비자`;
  table($("consumers"), ["소비자", "미전달", "처리 중", "재전달"], list(consumers.list).map((c) => [
    text(c.consumer), behind(c.pending), plain(c.unacked), plain(c.redelivered),
  ]), consumers.problem ? "" : "소비자가 없습니다");
}

function drawSlowest(runs) {
  table($("slowest"), ["질문", "결과", "걸린 시간", "시작", ""], runs.map((r) => [
    h("span", { class: "query" }, text(r.query) || "(질문 없음)"),
    OUTCOMES[r.outcome] ?? text(r.outcome),
    duration(number(r.total_ms)),
    clock(r.created_at),
    h("a", { href: `#run=${encodeURIComponent(text(r.run_id))}` }, "타임라인"),
  ]), "이 기간에 끝난 실행이 없습니다");
}

// ---- a run's timeline (what `jipsa audit RUN_ID` prints), opened by #run=ID --------------------------

async function showTimeline() {
  const runId = new URLSearchParams(location.hash.slice(1)).get("run");
  $("timeline").hidden = !runId;
  if (!runId) return;
  $("timeline-run").textContent = runId;
  try {
    const body = await call(`/api/operator/runs/${encodeURIComponent(runId)}/timeline`);
    table($("timeline-rows"), ["위치", "시각", "이벤트", "생산자", "원인", "내용"], list(body.events).map((e) => [
      plain(e.position), clock(e.occurred_at, true), text(e.event), text(e.producer), text(e.cause) || "-", text(e.details),
    ]), "이벤트가 없습니다");
    $("timeline").scrollIntoView({ block: "start" });
  } catch (error) {
    if (error instanceof Refused && error.status === 401) return askForToken("토큰이 맞지 않습니다.");
    table($("timeline-rows"), [], [], `타임라인을 불러오지 못했습니다 (${error.message})`);
  }
}

window.addEventListener("hashchange", showTimeline);

// ---- drawing helpers ------------------------------------------------------------------------------

function table(el, headings, rows, empty, caption = null, rowAttrs = () => ({}), items = rows) {
  replaceChildren(
    el,
    caption ? h("caption", {}, caption) : null,
    headings.length ? h("thead", {}, h("tr", {}, headings.map((t) => h("th", { scope: "col" }, t)))) : null,
    h("tbody", {}, rows.length
      ? rows.map((cells, i) => h("tr", rowAttrs(items[i]), cells.map((c) => h("td", {}, c))))
      : h("tr", {}, h("td", { colspan: Math.max(1, headings.length), class: "empty" }, empty))),
  );
}

const ms = (value) => (number(value) === null ? "-" : `${plain(Math.round(value))} ms`);
const behind = (value) => h("span", { class: (number(value) ?? 0) > 0 ? "warn" : "" }, plain(value ?? 0));

function clock(iso, seconds = false) {
  const at = new Date(text(iso));
  if (Number.isNaN(at.getTime())) return "";
  const options = { month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hour12: false };
  if (seconds) options.second = "2-digit";
  return at.toLocaleString("ko-KR", options);
}

function toast(message) {
  const el = $("toast");
  el.textContent = message;
  el.hidden = false;
  setTimeout(() => { el.hidden = true; }, 5000);
}

if (sessionStorage.getItem(TOKEN_KEY)) {
  refresh();
  showTimeline();
} else {
  askForToken();
}
