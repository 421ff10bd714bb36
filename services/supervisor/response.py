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

from pydantic import ValidationError

from contracts.results import Figure, ListingRow, StepResult
from contracts.supervisor import ResponseReady
from contracts.values import Citation, DocumentRef, IntentType
from services.supervisor.run import RunState, StepState

EXAMPLES = (
    "전세금 5% 인상 제한이 언제까지인가요?",
    "강남구 아파트 전세 시세 알려주세요",
    "전세금 3억인데 3억 5천으로 올려달래요",
    "주택임대차계약서 작성해줘",
)
MAX_LISTINGS_SHOWN = 5
ARTICLE_MENTION = re.compile(r"제\s*\d+\s*조(?:\s*의\s*\d+)?")


def guidance(state: RunState) -> ResponseReady:
    """IRRELEVANT / UNCLEAR: no team ran; say what Jipsa can do, with questions to start from."""
    unclear = state.intent is not None and state.intent.type == IntentType.UNCLEAR
    opening = (
        "질문을 조금 더 구체적으로 알려주시면 정확히 도와드릴게요."
        if unclear
        else "안녕하세요, 부동산 도우미 집사입니다."
    )
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
    """The answer for a run whose steps have all settled (completed, failed or skipped)."""
    if not state.steps:
        return guidance(state)
    results = {step_id: _result(step) for step_id, step in state.steps.items()}
    failed = [s for s in state.steps.values() if s.status == "failed"]
    sections = [_section(state.steps[step_id], r) for step_id, r in results.items() if r is not None]
    citations = _unique_citations(r for r in results.values() if r)
    listings = [row for r in results.values() if r for row in r.listings]
    documents = [d for r in results.values() if r for d in r.documents]
    figures = [f for r in results.values() if r for f in r.figures]
    parts = [p for p in sections if p]
    if len(sections) > 1 and (summary := _summary(state, results)):
        parts.insert(0, summary)
    if failed or any(s.status == "skipped" for s in state.steps.values()):
        parts.append(_unfinished(state))
    if not sections:
        parts.insert(0, "요청하신 작업을 끝내지 못해 답을 드릴 수 없었습니다.")
    return ResponseReady(
        run_id=state.run_id,
        response_type="answer" if sections else "error",
        answer="\n\n".join(parts),
        listings=[row.model_dump(mode="json", exclude_none=True) for row in listings],
        citations=citations,
        insights=[r.headline for r in results.values() if r and r.headline],
        documents=_unique_documents(documents),
        failed_steps=[s.spec.step_id for s in failed],
        metadata={
            "figures": [f.model_dump(mode="json", exclude_none=True) for f in figures],
            "questions": [q.model_dump(mode="json") for r in results.values() if r for q in r.questions],
            "intent": state.intent.type.value if state.intent else None,
            "step_data": {step_id: r.data for step_id, r in results.items() if r and r.data},
        },
    )


def _result(step: StepState) -> StepResult | None:
    if step.status != "completed" or step.result is None:
        return None
    try:
        return StepResult.model_validate(step.result)
    except ValidationError:  # a team that answered off-contract: show nothing rather than guess
        return None


def _summary(state: RunState, results: dict[str, StepResult | None]) -> str:
    """The conclusions first, the analysis ones leading (they answer the question the searches feed)."""
    ordered = sorted(results, key=lambda step_id: state.steps[step_id].spec.team.value != "analysis")
    lines = [f"- {results[s].headline}" for s in ordered if results[s] and results[s].headline]
    return "**요약**\n" + "\n".join(lines) if lines else ""


def _section(step: StepState, result: StepResult) -> str:
    lines = [f"### {step.spec.task}"]
    if result.headline:
        lines.append(result.headline)
    lines.extend(f"- {finding}" for finding in result.findings)
    if result.figures:
        lines.append(_figures_table(result.figures))
    if result.listings:
        lines.append(_listings_table(result.listings))
    if result.citations:
        lines.append("근거 조문: " + ", ".join(_cite(c) for c in result.citations[:5]))
    if result.questions:
        lines.append("더 알려주실 내용: " + ", ".join(q.label for q in result.questions))
    lines.extend(f"- 문서: {d.name}" for d in result.documents)
    if result.failed_tools:
        lines.append("일부 도구가 실패했습니다: " + ", ".join(result.failed_tools))
    return "\n".join(lines)


def _figures_table(figures: list[Figure]) -> str:
    rows = ["| 항목 | 값 | 근거 |", "|---|---|---|"]
    for f in figures:
        value = f"{_number(f.value)}{' ' + f.unit if f.unit else ''}"
        basis = " · ".join(x for x in (f.basis, f.source) if x)
        rows.append(f"| {f.label} | {value} | {basis} |")
    return "\n".join(rows)


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
    """주택임대차보호법 제7조(차임 등의 증감청구권), with the version of the text when known."""
    version = f" [시행 {c.enforcement_date.isoformat()}]" if c.enforcement_date else ""
    return f"{c.law} {c.article}" + (f"({c.title})" if c.title else "") + version


def _unique_citations(results: Any) -> list[Citation]:
    seen: dict[str, Citation] = {}
    for r in results:
        for c in r.citations:
            seen.setdefault(c.article_id, c)
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
            step.spec.task: step.result for step in state.steps.values() if step.status == "completed"
        },
        "failed_steps": [step.spec.task for step in state.steps.values() if step.status == "failed"],
    }


def grounded(text: str, state: RunState) -> bool:
    """Whether every article an LLM answer mentions (제7조, 제6조의3) is in what the steps produced."""
    produced = _compact(json.dumps(synthesis_inputs(state)["step_results"], ensure_ascii=False))
    return all(_compact(m) in produced for m in ARTICLE_MENTION.findall(text))


def _compact(text: str) -> str:
    return re.sub(r"\s+", "", text)
