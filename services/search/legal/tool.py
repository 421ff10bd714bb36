"""The `legal_search` tool: a step's question in, the articles that answer it out as a StepResult.

Step inputs it reads besides `query`: the search options (contracts.steps.SearchOptions) `laws` (titles or
short names), `doc_types` (법률/시행령/…), `tenant_protection_only` and `keywords`; nothing requires them.
"""

from __future__ import annotations

import asyncio
import re
from datetime import date
from typing import Protocol

from contracts import search as published
from contracts.entities import DealType
from contracts.results import StepResult
from contracts.steps import SearchOptions
from contracts.values import Citation
from services.housing.statute_answers import StatuteAnswer, answer_for, answer_resting_on
from services.housing.statutes import StatuteArticle, asked_for, cite, quote, rule_text
from services.housing.statutes import citation as statute_citation
from services.platform.team import StepFailure, StepWork
from services.search.legal.articles import Article
from services.search.legal.search import LegalFilters, LegalHit, LegalIndex

LIMIT = 5


class HasLegalIndex(Protocol):
    @property
    def legal(self) -> LegalIndex | None: ...


async def legal_search(ctx: HasLegalIndex, step: StepWork) -> StepResult:
    if ctx.legal is None:
        raise StepFailure("legal_index_missing", "the legal index is not loaded", retryable=True)
    query = search_text(step)
    vector = await ctx.legal.query_vector(query)  # None without an embedding endpoint
    # A few ms of numpy and Kiwi, off the loop all the same: never let a slow analysis stall the bus.
    hits = await asyncio.to_thread(ctx.legal.search, query, filters_from(step.inputs.search), LIMIT, vector)
    answer = answer_for(step.query) or (answer_resting_on(hits[0].article.article_id) if hits else None)
    verdict = verdict_on_figures(answer, step)
    return legal_result(hits, answer, ctx.legal, verdict=verdict, question=step.query)


def verdict_on_figures(answer: StatuteAnswer | None, step: StepWork) -> str | None:
    """Whether the lease the person describes is over the lines the answer's article draws, or the last
    day for a notice the article requires before the end date the person gave."""
    if answer is None:
        return None
    if answer.notice_months is not None and step.entities.dates:
        return answer.deadline(date.fromisoformat(max(step.entities.dates)))
    if answer.threshold is None:
        return None
    lease = step.entities
    jeonse = lease.deal_type == DealType.JEONSE and lease.monthly_rent_manwon is None
    return answer.threshold.verdict(lease.deposit_manwon, 0 if jeonse else lease.monthly_rent_manwon)


# The planner's task names the legal topic in the statute's own words ("주택임대차보호법 차임·보증금 증액
# 제한(5%) 조항 검색") where the person wrote everyday ones ("3억을 3억 5천으로 올려달래요"). Its topic words
# expand the query; the law's name and the "조항 검색" wording are dropped, because an article that repeats
# its law's name (a committee's, say) would outrank the one about the topic.
_TASK_LAW = re.compile(r"^\S*(?:법|령|규칙)(?:\s+시행(?:령|규칙))?\s+")
_TASK_VERB = re.compile(r"\s*(?:관련\s*)?(?:(?:조항|조문|법령)\s*)*(?:검색|조회|확인)$")


def search_text(step: StepWork) -> str:
    """What the index is asked: the task's topic words (or the LLM's keywords, for a step without a
    topic of the planner's), then the person's question."""
    topic = _TASK_VERB.sub("", _TASK_LAW.sub("", step.task.strip()))
    keywords = " ".join(step.inputs.search.keywords)
    if not step.query:
        return f"{keywords} {step.task}".strip()
    lead = " ".join(t for t in (keywords, topic if topic not in step.query else "") if t)
    return f"{lead} {step.query}" if lead else step.query


def filters_from(options: SearchOptions) -> LegalFilters:
    return LegalFilters(
        laws=tuple(options.laws),
        doc_types=tuple(options.doc_types),
        tenant_protection_only=options.tenant_protection_only,
    )


def legal_result(
    hits: list[LegalHit],
    answer: StatuteAnswer | None = None,
    index: LegalIndex | None = None,
    verdict: str | None = None,
    question: str = "",
) -> StepResult:
    """The articles that answer, the best first. When the question asks about a subject the rule book
    answers (services/housing/statute_answers.py), its sentence leads (after the verdict on the person's
    own figures, when they gave them) and its articles are cited first, at their paragraphs; otherwise
    the headline quotes the sentence of the top article that says most about the question, and when the
    question asks for a period, a penalty, a headcount or an amount, the first of the top articles
    whose sentence gives one leads. Every citation carries the 항 and the sentence it rests on."""
    if answer is not None and answer.outside:
        said = f"{answer.says} ({answer.outside}: Jipsa가 가진 법령 자료에는 없어 조문을 인용하지 못합니다.)"
        return StepResult(headline=said, data={"legal_hits": [], "outside": answer.outside})
    if answer is not None and not answer.articles:  # a word of everyday speech (깡통전세): no article is it
        return StepResult(headline=answer.says, data={"legal_hits": []})
    wanted = asked_for(question)
    citations = _giving_first([citation(h, wanted) for h in hits], wanted)
    grounds = _grounds(answer, index) if answer and index else []
    if grounds:
        cited = {c.article_id for c in grounds}
        citations = grounds + [c for c in citations if c.article_id not in cited]
    if not citations:
        return StepResult(headline="관련 법령 조문을 찾지 못했습니다", data={"legal_hits": []})
    top = citations[0]
    return StepResult(
        headline=" ".join(filter(None, (verdict, answer.says)))
        if grounds and answer
        else f"{top.reference}에 따르면 “{top.quote}”",
        citations=citations[: LIMIT + len(grounds)],
        data={"legal_hits": [published_hit(h).model_dump(mode="json") for h in hits]},
    )


def _grounds(answer: StatuteAnswer, index: LegalIndex) -> list[Citation]:
    """The answer's articles, each once, quoted at the first paragraph the answer names."""
    found: dict[str, Citation] = {}
    for ref in answer.articles:
        article = index.article(ref.article_id)
        if article is None or ref.article_id in found:
            continue
        found[ref.article_id] = cite(_statute(article), (ref.paragraph,))
    return list(found.values())


def published_hit(hit: LegalHit) -> published.LegalHit:
    a = hit.article
    return published.LegalHit(
        article_id=a.article_id,
        law_title=a.law_title,
        doc_type=a.doc_type,
        article_number=a.article_number,
        article_title=a.article_title,
        enforcement_date=date.fromisoformat(a.enforcement_date),
        excerpt=hit.shown_text,
        score=round(hit.score, 4),
        why=hit.why,
        exact_citation=hit.exact_citation,
    )


def citation(hit: LegalHit, wanted: re.Pattern[str] | None = None) -> Citation:
    said = quote(hit.article.body, hit.matched_terms, wanted=wanted)
    return statute_citation(_statute(hit.article), hit.shown_text, said.paragraph, said.text)


LEAD_FROM = 3  # how deep a sentence that gives what was asked may come from to lead


def _giving_first(citations: list[Citation], wanted: re.Pattern[str] | None) -> list[Citation]:
    """The first of the top citations whose quote gives what the question asks for, moved to the front."""
    giving = next((c for c in citations[:LEAD_FROM] if wanted and wanted.search(c.quote or "")), None)
    return [giving, *(c for c in citations if c is not giving)] if giving else citations


def _statute(a: Article) -> StatuteArticle:
    """The index's article as the housing package cites it."""
    return StatuteArticle(
        article_id=a.article_id,
        law=a.law_title,
        number=a.article_number,
        title=a.article_title,
        text=rule_text(a.text),
        enforcement_date=a.enforcement_date,
        in_force=not (a.is_deleted or a.is_future_version),
    )
