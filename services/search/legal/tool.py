"""The `legal_search` tool: a step's question in, the articles that answer it out as a StepResult.

Step inputs it reads besides `query`: `laws` (titles or short names), `doc_types` (법률/시행령/…) and
`tenant_protection_only`; the planner may set them, nothing requires them.
"""

from __future__ import annotations

from typing import Any, Protocol

from contracts.results import StepResult
from contracts.values import Citation
from services.platform.team import StepFailure, StepWork
from services.search.legal.search import LegalFilters, LegalHit, LegalIndex

LIMIT = 5


class HasLegalIndex(Protocol):
    legal: LegalIndex | None


async def legal_search(ctx: HasLegalIndex, step: StepWork) -> StepResult:
    if ctx.legal is None:
        raise StepFailure("legal_index_missing", "the legal index is not loaded", retryable=True)
    query = step.query or step.task
    hits = ctx.legal.search(query, filters_from(step.inputs), limit=LIMIT)
    return legal_result(hits)


def filters_from(inputs: dict[str, Any]) -> LegalFilters:
    return LegalFilters(
        laws=tuple(_strings(inputs.get("laws"))),
        doc_types=tuple(_strings(inputs.get("doc_types"))),
        tenant_protection_only=bool(inputs.get("tenant_protection_only", False)),
    )


def legal_result(hits: list[LegalHit]) -> StepResult:
    if not hits:
        return StepResult(headline="관련 법령 조문을 찾지 못했습니다", data={"legal_hits": []})
    top = hits[0].article
    return StepResult(
        headline=f"{top.label}가 가장 관련이 깊습니다",
        findings=[f"{h.article.label}: {_first_sentence(h.shown_text)}" for h in hits],
        citations=[citation(h) for h in hits],
        data={"legal_hits": [h.as_data() for h in hits]},
    )


def citation(hit: LegalHit) -> Citation:
    """The version date travels in the title: the corpus is a dated snapshot (see its README)."""
    a = hit.article
    title = (
        f"{a.article_title} (시행 {a.enforcement_date})"
        if a.article_title
        else f"(시행 {a.enforcement_date})"
    )
    return Citation(
        article_id=a.article_id, law=a.law_title, article=a.article_number, title=title, text=hit.shown_text
    )


def _first_sentence(text: str, limit: int = 160) -> str:
    body = text.split(") ", 1)[-1] if text.startswith("제") else text
    sentence = body.split(". ", 1)[0]
    return sentence if len(sentence) <= limit else sentence[:limit] + "…"


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value or []]
