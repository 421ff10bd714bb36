"""대출 신청 준비: the checklist a person takes to the bank, in two document steps around the analysis.

The first step (no dependency results yet) collects the applicant's facts and asks for what is missing;
its result carries them in the loan simulator's terms (`data["applicant"]`), which the analysis steps
planned after it read (the simulator's limit, LTV and DSR; the programmes that fit). The second step,
fed with their results, writes the checklist: the documents the lender asks for, the programme that fits
with its limit and rate band, the LTV/DSR outcome, and plainly that the bank decides.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from contracts.results import Figure, StepResult
from services.document.common.artifacts import DOCX, MARKDOWN, Artifact
from services.document.common.draft import Draft, ask, questions_for, turns_said
from services.document.common.layout import Block, Heading, Paragraph, Table
from services.document.common.render import to_docx, to_markdown
from services.document.loan.applicant import (
    LABELS,
    LoanApplicant,
    collect_applicant,
    documents_for,
    missing_applicant_fields,
    simulator_facts,
)
from services.housing.money import format_manwon
from services.platform.team import StepWork

DOCUMENT = "loan_application"
CHECKLIST_TITLE = "대출 신청 준비 체크리스트"
PURPOSE_NAMES = {"purchase": "주택 구입", "jeonse": "전세"}
PROGRAMME_KIND = {"purchase": "purchase_loan", "jeonse": "jeonse_loan"}
FITS = {"eligible": "조건 충족", "possible": "추가 확인 필요"}
# The simulator's figures the application needs: the limit and what set it.
LIMIT_FIGURES = ("대출 가능 금액", "한도 (", "DSR 연간 원리금 상한", "LTV (")
BANK_DECIDES = (
    "이 체크리스트는 공개된 규칙과 알려 주신 정보로 계산한 준비 자료입니다. "
    "대출 가능 여부, 한도와 금리는 은행(주택도시기금 수탁은행)이 신용·소득·담보 심사로 정하며, "
    "은행은 여기 없는 서류를 더 요구할 수 있습니다."
)


def draft_loan_checklist(step: StepWork) -> Draft:
    known = applicant_of(step.dependency_results.values())
    if known is None:
        return collect(step)
    return write(known, step.dependency_results)


def collect(step: StepWork) -> Draft:
    """The applicant's facts, or questions for the missing ones."""
    newest, before = turns_said(step)
    applicant, unreadable = collect_applicant(
        newest,
        before,
        answers=step.inputs.answers,
    )
    known = {"loan_applicant": applicant.model_dump(mode="json", exclude_defaults=True)}
    questions = questions_for(missing_applicant_fields(applicant), unreadable, [], LABELS)
    if questions:
        return ask(DOCUMENT, "대출 신청 체크리스트", known, questions)
    purpose = PURPOSE_NAMES[applicant.purpose or "purchase"]
    result = StepResult(
        headline=f"{purpose} 대출 신청 정보를 확인했습니다: 한도와 지원 프로그램을 계산합니다.",
        data={"document": DOCUMENT, **known, "applicant": simulator_facts(applicant)},
    )
    return Draft(summary="대출 신청 정보 확인", result=result)


def applicant_of(results: Iterable[StepResult]) -> LoanApplicant | None:
    for result in results:
        if stated := result.data.get("loan_applicant"):
            return LoanApplicant.model_validate(stated)
    return None


def write(applicant: LoanApplicant, dependency_results: Mapping[str, StepResult]) -> Draft:
    data = _merged_data(dependency_results.values())
    simulation = _simulation(dependency_results.values())
    programmes = fitting_programmes(applicant, data)
    blocks = checklist(applicant, programmes, simulation)
    markdown = to_markdown(blocks)
    stem = f"대출신청체크리스트_{PURPOSE_NAMES[applicant.purpose or 'purchase']}"
    artifacts = [
        Artifact(f"{stem}.docx", DOCX, to_docx(blocks, CHECKLIST_TITLE)),
        Artifact(f"{stem}.md", MARKDOWN, markdown.encode()),
    ]
    names = ", ".join(p["name"] for p in programmes) or "조건이 확인된 정책 대출 없음"
    result = StepResult(
        headline=(
            f"{CHECKLIST_TITLE}를 만들었습니다: 서류 {len(documents_for(applicant))}가지, "
            f"맞는 프로그램: {names}"
        ),
        findings=[BANK_DECIDES],
        figures=simulation,
        data={"document": DOCUMENT, "markdown": markdown, "programmes": programmes},
    )
    return Draft(summary=f"대출 신청 체크리스트 작성 ({names})", result=result, artifacts=artifacts)


def fitting_programmes(applicant: LoanApplicant, data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The programmes of the loan's kind that the policy matching found eligible or worth checking, with
    the limits and rate band the loan search read for them (the dated programme rules)."""
    products = {p["name"]: p for p in data.get("loan_products", []) if isinstance(p, dict)}
    kind = PROGRAMME_KIND[applicant.purpose or "purchase"]
    fitting = []
    for match in data.get("policy", {}).get("matches", []):
        product = products.get(match.get("name"))
        if match.get("status") in FITS and product and product.get("kind") == kind:
            fitting.append({"name": match["name"], "status": match["status"], **_terms(product)})
    return fitting


def _terms(product: Mapping[str, Any]) -> dict[str, Any]:
    limits = [
        f"{x['label']} {_measure(x['value'], x.get('unit', ''))}"
        + (f" ({x['applies_to']})" if x.get("applies_to") else "")
        for x in product.get("limits", [])
    ]
    low, high = product.get("rate_min_pct"), product.get("rate_max_pct")
    rate = f"연 {low:g}~{high:g}%" if low is not None and high is not None else "은행 고시 금리"
    return {"limits": limits, "rate": rate}


def _measure(value: float | str, unit: str | None) -> str:
    if isinstance(value, str):
        return value
    return format_manwon(value) if unit == "만원" else f"{value:g}{unit or ''}"


def checklist(
    applicant: LoanApplicant, programmes: list[dict[str, Any]], figures: list[Figure]
) -> list[Block]:
    purpose = PURPOSE_NAMES[applicant.purpose or "purchase"]
    return [
        Heading(CHECKLIST_TITLE, 1),
        Paragraph(f"대출 목적: {purpose}. {BANK_DECIDES}"),
        Heading("신청서에 적을 정보", 2),
        Table(("항목", "내용"), _facts(applicant)),
        Heading("맞는 대출 프로그램", 2),
        _programme_table(programmes),
        Heading("한도 계산 (LTV·DSR)", 2),
        _figure_table(figures, applicant),
        Heading("준비할 서류", 2),
        Table(
            ("확인", "서류", "발급처"),
            tuple(("☐", d.name, d.where) for d in documents_for(applicant)),
        ),
    ]


def _facts(a: LoanApplicant) -> tuple[tuple[str, str], ...]:
    amount = ("전세보증금", a.deposit_won) if a.purpose == "jeonse" else ("주택 가격", a.price_won)
    rows = [
        (amount[0], _won(amount[1])),
        ("연소득", _won(a.income_won)),
        ("기존 대출 월 상환액", _won(a.existing_debt_monthly_won) if a.existing_debt_monthly_won else "없음"),
        ("보유 주택 수", "무주택" if a.house_count == 0 else f"{a.house_count}주택"),
        ("주택 소재지", a.region or ""),
    ]
    return tuple(rows)


def _programme_table(programmes: list[dict[str, Any]]) -> Table:
    rows = tuple((p["name"], FITS[p["status"]], "; ".join(p["limits"]), p["rate"]) for p in programmes) or (
        ("조건이 확인된 정책 대출이 없습니다", "-", "시중은행 상품을 비교하세요", "-"),
    )
    return Table(("프로그램", "조건", "한도", "금리"), rows)


def _figure_table(figures: list[Figure], applicant: LoanApplicant) -> Block:
    if not figures:
        if applicant.purpose == "jeonse":
            return Paragraph("전세자금대출은 프로그램 한도와 보증기관의 보증 한도 안에서 정해집니다 (위 표).")
        return Paragraph("한도를 계산하지 못했습니다: 은행에서 LTV·DSR 심사를 받으세요.")
    rows = tuple((f.label, _measure(f.value, f.unit), f.basis or "") for f in figures)
    return Table(("항목", "값", "계산 근거"), rows)


def _simulation(results: Iterable[StepResult]) -> list[Figure]:
    """The loan simulator's limit figures, from the analysis step that ran it."""
    figures = []
    for result in results:
        if "loan_simulation" not in result.data:
            continue
        for figure in result.figures:
            if figure.label.startswith(LIMIT_FIGURES):
                figures.append(figure)
    return figures


def _merged_data(results: Iterable[StepResult]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for result in results:
        merged.update(result.data)
    return merged


def _won(won: int | None) -> str:
    return format_manwon(won / 10_000) if won is not None else ""
