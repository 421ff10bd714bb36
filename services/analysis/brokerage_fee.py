"""중개보수의 거래금액 (공인중개사법 시행규칙 제20조): the amount a brokerage fee is reckoned on. For a lease
with a monthly rent it is 보증금 + 월차임 × 100, or × 70 when that sum is under 5천만원 (제20조⑤ 제1호).
The housing rates (별표 1, then the 시·도 조례) are not in the shipped statutes, so no rate is applied
to a home; the 1천분의 9 ceiling for non-housing property (제20조④ 제2호) is in the article itself."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from pydantic import BaseModel, ConfigDict, Field

from contracts.entities import PropertyType
from contracts.results import Figure, Question, StepResult
from services.analysis.case import Case
from services.analysis.statutes import StatuteBook
from services.housing.money import format_manwon as won_text

ARTICLE = "공인중개사법_시행규칙/제20조"


class _Rule(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    articles: list[str]
    effective_date: date
    source: str = Field(min_length=4)


class TransactionAmountRule(_Rule):
    """제20조⑤ 제1호."""

    rent_multiplier: int = Field(gt=0)
    small_rent_multiplier: int = Field(gt=0)
    small_threshold_manwon: int = Field(gt=0)


class NonHousingRate(_Rule):
    """제20조④ 제2호: the fee ceiling for property other than a home, as a fraction of 거래금액."""

    max_rate: float = Field(gt=0, lt=0.1)


class BrokerageRules(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    transaction_amount: TransactionAmountRule
    non_housing: NonHousingRate


@dataclass(frozen=True)
class TransactionAmount:
    """거래금액 in 만원 and the formula that gave it."""

    amount: float
    formula: str


def lease_transaction_amount(
    deposit: float, monthly_rent: float, rule: TransactionAmountRule
) -> TransactionAmount:
    """보증금 + 월차임 × 100; when that is under the threshold, 보증금 + 월차임 × 70 instead."""
    if not monthly_rent:
        return TransactionAmount(deposit, f"보증금 {deposit:,.0f} (차임 없음)")
    full = deposit + monthly_rent * rule.rent_multiplier
    full_formula = f"{deposit:,.0f} + {monthly_rent:,.0f} × {rule.rent_multiplier} = {full:,.0f}"
    if full >= rule.small_threshold_manwon:
        return TransactionAmount(full, full_formula)
    small = deposit + monthly_rent * rule.small_rent_multiplier
    return TransactionAmount(
        small,
        f"{full_formula} < {rule.small_threshold_manwon:,}이므로 "
        f"{deposit:,.0f} + {monthly_rent:,.0f} × {rule.small_rent_multiplier} = {small:,.0f}",
    )


def brokerage_fee(case: Case, rules: BrokerageRules, statutes: StatuteBook) -> StepResult:
    citations = [statutes.cite(ARTICLE, (5, 1, 4))]
    deposit, rent = _lease(case)
    sale_price = case.number("sale_price_manwon")
    if deposit is not None:
        amount = lease_transaction_amount(deposit, rent or 0, rules.transaction_amount)
        headline = _lease_headline(deposit, rent, amount, rules.transaction_amount)
    elif sale_price is not None:
        amount = TransactionAmount(sale_price, f"매매가 {sale_price:,.0f}")
        price = won_text(sale_price)
        headline = f"매매가 {price}이면 중개보수의 거래금액은 매매가 그대로 {price}입니다."
    else:
        return StepResult(
            headline="보증금과 월세(매매면 매매가)를 알려 주시면 중개보수의 거래금액을 계산해 드립니다.",
            findings=[_rates_not_shipped()],
            citations=citations,
            questions=[Question(field="deposit_manwon", label="보증금", hint="예: 보증금 500에 월세 40")],
        )
    figures = [
        Figure(
            label="중개보수 거래금액",
            value=round(amount.amount, 2),
            unit="만원",
            basis=amount.formula,
            source=rules.transaction_amount.source,
        )
    ]
    findings = [_rates_not_shipped()]
    if PropertyType.COMMERCIAL in case.entities.property_types:
        figures.append(_non_housing_ceiling(amount, rules.non_housing))
        findings.insert(
            0, "주택 외 중개대상물의 보수는 거래금액의 1천분의 9 이내에서 협의합니다(제20조④ 제2호)."
        )
    return StepResult(
        headline=headline,
        findings=findings,
        figures=figures,
        citations=citations,
        data={"brokerage_fee": {"transaction_amount_manwon": amount.amount, "formula": amount.formula}},
    )


def _lease(case: Case) -> tuple[float | None, float | None]:
    """보증금 and 월세 by the roles the person gave, else a deposit-and-rent pair read from the amounts in
    order. A lone amount with no role is not the lease's ("수고비로 50만원 더 달래요" names no deposit)."""
    deposit, rent = case.number("deposit_manwon"), case.number("monthly_rent_manwon")
    if deposit is None and rent is None:
        deposits, rents = case.deposits_and_rents()
        if deposits and rents:
            deposit, rent = deposits[0], rents[0]
    return deposit, rent


def _lease_headline(
    deposit: float, rent: float | None, amount: TransactionAmount, rule: TransactionAmountRule
) -> str:
    if not rent:
        return f"보증금 {won_text(deposit)}에 월세가 없으면 중개보수의 거래금액은 보증금 그대로입니다."
    full = deposit + rent * rule.rent_multiplier
    lease = f"보증금 {won_text(deposit)}에 월세 {won_text(rent)}이면 중개보수의 거래금액은 "
    lease += won_text(amount.amount)
    if amount.amount == full:
        return f"{lease}입니다(보증금 + 월세 × {rule.rent_multiplier})."
    return (
        f"{lease}입니다: 보증금 + 월세 × {rule.rent_multiplier} = {won_text(full)}이 "
        f"{won_text(rule.small_threshold_manwon)} 미만이라 월세에 {rule.small_rent_multiplier}을 곱합니다."
    )


def _non_housing_ceiling(amount: TransactionAmount, rate: NonHousingRate) -> Figure:
    fee = amount.amount * rate.max_rate
    return Figure(
        label="중개보수 상한 (주택 외, 일방)",
        value=round(fee, 2),
        unit="만원",
        basis=f"{amount.amount:,.0f} × {rate.max_rate:.1%} = {won_text(fee)}",
        source=rate.source,
    )


def _rates_not_shipped() -> str:
    return (
        "주택 중개보수는 이 거래금액에 시행규칙 별표 1의 요율·한도액을 적용해 시·도 조례가 정한 범위에서 "
        "협의하며, 중개의뢰인 쌍방이 각각 냅니다(제20조①). 별표 1은 이 자료에 없어 요율과 금액은 계산하지 "
        "않았습니다: 중개사무소의 요율표나 해당 시·도 조례에서 확인하세요."
    )
