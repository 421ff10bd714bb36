// One WebSocket per open session, kept alive: it reconnects by itself with backoff and resumes with
// `?after_position=` (the last event position it has seen), so the gateway replays exactly what was
// missed: nothing lost, nothing repeated. Frames sent while disconnected wait and go out on reconnect.

const BACKOFF_MS = [500, 1000, 2000, 4000, 8000];
const POLICY_VIOLATION = 1008; // the token is not this session's: reconnecting cannot help

export class Connection {
  constructor(session, { onMessage, onState, onPosition }) {
    this.session = session;
    this.onMessage = onMessage;
    this.onState = onState;
    this.onPosition = onPosition;
    this.position = Number.isInteger(session.lastPosition) ? session.lastPosition : null;
    this.queue = [];
    this.failures = 0;
    this.closed = false;
    this.socket = null;
    this.timer = null;
    this.online = () => this.retryNow();
    window.addEventListener("online", this.online);
  }

  open() {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.onState(this.failures ? "reconnecting" : "connecting");
    const socket = new WebSocket(this.url());
    this.socket = socket;
    socket.addEventListener("open", () => this.opened(socket));
    socket.addEventListener("message", (event) => this.received(event.data));
    socket.addEventListener("close", (event) => this.lost(socket, event));
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const params = new URLSearchParams({ token: this.session.token });
    if (this.position !== null) params.set("after_position", String(this.position));
    return `${scheme}://${location.host}/ws/${encodeURIComponent(this.session.session_id)}?${params}`;
  }

  opened(socket) {
    if (socket !== this.socket) return;
    this.failures = 0;
    this.onState("open");
    for (const frame of this.queue.splice(0)) socket.send(frame);
  }

  received(data) {
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      return; // not JSON: ignored, the page goes on
    }
    if (!message || typeof message !== "object" || typeof message.type !== "string") return;
    const position = message.position;
    if (Number.isInteger(position) && message.type !== "connected") {
      if (this.position !== null && position <= this.position) return; // already shown
      this.position = position;
      this.onPosition(position);
    } else if (message.type === "connected" && this.position === null && Number.isInteger(message.head)) {
      this.position = message.head; // live from the head: a reconnect resumes from here
      this.onPosition(message.head);
    }
    this.onMessage(message);
  }

  lost(socket, event) {
    if (socket !== this.socket || this.closed) return;
    this.socket = null;
    if (event.code === POLICY_VIOLATION) {
      this.onState("refused");
      return;
    }
    const delay = BACKOFF_MS[Math.min(this.failures, BACKOFF_MS.length - 1)] * (0.8 + Math.random() * 0.4);
    this.failures += 1;
    this.onState("waiting", Math.round(delay / 1000));
    this.timer = setTimeout(() => this.open(), delay);
  }

  retryNow() {
    if (!this.closed && !this.socket) this.open();
  }

  send(frame) {
    const data = JSON.stringify(frame);
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(data);
    else this.queue.push(data);
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    window.removeEventListener("online", this.online);
    this.socket?.close(1000);
    this.socket = null;
  }
}
