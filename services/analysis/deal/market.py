"""Market analysis (시세 판단): is an asked price fair against comparable complexes (비교 단지)? Price per 평,
the spread of the comparables and the percentile where the asked price sits."""

from __future__ import annotations

import statistics

from contracts.entities import DealType
from contracts.results import Figure, Question, StepResult
from services.analysis.case import DEAL_NAMES, PYEONG_M2, Case, Comparable
from services.housing.money import format_manwon as won_text

MIN_COMPARABLES = 2
# Percentile bands of the verdict (판정): below the first quarter is cheap, above the third dear.
CHEAP_BELOW, DEAR_ABOVE = 25.0, 75.0


def percentile_of(value: float, sample: list[float]) -> float:
    """Share of the sample below `value`, ties counted half (the mid-rank percentile), in %."""
    below = sum(1 for s in sample if s < value)
    equal = sum(1 for s in sample if s == value)
    return (below + equal / 2) / len(sample) * 100


def asked_price(case: Case) -> float | None:
    amounts = case.amounts()
    return case.number("asked_price_manwon") or (
        float(amounts[0]) if amounts else case.number("price_max_manwon")
    )


def market_analysis(case: Case) -> StepResult:
    deal = (case.entities.deal_type or DealType.SALE).value
    asked = asked_price(case)
    comparables = case.comparables(deal)
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


def _judged(
    deal: str,
    asked: float,
    value: float,
    unit_label: str,
    sample: list[float],
    how: str,
    comps: list[Comparable],
) -> StepResult:
    median = statistics.median(sample)
    pct = percentile_of(value, sample)
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
        Figure(
            label="호가 백분위",
            value=round(pct, 1),
            unit="%",
            basis=f"비교 {len(sample)}곳 중 더 낮은 곳 수 (+같은 곳 절반) ÷ {len(sample)} × 100",
        ),
        Figure(
            label="중앙값 대비",
            value=round(deviation, 1),
            unit="%",
            basis=f"({value:,.0f} − {median:,.0f}) ÷ {median:,.0f} × 100",
        ),
    ]
    verdict = "저렴한 편" if pct < CHEAP_BELOW else "비싼 편" if pct > DEAR_ABOVE else "적정 범위"
    findings = [
        f"호가 {won_text(asked)}은 비교 단지 {len(sample)}곳 가운데 백분위 {pct:.0f}로 {verdict}입니다 "
        f"(중앙값 대비 {deviation:+.1f}%).",
        "비교 단지: " + ", ".join(f"{c.name}({c.listing_id})" for c in comps[:10]),
    ]
    if value > max(sample):
        findings.append("비교 단지 최고가보다 높습니다: 층·향·리모델링 등 가격 차이의 근거를 확인하세요.")
    return StepResult(
        headline=f"{DEAL_NAMES.get(deal, deal)} 호가는 비교 단지 대비 {verdict}입니다 (백분위 {pct:.0f}).",
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
