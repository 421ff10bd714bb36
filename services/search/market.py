"""Market figures for a region, property type and deal type: count, min / median / max, price per 평,
by 동 and by size band, and a comparison when two regions are named.

Which prices: contract prices (국토교통부 실거래가, imported into `real_deals` by molit.py) when
matching, uncancelled deals exist in the window (default: the 12 months up to the latest such deal);
otherwise the asking prices (호가) of the listing snapshot of 2025-10-08. Contract prices are
published by exclusive area (전용면적) and the size band of a question is supply area, so a question
with a size band is always answered from the snapshot, where the band means the same as in listing
search (overlap of the complex's area range).

One sample per complex (asking) or per deal (contract):
- asking price of a complex = the midpoint of its [min, max] range for the deal type (월세: of its
  monthly rent range); of a one-room listing = its deposit (전세) or monthly rent (월세, 단기);
- lowest and highest ask of a region (최저·최고 호가) are the ends of the complexes' ranges: the least
  `min` and the greatest `max`, so a person asking how far prices go sees both ends; the median is of
  the midpoints and is labelled so ("호가 범위 중간값의 중앙값"). For a contract or a one-room, its
  price is both ends;
- area of a complex = `area_rep_m2` (the portal's representative type), else the midpoint of its area
  range; price per 평 = price / (area / 3.3058); a sample is put in the size band of that area, so
  the bands partition the sample.
"""

from __future__ import annotations

import statistics
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import date
from operator import attrgetter
from typing import Any, NamedTuple

from psycopg import AsyncConnection
from psycopg.rows import tuple_row
from psycopg_pool import AsyncConnectionPool

from contracts.results import Figure, StepResult
from contracts.search import GroupStats, MarketStats, PriceSummary, RegionMarket
from services.housing.area import PYEONG_M2, pyeong
from services.housing.dates import add_months
from services.housing.money import format_manwon
from services.platform.db import read_rows, run_again_on_closed
from services.platform.team import StepWork
from services.search.listings import (
    COMPLEX_PRICE,
    DEAL_KO,
    ONE_ROOM_AREA,
    SNAPSHOT_CAVEAT,
    SNAPSHOT_DATE,
    SNAPSHOT_SOURCE,
    TYPE_KO,
    ListingFilters,
    NamedComplex,
    SearchContext,
    complex_where,
    complexes_of_step,
    condition_notes,
    coverage_gap,
    describe,
    filters_from_step,
    one_room_where,
)

DEFAULT_WINDOW_MONTHS = 12
BANDS = ((20, "20평 미만"), (30, "20평대"), (40, "30평대"), (50, "40평대"), (None, "50평 이상"))
CONTRACT_SOURCE = "국토교통부 실거래가"


class Sample(NamedTuple):
    """One priced complex, one-room listing or contract; price in 만원 (월세: 만원 a month). Built by
    `sample`, which works out once what every summary of it reads (a region's statistics summarise each
    sample three times: in the region, its 동 and its size band)."""

    sample_id: str
    gu: str
    dong: str | None
    station: str | None
    price: float
    area_m2: float | None
    lowest: float  # the lowest ask of a complex's range; the price itself when it has no range
    highest: float
    name: str | None  # a complex's name; one-room listings and contracts have none
    per_pyeong: float | None  # price per 평 of area; None without an area
    band: str | None  # size band (BANDS); None without an area


def sample(
    sample_id: str,
    gu: str,
    dong: str | None,
    station: str | None,
    price: float,
    area_m2: float | None,
    low: float | None = None,
    high: float | None = None,
    name: str | None = None,
) -> Sample:
    """A sample; `low` / `high`: the ends of a complex's asking range (None: the price is that end)."""
    return Sample(
        sample_id,
        gu,
        dong,
        station,
        price,
        area_m2,
        price if low is None else low,
        price if high is None else high,
        name,
        price_per_pyeong(price, area_m2),
        size_band(area_m2) if area_m2 else None,
    )


def representative_price(lo: float | None, hi: float | None) -> float | None:
    """Midpoint of an asking range; one known end stands for the range."""
    if lo is None or hi is None:
        return hi if lo is None else lo
    return (lo + hi) / 2


def representative_area(rep: float | None, lo: float | None, hi: float | None) -> float | None:
    return rep if rep else representative_price(lo, hi)


_BAND_UPPERS = [upper for upper, _ in BANDS if upper is not None]
_BAND_LABELS = [label for _, label in BANDS]


def size_band(area_m2: float) -> str:
    # bisect: a region's statistics band every sample, and a generator over BANDS per sample was a
    # tenth of the search team's time in a profile of 50 concurrent market questions.
    return _BAND_LABELS[bisect_right(_BAND_UPPERS, pyeong(area_m2))]


def price_per_pyeong(price: float, area_m2: float | None) -> float | None:
    return price / pyeong(area_m2) if area_m2 else None


_LOWEST, _HIGHEST = attrgetter("lowest"), attrgetter("highest")


def summarise(samples: list[Sample]) -> PriceSummary:
    """min / max: the lowest and highest price asked or paid (ends of ranges); median: of the samples'
    prices (a complex's is its midpoint)."""
    prices = [s.price for s in samples]
    per_pyeong = [s.per_pyeong for s in samples if s.per_pyeong is not None]
    cheapest = min(samples, key=_LOWEST)
    dearest = max(samples, key=_HIGHEST)
    return PriceSummary(
        count=len(prices),
        min=cheapest.lowest,
        median=statistics.median(prices),
        max=dearest.highest,
        per_pyeong_median=round(statistics.median(per_pyeong), 1) if per_pyeong else None,
        min_at=cheapest.name,
        max_at=dearest.name,
    )


def grouped(samples: Iterable[Sample], key: Callable[[Sample], str | None]) -> list[GroupStats]:
    groups: dict[str, list[Sample]] = defaultdict(list)
    for s in samples:
        if (k := key(s)) is not None:
            groups[k].append(s)
    return [GroupStats(key=k, stats=summarise(v)) for k, v in groups.items()]


_BAND = attrgetter("band")


def region_market(region: str, samples: list[Sample], places: int) -> RegionMarket:
    by_band = grouped(samples, _BAND)
    order = [label for _, label in BANDS]
    return RegionMarket(
        region=region,
        places=places,
        stats=summarise(samples),
        by_dong=sorted(grouped(samples, lambda s: s.dong), key=lambda g: g.key),
        by_band=sorted(by_band, key=lambda g: order.index(g.key)),
    )


def region_key(f: ListingFilters) -> Callable[[Sample], str]:
    """How samples split into the regions compared: by 동, 구 or station when two or more are named."""
    if len(f.dong) > 1:
        return lambda s: s.dong or ""
    if len(f.gu) > 1:
        return lambda s: s.gu
    if len(f.stations) > 1:
        return lambda s: s.station or ""
    whole = " ".join((*f.gu, *f.dong, *f.stations)) or "강남·서초·송파"
    return lambda s: whole


def regions(
    f: ListingFilters, samples: list[Sample], place_of: Callable[[Sample], str]
) -> list[RegionMarket]:
    key = region_key(f)
    split: dict[str, list[Sample]] = defaultdict(list)
    for s in samples:
        split[key(s)].append(s)
    named = [*f.dong] if len(f.dong) > 1 else [*f.gu] if len(f.gu) > 1 else [*f.stations]
    ordered = [r for r in named if r in split] + [r for r in split if r not in named]
    return [region_market(r, split[r], len({place_of(s) for s in split[r]})) for r in ordered]


# --- reading the samples --------------------------------------------------------------------------


async def asking_samples(pool: AsyncConnectionPool, f: ListingFilters) -> list[Sample]:
    async def read(conn: AsyncConnection) -> list[Sample]:
        samples: list[Sample] = []
        # Tuples, not dicts: a region reads hundreds of rows, and building a dict per row was a tenth of
        # the search team's time in a profile. The columns go in the order `_complex_sample` and
        # `sample` take them.
        async with conn.cursor(row_factory=tuple_row) as cur:
            if f.complex_types:
                where = complex_where(f)
                lo, hi = _complex_price_columns(f.deal_type or "sale")
                sql = (
                    f"SELECT complex_id, gu, dong, subway_station, {lo}, {hi},"
                    " area_rep_m2, area_min_m2, area_max_m2, name"
                    f" FROM complexes WHERE {where.sql} AND {lo} IS NOT NULL"
                )
                rows = await (await cur.execute(sql, where.params)).fetchall()
                samples += [_complex_sample(*r) for r in rows]
            if f.wants_one_rooms:
                where = one_room_where(f)
                price = "deposit_manwon" if f.deal_type == "jeonse" else "monthly_rent_manwon"
                sql = (
                    f"SELECT listing_id::text, gu, dong, subway_station, {price}, {ONE_ROOM_AREA}"
                    f" FROM one_rooms WHERE {where.sql} AND {price} IS NOT NULL"
                )
                rows = await (await cur.execute(sql, where.params)).fetchall()
                samples += [sample(*r) for r in rows]
        return samples

    return await run_again_on_closed(pool, read)  # a read: safe to run again on a live connection


def _complex_price_columns(deal_type: str) -> tuple[str, str]:
    if deal_type in COMPLEX_PRICE:
        return f"{COMPLEX_PRICE[deal_type]}_min_manwon", f"{COMPLEX_PRICE[deal_type]}_max_manwon"
    if deal_type == "monthly":
        return "monthly_rent_min_manwon", "monthly_rent_max_manwon"
    return "NULL::int", "NULL::int"  # 단기임대 listings of complexes carry no price


def _complex_sample(
    complex_id: str,
    gu: str,
    dong: str | None,
    station: str | None,
    lo: float | None,
    hi: float | None,
    area_rep: float | None,
    area_min: float | None,
    area_max: float | None,
    name: str,
) -> Sample:
    return sample(
        sample_id=complex_id,
        gu=gu,
        dong=dong,
        station=station,
        price=representative_price(lo, hi),  # type: ignore[arg-type]  # filtered IS NOT NULL
        area_m2=representative_area(area_rep, area_min, area_max),
        low=lo if lo is not None else hi,
        high=hi if hi is not None else lo,
        name=name,
    )


CONTRACT_PRICE = {"sale": "d.price_manwon", "jeonse": "d.deposit_manwon", "monthly": "d.monthly_manwon"}


def contract_query(f: ListingFilters, window_months: int) -> tuple[str, dict[str, Any]]:
    """Uncancelled deals of the region and deal kind in the window ending at the latest of them.
    A property-type or building filter needs the deal's complex, so it drops unmatched deals."""
    price = CONTRACT_PRICE[f.deal_type or "sale"]
    conds = ["NOT d.cancelled", "d.deal_kind = %(kind)s", f"{price} IS NOT NULL"]
    params: dict[str, Any] = {"kind": f.deal_type or "sale", "months": window_months}
    for col, values, name in (
        ("d.gu", f.gu, "gu"),
        ("d.dong", f.dong, "dong"),
        ("c.subway_station", f.stations, "st"),
    ):
        if values:
            conds.append(f"{col} = ANY(%({name})s)")
            params[name] = list(values)
    if f.property_types:
        conds.append("c.property_type = ANY(%(types)s)")
        params["types"] = list(f.complex_types)
    rent = f.deal_type == "monthly"  # a 월세 deal is bounded by its rent, the others by their price
    for attr, op in (
        (("rent_min", ">="), ("rent_max", "<=")) if rent else (("price_min", ">="), ("price_max", "<="))
    ):
        if getattr(f, attr) is not None:
            conds.append(f"{price} {op} %({attr})s")
            params[attr] = getattr(f, attr)
    sql = (
        f"WITH m AS (SELECT d.deal_key, d.gu, d.dong, c.subway_station, {price} AS price, d.area_m2,"
        " d.contract_date, coalesce(d.complex_id, d.gu || d.dong || d.complex_name) AS place"
        f" FROM real_deals d LEFT JOIN complexes c USING (complex_id) WHERE {' AND '.join(conds)})"
        " SELECT m.*, (SELECT max(contract_date) FROM m) AS window_to FROM m"
        " WHERE m.contract_date > (SELECT max(contract_date) FROM m) - make_interval(months => %(months)s)"
    )
    return sql, params


@dataclass(frozen=True)
class ContractSamples:
    samples: list[Sample]
    places: dict[str, str]  # sample id -> complex behind it
    window_from: date
    window_to: date


def contract_usable(f: ListingFilters) -> bool:
    """Contract prices answer only what they can: a published deal kind, no size band (see module doc)
    and no building filter (walk, completion, households), which only the snapshot knows."""
    building = (f.size_min_m2, f.size_max_m2, f.walk_max_min, f.completion_year_min, f.completion_year_max)
    asked = any(v is not None for v in (*building, f.households_min, f.households_max))
    return not asked and (f.deal_type or "sale") in CONTRACT_PRICE and not f.wants_one_rooms


async def contract_samples(
    pool: AsyncConnectionPool, f: ListingFilters, months: int
) -> ContractSamples | None:
    sql, params = contract_query(f, months)
    rows = await read_rows(pool, sql, params)
    if not rows:
        return None
    window_to = rows[0]["window_to"]
    samples = [
        sample(r["deal_key"], r["gu"], r["dong"], r["subway_station"], r["price"], r["area_m2"]) for r in rows
    ]
    return ContractSamples(
        samples=samples,
        places={r["deal_key"]: r["place"] for r in rows},
        # The window's exclusive lower end, as Postgres computes `window_to - interval 'N months'`.
        window_from=add_months(window_to, -months),
        window_to=window_to,
    )


# --- the tool ------------------------------------------------------------------------------------


def asking_stats(f: ListingFilters, samples: list[Sample]) -> MarketStats:
    return MarketStats(
        basis="asking",
        source=SNAPSHOT_SOURCE,
        deal_type=f.deal_type or "sale",
        scope=describe(f),
        price_rule=(
            "최저·최고 호가는 단지 호가 범위의 끝값(최저의 최소, 최고의 최대), 중앙값은 단지별 호가 범위"
            " 중간값의 중앙값; 원룸은 매물의 보증금(전세) 또는 월세"
        ),
        area_rule="단지 대표 공급면적(area_rep_m2), 없으면 공급면적 범위의 중간값",
        regions=regions(f, samples, lambda s: s.sample_id),
    )


def contract_stats(f: ListingFilters, found: ContractSamples) -> MarketStats:
    return MarketStats(
        basis="contract",
        source=f"{CONTRACT_SOURCE} (계약일 {found.window_from} 초과 ~ {found.window_to})",
        deal_type=f.deal_type or "sale",
        scope=describe(f),
        price_rule="해제되지 않은 실거래 1건의 거래금액(매매)·보증금(전세)·월세금(월세)",
        area_rule="전용면적(국토교통부 공개 기준)",
        window_from=found.window_from,
        window_to=found.window_to,
        regions=regions(f, found.samples, lambda s: found.places[s.sample_id]),
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
    if len(stats.regions) >= 2:
        figures.append(_comparison_figure(stats, deal, unit))
        findings.append(_comparison_sentence(stats.regions[0], stats.regions[1], deal, names))
    return StepResult(
        headline=_market_headline(stats),
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


def _comparison_sentence(a: RegionMarket, b: RegionMarket, deal: str, names: FigureNames) -> str:
    diff = a.stats.median - b.stats.median
    pct = diff / b.stats.median * 100
    side = "높습니다" if diff > 0 else "낮습니다" if diff < 0 else "같습니다"
    return (
        f"{deal} {names.median}은 {a.region}이(가) {b.region}보다 "
        f"{abs(diff):,.0f}만원({abs(pct):.1f}%) {side}."
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
    if len(several) > 1:
        return complexes_compared(several, f.deal_type or "sale", notes)
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
    return result.model_copy(update={"findings": [*result.findings, *notes]})


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
    """The complex's own asking range for the deal type, with where it is and its size:
    '헬리오시티(송파구 가락동 아파트, 9,510세대) 전세 호가는 6억 9,000만원부터 26억 5,000만원까지입니다…'"""
    lo, hi = c.ranges.get(deal_type, (None, None))
    deal = DEAL_KO.get(deal_type, deal_type)
    households = f", {c.households:,}세대" if c.households else ""
    who = f"{c.name}({c.gu} {c.dong} {TYPE_KO.get(c.property_type, c.property_type)}{households}) {deal}"
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


def complexes_compared(named: list[NamedComplex], deal_type: str, notes: list[str]) -> StepResult:
    """Two or more complexes side by side ("헬리오시티랑 잠실엘스 전세 비교"): each one's own asking
    range, then which asks less at each end; no district statistics, which would answer another question."""
    deal = DEAL_KO.get(deal_type, deal_type)
    priced = [c for c in named if None not in c.ranges.get(deal_type, (None, None))]
    findings = [complex_headline(c, deal_type) for c in named]
    if len(priced) > 1:
        low = min(priced, key=lambda c: c.ranges[deal_type][0] or 0)
        high = max(priced, key=lambda c: c.ranges[deal_type][1] or 0)
        findings.append(
            f"최저 호가가 가장 낮은 곳: {low.name}, 최고 호가가 가장 높은 곳: {high.name}"
            " (한 단지 안에서도 면적·층에 따라 호가 폭이 큽니다)."
        )
    return StepResult(
        headline=f"{' · '.join(c.name for c in named)} {deal} 호가 비교입니다.",
        findings=[*findings, SNAPSHOT_CAVEAT, *notes],
        figures=[fig for c in named for fig in complex_figures(c, deal_type)],
        data={"named_complexes": [_named_data(c, deal_type) for c in named]},
    )


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
