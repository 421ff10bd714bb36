"""The document team's step: collect the lease's fields, ask for what is missing, or write, review
and store the contract.

`draft_lease` is the pure part (fields in, questions or files out); `lease_work` adds the one side
effect, storing the files, with the service's own pool. Storing is idempotent by content hash, so a
redelivered or retried step is harmless.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from psycopg_pool import AsyncConnectionPool
from pydantic_settings import BaseSettings, SettingsConfigDict

from contracts.results import Figure, Question, StepResult
from contracts.values import Citation, StepFocus, Team
from services.document.artifacts import DOCX, MARKDOWN, Artifact, store_artifact
from services.document.checks import (
    INCREASE_ARTICLE,
    RENEWAL_ARTICLE,
    TERM_ARTICLE,
    Finding,
    Review,
    review_lease,
)
from services.document.citations import load_statutes
from services.document.fields import LABELS, LeaseFields, collect_fields, missing_fields
from services.document.layout import TITLE, lease_contract, review_section
from services.document.render import to_docx, to_markdown
from services.housing.clauses import clause_rules
from services.housing.money import contract_amount
from services.platform.service import Wiring
from services.platform.settings import REPO_ROOT, InfraSettings
from services.platform.team import StepFailure, StepOutput, StepWork, TeamWork, team_subscription

CITABLE = (
    TERM_ARTICLE,
    RENEWAL_ARTICLE,
    INCREASE_ARTICLE,
    *(article for rule in clause_rules() for article in rule.article_ids),
)
SALE_ONLY = re.compile(r"매매\s*계약")
LEASE_WORDS = re.compile(r"임대차|전세|월세|임대|임차")


class DocumentSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="JIPSA_DOCUMENT_", extra="ignore")

    corpus_path: Path = REPO_ROOT / "infra" / "seed" / "legal" / "corpus.jsonl"


@dataclass(frozen=True)
class LeaseDraft:
    """Either questions for the person, or the finished contract's files (never both)."""

    summary: str
    result: StepResult
    artifacts: list[Artifact] = field(default_factory=list)


async def build(pool: AsyncConnectionPool, settings: InfraSettings) -> Wiring:
    statutes = load_statutes(DocumentSettings().corpus_path, CITABLE)
    return Wiring([team_subscription(Team.DOCUMENT, lease_work(pool, statutes))])


def lease_work(pool: AsyncConnectionPool, statutes: Mapping[str, Citation]) -> TeamWork:
    async def work(step: StepWork) -> StepOutput:
        draft = draft_lease(step, statutes)
        if not draft.artifacts:
            return StepOutput(summary=draft.summary, result=draft.result)
        async with pool.connection() as conn, conn.transaction():
            refs = [await store_artifact(conn, a, step.session_id, step.run_id) for a in draft.artifacts]
        return StepOutput(summary=draft.summary, result=draft.result.model_copy(update={"documents": refs}))

    return work


def draft_lease(step: StepWork, statutes: Mapping[str, Citation]) -> LeaseDraft:
    _refuse_other_documents(step)
    answers = step.inputs.get("answers")
    fields, unreadable = collect_fields(
        step.query,
        previous_queries=[str(q) for q in step.inputs.get("previous_queries") or []],
        answers=answers if isinstance(answers, Mapping) else {},
        dependency_results=step.dependency_results,
    )
    review = review_lease(fields)
    questions = questions_for(fields, unreadable, review.blocking)
    if questions:
        return ask(fields, questions)
    return write(review, statutes)


def _refuse_other_documents(step: StepWork) -> None:
    """Only the lease contract is written so far; a sale contract must not come out as a lease."""
    asked_lease = StepFocus.LEASE_CONTRACT.value in step.focus or LEASE_WORDS.search(step.query)
    if SALE_ONLY.search(step.query) and not asked_lease:
        raise StepFailure("unsupported_document", "매매계약서 작성은 아직 지원하지 않습니다", retryable=False)


def questions_for(
    fields: LeaseFields, unreadable: Mapping[str, str], blocking: list[Finding]
) -> list[Question]:
    """Missing required fields, answers we could not read (with why), and blocking problems."""
    hints: dict[str, str | None] = {name: LABELS[name][1] for name in missing_fields(fields)}
    hints.update(unreadable)
    hints.update({f.field: f.message for f in blocking if f.field})
    return [
        Question(field=name, label=LABELS.get(name, (name,))[0], hint=hint) for name, hint in hints.items()
    ]


def ask(fields: LeaseFields, questions: list[Question]) -> LeaseDraft:
    labels = ", ".join(q.label for q in questions)
    headline = f"임대차계약서를 작성하려면 다음 {len(questions)}가지를 알려 주세요: {labels}"
    result = StepResult(
        headline=headline,
        questions=questions,
        needs_input=True,
        data={"document": "lease_contract", "lease_fields": _known(fields)},
    )
    return LeaseDraft(summary=f"계약서 정보 {len(questions)}가지 필요: {labels}", result=result)


def write(review: Review, statutes: Mapping[str, Citation]) -> LeaseDraft:
    fields = review.fields
    contract = lease_contract(review)
    markdown = to_markdown([*contract, *review_section(review)])
    stem = f"주택임대차계약서_{fields.tenant_name}_{fields.term_start}"
    artifacts = [
        Artifact(f"{stem}.docx", DOCX, to_docx(contract, TITLE)),
        Artifact(f"{stem}.md", MARKDOWN, markdown.encode()),
    ]
    headline = (
        f"{TITLE}를 작성했습니다: 보증금 {contract_amount(fields.deposit_won or 0)}, "
        f"{fields.term_start} ~ {fields.term_end}"
    )
    result = StepResult(
        headline=headline,
        findings=[f.message for f in review.findings] + [f"권장 특약: {t}" for t in review.suggested_terms],
        figures=_figures(fields),
        citations=[statutes[a] for a in review.article_ids if a in statutes],
        data={
            "document": "lease_contract",
            "markdown": markdown,
            "lease_fields": _known(fields),
            "review": [f.model_dump(mode="json", exclude_defaults=True) for f in review.findings],
            "suggested_special_terms": review.suggested_terms,
        },
    )
    return LeaseDraft(
        summary=f"임대차계약서 작성 완료 (검토 의견 {len(review.findings)}건)",
        result=result,
        artifacts=artifacts,
    )


def _figures(fields: LeaseFields) -> list[Figure]:
    amounts = (
        ("보증금", fields.deposit_won),
        ("계약금", fields.down_payment_won),
        ("잔금", fields.balance_won),
    )
    figures = [Figure(label=label, value=won, unit="원") for label, won in amounts if won is not None]
    if fields.monthly_rent_won:
        figures.append(Figure(label="차임(월세)", value=fields.monthly_rent_won, unit="원"))
    return figures


def _known(fields: LeaseFields) -> dict:
    return fields.model_dump(mode="json", exclude_defaults=True)
