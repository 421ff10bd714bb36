// The conversation: one turn per run, its state folded from the server's messages. Every message
// only sets state and redraws the parts it touched, so a message seen twice (history, then a replay)
// changes nothing, and an unknown or malformed one is ignored.
import { answerCard } from "./answer.js";
import { h, list, number, record, replaceChildren, text } from "./dom.js";
import { statusLabel } from "./labels.js";
import { planCard } from "./plan.js";
import { inputRequestForm } from "./questions.js";
import { todoCard } from "./todos.js";

const REJECTED = "계획이 거절되어 실행하지 않았습니다.";
const CANCELLED = "요청하신 대로 실행을 취소했습니다.";

export class Conversation {
  constructor(root, actions, { announce, notify }) {
    this.root = root;
    this.actions = { ...actions, rerender: (run) => this.draw(run) };
    this.announce = announce;
    this.notify = notify;
    this.runs = new Map();
    this.pending = [];
  }

  clear() {
    this.runs.clear();
    this.pending = [];
    this.root.replaceChildren();
  }

  get isEmpty() {
    return this.runs.size === 0 && this.pending.length === 0;
  }

  // A question just sent: shown at once, adopted by its run when `planning_start` names it.
  addPending(query) {
    const run = this.newRun(null, query);
    this.pending.push(run);
    this.draw(run);
    this.scrollToEnd(true);
  }

  apply(message) {
    const handler = HANDLERS[message.type];
    if (!handler) return; // a message type this page does not know: not for it
    const runId = typeof message.run_id === "string" ? message.run_id : null;
    if (message.type === "error") {
      this.error(runId, message);
      return;
    }
    if (!runId) return;
    if (!isWellFormed(message)) return;
    const received = inputReceived(message);
    if (received) this.dropPending(text(received.message));
    const nearEnd = this.isNearEnd();
    const run = this.ensure(runId, text(message.query));
    handler(run, message, this.announce);
    this.draw(run);
    this.scrollToEnd(nearEnd);
  }

  // Earlier runs, from GET /api/runs/{id}: the same state the messages would have built.
  restore(states) {
    for (const state of states.map(record).filter((s) => typeof s.run_id === "string")) {
      const run = this.ensure(state.run_id, text(state.query));
      fromFinalState(run, state);
      this.draw(run);
    }
    this.scrollToEnd(true);
  }

  error(runId, message) {
    const run = runId && this.runs.get(runId);
    const why = text(message.message) || text(message.code) || "알 수 없는 오류";
    if (run) {
      run.notice = why;
      for (const id of run.skipping) run.skipping.delete(id);
      if (run.approval) run.approval.sent = null; // the answer was refused: ask again
      if (run.input) run.input.sent = false;
      this.draw(run);
    } else {
      this.notify(`서버가 요청을 거절했어요: ${why}`);
    }
  }

  // A message sent as a question that answered a run's form instead: it is shown in that run's turn.
  dropPending(query) {
    const index = query ? this.pending.findIndex((p) => p.query.trim() === query.trim()) : -1;
    if (index >= 0) this.pending.splice(index, 1)[0].turn.remove();
  }

  ensure(runId, query) {
    if (this.runs.has(runId)) return this.runs.get(runId);
    const index = this.pending.findIndex((p) => p.query.trim() === query.trim());
    const run = index >= 0 ? this.pending.splice(index, 1)[0] : this.newRun(runId, query);
    run.id = runId;
    run.turn.dataset.run = runId;
    this.runs.set(runId, run);
    return run;
  }

  newRun(id, query) {
    const turn = h("article", { class: "turn", "aria-label": "질문과 답변" });
    this.root.append(turn);
    return { id, query, plan: null, approval: null, todos: null, input: null, replies: new Map(), final: null, notice: null, skipping: new Set(), turn };
  }

  draw(run) {
    const focused = document.activeElement;
    const refocus = run.turn.contains(focused) ? focused.closest("[data-step]")?.dataset.step : null;
    const planned = list(run.plan?.steps);
    replaceChildren(
      run.turn,
      run.query && h("div", { class: "bubble user" }, h("p", {}, run.query)),
      !run.id && h("p", { class: "thinking", role: "status" }, h("span", { class: "dots", "aria-hidden": "true" }), "질문을 보내는 중…"),
      run.id && !run.plan && !run.final && h("p", { class: "thinking", role: "status" }, h("span", { class: "dots", "aria-hidden": "true" }), "계획을 세우는 중…"),
      run.plan && planned.length > 0 && planCard(run, this.actions),
      run.todos && list(run.todos.steps).length > 0 && todoCard(run, this.actions),
      run.plan && !run.todos && !run.final && !run.approval && planned.length > 0 &&
        h("p", { class: "thinking", role: "status" }, h("span", { class: "dots", "aria-hidden": "true" }), "실행을 준비하는 중…"),
      run.input && !run.final && inputRequestForm(run, run.input, this.actions),
      [...run.replies.values()].map((reply) => h("div", { class: "bubble user" }, h("p", {}, reply))),
      run.final && answerCard(run, this.actions),
      run.notice && h("p", { class: "notice", role: "alert" }, run.notice),
    );
    if (refocus) run.turn.querySelector(`[data-step="${CSS.escape(refocus)}"] button`)?.focus();
  }

  isNearEnd() {
    const scroller = this.root.closest(".scroller") ?? document.scrollingElement;
    return scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 160;
  }

  scrollToEnd(wanted) {
    if (!wanted) return;
    const scroller = this.root.closest(".scroller") ?? document.scrollingElement;
    requestAnimationFrame(() => scroller.scrollTo({ top: scroller.scrollHeight }));
  }
}

const HANDLERS = {
  connected: () => {},
  pong: () => {},
  error: () => {},
  planning_start: () => {},
  // The plan; with `requires_approval` the run waits for the person's answer (the approval's actions).
  plan_ready(run, m, announce) {
    run.plan = {
      intent: text(m.intent),
      confidence: number(m.confidence),
      strategy: text(m.strategy),
      steps: steps(m.execution_steps),
      estimate: number(m.estimated_total_time),
    };
    // Already answered (execution began or the run ended): an old plan seen again in a replay.
    const waits = m.requires_approval === true && !run.final && !run.todos;
    if (waits) run.approval = { steps: run.plan.steps, actions: approvalActions(m.approval), sent: null };
    if (run.plan.steps.length) {
      announce(`계획이 준비됐어요. ${run.plan.steps.length}단계입니다.${waits ? " 승인을 기다리고 있어요." : ""}`);
    }
  },
  input_request(run, m, announce) {
    if (run.final) return;
    run.input = { step_id: text(m.step_id), questions: list(m.questions).map(record), message: text(m.message), sent: false };
    announce("진행하려면 몇 가지 정보가 더 필요해요.");
  },
  execution_start: todos,
  // A todo_updated may say the form was answered (from the form, or by a message typed; that message is
  // keyed by its position so a replay shows it once).
  todo_updated(run, m, announce) {
    todos(run, m, announce);
    const received = inputReceived(m);
    if (!received) return;
    if (run.input?.step_id === text(received.step_id)) run.input = null;
    if (text(received.message)) run.replies.set(m.position, text(received.message));
  },
  final_response(run, m, announce) {
    run.final = record(m.response);
    run.approval = null;
    run.notice = null;
    announce(run.final.type === "error" ? "요청을 처리하지 못했어요." : "답변이 도착했어요.");
  },
};

// The fields a message's handler relies on; a message without them is dropped, never half-applied.
function isWellFormed(m) {
  switch (m.type) {
    case "plan_ready":
    case "execution_start":
    case "todo_updated":
      return Array.isArray(m.execution_steps);
    case "input_request":
      return typeof m.step_id === "string" && Array.isArray(m.questions);
    case "final_response":
      return Boolean(m.response) && typeof m.response === "object" && typeof m.response.content === "string";
    default:
      return true;
  }
}

// The answers a `todo_updated` carries when it reports a form answered, else null.
function inputReceived(m) {
  const received = m.type === "todo_updated" ? record(m.input_received) : {};
  return typeof received.step_id === "string" ? received : null;
}

function todos(run, m, announce) {
  const before = new Map(list(run.todos?.steps).map((s) => [s.step_id, s.status]));
  const current = steps(m.execution_steps);
  run.todos = { steps: current, progress: number(m.progress_pct) };
  run.approval = null;
  run.notice = null;
  for (const step of current) {
    if (!["pending", "in_progress"].includes(step.status)) run.skipping.delete(step.step_id);
    if (before.get(step.step_id) !== step.status && step.status !== "pending") {
      announce(`${text(step.task)}: ${statusLabel(step.status)}`);
    }
  }
}

// The answers a waiting plan allows (all three when the server names none it knows).
const APPROVAL_ACTIONS = ["approve", "modify", "reject"];
function approvalActions(approval) {
  const named = list(record(approval).actions).filter((a) => APPROVAL_ACTIONS.includes(a));
  return named.length ? named : APPROVAL_ACTIONS;
}

// Steps are objects with an id; anything else in the list is dropped.
function steps(value) {
  return list(value).map(record).filter((s) => typeof s.step_id === "string");
}

function fromFinalState(run, state) {
  const intent = record(state.intent);
  const plan = record(state.plan);
  if (state.plan) {
    run.plan = {
      intent: text(intent.type),
      confidence: number(intent.confidence),
      strategy: text(plan.strategy),
      steps: steps(plan.steps),
      estimate: number(plan.estimated_total_s),
    };
  }
  const todo = record(state.todo);
  if (list(todo.steps).length) run.todos = { steps: steps(todo.steps), progress: number(todo.progress_pct) };
  if (state.status === "awaiting_approval" && run.plan) {
    run.approval = { steps: run.plan.steps, actions: APPROVAL_ACTIONS, sent: null };
  }
  if (state.status === "awaiting_input") run.input = waitingInput(state);
  run.final = finalOf(state);
}

// The questions a waiting run asked, from the result of the step that needs them.
function waitingInput(state) {
  for (const [stepId, result] of Object.entries(record(state.step_results))) {
    const asked = record(result);
    if (asked.needs_input && list(asked.questions).length) {
      return { step_id: stepId, questions: list(asked.questions).map(record), message: text(asked.headline), sent: false };
    }
  }
  return null;
}

function finalOf(state) {
  const response = state.response ? record(state.response) : null;
  if (response) {
    const { response_type: type, answer, ...data } = response;
    return { type, content: answer, data };
  }
  const errors = list(state.errors).map(record);
  if (state.status === "failed") {
    const why = text(errors.at(-1)?.message);
    return { type: "error", content: `죄송합니다. 요청을 처리하지 못했습니다.${why ? ` (${why})` : ""}`, data: {} };
  }
  if (state.status === "rejected") return { type: "guidance", content: REJECTED, data: {} };
  if (state.status === "cancelled") return { type: "guidance", content: CANCELLED, data: {} };
  return null;
}
