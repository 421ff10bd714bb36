// The answer card: the text (rendered safely), then what backs it. Guidance answers become a card of
// example questions; an error answer says why the run failed.
import { documentsSection, citationsSection, figuresSection, listingsSection } from "./backing.js";
import { marketCharts } from "./chart.js";
import { answerMap } from "./answer_map.js";
import { h, list, record, text } from "./dom.js";
import { renderMarkdown } from "./markdown.js";
import { followUpForm } from "./questions.js";

export function answerCard(run, actions) {
  const response = record(run.final);
  const type = text(response.type) || "answer";
  const data = record(response.data);
  const metadata = record(data.metadata);
  if (type === "guidance") return guidanceCard(response, metadata, actions);
  const failed = list(data.failed_steps);
  const map = type === "error" ? null : answerMap(data, metadata);
  return h("section", { class: `card answer answer-${type}`, "aria-label": type === "error" ? "실패 안내" : "답변" },
    type === "error" && h("h3", { class: "error-title" }, "처리하지 못했어요"),
    h("div", { class: "md" }, renderMarkdown(response.content)),
    failed.length > 0 && h("p", { class: "warning", role: "note" }, `일부 단계가 실패했어요 (${failed.length}개). 남은 결과로 답했습니다.`),
    documentsSection(data.documents, actions),
    followUpForm(metadata.questions, actions),
    h("div", { class: "charts" }, marketCharts(metadata.step_data)),
    figuresSection(metadata.figures),
    map?.element,
    listingsSection(data.listings, map?.focus),
    citationsSection(data.citations),
  );
}

function guidanceCard(response, metadata, actions) {
  const examples = list(metadata.examples).map(text).filter(Boolean);
  const content = text(response.content);
  // The examples are already in the text as a list; shown once, as buttons.
  const prose = examples.length ? content.split("\n").filter((line) => !examples.some((e) => line.includes(e))).join("\n") : content;
  return h("section", { class: "card guidance", "aria-label": "안내" },
    h("div", { class: "md" }, renderMarkdown(prose)),
    examples.length > 0 && h("div", { class: "examples" }, examples.map((q) => exampleButton(q, actions))),
  );
}

export function exampleButton(query, actions) {
  return h("button", { type: "button", class: "example", onclick: () => actions.ask(query) }, query);
}
