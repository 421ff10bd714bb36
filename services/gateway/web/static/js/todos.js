// Live progress: every step with its status, elapsed time (ticking while in progress), a skip button
// on pending and running steps, and the reason when one failed. Works for steps running side by side.
import { h, list, number, text } from "./dom.js";
import { between, since } from "./format.js";
import { statusLabel, teamLabel } from "./labels.js";

const SKIPPABLE = new Set(["pending", "in_progress"]);

export function todoCard(run, actions) {
  const steps = list(run.todos.steps);
  const done = steps.filter((s) => s.status === "completed").length;
  const skipped = steps.filter((s) => s.status === "skipped").length;
  const pct = number(run.todos.progress) ?? (steps.length ? Math.round((100 * done) / steps.length) : 0);
  const finished = Boolean(run.final);
  return h("section", { class: "card todos", "aria-label": "진행 상황" },
    h("header", { class: "card-head" },
      h("h3", {}, "진행 상황"),
      h("span", { class: "muted" }, `${done}/${steps.length} 완료${skipped ? ` · ${skipped} 건너뜀` : ""}`),
    ),
    h("div", { class: "progress", role: "progressbar", "aria-label": "진행률", "aria-valuemin": "0", "aria-valuemax": "100", "aria-valuenow": String(pct) },
      bar(pct)),
    h("ul", { class: "todo-list" }, steps.map((step) => todoItem(run, step, actions, finished))),
  );
}

function bar(pct) {
  const fill = h("span", {});
  fill.style.width = `${Math.max(0, Math.min(100, pct))}%`;
  return fill;
}

function todoItem(run, step, actions, finished) {
  const status = text(step.status);
  const id = text(step.step_id);
  const skipping = run.skipping.has(id);
  return h("li", { class: `todo status-${status}`, dataset: { step: id } },
    h("span", { class: "todo-icon", "aria-hidden": "true" }),
    h("div", { class: "todo-main" },
      h("div", { class: "todo-line" },
        h("span", { class: "task" }, text(step.task)),
        h("span", { class: `badge badge-${status}` }, statusLabel(status)),
      ),
      h("div", { class: "todo-meta" },
        h("span", { class: `chip team team-${text(step.team)}` }, teamLabel(step.team)),
        elapsed(step),
        number(step.attempt) > 1 && h("span", {}, `${step.attempt}번째 시도`),
      ),
      status === "completed" && step.summary && h("p", { class: "todo-summary" }, text(step.summary)),
      status === "failed" && h("p", { class: "todo-error", role: "note" }, `실패 이유: ${text(step.error) || "알 수 없음"}`),
    ),
    SKIPPABLE.has(status) && !finished &&
      h("button", {
        class: "skip", disabled: skipping, "aria-label": `${text(step.task)} 건너뛰기`,
        onclick: () => {
          run.skipping.add(id);
          actions.send({ type: "todo_skip", run_id: run.id, todo_id: id });
          actions.rerender(run);
        },
      }, skipping ? "건너뛰는 중…" : "건너뛰기"),
  );
}

function elapsed(step) {
  if (step.status === "in_progress" && step.started_at) {
    return h("span", { class: "elapsed", dataset: { since: text(step.started_at) } }, since(step.started_at));
  }
  if (step.started_at && step.completed_at) return h("span", { class: "elapsed" }, between(step.started_at, step.completed_at));
  return null;
}

// One timer for the page: refresh every running step's elapsed time.
export function startTicker(root) {
  setInterval(() => {
    for (const el of root.querySelectorAll("[data-since]")) el.textContent = since(el.dataset.since);
  }, 1000);
}
