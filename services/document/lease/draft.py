"""The lease (주택임대차계약서): its fields collected from the question, earlier questions, the person's
answers and the steps it depends on; what is missing asked; otherwise the contract written and reviewed,
as DOCX and Markdown."""

from __future__ import annotations

from collections.abc import Mapping

from contracts.results import Figure, StepResult
from contracts.values import Citation
from services.document.common.artifacts import DOCX, MARKDOWN, Artifact
from services.document.common.draft import Draft, ask, questions_for, turns_said
from services.document.common.layout import review_section
from services.document.common.render import to_docx, to_markdown
from services.document.lease.checks import Review, review_lease
from services.document.lease.fields import LABELS, LeaseFields, collect_fields, missing_fields
from services.document.lease.layout import TITLE, lease_contract
from services.housing.money import contract_amount
from services.platform.team import StepWork


def draft_lease(step: StepWork, statutes: Mapping[str, Citation]) -> Draft:
    newest, before = turns_said(step)
    fields, unreadable = collect_fields(
        newest,
        before,
        answers=step.inputs.answers,
        dependency_results=step.dependency_results,
        today=step.inputs.said_on,
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
