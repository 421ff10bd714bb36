// "집사가 기억하는 것": what Jipsa remembers of the person (GET /api/people/me/memory), grouped by kind,
// each item with when it was said (and the conversation, when this browser keeps it) and a button that
// forgets it; "모두 잊기" behind a confirmation in the panel; remembering switched on or off.
//
// The gateway answers a change with the memory as it now is (it folds the person's newest events on top
// of the projection), so after each change the view simply reads the memory again. It is read again
// when a run ends too, whether the panel is open or not: the count beside the button stays true.
import * as api from "./api.js";
import { h, icon, list, record, replaceChildren, text, TRASH } from "./dom.js";
import { fullTime, saidWhen } from "./format.js";
import { asPerson } from "./person.js";

const KINDS = [
  ["fact", "사실"],
  ["place", "지역·단지"],
  ["property_type", "주택 유형"],
  ["deal_type", "거래 유형"],
  ["conversation", "지난 대화"],
];

export class MemoryView {
  // `ui`: the panel's elements; `sessions`: {find(id), open(session)} to show where an item was said, and
  // forgetAll() to clear this browser's list of conversations.
  constructor(ui, { sessions, notify, announce }) {
    this.ui = ui;
    this.sessions = sessions;
    this.notify = notify;
    this.announce = announce;
    this.memory = null;
    this.failed = false;
    this.busy = false;
    this.confirming = false;
    this.reading = null;
    this.again = false;
    ui.toggle.addEventListener("click", () => (this.isOpen ? this.close() : this.open()));
    ui.close.addEventListener("click", () => this.close());
    ui.remembering.addEventListener("change", () => this.setRemembering(ui.remembering.checked));
    ui.panel.addEventListener("keydown", (event) => {
      if (event.key === "Escape") this.close();
    });
  }

  get isOpen() {
    return !this.ui.panel.hidden;
  }

  open() {
    this.ui.panel.hidden = false;
    document.body.classList.add("memory-open");
    this.ui.toggle.setAttribute("aria-expanded", "true");
    this.ui.title.focus();
    this.draw();
    this.refresh();
  }

  close() {
    if (!this.isOpen) return;
    this.ui.panel.hidden = true;
    this.confirming = false;
    document.body.classList.remove("memory-open");
    this.ui.toggle.setAttribute("aria-expanded", "false");
    this.ui.toggle.focus();
  }

  // Read the memory again; calls while a read is under way make one more read after it, not one each.
  async refresh() {
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    this.reading = (async () => {
      do {
        this.again = false;
        await this.read();
      } while (this.again);
    })().finally(() => { this.reading = null; });
    return this.reading;
  }

  async read() {
    try {
      this.memory = record(await asPerson((token) => api.memory(token)));
      this.failed = false;
    } catch {
      this.failed = true; // the gateway is away: the view says so and the next refresh tries again
    }
    this.draw();
  }

  async change(what, done, failed) {
    if (this.busy) return;
    this.busy = true;
    this.draw();
    try {
      await asPerson(what);
      this.announce(done);
    } catch {
      this.notify(failed);
    } finally {
      this.busy = false;
    }
    await this.refresh();
  }

  forget(item) {
    const value = text(item.value);
    return this.change((token) => api.forgetItem(token, text(item.id)), `'${value}'을(를) 잊었어요.`,
      "기억을 지우지 못했어요. 잠시 후 다시 시도해 주세요.");
  }

  forgetAll(andTheList) {
    this.confirming = false;
    return this.change(async (token) => {
      await api.forgetAll(token);
      if (andTheList) this.sessions.forgetAll();
    }, "집사가 기억하던 것을 모두 잊었어요.", "모두 잊지 못했어요. 잠시 후 다시 시도해 주세요.");
  }

  setRemembering(on) {
    return this.change((token) => api.setRemembering(token, on),
      on ? "이제 대화에서 말씀하신 것을 기억해요." : "이제 새로 기억하지 않고, 기억한 것도 쓰지 않아요.",
      "기억하기를 바꾸지 못했어요. 잠시 후 다시 시도해 주세요.");
  }

  draw() {
    const memory = this.memory;
    const items = list(memory?.items).map(record).filter((i) => typeof i.id === "string");
    this.ui.count.textContent = items.length ? String(items.length) : "";
    if (!this.isOpen) return;
    const remembering = memory ? memory.remembering !== false : true;
    this.ui.remembering.checked = remembering;
    this.ui.remembering.disabled = this.busy || !memory;
    this.ui.body.setAttribute("aria-busy", String(this.busy || (!memory && !this.failed)));
    replaceChildren(this.ui.body,
      !remembering && h("p", { class: "memory-off", role: "note" },
        "기억하기가 꺼져 있어요. 새로 말씀하신 것은 기억하지 않고, 기억한 것도 답변에 쓰지 않아요."),
      this.failed && h("p", { class: "notice", role: "alert" }, "기억을 불러오지 못했어요. 잠시 후 다시 열어 주세요."),
      !memory && !this.failed && h("p", { class: "muted" }, "불러오는 중…"),
      memory && !items.length && empty(memory),
      KINDS.map(([kind, label]) => this.group(kind, label, items.filter((i) => i.kind === kind))),
    );
    replaceChildren(this.ui.footer, this.confirming ? this.confirmation() : h("button", {
      type: "button", class: "danger", disabled: this.busy || !memory, onclick: () => this.ask(),
    }, "모두 잊기"));
  }

  group(kind, label, items) {
    if (!items.length) return null;
    const id = `memory-${kind}`;
    return h("section", { class: "memory-group", "aria-labelledby": id },
      h("h3", { id }, label, h("span", { class: "count" }, String(items.length))),
      h("ul", { class: "memory-items" }, [...items].reverse().map((item) => this.item(item))),
    );
  }

  item(item) {
    const value = text(item.value);
    const said = text(item.said_at);
    const session = this.sessions.find(text(item.session_id));
    return h("li", { class: `memory-item kind-${text(item.kind)}`, dataset: { id: text(item.id) } },
      h("div", { class: "memory-text" },
        h("span", { class: "memory-value" }, value),
        h("span", { class: "memory-meta" },
          h("time", { datetime: said, title: stamp(said) }, saidWhen(said)),
          session && h("span", { "aria-hidden": "true" }, "·"),
          session && h("button", {
            type: "button", class: "link", title: `'${session.title}' 대화 열기`, onclick: () => this.sessions.open(session),
          }, item.kind === "conversation" ? "대화 열기" : session.title),
        ),
      ),
      h("button", {
        type: "button", class: "icon forget", "aria-label": `${value} 잊기`, title: "잊기",
        disabled: this.busy, onclick: () => this.forget(item),
      }, icon(TRASH)),
    );
  }

  ask() {
    this.confirming = true;
    this.draw();
    this.ui.footer.querySelector("button.cancel")?.focus();
  }

  // Asked in the panel, not in a browser dialog: it says what goes, and offers this browser's own list of
  // conversations too (their titles are the person's words, kept here, out of the gateway's reach).
  confirmation() {
    const list = h("input", { type: "checkbox", id: "forget-list", checked: true });
    return h("div", { class: "memory-confirm", role: "alertdialog", "aria-labelledby": "forget-all-question", "aria-describedby": "forget-all-why" },
      h("p", { id: "forget-all-question", class: "question" }, "집사가 기억하는 것을 모두 잊을까요?"),
      h("p", { id: "forget-all-why" }, "기억한 내용은 모두 지워져 다음 상담에 쓰지 않으며, 되돌릴 수 없어요."),
      h("label", { class: "check", for: "forget-list" }, list, "이 브라우저의 대화 목록도 지우기"),
      h("div", { class: "actions" },
        h("button", { type: "button", class: "danger solid", onclick: () => this.forgetAll(list.checked) }, "모두 잊기"),
        h("button", { type: "button", class: "cancel", onclick: () => { this.confirming = false; this.draw(); } }, "취소"),
      ),
    );
  }
}

function empty(memory) {
  const forgotten = text(memory.forgotten_at);
  return h("div", { class: "memory-empty" },
    h("p", {}, "아직 기억하는 것이 없어요."),
    h("p", { class: "muted" }, "소득, 가진 집, 관심 있는 지역이나 거래처럼 말씀하신 것을 기억해 두었다가 다음 상담에 써요."),
    forgotten && h("p", { class: "muted" }, `${saidWhen(forgotten)}에 모두 잊었어요.`),
  );
}

function stamp(iso) {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? "" : fullTime.format(at);
}
