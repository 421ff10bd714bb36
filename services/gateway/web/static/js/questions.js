// Forms for what a run asks of the person. Two askers share one form:
// - `input_request` (a step holds its run until answered: a contract's missing fields): the answers go
//   back as `input_response` {step_id, answers: field -> value} and the same run continues;
// - questions in a finished answer's `metadata.questions` (what would sharpen it: a deposit, a price):
//   they go out as a new question made of "label: value" lines.
import { h, list, text } from "./dom.js";

let formCount = 0;

export function inputRequestForm(run, request, actions) {
  return questionsForm(request.questions, {
    title: "진행에 필요한 정보",
    intro: text(request.message) || "아래 내용을 채워 보내면 이어서 진행할게요.",
    sent: request.sent,
    submit: (values) => {
      request.sent = true;
      const answers = Object.fromEntries(values.map(([q, value]) => [text(q.field), value]));
      actions.send({ type: "input_response", run_id: run.id, step_id: request.step_id, answers });
      actions.rerender(run);
    },
  });
}

export function followUpForm(questions, actions) {
  return questionsForm(questions, {
    title: "더 알려 주세요",
    intro: "아래 내용을 채워 보내면 이어서 답해 드릴게요.",
    submit: (values) => actions.ask(values.map(([q, value]) => `${text(q.label)}: ${value}`).join("\n")),
  });
}

function questionsForm(questions, { title, intro, sent = false, submit }) {
  const asked = list(questions).filter((q) => q && text(q.label) && text(q.field));
  if (!asked.length) return null;
  formCount += 1;
  const fields = asked.map((question, i) => ({ question, id: `q${formCount}-${i}` }));
  const form = h("form", { class: "card questions", "aria-label": title },
    h("h3", {}, title),
    h("p", { class: "muted" }, intro),
    h("div", { class: "fields" }, fields.map(({ question, id }) => {
      const hint = text(question.hint);
      // A hint is shown under its field (not as a placeholder, which a narrow field would cut off).
      return h("div", { class: hint.length > 34 ? "field wide" : "field" },
        h("label", { for: id }, text(question.label)),
        h("input", { id, name: text(question.field), autocomplete: "off", maxlength: "2000", disabled: sent, "aria-describedby": hint ? `${id}-hint` : null }),
        hint && h("small", { id: `${id}-hint` }, hint),
      );
    })),
    h("div", { class: "actions" },
      h("button", { class: "primary", type: "submit", disabled: sent }, sent ? "보냈어요" : "보내기")),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const values = fields
      .map(({ question, id }) => [question, form.querySelector(`#${id}`).value.trim()])
      .filter(([, value]) => value);
    if (!values.length) {
      form.querySelector("input")?.focus();
      return;
    }
    form.querySelector("button[type=submit]").disabled = true;
    submit(values);
  });
  return form;
}
