"""The run's answer, composed from what its steps produced, and nothing else.

Rules mode writes the Korean answer from the typed step results (contracts.results.StepResult):
each step's headline and findings, its figures with their basis and source, the statute
articles it cited, the listings it found and the documents it made. A figure or citation no
step produced cannot appear: the composer only copies. An LLM synthesis (when configured)
rewrites the same material into prose and is validated against it by the caller.
"""

from __future__ import annotations

import json
import re
from typing import Any

from contracts.results import Figure, ListingRow, StepResult
from contracts.supervisor import ResponseReady
from contracts.values import Citation, DocumentRef
from services.housing.conversation import noted, said_before
from services.housing.intent_catalogue import GREETING, INTENTS
from services.housing.money import format_manwon
from services.supervisor.run import RunState, StepState

EXAMPLES = (
    "전세금 5% 인상 제한이 언제까지인가요?",
    "강남구 아파트 전세 시세 알려주세요",
    "전세금 3억인데 3억 5천으로 올려달래요",
    "주택임대차계약서 작성해줘",
)
MAX_LISTINGS_SHOWN = 10  # a page of the answer; the page's own table shows every row found
ARTICLE_MENTION = re.compile(r"제\s*\d+\s*조(?:\s*의\s*\d+)?")


def guidance(state: RunState) -> ResponseReady:
    """IRRELEVANT / UNCLEAR: no team ran; say what Jipsa can do, with questions to start from. Facts the
    person stated with nothing asked ('연봉 4천이에요') are acknowledged: the next turn uses them."""
    facts = noted(state.intent.entities) if state.intent else None
    # A run of another intent whose plan has no step is greeted like a question off the subject.
    spoken = INTENTS[state.intent.type].guidance if state.intent else None
    opening = facts or spoken or GREETING
    lines = [
        opening,
        "",
        "집사는 전세·월세·매매 시세, 임대차 법률(주택임대차보호법 등), 대출 상담, "
        "계약서 작성과 검토를 도와드립니다. 이렇게 물어보세요:",
        *(f"- {q}" for q in EXAMPLES),
    ]
    return ResponseReady(
        run_id=state.run_id,
        response_type="guidance",
        answer="\n".join(lines),
        metadata={"intent": state.intent.type.value if state.intent else None, "examples": list(EXAMPLES)},
    )


def compose(state: RunState) -> ResponseReady:
    """The answer for a run whose steps have all settled (completed, failed or skipped).

    Answer first: the first sentence is the conclusion of the step that answers the question (an
    analysis computes the verdict and the number asked for; else the step of the question's own kind),
    then the other steps' conclusions, then what backs them (findings, figures, listings, documents),
    then the articles it rests on, at most MAX_QUOTED quoted and the rest named after them. Nothing is
    said twice, whichever steps produced it."""
    if not state.steps:
        return guidance(state)
    results = {step_id: _result(step) for step_id, step in state.steps.items()}
    done = _by_relevance(state, [(state.steps[step_id], r) for step_id, r in results.items() if r])
    failed = [s for s in state.steps.values() if s.status == "failed"]
    citations = _unique_citations(r for _, r in done)
    listings = [row for _, r in done for row in r.listings]
    documents = [d for _, r in done for d in r.documents]
    figures = [f for _, r in done for f in r.figures]
    said = _Said()
    parts = [said.block(_conclusions(done, citations)), _said_before(done)]
    parts += [said.block(_details(step, r, detailed=len(done) > 1)) for step, r in done]
    parts.append(said.block(_grounds(citations)))
    if failed or any(s.status == "skipped" for s in state.steps.values()):
        parts.append(_unfinished(state))
    if not done:
        parts.insert(0, "요청하신 작업을 끝내지 못해 답을 드릴 수 없었습니다.")
    return ResponseReady(
        run_id=state.run_id,
        response_type="answer" if done else "error",
        answer="\n\n".join(p for p in parts if p),
        listings=[row.model_dump(mode="json", exclude_none=True) for row in listings],
        citations=citations,
        insights=[r.headline for _, r in done if r.headline],
        documents=_unique_documents(documents),
        failed_steps=[s.spec.step_id for s in failed],
        metadata={
            "figures": [f.model_dump(mode="json", exclude_none=True) for f in figures],
            "questions": [q.model_dump(mode="json") for _, r in done for q in r.questions],
            "intent": state.intent.type.value if state.intent else None,
            "step_data": {step_id: r.data for step_id, r in results.items() if r and r.data},
        },
    )


Done = list[tuple[StepState, StepResult]]  # the completed steps with their results


def _said_before(done: Done) -> str | None:
    """Which figures the answer took from the person's earlier turns ('앞서 말씀하신 월세 40만원 기준'),
    read from the steps that answered with them."""
    remembered = [step.inputs for step, _ in done if step.inputs.remembered]
    if not remembered:
        return None
    return said_before(remembered[0].entities, remembered[0].remembered, remembered[0].recalled)


MAX_QUOTED = 3  # articles quoted in the text; the others are named after them
MAX_NAMED = 2  # articles named without a quote, so an answer cites at most five


class _Said:
    """Lines already in the answer, so no block repeats one (the snapshot caveat of two searches)."""

    def __init__(self) -> None:
        self._lines: set[str] = set()

    def block(self, lines: list[str]) -> str:
        kept = []
        for line in lines:
            key = _compact(line.lstrip("-# "))
            if key and key in self._lines and not line.startswith("|"):
                continue
            self._lines.add(key)
            kept.append(line)
        return "\n".join(kept) if any(not line.startswith("###") for line in kept) else ""


def _result(step: StepState) -> StepResult | None:
    return step.result if step.status == "completed" else None


def _by_relevance(state: RunState, done: Done) -> Done:
    """The step that answers the question first: a verdict on what was asked in so many words or the
    document asked for, then analyses that computed figures, then the search of the question's own kind,
    then the rest in plan order."""
    spec = INTENTS[state.intent.type] if state.intent else None
    wanted = spec.answered_by if spec else None
    own_review = spec.review if spec else None

    def rank(item: tuple[StepState, StepResult]) -> int:
        step, result = item
        if own_review and own_review in step.inputs.focus and result.findings:
            return -1  # a contract to review is answered by its review, before any figure computed beside it
        if result.verdict and result.headline:
            return -1  # "버팀목 되나요?": the programme's verdict, not the DSR computed beside it
        if result.documents and result.headline:
            return -1  # a document is made only when asked for: "계약서를 작성했습니다" answers
        if step.spec.team.value == "analysis" and result.headline and result.figures:
            return 0  # an analysis that computed nothing ("비교할 단지가 없습니다") answers nothing
        return 1 if wanted in step.inputs.focus else 2

    return sorted(done, key=rank)


def _conclusions(ordered: Done, citations: list[Citation]) -> list[str]:
    """The answer's first sentence, then each other step's conclusion; a search that only points at an
    article already quoted below adds nothing here."""
    headlines = [r.headline for _, r in ordered if r.headline]
    if not headlines:
        return []
    quoted = {c.reference for c in citations[:MAX_QUOTED]}
    rest = [h for h in headlines[1:] if not any(h.startswith(ref) for ref in quoted)]
    return [headlines[0], *(f"- {h}" for h in rest)]


def _details(step: StepState, result: StepResult, detailed: bool) -> list[str]:
    lines = [f"### {step.spec.task}"] if detailed else []
    lines.extend(f"- {finding}" for finding in result.findings)
    if result.figures:
        lines.append(_figures_table(result.figures))
    if result.listings:
        lines.append(_listings_table(result.listings))
    if result.questions:
        lines.append("더 알려주실 내용: " + ", ".join(q.label for q in result.questions))
    lines.extend(f"- 문서: {d.name}" for d in result.documents)
    if result.failed_tools:
        lines.append("일부 도구가 실패했습니다: " + ", ".join(result.failed_tools))
    return lines


def _grounds(citations: list[Citation]) -> list[str]:
    """The articles the answer rests on: the first few quoted at the paragraph that says it."""
    if not citations:
        return []
    lines = ["**근거 조문**"]
    for c in citations[:MAX_QUOTED]:
        quote = f": “{c.quote}”" if c.quote else ""
        lines.append(f"- {_cite(c)}{quote}")
    named = citations[MAX_QUOTED : MAX_QUOTED + MAX_NAMED]
    if named:
        lines.append("함께 볼 조문: " + ", ".join(_cite(c) for c in named))
    return lines


def _figures_table(figures: list[Figure]) -> str:
    rows = ["| 항목 | 값 | 근거 |", "|---|---|---|"]
    for f in figures:
        value = _figure_value(f)
        basis = " · ".join(x for x in (f.basis, f.source) if x)
        rows.append(f"| {f.label} | {value} | {basis} |")
    return "\n".join(rows)


def _figure_value(f: Figure) -> str:
    """Money in the product's one format (3억 1,500만원); other figures with their unit."""
    if f.unit == "만원" and isinstance(f.value, int | float):
        return format_manwon(f.value)
    return f"{_number(f.value)}{' ' + f.unit if f.unit else ''}"


def _listings_table(listings: list[ListingRow]) -> str:
    rows = ["| 이름 | 위치 | 면적(㎡) | 가격(만원) | 역 |", "|---|---|---|---|---|"]
    for row in listings[:MAX_LISTINGS_SHOWN]:
        area = _range(row.area_min_m2, row.area_max_m2)
        price = _range(row.price_min_manwon, row.price_max_manwon)
        station = f"{row.station} {row.walk_min}분" if row.station and row.walk_min is not None else ""
        rows.append(f"| {row.name} | {row.gu} {row.dong} | {area} | {price} | {station} |")
    if len(listings) > MAX_LISTINGS_SHOWN:
        rows.append(f"\n외 {len(listings) - MAX_LISTINGS_SHOWN}건")
    return "\n".join(rows)


def _unfinished(state: RunState) -> str:
    lines = ["**끝내지 못한 단계**"]
    for step in state.steps.values():
        if step.status == "failed":
            why = step.error.message if step.error else "원인 불명"
            lines.append(f"- {step.spec.task}: 실패 ({why})")
        elif step.status == "skipped":
            lines.append(f"- {step.spec.task}: 건너뜀")
    return "\n".join(lines)


def _cite(c: Citation) -> str:
    """주택임대차보호법 제7조②(차임 등의 증감청구권), with the version of the text when known."""
    version = f" [시행 {c.enforcement_date.isoformat()}]" if c.enforcement_date else ""
    return c.reference + version


def _unique_citations(results: Any) -> list[Citation]:
    """Each article once, in the order the answering steps cite it; a citation that names the paragraph
    and the sentence (an analysis's, a legal search's) is kept over a bare one of the same article."""
    seen: dict[str, Citation] = {}
    for r in results:
        for c in r.citations:
            if c.article_id not in seen or (c.quote and not seen[c.article_id].quote):
                seen[c.article_id] = c
    return list(seen.values())


def _unique_documents(documents: list[DocumentRef]) -> list[DocumentRef]:
    return list({d.artifact_id: d for d in documents}.values())


def _range(low: float | int | None, high: float | int | None) -> str:
    if low is None and high is None:
        return "-"
    if low == high or high is None:
        return _number(low)
    if low is None:
        return _number(high)
    return f"{_number(low)}~{_number(high)}"


def _number(value: float | int | str | None) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.2f}".rstrip("0").rstrip(".")
    return "" if value is None else str(value)


def synthesis_inputs(state: RunState) -> dict[str, Any]:
    """What the `response_synthesis` prompt gets: the question, the intent and the steps' own results."""
    return {
        "query": state.query,
        "intent": state.intent.type.value if state.intent else "UNCLEAR",
        "step_results": {
            step.spec.task: step.result.model_dump(mode="json", exclude_defaults=True)
            for step in state.steps.values()
            if step.status == "completed" and step.result is not None
        },
        "failed_steps": [step.spec.task for step in state.steps.values() if step.status == "failed"],
    }


def grounded(text: str, state: RunState) -> bool:
    """Whether every article an LLM answer mentions (제7조, 제6조의3) is in what the steps produced."""
    produced = _compact(json.dumps(synthesis_inputs(state)["step_results"], ensure_ascii=False))
    return all(_compact(m) in produced for m in ARTICLE_MENTION.findall(text))


def _compact(text: str) -> str:
    return re.sub(r"\s+", "", text)
