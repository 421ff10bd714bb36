"""Market analysis (시세 판단): is an asked price fair against comparable complexes (비교 단지)? Price per 평,
the spread of the comparables and the percentile where the asked price sits. A 월세 is judged by what it
costs a month, its deposit turned into rent at the conversion rate, against the monthly listings found;
a price asked of one named complex, by where it sits in that complex's own asking range."""

from __future__ import annotations

import statistics

from contracts.entities import DealType
from contracts.results import Figure, Question, StepResult
from services.analysis.case import DEAL_NAMES, PYEONG_M2, Case, Comparable
from services.housing.money import format_manwon as won_text

MIN_COMPARABLES = 2
MIN_MONTHLY_LISTINGS = 5  # a 월세 is judged against listings, each one a single offer
# Percentile bands of the verdict (판정): below the first quarter is cheap, above the third dear.
CHEAP_BELOW, DEAR_ABOVE = 25.0, 75.0


def percentile_of(value: float, sample: list[float]) -> float:
    """Share of the sample below `value`, ties counted half (the mid-rank percentile), in %."""
    below = sum(1 for s in sample if s < value)
    equal = sum(1 for s in sample if s == value)
    return (below + equal / 2) / len(sample) * 100


def standing(value: float, sample: list[float]) -> tuple[float, float, str]:
    """Where `value` stands in `sample`: its median, the value's percentile and the verdict of its band."""
    pct = percentile_of(value, sample)
    verdict = "저렴한 편" if pct < CHEAP_BELOW else "비싼 편" if pct > DEAR_ABOVE else "적정 범위"
    return statistics.median(sample), pct, verdict


def percentile_figure(label: str, pct: float, n: int, unit: str) -> Figure:
    return Figure(
        label=label,
        value=round(pct, 1),
        unit="%",
        basis=f"비교 {n}{unit} 중 더 낮은 곳 수 (+같은 곳 절반) ÷ {n} × 100",
    )


def asked_price(case: Case) -> float | None:
    amounts = case.amounts()
    return case.number("asked_price_manwon") or (
        float(amounts[0]) if amounts else case.number("price_max_manwon")
    )


def market_analysis(case: Case, conversion_rate: float) -> StepResult:
    deal = (case.entities.deal_type or DealType.SALE).value
    if deal == DealType.MONTHLY.value and case.number("monthly_rent_manwon") is not None:
        return monthly_judged(case, conversion_rate)
    asked = asked_price(case)
    comparables = case.comparables(deal)
    if asked is not None and len(comparables) == 1 and case.entities.complexes:
        return _within_own_range(deal, asked, comparables[0])
    if asked is None:
        return StepResult(
            headline="판단할 가격을 알려 주세요.",
            questions=[Question(field="asked_price_manwon", label=f"{DEAL_NAMES.get(deal, deal)} 호가")],
        )
    if len(comparables) < MIN_COMPARABLES:
        return StepResult(
            headline=(
                f"비교할 {DEAL_NAMES.get(deal, deal)} 단지가 "
                f"{len(comparables)}곳뿐이라 적정성을 판단하지 않았습니다."
            ),
            findings=["검색 단계에서 같은 지역·유형·면적대의 단지를 더 찾으면 판단할 수 있습니다."],
        )
    size = case.size_m2()
    per_pyeong = [p for c in comparables if (p := c.price_per_pyeong)]
    if size is not None and len(per_pyeong) == len(comparables):  # every comparable has its area
        value, unit_label = asked / (size / PYEONG_M2), "평당 가격"
        sample = per_pyeong
        how = (
            f"호가 {asked:,.0f}만원 ÷ ({size:g}㎡ ÷ {PYEONG_M2}); "
            "비교 단지: 가격범위 중간값 ÷ 면적범위 중간값(평)"
        )
    else:
        value, unit_label = asked, "가격"
        sample = [c.price_mid for c in comparables]
        how = "비교 단지 가격범위의 중간값 (면적을 몰라 총액으로 비교)"
    return _judged(deal, asked, value, unit_label, sample, how, comparables)


def _within_own_range(deal: str, asked: float, named: Comparable) -> StepResult:
    """'잠실엘스 전세 12억이면 비싼 편이에요?': where the price sits in the complex's own asking range."""
    low, high, name = named.price_min, named.price_max, named.name
    deal_name = DEAL_NAMES.get(deal, deal)
    if asked < low:
        where = f"{name}의 {deal_name} 최저 호가 {won_text(low)}보다 낮아 싼 편입니다"
    elif asked > high:
        where = f"{name}의 {deal_name} 최고 호가 {won_text(high)}보다 높아 비싼 편입니다"
    else:
        share = (asked - low) / (high - low) * 100 if high > low else 50.0
        band = (
            "하단이라 싼 편" if share < CHEAP_BELOW else "상단이라 비싼 편" if share > DEAR_ABOVE else "중간"
        )
        where = (
            f"{name}의 {deal_name} 호가 범위({won_text(low)}~{won_text(high)})에서 아래로부터 "
            f"{share:.0f}% 지점, {band}입니다"
        )
    return StepResult(
        headline=f"{won_text(asked)}은 {where}.",
        findings=["한 단지 안에서도 면적·층·향에 따라 호가 폭이 크니, 같은 면적의 매물끼리 비교하세요."],
        figures=[
            Figure(label=f"{name} {deal_name} 최저 호가", value=round(low), unit="만원"),
            Figure(label=f"{name} {deal_name} 최고 호가", value=round(high), unit="만원"),
        ],
    )


def monthly_judged(case: Case, conversion_rate: float) -> StepResult:
    """'보증금 500에 월세 45인데 비싼 편인가요?': the month's cost (rent + deposit × rate ÷ 12) against the
    monthly listings the search found, each costed the same way."""
    rent = case.number("monthly_rent_manwon") or 0.0
    deposit = case.number("deposit_manwon") or 0.0
    offers = [
        (float(row.price_min_manwon), float(row.monthly_rent_min_manwon))
        for result in case.dependency_results.values()
        for row in result.listings
        if row.deal_type == DealType.MONTHLY.value
        and row.price_min_manwon is not None
        and row.monthly_rent_min_manwon is not None
    ]
    if len(offers) < MIN_MONTHLY_LISTINGS:
        return StepResult(
            headline=f"비교할 월세 매물이 {len(offers)}건뿐이라 적정성을 판단하지 않았습니다.",
            findings=["같은 동네·유형의 월세 매물이 더 있으면 판단할 수 있습니다."],
        )

    def month(d: float, r: float) -> float:
        return r + d * conversion_rate / 12

    value, sample = month(deposit, rent), [month(d, r) for d, r in offers]
    median, pct, verdict = standing(value, sample)
    n = len(sample)
    how = f"월세 + 보증금 × 연 {conversion_rate:.1%} ÷ 12 (전월세 전환율 상한으로 보증금을 월세로 환산)"
    said = f"보증금 {won_text(deposit)}·월세 {won_text(rent)}"
    return StepResult(
        headline=(
            f"{said}은 비교한 월세 매물 {len(sample)}건 가운데 {verdict}입니다 "
            f"(보증금을 월세로 환산한 월 부담 기준 백분위 {pct:.0f})."
        ),
        findings=[
            f"월 부담은 {won_text(round(value, 1))}으로, 비교 매물의 중앙값 "
            f"{won_text(round(median, 1))}과 비교했습니다.",
            "보증금이 다른 매물끼리는 보증금을 전환율로 월세에 더해 한 달 부담으로 맞춰 비교했습니다.",
        ],
        figures=[
            Figure(label="말씀하신 월 부담(환산)", value=round(value, 1), unit="만원", basis=how),
            Figure(label="비교 매물 월 부담 중앙값", value=round(median, 1), unit="만원", basis=f"{n}건"),
            percentile_figure("월 부담 백분위", pct, n, "건"),
        ],
        data={"market_analysis": {"deal_type": "monthly", "percentile": round(pct, 2), "verdict": verdict}},
    )


def _judged(
    deal: str,
    asked: float,
    value: float,
    unit_label: str,
    sample: list[float],
    how: str,
    comps: list[Comparable],
) -> StepResult:
    median, pct, verdict = standing(value, sample)
    deviation = (value - median) / median * 100
    figures = [
        Figure(label=f"호가 {unit_label}", value=round(value), unit="만원", basis=how),
        Figure(
            label=f"비교 단지 {unit_label} 중앙값",
            value=round(median),
            unit="만원",
            basis=f"{len(sample)}개 단지",
        ),
        Figure(
            label=f"비교 단지 {unit_label} 범위",
            value=f"{min(sample):,.0f}~{max(sample):,.0f}",
            unit="만원",
            basis=(
                f"폭 {max(sample) - min(sample):,.0f}만원 (중앙값의 "
                f"{(max(sample) - min(sample)) / median:.0%})"
            ),
        ),
        percentile_figure("호가 백분위", pct, len(sample), "곳"),
        Figure(
            label="중앙값 대비",
            value=round(deviation, 1),
            unit="%",
            basis=f"({value:,.0f} − {median:,.0f}) ÷ {median:,.0f} × 100",
        ),
    ]
    findings = [
        f"호가 {won_text(asked)}은 비교 단지 {len(sample)}곳 가운데 백분위 {pct:.0f}로 {verdict}입니다 "
        f"(중앙값 대비 {deviation:+.1f}%).",
        "비교 단지: " + ", ".join(f"{c.name}({c.listing_id})" for c in comps[:10]),
    ]
    if value > max(sample):
        findings.append("비교 단지 최고가보다 높습니다: 층·향·리모델링 등 가격 차이의 근거를 확인하세요.")
    return StepResult(
        headline=(
            f"{DEAL_NAMES.get(deal, deal)} {won_text(asked)}은 비교 단지 {len(sample)}곳 대비 "
            f"{verdict}입니다 (백분위 {pct:.0f})."
        ),
        findings=findings,
        figures=figures,
        data={
            "market_analysis": {
                "deal_type": deal,
                "percentile": round(pct, 2),
                "verdict": verdict,
                "comparables": [c.listing_id for c in comps],
            }
        },
    )
