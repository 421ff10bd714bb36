"""Jeonse risk (깡통전세): the deposit and the debts ahead of it against the home's market value, the band
that ratio falls in, and the steps that protect the deposit (전입신고·확정일자·보증금반환보증)."""

from __future__ import annotations

import statistics

from contracts.results import Figure, Question, StepResult
from services.analysis.case import Case
from services.analysis.rules.jeonse_risk import JeonseRiskRules
from services.analysis.rules.statutes import StatuteBook
from services.housing.money import format_manwon as won_text


def deposit_and_debt(case: Case) -> tuple[float | None, float]:
    """보증금 and 선순위 채권 (mortgages ahead of the tenant) in 만원: from the step's inputs, else the
    question's amounts, the first being the deposit and a second one the debt when the question
    speaks of it."""
    sale_price = case.number("sale_price_manwon")
    amounts = [float(a) for a in case.amounts() if a != sale_price]  # a price given is not the deposit
    deposit = case.number("deposit_manwon") or (amounts[0] if amounts else None)
    debt = case.number("senior_debt_manwon")
    if debt is None:
        debt = amounts[1] if len(amounts) > 1 and case.entities.debt_spoken_of else 0.0
    return deposit, debt


def _basis_named(case: Case, deposit: float, debt: float, value: float) -> str:
    """Which figures the ratio divides, said first: the person's own outrank the data's."""
    debt_text = f"과 선순위 채권 {won_text(debt)}" if debt else ""  # 만원 ends in a consonant: 과
    lease = f"보증금 {won_text(deposit)}{debt_text}이면"
    if _price_given(case):
        return f"말씀하신 매매가 {won_text(value)}에 {lease}"
    return f"매매가를 말씀하지 않아 {_market_named(case)} {won_text(value)} 기준으로, {lease}"


def _price_given(case: Case) -> bool:
    """The person named the home's price; Case.market_value then uses it before any market figure."""
    return case.number("market_value_manwon", "sale_price_manwon") is not None


def _price_label(case: Case) -> str:
    return "말씀하신 매매가 (기준가)" if _price_given(case) else f"매매 시세 ({_market_named(case)})"


def _market_named(case: Case) -> str:
    """The market figure a ratio fell back on, as a person reads it: 강남구 매매 호가 중앙값."""
    place = " ".join([*case.entities.gu, *case.entities.dong])
    return f"{place or '검색된 지역'} 매매 호가 중앙값"


def jeonse_risk(case: Case, rules: JeonseRiskRules, statutes: StatuteBook) -> StepResult:
    deposit, debt = deposit_and_debt(case)
    market = case.market_value("sale")
    questions = []
    if deposit is None:
        questions.append(Question(field="deposit_manwon", label="전세 보증금", hint="예: 3억"))
    if market is None:
        questions.append(
            Question(
                field="market_value_manwon", label="주택 매매 시세", hint="검색 결과나 실거래가로 알려 주세요"
            )
        )
    citations = _citations(statutes)
    steps = protective_steps(rules)
    if deposit is None or market is None:
        return StepResult(
            headline="위험도를 계산하려면 보증금과 매매 시세가 필요합니다.",
            findings=steps,
            citations=citations,
            questions=questions,
        )
    value, how = market
    ratio = (deposit + debt) / value
    band = rules.band_for(ratio)
    basis = f"({deposit:,.0f} + 선순위 {debt:,.0f}) ÷ 시세 {value:,.0f}"
    figures = [
        Figure(label=_price_label(case), value=round(value), unit="만원", basis=how),
        Figure(
            label="보증금+선순위채권 ÷ 시세",
            value=round(ratio * 100, 1),
            unit="%",
            basis=basis,
            source=rules.source,
        ),
        Figure(label="위험 구간", value=band.label, basis=_band_table(rules), source=rules.source),
        Figure(
            label="시세 대비 여유액",
            value=round(value - deposit - debt),
            unit="만원",
            basis=(
                f"{value:,.0f} − {deposit:,.0f} − {debt:,.0f}: 집값이 이만큼 떨어지면 보증금이 위태롭습니다"
            ),
        ),
    ]
    figures += _market_jeonse_ratio(case)
    findings = [f"{band.label}: {band.advice}"]
    if deposit + debt >= value:
        findings.append(
            f"보증금과 선순위 채권의 합({won_text(deposit + debt)})이 시세({won_text(value)}) 이상입니다: "
            "매각되어도 보증금 전액을 돌려받기 어렵습니다."
        )
    cap = rules.guarantee.max_ratio
    eligible = ratio <= cap
    limit = won_text(round(value * cap))
    guarantee = f"전세보증금반환보증(HUG) 가입 기준 {cap:.0%}(보증금과 선순위 채권 합계 {limit} 이하)" + (
        "를 충족합니다" if eligible else "를 넘어 가입이 어렵습니다"
    )
    findings.append(f"{guarantee}.")
    if debt == 0 and case.number("senior_debt_manwon") is None:
        findings.append(
            "선순위 채권이 없다고 하셨으니 등기부등본 을구에서 근저당·가압류가 없는지 확인하세요."
            if case.entities.no_debt_said
            else "선순위 근저당 등 채권을 알려 주지 않아 0원으로 계산했습니다: 등기부등본 을구를 확인하세요."
        )
    named = _basis_named(case, deposit, debt, value)
    headline = f"{named} 전세가율은 {ratio:.1%}로 '{band.label}' 구간입니다."
    if case.entities.guarantee_asked:  # the question asks whether the deposit can be insured
        headline = f"{named} 전세가율 {ratio:.1%}로 {guarantee}."
    return StepResult(
        headline=headline,
        findings=findings + steps,
        figures=figures,
        citations=citations,
        data={
            "jeonse_risk": {
                "deposit_manwon": deposit,
                "senior_debt_manwon": debt,
                "market_value_manwon": value,
                "ratio": round(ratio, 4),
                "band": band.label,
                "guarantee_eligible": eligible,
            }
        },
    )


def protective_steps(rules: JeonseRiskRules) -> list[str]:
    return [
        "잔금일에 입주(인도)와 전입신고를 마치면 다음 날 0시부터 대항력이 생깁니다(제3조).",
        "계약서에 확정일자를 받으면 대항요건과 함께 경매·공매 때 "
        "후순위 채권자보다 먼저 보증금을 받습니다(제3조의2).",
        "계약 전 임대인 동의를 받아 확정일자부여기관에서 선순위 "
        "임차인의 보증금·확정일자 정보를 확인할 수 있습니다"
        "(제3조의6).",
        f"전세보증금반환보증에 가입하세요: {rules.guarantee.source}.",
    ]


def _market_jeonse_ratio(case: Case) -> list[Figure]:
    """The area's own 전세가율 (median jeonse ÷ median sale of the comparables), when both are known."""
    sale, jeonse = case.comparables("sale"), case.comparables("jeonse")
    if not sale or not jeonse:
        return []
    sale_mid = statistics.median(c.price_mid for c in sale)
    jeonse_mid = statistics.median(c.price_mid for c in jeonse)
    return [
        Figure(
            label="비교 단지 전세가율",
            value=round(jeonse_mid / sale_mid * 100, 1),
            unit="%",
            basis=(
                f"전세 중간값의 중앙값 {jeonse_mid:,.0f} ÷ 매매 "
                f"{sale_mid:,.0f} ({len(jeonse)}·{len(sale)}개 단지)"
            ),
        )
    ]


def _band_table(rules: JeonseRiskRules) -> str:
    lower, parts = 0.0, []
    for band in rules.bands:
        upper = f"~{band.below_ratio:.0%} 미만" if band.below_ratio < 10 else " 이상"
        parts.append(f"{band.label} {lower:.0%}{upper}")
        lower = band.below_ratio
    return ", ".join(parts)


def _citations(statutes: StatuteBook) -> list:
    return [
        statutes.cite("주택임대차보호법/제3조", (1,)),
        statutes.cite("주택임대차보호법/제3조의2", (2,)),
        statutes.cite("주택임대차보호법/제3조의6", (3, 4)),
        statutes.cite("주택임대차보호법/제8조", (1,)),
    ]
