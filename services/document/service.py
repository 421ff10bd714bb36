"""The document team's step: the lease (주택임대차계약서), the sale contract (부동산매매계약서, sale.py) or
the loan application checklist (대출 신청 준비, loan_checklist.py), chosen by the step's focus. Each
collects its fields, asks for what is missing, or writes, reviews and stores its files.

`draft_document` is the pure part (fields in, questions or files out); `document_work` adds the one side
effect, storing the files, with the service's own pool. Storing is idempotent by content hash, so a
redelivered or retried step is harmless.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from psycopg_pool import AsyncConnectionPool
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from contracts.results import Figure, StepResult
from contracts.values import Citation, StepFocus, Team
from services.document.artifacts import DOCX, MARKDOWN, Artifact, store_artifact
from services.document.checks import (
    INCREASE_ARTICLE,
    RENEWAL_ARTICLE,
    TERM_ARTICLE,
    Review,
    review_lease,
)
from services.document.citations import load_statutes
from services.document.drafts import Draft, ask, questions_for
from services.document.fields import LABELS, LeaseFields, collect_fields, missing_fields
from services.document.layout import TITLE, lease_contract, review_section
from services.document.loan_checklist import draft_loan_checklist
from services.document.render import to_docx, to_markdown
from services.document.sale import draft_sale
from services.document.sale_rules import sale_rules
from services.housing.clauses import clause_rules
from services.housing.money import contract_amount
from services.platform.service import Wiring
from services.platform.settings import REPO_ROOT, InfraSettings
from services.platform.team import StepOutput, StepWork, TeamWork, team_subscription

CITABLE = (
    TERM_ARTICLE,
    RENEWAL_ARTICLE,
    INCREASE_ARTICLE,
    *(article for rule in clause_rules() for article in rule.article_ids),
    *sale_rules().article_ids,
)
SALE_WORDS = re.compile(r"매매\s*계약|매도인|매수인")
LEASE_WORDS = re.compile(r"임대차|전세|월세|임대|임차")


class DocumentSettings(BaseSettings):
    """The document team's sources, each from `JIPSA_DOCUMENT_<NAME>`."""

    model_config = SettingsConfigDict(env_prefix="JIPSA_DOCUMENT_", extra="ignore")

    corpus_path: Path = Field(
        default=REPO_ROOT / "infra" / "seed" / "legal" / "corpus.jsonl",
        description="The statutes (one article per JSON line) whose articles a contract cites.",
    )


async def build(pool: AsyncConnectionPool, settings: InfraSettings) -> Wiring:
    statutes = load_statutes(DocumentSettings().corpus_path, CITABLE, sale_rules().paragraphs)
    return Wiring([team_subscription(Team.DOCUMENT, document_work(pool, statutes))])


def document_work(pool: AsyncConnectionPool, statutes: Mapping[str, Citation]) -> TeamWork:
    async def work(step: StepWork) -> StepOutput:
        draft = draft_document(step, statutes)
        if not draft.artifacts:
            return StepOutput(summary=draft.summary, result=draft.result)
        async with pool.connection() as conn, conn.transaction():
            refs = [await store_artifact(conn, a, step.session_id, step.run_id) for a in draft.artifacts]
        return StepOutput(summary=draft.summary, result=draft.result.model_copy(update={"documents": refs}))

    return work


def draft_document(step: StepWork, statutes: Mapping[str, Citation]) -> Draft:
    """The document the step's focus names. A question that speaks only of a sale gets the sale contract
    whatever the focus: a model's plan knows the lease's focus only, and a 매매 must never come out as a
    lease."""
    if StepFocus.LOAN_APPLICATION.value in step.focus:
        return draft_loan_checklist(step)
    if StepFocus.SALES_CONTRACT.value in step.focus or _speaks_only_of_a_sale(step.query):
        return draft_sale(step, statutes)
    return draft_lease(step, statutes)


def _speaks_only_of_a_sale(query: str) -> bool:
    return bool(SALE_WORDS.search(query)) and not LEASE_WORDS.search(query)


def draft_lease(step: StepWork, statutes: Mapping[str, Citation]) -> Draft:
    answers = step.inputs.get("answers")
    fields, unreadable = collect_fields(
        step.query,
        previous_queries=[str(q) for q in step.inputs.get("previous_queries") or []],
        answers=answers if isinstance(answers, Mapping) else {},
        dependency_results=step.dependency_results,
    )
    review = review_lease(fields)
    questions = questions_for(missing_fields(fields), unreadable, review.blocking, LABELS)
    if questions:
        return ask("lease_contract", "임대차계약서", {"lease_fields": _known(fields)}, questions)
    return write(review, statutes)


def write(review: Review, statutes: Mapping[str, Citation]) -> Draft:
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
    return Draft(
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
