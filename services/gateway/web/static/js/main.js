// The page: the session list, the conversation of the open session, the composer, the connection, and
// what Jipsa remembers of the person this browser is (person.js, memory.js).
import * as api from "./api.js";
import { exampleButton } from "./answer.js";
import { Connection } from "./connection.js";
import { Conversation } from "./conversation.js";
import { h, icon, TRASH } from "./dom.js";
import { MemoryView } from "./memory.js";
import { asPerson, ensurePerson } from "./person.js";
import * as sessions from "./sessions.js";
import { startTicker } from "./todos.js";

const EXAMPLES = [
  "전세금 5% 인상 제한이 언제까지인가요?",
  "강남구 아파트 전세 시세와 위험도 분석해줘",
  "임대차계약서 작성해줘",
  "아파트 매매계약서 작성해줘",
  "전세대출 신청하려면 뭐가 필요해요",
  "전세금 3억인데 3억 5천으로 올려달래요",
];
const HISTORY_LIMIT = 30;
const PENCIL = "M4 20h4L19 9l-4-4L4 16v4zM14 6l4 4";
const STATES = {
  connecting: "연결 중…",
  reconnecting: "다시 연결 중…",
  open: "연결됨",
  waiting: "연결 끊김",
  refused: "세션을 열 수 없음",
  idle: "대기",
};

const $ = (selector) => document.querySelector(selector);
const ui = {
  list: $("#session-list"),
  title: $("#session-title"),
  status: $("#connection"),
  statusText: $("#connection-text"),
  retry: $("#retry"),
  welcome: $("#welcome"),
  examples: $("#examples"),
  form: $("#composer"),
  input: $("#query"),
  approval: $("#require-approval"),
  live: $("#live"),
  toasts: $("#toasts"),
  sidebar: $("#sidebar"),
  menu: $("#menu"),
  scrim: $("#scrim"),
};

let current = null; // the open session
let connection = null;
let opening = 0; // guards against a slow history load of a session the person has left

const conversation = new Conversation($("#conversation"), { send, ask, download }, { announce, notify });
const memory = new MemoryView(
  {
    panel: $("#memory"),
    title: $("#memory-title"),
    toggle: $("#memory-toggle"),
    count: $("#memory-count"),
    close: $("#memory-close"),
    remembering: $("#remembering"),
    body: $("#memory-body"),
    footer: $("#memory-footer"),
  },
  { sessions: { find: sessions.findSession, open: (session) => open(session), forgetAll: forgetSessions }, notify, announce },
);

function send(frame) {
  connection?.send(frame);
}

async function ask(query) {
  const trimmed = query.trim();
  if (!trimmed) return;
  if (!current) await open(await newSession());
  if (current.title === sessions.UNTITLED) rename(current.session_id, trimmed.slice(0, 40));
  conversation.addPending(trimmed);
  showWelcome();
  send({ type: "query", query: trimmed, require_approval: ui.approval.checked });
}

async function download(doc) {
  await api.downloadDocument(current, doc);
}

// A session of the person (made on the first visit); without one (the gateway could not make it just
// now) a session of nobody, which answers all the same but is remembered by no one.
async function newSession() {
  const person = await ensurePerson().catch(() => null);
  const created = person ? await asPerson((token) => api.createSession(token)) : await api.createSession();
  sessions.addSession({ session_id: created.session_id, token: created.token });
  return sessions.findSession(created.session_id);
}

async function open(session) {
  const ticket = ++opening;
  connection?.close();
  connection = null;
  current = session;
  sessions.setCurrentSessionId(session?.session_id ?? null);
  conversation.clear();
  drawSessions();
  closeMenu();
  if (!session) {
    setState("idle");
    showWelcome();
    return;
  }
  const restored = await history(session);
  if (ticket !== opening) return;
  if (restored === null) return; // the server does not know this session
  const latest = sessions.findSession(session.session_id) ?? session;
  if (!Number.isInteger(latest.lastPosition) && restored.length) {
    // A browser that never saw a position for this session resumes after its latest run.
    latest.lastPosition = Math.max(...restored.map((r) => r.last_position).filter(Number.isInteger));
  }
  connection = new Connection(latest, {
    onMessage: (message) => {
      try {
        conversation.apply(message);
        if (message.type === "final_response") memory.refresh(); // what the run said may be remembered now
      } catch (error) {
        console.warn("ignored a message the page could not show", message, error); // never break the page
      }
      showWelcome();
    },
    onState: setState,
    onPosition: (position) => sessions.updateSession(session.session_id, { lastPosition: position }),
  });
  connection.open();
  showWelcome();
}

async function history(session) {
  try {
    const runs = (await api.sessionRuns(session)).slice(0, HISTORY_LIMIT).reverse();
    const states = await Promise.all(runs.map((r) => api.runState(session, r.run_id).catch(() => null)));
    const found = states.filter(Boolean);
    conversation.restore(found);
    return found;
  } catch (error) {
    if (error instanceof api.ApiError && (error.status === 401 || error.status === 403)) {
      setState("refused");
      notify("이 대화는 서버에서 찾을 수 없어요. 새 대화를 시작해 주세요.");
      return null;
    }
    notify("이전 대화를 불러오지 못했어요.");
    return [];
  }
}

function setState(state, seconds) {
  ui.status.dataset.state = state;
  ui.statusText.textContent = state === "waiting" && seconds ? `연결 끊김 · ${seconds}초 후 재시도` : STATES[state] ?? state;
  ui.retry.hidden = state !== "waiting";
}

function showWelcome() {
  ui.welcome.hidden = !conversation.isEmpty;
}

function announce(message) {
  // Re-set after a tick so a repeated message is announced again.
  ui.live.textContent = "";
  setTimeout(() => { ui.live.textContent = message; }, 50);
}

function notify(message) {
  const toast = h("div", { class: "toast", role: "alert" }, message);
  ui.toasts.append(toast);
  setTimeout(() => toast.remove(), 7000);
}

function rename(id, title) {
  sessions.updateSession(id, { title });
  if (current?.session_id === id) current = sessions.findSession(id);
  drawSessions();
}

function drawSessions() {
  const all = sessions.allSessions();
  ui.title.textContent = current?.title ?? "새 대화";
  ui.list.replaceChildren(...all.map((s) => sessionItem(s)));
  if (!all.length) ui.list.append(h("li", { class: "muted empty" }, "아직 대화가 없어요."));
}

function sessionItem(session) {
  const active = session.session_id === current?.session_id;
  const item = h("li", { class: active ? "active" : "" });
  const show = () => item.replaceChildren(
    h("button", { class: "session-open", "aria-current": active ? "true" : null, onclick: () => open(session) }, session.title),
    h("button", { class: "icon", "aria-label": `${session.title} 이름 바꾸기`, title: "이름 바꾸기", onclick: edit }, icon(PENCIL)),
    h("button", { class: "icon", "aria-label": `${session.title} 삭제`, title: "삭제", onclick: () => remove(session) }, icon(TRASH)),
  );
  const edit = () => {
    const input = h("input", { value: session.title, "aria-label": "대화 이름", maxlength: "60" });
    const save = () => rename(session.session_id, input.value.trim() || session.title);
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.isComposing) save();
      if (e.key === "Escape") show();
    });
    input.addEventListener("blur", save);
    item.replaceChildren(input);
    input.select();
  };
  show();
  return item;
}

async function remove(session) {
  sessions.removeSession(session.session_id);
  if (current?.session_id === session.session_id) await open(sessions.allSessions()[0] ?? null);
  else drawSessions();
  notify(`'${session.title}' 대화를 이 브라우저에서 지웠어요.`);
}

// This browser's list of conversations, gone with 모두 잊기 when the person asks for it.
function forgetSessions() {
  sessions.removeAllSessions();
  open(null);
}

function closeMenu() {
  document.body.classList.remove("menu-open");
  ui.menu.setAttribute("aria-expanded", "false");
}

function wire() {
  ui.form.addEventListener("submit", (event) => {
    event.preventDefault();
    const query = ui.input.value;
    ui.input.value = "";
    fit();
    ask(query).catch(() => notify("질문을 보내지 못했어요. 잠시 후 다시 시도해 주세요."));
  });
  ui.input.addEventListener("keydown", (event) => {
    // Enter sends; Shift+Enter is a new line; while a Korean syllable is being composed, Enter is the IME's.
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      ui.form.requestSubmit();
    }
  });
  const fit = () => {
    ui.input.style.height = "auto";
    ui.input.style.height = `${Math.min(ui.input.scrollHeight, 180)}px`;
  };
  ui.input.addEventListener("input", fit);
  $("#new-session").addEventListener("click", () => {
    open(null);
    ui.input.focus();
  });
  ui.retry.addEventListener("click", () => connection?.retryNow());
  ui.menu.addEventListener("click", () => {
    const opened = document.body.classList.toggle("menu-open");
    ui.menu.setAttribute("aria-expanded", String(opened));
    if (opened) ui.sidebar.querySelector("button")?.focus();
  });
  ui.scrim.addEventListener("click", closeMenu);
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && document.body.classList.contains("menu-open")) {
      closeMenu();
      ui.menu.focus();
    }
  });
  ui.examples.replaceChildren(...EXAMPLES.map((q) => exampleButton(q, { ask })));
}

wire();
startTicker(document.body);
ensurePerson().then(() => memory.refresh(), () => {}); // the person, on the first visit; asked again when a session is made
const saved = sessions.findSession(sessions.currentSessionId()) ?? sessions.allSessions()[0] ?? null;
// `/?ask=...` (the map page's "ask about this complex"): asked once in the open conversation, then
// dropped from the address so a reload does not ask it again.
const asked = new URLSearchParams(location.search).get("ask")?.trim().slice(0, 2000);
if (asked) window.history.replaceState(null, "", location.pathname); // (`history` here is this module's)
open(saved)
  .then(async () => {
    if (!asked) return;
    if (current && !connection) await open(null); // a session the server refused: ask in a new one
    await ask(asked);
  })
  .catch(() => notify("질문을 보내지 못했어요. 잠시 후 다시 시도해 주세요."));
