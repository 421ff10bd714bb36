"""The sale contract step (부동산매매계약서): collect the fields and ask for what is missing, then write the
contract with its review; or, when the person pasted a sale contract, review its 특약."""

from __future__ import annotations

from collections.abc import Mapping

from contracts.results import Figure, StepResult
from contracts.values import Citation
from services.document.common.artifacts import DOCX, MARKDOWN, Artifact
from services.document.common.draft import Draft, ask, questions_for, turns_said
from services.document.common.findings import Finding
from services.document.common.layout import review_section
from services.document.common.render import to_docx, to_markdown
from services.document.sale.checks import (
    SaleReview,
    looks_like_sale_contract,
    review_pasted_sale,
    review_sale,
)
from services.document.sale.fields import LABELS, SaleFields, collect_sale_fields, missing_sale_fields
from services.document.sale.layout import SALE_TITLE, sale_contract
from services.document.sale.rules import sale_rules
from services.housing.contract_text import looks_like_contract
from services.housing.money import contract_amount
from services.platform.team import StepWork

DOCUMENT = "sales_contract"
SEVERITY_NAMES = {"error": "오류", "warning": "주의", "note": "참고"}


def draft_sale(step: StepWork, statutes: Mapping[str, Citation]) -> Draft:
    if looks_like_contract(step.query) and looks_like_sale_contract(step.query):
        return review_pasted(step.query, statutes)
    newest, before = turns_said(step)
    fields, unreadable = collect_sale_fields(
        newest,
        before,
        answers=step.inputs.answers,
        today=step.inputs.said_on,
    )
    review = review_sale(fields)
    questions = questions_for(missing_sale_fields(fields), unreadable, review.blocking, LABELS)
    if questions:
        return ask(DOCUMENT, "매매계약서", {"sale_fields": _known(fields)}, questions)
    return write(review, statutes)


def write(review: SaleReview, statutes: Mapping[str, Citation]) -> Draft:
    fields, rules = review.fields, sale_rules()
    contract = sale_contract(review, rules, statutes)
    markdown = to_markdown([*contract, *review_section(review)])
    stem = f"부동산매매계약서_{fields.buyer_name}_{fields.contract_date}"
    artifacts = [
        Artifact(f"{stem}.docx", DOCX, to_docx(contract, SALE_TITLE)),
        Artifact(f"{stem}.md", MARKDOWN, markdown.encode()),
    ]
    cited = [*review.article_ids, *(d.article_id for d in rules.duties)]
    result = StepResult(
        headline=(
            f"{SALE_TITLE}를 작성했습니다: 매매대금 {contract_amount(fields.price_won or 0)}, "
            f"계약일 {fields.contract_date}, 잔금일 {fields.balance_date}"
        ),
        findings=[f.message for f in review.findings] + [f"권장 특약: {t}" for t in review.suggested_terms],
        figures=_figures(fields),
        citations=[statutes[a] for a in dict.fromkeys(cited) if a in statutes],
        data={
            "document": DOCUMENT,
            "markdown": markdown,
            "sale_fields": _known(fields),
            "review": [f.model_dump(mode="json", exclude_defaults=True) for f in review.findings],
            "suggested_special_terms": review.suggested_terms,
        },
    )
    summary = f"매매계약서 작성 완료 (검토 의견 {len(review.findings)}건)"
    return Draft(summary=summary, result=result, artifacts=artifacts)


def review_pasted(text: str, statutes: Mapping[str, Citation]) -> Draft:
    """A pasted sale contract's 특약 against the rule book, with the reporting duties that bind it."""
    findings = review_pasted_sale(text)
    duties = sale_rules().duties
    cited = [*(a for f in findings for a in f.article_ids), *(d.article_id for d in duties)]
    warnings = [f for f in findings if f.severity == "warning"]
    headline = (
        f"매매계약서 특약을 검토했습니다: 매수인에게 불리하거나 빠진 부분 "
        f"{len(findings)}건(주의 {len(warnings)}건)."
        if findings
        else "매매계약서 특약에서 매수인에게 불리하거나 빠진 부분을 찾지 못했습니다."
    )
    result = StepResult(
        headline=headline,
        findings=[_sentence(f) for f in findings] + [f"{d.title}: {d.text}" for d in duties],
        citations=[statutes[a] for a in dict.fromkeys(cited) if a in statutes],
        data={
            "document": DOCUMENT,
            "review": [f.model_dump(mode="json", exclude_defaults=True) for f in findings],
        },
    )
    return Draft(summary=f"매매계약서 특약 검토 (의견 {len(findings)}건)", result=result)


def _sentence(f: Finding) -> str:
    return f"[{SEVERITY_NAMES[f.severity]}] {f.message}"


def _figures(fields: SaleFields) -> list[Figure]:
    amounts = (
        ("매매대금", fields.price_won),
        ("계약금", fields.down_payment_won),
        ("중도금", fields.interim_payment_won),
        ("잔금", fields.balance_won),
    )
    return [Figure(label=label, value=won, unit="원") for label, won in amounts if won]


def _known(fields: SaleFields) -> dict:
    return fields.model_dump(mode="json", exclude_defaults=True)
