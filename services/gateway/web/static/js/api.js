// The gateway's REST side. A session's routes take the session's token; the person's (people/me) and
// creating a session of theirs take the person's token (person.js keeps it).

async function call(path, { token, method = "GET", body } = {}) {
  const headers = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!response.ok) throw new ApiError(response.status, path);
  return response;
}

export class ApiError extends Error {
  constructor(status, path) {
    super(`${path}: HTTP ${status}`);
    this.status = status;
  }
}

export async function createSession(personToken) {
  return (await call("/api/sessions", { token: personToken, method: "POST", body: {} })).json();
}

export async function createPerson() {
  return (await call("/api/people", { method: "POST" })).json();
}

export async function memory(personToken) {
  return (await call("/api/people/me/memory", { token: personToken })).json();
}

export async function forgetItem(personToken, itemId) {
  return (await call(`/api/people/me/memory/${encodeURIComponent(itemId)}`, { token: personToken, method: "DELETE" })).json();
}

export async function forgetAll(personToken) {
  return (await call("/api/people/me/memory", { token: personToken, method: "DELETE" })).json();
}

export async function setRemembering(personToken, remembering) {
  return (await call("/api/people/me/remembering", { token: personToken, method: "PUT", body: { remembering } })).json();
}

export async function sessionRuns(session) {
  const body = await (await call(`/api/sessions/${encodeURIComponent(session.session_id)}/runs`, { token: session.token })).json();
  return Array.isArray(body.runs) ? body.runs : [];
}

export async function runState(session, runId) {
  return (await call(`/api/runs/${encodeURIComponent(runId)}`, { token: session.token })).json();
}

// Fetch with the token (a plain link cannot carry the header), then hand the bytes to the browser.
export async function downloadDocument(session, doc) {
  const response = await call(`/api/documents/${encodeURIComponent(doc.artifact_id)}`, { token: session.token });
  const url = URL.createObjectURL(await response.blob());
  const link = Object.assign(document.createElement("a"), { href: url, download: doc.name || "document" });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
