"""The market tool: figures for a region, property type and deal type (from market_samples.py), said
as the answer says them, with a comparison when two regions are named, and the named complexes' own
asking ranges side by side."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from contracts.entities import Ranking
from contracts.results import Figure, StepResult
from contracts.search import MarketStats, RegionMarket
from services.housing.area import PYEONG_M2
from services.housing.money import format_manwon
from services.housing.text import subject_particle, topic_particle, with_particle
from services.platform.team import StepWork
from services.search.listings import (
    DEAL_KO,
    RANKED_BY_FIGURE,
    SNAPSHOT_CAVEAT,
    SNAPSHOT_DATE,
    SNAPSHOT_SOURCE,
    TYPE_KO,
    ListingFilters,
    NamedComplex,
    SearchContext,
    complexes_of_step,
    condition_notes,
    coverage_gap,
    filters_from_step,
    not_listed,
    ranked_said,
    recorded_facts,
    said_first,
)
from services.search.market_samples import (
    DEFAULT_WINDOW_MONTHS,
    asking_samples,
    asking_stats,
    contract_samples,
    contract_stats,
    contract_usable,
)


@dataclass(frozen=True)
class FigureNames:
    """What the low, middle and high figures of a basis are called, so each says what it is."""

    lowest: str
    median: str
    highest: str
    price: str  # the prices as a whole: 호가 or 실거래가


FIGURE_NAMES = {
    "asking": FigureNames("최저 호가", "호가 범위 중간값의 중앙값", "최고 호가", "호가"),
    "contract": FigureNames("최저 실거래가", "실거래가 중앙값", "최고 실거래가", "실거래가"),
}


def market_result(stats: MarketStats) -> StepResult:
    deal = DEAL_KO.get(stats.deal_type, stats.deal_type)
    unit = "만원/월" if stats.deal_type in ("monthly", "short_term") else "만원"
    names = FIGURE_NAMES[stats.basis]
    if not stats.regions:
        return StepResult(
            headline=f"{stats.scope}: 가격 자료가 있는 곳이 없습니다.",
            findings=_basis_notes(stats),
            data={"market_stats": stats.model_dump(mode="json")},
        )
    figures = [fig for r in stats.regions for fig in _region_figures(stats, r, deal, unit)]
    findings = [*_basis_notes(stats), *(_region_sentence(stats, r, deal) for r in stats.regions)]
    headline = _market_headline(stats)
    if len(stats.regions) >= 2:
        # "서초구랑 송파구 중 어디가 더 싸요?": which is lower, by the median, is the answer
        figures.append(_comparison_figure(stats, deal, unit))
        headline = f"{_comparison_sentence(stats, deal, names)} {headline}"
    return StepResult(
        headline=headline,
        findings=findings,
        figures=figures,
        data={"market_stats": stats.model_dump(mode="json")},
    )


def _market_headline(stats: MarketStats) -> str:
    """The answer first: how many places and both ends of the prices; the median after them."""
    names = FIGURE_NAMES[stats.basis]
    if len(stats.regions) >= 2:
        ends = ", ".join(
            f"{r.region} {_money(stats, r.stats.min)}~{_money(stats, r.stats.max)}" for r in stats.regions
        )
        return f"{stats.scope} {names.price} 지역 비교: {ends}."
    (r,) = stats.regions
    lowest = f"{names.lowest} {_money(stats, r.stats.min)}{_at(r.stats.min_at)}"
    highest = f"{names.highest} {_money(stats, r.stats.max)}{_at(r.stats.max_at)}"
    return (
        f"{stats.scope} {names.price}는 {_counted(stats, r)} {lowest}부터 {highest}까지입니다"
        f" ({names.median} {_money(stats, r.stats.median)})."
    )


def _at(name: str | None) -> str:
    """Where an end of the range is asked, when it is a named complex: "3억 5,000만원(킴스빌리지)"."""
    return f"({name})" if name else ""


def _money(stats: MarketStats, manwon: float) -> str:
    text = format_manwon(round(manwon))
    return f"월 {text}" if stats.deal_type in ("monthly", "short_term") else text


def _counted(stats: MarketStats, r: RegionMarket) -> str:
    """What the sample counts: deals (and the complexes behind them), complexes, or listings."""
    if stats.basis == "contract":
        return f"거래 {r.stats.count:,}건({r.places:,}곳) 중"
    return f"{r.places:,}곳 중"


def _basis_notes(stats: MarketStats) -> list[str]:
    if stats.basis == "contract":
        return [
            f"국토교통부 실거래가(계약가격) 기준입니다: {stats.window_from} 초과 ~ {stats.window_to} 계약, "
            "해제된 거래는 제외했습니다. 평당 가격은 전용면적 기준입니다."
        ]
    # the listing tool says the same caveat in the same words, so an answer with both says it once
    return [
        SNAPSHOT_CAVEAT,
        "최저·최고 호가는 단지 호가 범위의 끝값, 중앙값은 단지별 호가 범위 중간값의 중앙값, "
        "평당 가격은 대표 공급면적 기준입니다.",
    ]


def _region_figures(stats: MarketStats, r: RegionMarket, deal: str, unit: str) -> list[Figure]:
    names = FIGURE_NAMES[stats.basis]
    basis = f"{r.stats.count}개 표본; {stats.price_rule}"
    label = f"{r.region} {deal}"
    figs = [
        Figure(
            label=f"{label} 표본 수",
            value=r.stats.count,
            unit="건",
            basis=stats.price_rule,
            source=stats.source,
        ),
        *(
            Figure(label=f"{label} {name}", value=value, unit=unit, basis=basis, source=stats.source)
            for name, value in (
                (names.lowest, r.stats.min),
                (names.median, r.stats.median),
                (names.highest, r.stats.max),
            )
        ),
    ]
    if r.stats.per_pyeong_median is not None:
        figs.append(
            Figure(
                label=f"{label} 평당 가격 중앙값",
                value=r.stats.per_pyeong_median,
                unit=f"{unit}/평",
                basis=f"가격 ÷ (면적 ÷ {PYEONG_M2}); {stats.area_rule}",
                source=stats.source,
            )
        )
    return figs


def _region_sentence(stats: MarketStats, r: RegionMarket, deal: str) -> str:
    names = FIGURE_NAMES[stats.basis]
    s = r.stats
    return (
        f"{r.region} {deal}: {r.places}곳 표본 {s.count}개, {names.lowest} {_money(stats, s.min)} / "
        f"{names.highest} {_money(stats, s.max)} / {names.median} {_money(stats, s.median)}."
    )


def _comparison_figure(stats: MarketStats, deal: str, unit: str) -> Figure:
    a, b = stats.regions[0], stats.regions[1]
    median = FIGURE_NAMES[stats.basis].median
    return Figure(
        label=f"{a.region} − {b.region} {deal} {median} 차이",
        value=a.stats.median - b.stats.median,
        unit=unit,
        basis=f"{a.region} {a.stats.median:,.0f} − {b.region} {b.stats.median:,.0f} ({median})",
        source=stats.source,
    )


def _comparison_sentence(stats: MarketStats, deal: str, names: FigureNames) -> str:
    """'월세 호가 범위 중간값의 중앙값은 송파구가 서초구보다 월 19만원(17.4%) 낮습니다.': the lower first."""
    low, high = sorted(stats.regions[:2], key=lambda r: r.stats.median)
    diff = high.stats.median - low.stats.median
    if not diff:
        same = f"{low.region}{with_particle(low.region)} {high.region}{subject_particle(high.region)}"
        return f"{deal} {names.median}은 {same} 같습니다."
    pct = diff / high.stats.median * 100
    return (
        f"{deal} {names.median}은 {low.region}{subject_particle(low.region)} {high.region}보다 "
        f"{_money(stats, diff)}({pct:.1f}%) 낮습니다."
    )


async def market_stats(ctx: SearchContext, step: StepWork) -> StepResult:
    """The market tool: contract prices when the window has matching deals, else snapshot asking prices.

    `inputs.also_deal_types` adds the same figures for other deal types (a jeonse-risk analysis
    needs 매매 prices beside the 전세 ones asked about); they go to data["market_stats_also"]."""
    if gap := coverage_gap(step.entities):
        return gap
    f = filters_from_step(step)
    notes = condition_notes(f)
    if f.deal_type is None:  # "시세" without a deal kind is read as 매매
        f = replace(f, deal_type="sale")
        notes.append("거래 유형이 없어 매매 가격으로 보았습니다.")
    months = step.inputs.search.window_months or DEFAULT_WINDOW_MONTHS
    several = await complexes_of_step(ctx, step, f)
    unlisted = not_listed(step.entities.complexes_unknown, bool(several))
    if len(several) > 1:
        return said_first(complexes_compared(several, f.deal_type or "sale", notes, f.ranked_by), unlisted)
    named = several[0] if several else None
    if named is not None:
        f = around_complex(f, named)
    result = market_result(await _stats_for(ctx, f, months))
    if named is not None:
        result = with_complex_first(result, named, f.deal_type or "sale")
    also = [d.value for d in step.inputs.also_deal_types if d.value in DEAL_KO and d != f.deal_type]
    for deal_type in also:
        # The asked price bounds belong to the asked deal type (8억 of 전세 says nothing of 매매 prices).
        other = replace(f, deal_type=deal_type, price_min=None, price_max=None, rent_min=None, rent_max=None)
        more = market_result(await _stats_for(ctx, other, months))
        result = result.model_copy(
            update={
                "findings": [*result.findings, *(more.findings[1:])],
                "figures": [*result.figures, *more.figures],
                "data": {
                    **result.data,
                    "market_stats_also": [
                        *result.data.get("market_stats_also", []),
                        more.data["market_stats"],
                    ],
                },
            }
        )
    return said_first(result.model_copy(update={"findings": [*result.findings, *notes]}), unlisted)


async def _stats_for(ctx: SearchContext, f: ListingFilters, months: int) -> MarketStats:
    found = await contract_samples(ctx.pool, f, months) if contract_usable(f) else None
    if found is not None:
        return contract_stats(f, found)
    return asking_stats(f, await asking_samples(ctx.pool, f))


# --- a complex named in the question -------------------------------------------------------------


def around_complex(f: ListingFilters, c: NamedComplex) -> ListingFilters:
    """The statistics shown beside a named complex: of its 동 and type, unless the question named
    places or types of its own (then those, as asked)."""
    if f.gu or f.dong or f.stations:
        return f
    return replace(f, gu=(c.gu,), dong=(c.dong,), property_types=f.property_types or (c.property_type,))


def complex_headline(c: NamedComplex, deal_type: str) -> str:
    """The complex's own asking range for the deal type, with where it is and what the listings record of
    it (asked of it, "거기 몇 년에 지어졌어요?", these are the answer): '헬리오시티(송파구 가락동 아파트,
    9,510세대, 2018-12 준공, 송파역 도보 7분) 전세 호가는 6억 9,000만원부터 26억 5,000만원까지입니다…'"""
    lo, hi = c.ranges.get(deal_type, (None, None))
    deal = DEAL_KO.get(deal_type, deal_type)
    kind = TYPE_KO.get(c.property_type, c.property_type)
    about = ", ".join([f"{c.gu} {c.dong} {kind}", *recorded_facts(c)])
    who = f"{c.name}({about}) {deal}"
    count = c.listings.get(deal_type, 0)
    if lo is None and hi is None:
        listed = f"매물 {count}건이 있으나 호가는 없습니다" if count else "매물이 없습니다"
        return f"{who}: {SNAPSHOT_DATE} 스냅샷에 {listed}."
    monthly = deal_type == "monthly"
    ask = (lambda v: f"월 {format_manwon(v)}") if monthly else format_manwon
    what = "호가(보증금 별도)" if monthly else "호가"
    if lo is None or hi is None or lo == hi:
        known = lo if lo is not None else hi
        assert known is not None  # neither known returned above
        return f"{who} {what}는 {ask(known)}입니다(매물 {count}건)."
    return f"{who} {what}는 {ask(lo)}부터 {ask(hi)}까지입니다(매물 {count}건)."


def complex_figures(c: NamedComplex, deal_type: str) -> list[Figure]:
    lo, hi = c.ranges.get(deal_type, (None, None))
    unit = "만원/월" if deal_type == "monthly" else "만원"
    label = f"{c.name} {DEAL_KO.get(deal_type, deal_type)}"
    basis = f"{c.name}({c.gu} {c.dong}) 매물 {c.listings.get(deal_type, 0)}건의 호가 범위"
    return [
        Figure(label=f"{label} {name}", value=v, unit=unit, basis=basis, source=SNAPSHOT_SOURCE)
        for name, v in (("최저 호가", lo), ("최고 호가", hi))
        if v is not None
    ]


def complexes_compared(
    named: list[NamedComplex], deal_type: str, notes: list[str], ranked_by: Ranking | None = None
) -> StepResult:
    """Two or more complexes side by side ("헬리오시티랑 잠실엘스 전세 비교"): each one's own asking
    range, then which asks less at each end; no district statistics, which would answer another question.
    Compared by what was asked ("역에서 더 가까운 곳", "세대수 제일 많은 데"), that answers first."""
    deal = DEAL_KO.get(deal_type, deal_type)
    priced = [c for c in named if None not in c.ranges.get(deal_type, (None, None))]
    findings = [complex_headline(c, deal_type) for c in named]
    headline = f"{' · '.join(c.name for c in named)} {deal} 호가 비교입니다."
    if len(priced) > 1:
        # "어디가 더 싸요?", "제일 싼 데는?": which asks least and which most is the answer
        low = min(priced, key=lambda c: c.ranges[deal_type][0] or 0)
        high = max(priced, key=lambda c: c.ranges[deal_type][1] or 0)
        ask = (lambda v: f"월 {format_manwon(v)}") if deal_type == "monthly" else format_manwon
        names = " · ".join(c.name for c in named)
        lowest, highest = ask(low.ranges[deal_type][0] or 0), ask(high.ranges[deal_type][1] or 0)
        if low is high:  # one complex asks both the least and the most: its range is the widest
            headline = (
                f"{names} {deal} 호가를 비교하면 {low.name}{topic_particle(low.name)} 최저 호가 {lowest}으로 "
                f"가장 낮고 최고 호가 {highest}으로 가장 높아, 호가 폭이 가장 넓습니다."
            )
        else:
            headline = (
                f"{names} {deal} 호가를 비교하면 {low.name}{topic_particle(low.name)} 최저 호가 {lowest}으로 "
                f"가장 낮고, {high.name}{topic_particle(high.name)} 최고 호가 {highest}으로 가장 높습니다."
            )
        findings.append("한 단지 안에서도 면적·층에 따라 호가 폭이 큽니다.")
    if by_attribute := compared_by(named, ranked_by):
        findings.insert(0, headline)
        headline = by_attribute
    return StepResult(
        headline=headline,
        findings=[*findings, SNAPSHOT_CAVEAT, *notes],
        figures=[fig for c in named for fig in complex_figures(c, deal_type)],
        data={"named_complexes": [_named_data(c, deal_type) for c in named]},
    )


def compared_by(named: list[NamedComplex], ranked_by: Ranking | None) -> str | None:
    """'도곡렉슬 · 타워팰리스1차 중 역에서 가장 가까운 곳은 도곡렉슬(한티역 도보 3분)이고, 타워팰리스1차는
    매봉역 도보 6분입니다.' for a comparison asked by distance, size or age; None for one by price (the
    price headline answers it) or when the snapshot lacks the figure for every complex."""
    if ranked_by is None or ranked_by not in RANKED_BY_FIGURE:
        return None
    by = RANKED_BY_FIGURE[ranked_by]
    figure = by.figure
    known = sorted((c for c in named if figure(c)), key=by.key)
    if not known:
        return None
    best, rest = known[0], known[1:]
    others = ", ".join(f"{c.name}{topic_particle(c.name)} {figure(c)}" for c in rest)
    unknown = [c.name for c in named if c not in known]
    missing = f" ({'·'.join(unknown)}은(는) 스냅샷에 자료가 없습니다)" if unknown else ""
    tail = f"이고, {others}입니다" if others else "입니다"
    names = " · ".join(c.name for c in named)
    return f"{names} 중 {ranked_said(ranked_by, best)}{tail}{missing}."


def _named_data(c: NamedComplex, deal_type: str) -> dict[str, Any]:
    return {
        "complex_id": c.complex_id,
        "name": c.name,
        "gu": c.gu,
        "dong": c.dong,
        "property_type": c.property_type,
        "households": c.households,
        "deal_type": deal_type,
        "lowest_ask_manwon": c.ranges.get(deal_type, (None, None))[0],
        "highest_ask_manwon": c.ranges.get(deal_type, (None, None))[1],
        "listings": c.listings.get(deal_type, 0),
    }


def with_complex_first(result: StepResult, c: NamedComplex, deal_type: str) -> StepResult:
    """The complex's own range is the answer; the statistics around it follow as context."""
    return result.model_copy(
        update={
            "headline": complex_headline(c, deal_type),
            "findings": [f"비교: {result.headline}", *result.findings],
            "figures": [*complex_figures(c, deal_type), *result.figures],
            "data": {
                **result.data,
                "named_complex": _named_data(c, deal_type),
            },
        }
    )
