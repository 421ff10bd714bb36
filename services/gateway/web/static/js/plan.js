// The plan card: what Jipsa understood and the steps it will take; when its `plan_ready` says it
// `requires_approval`, the person approves, edits (task text, removing steps) or rejects it here
// (`interrupt_response`), with the actions the approval allows.
import { h, list, number, text } from "./dom.js";
import { duration, percent } from "./format.js";
import { intentLabel, strategyLabel, teamLabel } from "./labels.js";

export function planCard(run, actions) {
  const plan = run.plan;
  const steps = list(plan.steps);
  const order = new Map(steps.map((s, i) => [s.step_id, i + 1]));
  const estimate = number(plan.estimate);
  return h("section", { class: "card plan", "aria-label": "실행 계획" },
    h("header", { class: "card-head" },
      h("h3", {}, "실행 계획"),
      h("span", { class: "chip intent" }, intentLabel(plan.intent)),
    ),
    h("dl", { class: "plan-facts" },
      fact("확신도", h("span", {}, meter(number(plan.confidence) ?? 0), percent(number(plan.confidence)))),
      steps.length > 1 && fact("방식", strategyLabel(plan.strategy)),
      estimate ? fact("예상 시간", `약 ${duration(estimate * 1000)}`) : null,
    ),
    h("ol", { class: "plan-steps" },
      steps.map((step) => h("li", {},
        h("span", { class: `chip team team-${text(step.team)}` }, teamLabel(step.team)),
        h("span", { class: "task" }, text(step.task)),
        list(step.depends_on).length > 0 &&
          h("span", { class: "depends" }, `${list(step.depends_on).map((d) => `${order.get(d) ?? d}단계`).join(", ")} 다음`),
      )),
    ),
    run.approval && approvalPanel(run, actions),
  );
}

function fact(term, detail) {
  return h("div", {}, h("dt", {}, term), h("dd", {}, detail));
}

function meter(value) {
  const width = Math.round(Math.max(0, Math.min(1, value)) * 100);
  const bar = h("span", { class: "meter", "aria-hidden": "true" }, h("span", {}));
  bar.firstChild.style.width = `${width}%`;
  return bar;
}

function approvalPanel(run, actions) {
  const approval = run.approval;
  if (approval.sent) return h("p", { class: "approval-sent", role: "status" }, approval.sent);
  const panel = h("div", { class: "approval", role: "group", "aria-label": "계획 승인" });
  const answer = (action, extra, note) => {
    approval.sent = note;
    actions.send({ type: "interrupt_response", run_id: run.id, action, ...extra });
    actions.rerender(run);
  };
  const allows = (action) => list(approval.actions).includes(action);
  const showChoices = () => {
    panel.replaceChildren(
      h("p", { class: "approval-question" }, "이 계획대로 진행할까요? 승인하거나, 단계를 고치거나, 거절할 수 있어요."),
      h("div", { class: "actions" },
        allows("approve") && h("button", { class: "primary", onclick: () => answer("approve", {}, "승인했어요. 곧 실행을 시작합니다.") }, "승인"),
        allows("modify") && h("button", { onclick: showEditor }, "단계 수정"),
        allows("reject") && h("button", { class: "danger", onclick: () => answer("reject", {}, "계획을 거절했어요.") }, "거절"),
      ),
    );
  };
  const showEditor = () => {
    panel.replaceChildren(stepEditor(list(approval.steps), (edited) =>
      answer("modify", { modified_todos: edited }, "수정한 계획을 보냈어요."), showChoices));
    panel.querySelector("input")?.focus();
  };
  showChoices();
  return panel;
}

// The steps as editable rows. A removed step also disappears from the others' dependencies, so the
// edited plan stays a valid graph.
function stepEditor(planned, submit, cancel) {
  let steps = planned.map((s) => ({ step_id: text(s.step_id), team: text(s.team), task: text(s.task), depends_on: list(s.depends_on) }));
  const rows = h("ol", { class: "edit-steps" });
  const form = h("form", { class: "step-editor", "aria-label": "계획 수정" },
    rows,
    h("div", { class: "actions" },
      h("button", { class: "primary", type: "submit" }, "수정한 계획으로 실행"),
      h("button", { type: "button", onclick: cancel }, "취소"),
    ),
  );
  const draw = () => {
    rows.replaceChildren(...steps.map((step, i) => {
      const id = `edit-${step.step_id}-${i}`;
      return h("li", {},
        h("label", { for: id }, `${i + 1}단계 · ${teamLabel(step.team)}`),
        h("div", { class: "edit-row" },
          h("input", { id, value: step.task, maxlength: "200", required: true, oninput: (e) => { step.task = e.target.value; } }),
          h("button", { type: "button", class: "icon", "aria-label": `${i + 1}단계 삭제`, title: "단계 삭제", disabled: steps.length === 1,
            onclick: () => { steps = steps.filter((s) => s !== step); draw(); rows.querySelector("input")?.focus(); } }, "✕"),
        ),
      );
    }));
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const kept = new Set(steps.map((s) => s.step_id));
    submit(steps.map((s) => ({ ...s, task: s.task.trim(), depends_on: s.depends_on.filter((d) => kept.has(d)) })));
  });
  draw();
  return form;
}
