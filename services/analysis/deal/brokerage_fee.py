"""중개보수 (공인중개사법 제32조, 시행규칙 제20조): the most a broker may charge each party for a deal.

The fee is reckoned on the 거래금액: a sale's price, a lease's 보증금, or with a monthly rent 보증금 + 월차임
× 100 (× 70 when that is under 5천만원, 제20조⑤ 제1호). It is at most 거래금액 × 상한요율, and no more than
the band's 한도액 where one is set: a home by the 시·도 조례's table within 시행규칙 별표 1 (법 제32조④), a
qualifying 오피스텔 by 별표 2 (제20조④ 제1호), anything else 1천분의 9 (제20조④ 제2호). The rates are dated
data (infra/seed/rules/brokerage.toml), read for the day asked."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date
from typing import Literal, TypeVar

from contracts.entities import DealType, PropertyType
from contracts.results import Figure, Question, StepResult
from contracts.values import Citation
from services.analysis.case import Case
from services.analysis.rules.brokerage import (
    BrokerageRules,
    Deal,
    TransactionAmountRule,
)
from services.analysis.rules.statutes import StatuteBook
from services.housing.dated_rules import DatedRule, in_force
from services.housing.money import format_manwon as won_text

ACT_ARTICLE = "공인중개사법/제32조"
ARTICLE = "공인중개사법_시행규칙/제20조"
WON_PER_MANWON = 10_000

DEAL_NAMES: dict[Deal, str] = {"sale": "매매·교환", "lease": "임대차"}
# How a lone price reads under each deal ("7억 5천이 매매가라면 …, 전세 보증금이라면 …").
PRICE_AS: dict[Deal, str] = {"sale": "매매가라면", "lease": "전세 보증금이라면"}
PropertyKind = Literal["housing", "officetel", "other"]


@dataclass(frozen=True)
class TransactionAmount:
    """거래금액 in 만원 and the formula that gave it."""

    amount: float
    formula: str


@dataclass(frozen=True)
class ApplicableRate:
    """The 상한요율 (and 한도액) that applies, with the table row it came from and that table's source."""

    max_rate: float
    cap_manwon: float | None
    bracket: str
    source: str


@dataclass(frozen=True)
class FeeCeiling:
    """The most one party pays: 거래금액 × 상한요율, held to the 한도액 where there is one."""

    amount_manwon: float
    max_rate: float
    cap_manwon: float | None

    @property
    def by_rate_manwon(self) -> float:
        # Cut to the whole 원 (rounded first, so 150,000 × 0.7% is not 1,049.9999): never above the ceiling.
        return math.floor(round(self.amount_manwon * WON_PER_MANWON * self.max_rate, 6)) / WON_PER_MANWON

    @property
    def capped(self) -> bool:
        return self.cap_manwon is not None and self.by_rate_manwon > self.cap_manwon

    @property
    def fee_manwon(self) -> float:
        return self.cap_manwon if self.capped and self.cap_manwon is not None else self.by_rate_manwon


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


def applicable_rate(
    kind: PropertyKind, deal: Deal, amount_manwon: float, rules: BrokerageRules, day: date
) -> ApplicableRate | None:
    """The rate in force on `day` for this property and deal; None when no table of that day is held."""
    if kind == "other":
        other = rules.non_housing
        return ApplicableRate(other.max_rate, None, "주택 외 중개대상물 (1천분의 9 이내 협의)", other.source)
    if kind == "officetel":
        officetel = _latest(in_force(rules.officetel, day))
        if officetel is None:
            return None
        rate = officetel.sale_rate if deal == "sale" else officetel.lease_rate
        return ApplicableRate(rate, None, f"요건을 갖춘 오피스텔 {DEAL_NAMES[deal]}", officetel.source)
    table = _latest(in_force(rules.housing, day))
    if table is None:
        return None
    band = table.band_for(deal, amount_manwon)
    bracket = f"{table.region} 주택 {DEAL_NAMES[deal]} {table.band_range(deal, band)}"
    return ApplicableRate(band.max_rate, band.cap_manwon, bracket, table.source)


def brokerage_fee(case: Case, rules: BrokerageRules, statutes: StatuteBook) -> StepResult:
    kind = _property_kind(case)
    citations = _citations(kind, statutes)
    priced = _priced_deals(case, rules.transaction_amount)
    if not priced:
        return StepResult(
            headline="매매가나 보증금·월세를 알려 주시면 중개보수 상한을 계산해 드립니다.",
            findings=[_ceiling_terms()],
            citations=citations,
            questions=[Question(field="deposit_manwon", label="보증금", hint="예: 보증금 500에 월세 40")],
        )
    day = case.day()
    lines = [
        _DealFee(deal, amount, applicable_rate(kind, deal, amount.amount, rules, day))
        for deal, amount in priced
    ]
    return StepResult(
        headline=_headline(case, lines),
        findings=_findings(case, kind, lines, rules, day),
        figures=[figure for line in lines for figure in line.figures(rules.transaction_amount.source)],
        citations=citations,
        data={"brokerage_fee": [line.data() for line in lines]},
    )


@dataclass(frozen=True)
class _DealFee:
    deal: Deal
    amount: TransactionAmount
    rate: ApplicableRate | None

    @property
    def ceiling(self) -> FeeCeiling | None:
        if self.rate is None:
            return None
        return FeeCeiling(self.amount.amount, self.rate.max_rate, self.rate.cap_manwon)

    def sentence(self) -> str:
        """'중개보수는 최대 30만원입니다(거래금액 9,000만원 × 상한요율 0.4% = 36만원, 한도액 30만원)'."""
        if self.rate is None or self.ceiling is None:
            amount = won_text(self.amount.amount)
            return f"거래금액은 {amount}이고, 이 날짜에 시행된 중개보수 요율표는 자료에 없습니다"
        fee = won_text(self.ceiling.fee_manwon)
        return f"중개보수는 최대 {fee}입니다({self.calculation(self.rate, self.ceiling)})"

    def calculation(self, rate: ApplicableRate, ceiling: FeeCeiling) -> str:
        by_rate = f"거래금액 {won_text(self.amount.amount)} × 상한요율 {_percent(rate.max_rate)}"
        if ceiling.capped:
            return f"{by_rate} = {won_text(ceiling.by_rate_manwon)}, 한도액 {won_text(ceiling.fee_manwon)}"
        return by_rate

    def figures(self, amount_source: str) -> list[Figure]:
        figures = [
            Figure(
                label="중개보수 거래금액",
                value=round(self.amount.amount, 2),
                unit="만원",
                basis=self.amount.formula,
                source=amount_source,
            )
        ]
        if self.rate is not None and self.ceiling is not None:
            figures.append(
                Figure(
                    label=f"중개보수 상한 ({self.rate.bracket}, 일방)",
                    value=self.ceiling.fee_manwon,
                    unit="만원",
                    basis=self.calculation(self.rate, self.ceiling),
                    source=self.rate.source,
                )
            )
        return figures

    def data(self) -> dict[str, object]:
        ceiling = self.ceiling
        return {
            "deal": self.deal,
            "transaction_amount_manwon": self.amount.amount,
            "formula": self.amount.formula,
            "max_rate": self.rate.max_rate if self.rate else None,
            "cap_manwon": self.rate.cap_manwon if self.rate else None,
            "fee_manwon": ceiling.fee_manwon if ceiling else None,
        }


def _priced_deals(case: Case, rule: TransactionAmountRule) -> list[tuple[Deal, TransactionAmount]]:
    """The deal asked about and its 거래금액; a lone price with no deal named is reckoned both ways."""
    deposit, rent = _lease(case)
    if deposit is not None:
        return [("lease", lease_transaction_amount(deposit, rent or 0, rule))]
    price = case.number("sale_price_manwon") or _lone_price(case)
    if price is None:
        return []
    sale = TransactionAmount(price, f"매매가 {price:,.0f}")
    if case.entities.deal_type == DealType.SALE or case.number("sale_price_manwon") is not None:
        return [("sale", sale)]
    if case.entities.deal_type is None:
        return [("sale", sale), ("lease", TransactionAmount(price, f"보증금 {price:,.0f} (차임 없음)"))]
    return [("lease", lease_transaction_amount(price, 0, rule))]


def _lease(case: Case) -> tuple[float | None, float | None]:
    """보증금 and 월세 by the roles the person gave, else a deposit-and-rent pair read from the amounts in
    order. A lone amount with no role is not the lease's ("수고비로 50만원 더 달래요" names no deposit)."""
    deposit, rent = case.number("deposit_manwon"), case.number("monthly_rent_manwon")
    if deposit is None and rent is None:
        deposits, rents = case.deposits_and_rents()
        if deposits and rents:
            deposit, rent = deposits[0], rents[0]
    return deposit, rent


def _lone_price(case: Case) -> float | None:
    """The one amount a question names with no role, as a price when it names a deal or a home ("4천5백에
    빌라 매매하는데"): "수고비로 50만원 더 달래요" prices nothing."""
    amounts = case.amounts()
    named = case.entities.deal_type is not None or case.entities.property_types
    return float(amounts[0]) if len(amounts) == 1 and named else None


def _property_kind(case: Case) -> PropertyKind:
    kinds = case.entities.property_types
    if PropertyType.COMMERCIAL in kinds:
        return "other"
    return "officetel" if kinds == [PropertyType.OFFICETEL] else "housing"


def _headline(case: Case, lines: list[_DealFee]) -> str:
    if len(lines) == 1:
        return f"{_deal_lead(case, lines[0])} {lines[0].sentence()}."
    price = won_text(lines[0].amount.amount)
    if len({line.sentence() for line in lines}) == 1:  # both readings come to the same fee: say it once
        return f"{price}이면 매매가든 전세 보증금이든 {lines[0].sentence()}."
    both = " / ".join(f"{PRICE_AS[line.deal]} {line.sentence()}" for line in lines)
    return f"{price}이 {both}."


def _deal_lead(case: Case, line: _DealFee) -> str:
    deposit, rent = _lease(case)
    if line.deal == "sale":
        return f"매매가 {won_text(line.amount.amount)}이면"
    if rent and deposit is not None:
        return f"보증금 {won_text(deposit)}에 월세 {won_text(rent)}이면"
    deposit_word = "전세 보증금" if case.entities.deal_type == DealType.JEONSE else "보증금"
    return f"{deposit_word} {won_text(line.amount.amount)}이면"


def _findings(
    case: Case, kind: PropertyKind, lines: list[_DealFee], rules: BrokerageRules, day: date
) -> list[str]:
    findings = [_ceiling_terms()]
    findings += [f"적용 요율: {line.rate.bracket} ({line.rate.source})" for line in lines if line.rate]
    deposit, rent = _lease(case)
    if rent and deposit is not None:
        findings.append(f"거래금액 = {lines[0].amount.formula} (만원, 시행규칙 제20조⑤ 제1호).")
    officetel = _latest(in_force(rules.officetel, day))
    if kind == "officetel" and officetel is not None:
        findings.append(
            f"오피스텔 요율은 전용 {officetel.max_exclusive_m2}㎡ 이하이고 전용 입식 부엌·수세식 화장실·"
            "목욕시설을 갖춘 경우입니다(제20조④ 제1호). 아니면 거래금액의 "
            f"{_percent(rules.non_housing.max_rate)} 이내에서 협의합니다."
        )
    if kind == "housing":
        findings.append(
            "중개사무소가 있는 시·도의 조례를 따르며(제20조③), 여기 요율은 서울특별시 조례 기준입니다."
        )
    return findings


def _ceiling_terms() -> str:
    return (
        "법정 금액은 상한('이내')이라 실제 보수는 그 안에서 중개사와 협의해 정하고, 중개의뢰인 쌍방"
        "(매도인·매수인, 임대인·임차인)이 각각 냅니다(시행규칙 제20조①). 부가가치세는 포함되지 않았습니다."
    )


def _citations(kind: PropertyKind, statutes: StatuteBook) -> list[Citation]:
    paragraphs = (1, 5) if kind == "housing" else (4, 5)
    return [statutes.cite(ACT_ARTICLE, (4,)), statutes.cite(ARTICLE, paragraphs)]


def _percent(rate: float) -> str:
    return f"{rate * 100:g}%"


R = TypeVar("R", bound=DatedRule)


def _latest(rules: list[R]) -> R | None:
    return max(rules, key=lambda rule: rule.effective_from, default=None)
