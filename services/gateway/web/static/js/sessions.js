// The person's sessions, kept in this browser only: {session_id, token, title, lastPosition}.
// Deleting forgets a session here; the server keeps its runs (the token is the only key to them).

const KEY = "jipsa.sessions.v1";
const CURRENT = "jipsa.current.v1";
export const UNTITLED = "새 대화";

function read() {
  try {
    const stored = JSON.parse(localStorage.getItem(KEY) ?? "[]");
    return Array.isArray(stored) ? stored.filter((s) => s && typeof s.session_id === "string" && typeof s.token === "string") : [];
  } catch {
    return [];
  }
}

function write(sessions) {
  try {
    localStorage.setItem(KEY, JSON.stringify(sessions));
  } catch {
    // Storage full or disabled (private mode): the page still works for this visit.
  }
}

export function allSessions() {
  return read();
}

export function findSession(id) {
  return read().find((s) => s.session_id === id) ?? null;
}

export function addSession(session) {
  write([{ title: UNTITLED, lastPosition: null, ...session }, ...read()]);
}

export function updateSession(id, changes) {
  write(read().map((s) => (s.session_id === id ? { ...s, ...changes } : s)));
}

export function removeSession(id) {
  write(read().filter((s) => s.session_id !== id));
}

export function removeAllSessions() {
  write([]);
  setCurrentSessionId(null);
}

export function currentSessionId() {
  return localStorage.getItem(CURRENT);
}

export function setCurrentSessionId(id) {
  if (id) localStorage.setItem(CURRENT, id);
  else localStorage.removeItem(CURRENT);
}
