"""소액임차인 최우선변제 (주택임대차보호법 제8조, 시행령 제10조·제11조): whether a deposit is small enough,
for the region of the home, to be repaid ahead of the mortgages, and how much of it is. The decree's
region table is dated data (infra/seed/rules/small_deposit.toml)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from contracts.results import Figure, Question, StepResult
from services.analysis.case import Case
from services.analysis.rules.small_deposit import PriorityTable, PriorityTier, SmallDepositRules
from services.analysis.rules.statutes import StatuteBook
from services.housing.money import format_manwon as won_text


@dataclass(frozen=True)
class PriorityRepayment:
    """What a deposit gets ahead of the mortgages in one tier, in 만원."""

    deposit: float
    tier: PriorityTier
    qualifies: bool  # 보증금 ≤ 제11조's amount for the tier
    protected: float  # 0 when it does not qualify
    house_limit: float | None  # 주택가액 × 1/2 (제10조②) when the house value is known

    @property
    def limited_by_house(self) -> bool:
        return self.house_limit is not None and self.protected == self.house_limit


def protected_amount(
    deposit: float, tier: PriorityTier, house_value: float | None, share: float
) -> PriorityRepayment:
    """min(보증금, 제10조① 일정액, 주택가액 × 1/2) for a qualifying deposit; nothing above the line."""
    qualifies = deposit <= tier.max_deposit_manwon
    house_limit = house_value * share if house_value else None
    limits = [deposit, tier.protected_manwon, *([house_limit] if house_limit is not None else [])]
    return PriorityRepayment(deposit, tier, qualifies, min(limits) if qualifies else 0.0, house_limit)


def priority_repayment(case: Case, rules: SmallDepositRules, statutes: StatuteBook) -> StepResult:
    table = rules.table_on(case.day())
    deposit = case.number("deposit_manwon")
    if deposit is None:
        deposits, _ = case.deposits_and_rents()
        deposit = deposits[0] if deposits else None
    named = table.tier_named(case.query, case.entities.gu)
    tier, place = named or (table.seoul, None)
    questions = [] if named else [Question(field="region", label="주택 소재지(시·군·구)", hint="예: 수원시")]
    citations = _citations(statutes)
    if not deposit:
        return StepResult(
            headline=f"{tier.name}에서는 보증금 {won_text(tier.max_deposit_manwon)} 이하 임차인이 "
            f"{won_text(tier.protected_manwon)}까지 최우선변제를 받습니다: 보증금을 알려 주시면 "
            "계산해 드립니다.",
            figures=_table_figures(table),
            citations=citations,
            questions=[Question(field="deposit_manwon", label="보증금", hint="예: 1억"), *questions],
        )
    house_value = case.number("sale_price_manwon", "market_value_manwon")
    result = protected_amount(deposit, tier, house_value, table.house_value_share)
    return StepResult(
        headline=_verdict(result, place),
        findings=_findings(result, table, case),
        figures=_figures(result, table, place),
        citations=citations,
        questions=questions,
        data={
            "priority_repayment": {
                "tier": tier.name,
                "deposit_manwon": deposit,
                "qualifies": result.qualifies,
                "protected_manwon": result.protected,
                "table_effective_from": table.effective_from.isoformat(),
            }
        },
    )


def _verdict(result: PriorityRepayment, place: str | None) -> str:
    tier, deposit = result.tier, result.deposit
    where = f"{place}에서" if place else f"지역을 말씀하지 않아 {tier.label} 기준으로 보면"
    line = f"{tier.label} 기준 {won_text(tier.max_deposit_manwon)} 이하"
    if not result.qualifies:
        return (
            f"{where} 보증금 {won_text(deposit)}은 소액임차인({line})이 아니어서 최우선변제 대상이 아닙니다."
        )
    if result.limited_by_house:
        how_much = f"주택가액의 2분의 1 한도인 {won_text(result.protected)}까지"
    elif result.protected == deposit:
        how_much = f"보증금 전액 {won_text(deposit)}을"
    else:
        how_much = f"{won_text(result.protected)}까지"
    return (
        f"{where} 보증금 {won_text(deposit)}은 소액임차인({line})에 해당해 최우선변제로 "
        f"{how_much} 다른 담보물권자보다 먼저 받을 수 있습니다."
    )


def _findings(result: PriorityRepayment, table: PriorityTable, case: Case) -> list[str]:
    findings = []
    if result.qualifies:
        findings.append(
            "최우선변제를 받으려면 경매신청 등기 전에 주택 인도와 전입신고(대항요건)를 마쳐야 합니다(제8조①)."
        )
    else:
        findings.append(
            "최우선변제 대상이 아니어도 대항요건과 확정일자를 갖추면 경매·공매 때 순위에 따라 "
            "보증금을 우선변제받습니다(제3조의2②)."
        )
    if case.number("monthly_rent_manwon") is not None:
        findings.append("주택 소액임차인인지는 월세와 상관없이 보증금만으로 따집니다(시행령 제11조).")
    findings += [
        "보증금 중 일정액은 주택가액(대지 포함)의 2분의 1을 넘지 못하고, 소액임차인이 여럿이면 그 "
        "2분의 1을 각자의 일정액 비율로 나눕니다(제8조③ 단서, 시행령 제10조②·③).",
        f"이 금액표는 {_dotted(table.effective_from)} 개정 시행령 기준입니다. 선순위 담보물권(근저당 "
        "등)이 그 전에 설정된 주택이면 설정 당시의 종전 기준이 적용되어 금액이 더 낮으니 등기부등본 "
        "을구의 설정일을 확인하세요(시행령 부칙 경과조치; 종전 표는 이 자료에 없습니다).",
    ]
    if result.tier.note:
        findings.append(result.tier.note)
    return findings


def _figures(result: PriorityRepayment, table: PriorityTable, place: str | None) -> list[Figure]:
    tier, deposit = result.tier, result.deposit
    limits = f"min(보증금 {deposit:,.0f}, {tier.label} 일정액 {tier.protected_manwon:,}"
    if result.house_limit is not None:
        limits += f", 주택가액 × {table.house_value_share:g} = {result.house_limit:,.0f}"
    qualifies = f"보증금 {deposit:,.0f} {'≤' if result.qualifies else '>'} {tier.max_deposit_manwon:,}"
    return [
        Figure(
            label="최우선변제 보호액",
            value=round(result.protected, 2),
            unit="만원",
            basis=f"{limits})" if result.qualifies else f"{qualifies}: 소액임차인이 아님",
            source=table.source,
        ),
        Figure(
            label=f"소액임차인 보증금 기준 ({tier.label})",
            value=tier.max_deposit_manwon,
            unit="만원",
            basis=f"{qualifies}: {'해당' if result.qualifies else '해당 없음'}",
            source=table.source,
        ),
        Figure(
            label="최우선변제 지역 구간",
            value=tier.name,
            basis=f"질문의 '{place}'" if place else "지역을 말씀하지 않아 서울특별시로 가정",
            source=table.source,
        ),
    ]


def _table_figures(table: PriorityTable) -> list[Figure]:
    return [
        Figure(
            label=f"최우선변제 한도 ({tier.label})",
            value=tier.protected_manwon,
            unit="만원",
            basis=f"보증금 {tier.max_deposit_manwon:,}만원 이하 임차인",
            source=table.source,
        )
        for tier in table.tiers
    ]


def _dotted(day: date) -> str:
    """2023-02-21 -> '2023. 2. 21.', the way statutes write dates."""
    return f"{day.year}. {day.month}. {day.day}."


def _citations(statutes: StatuteBook) -> list:
    return [
        statutes.cite("주택임대차보호법/제8조", (1, 3)),
        statutes.cite("주택임대차보호법_시행령/제10조", (1, 2)),
        statutes.cite("주택임대차보호법_시행령/제11조"),
    ]
