"""The samples market figures are computed from, and the figures themselves: count, min / median / max,
price per 평, by 동 and by size band.

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
from dataclasses import dataclass
from datetime import date
from operator import attrgetter
from typing import Any, NamedTuple

from psycopg import AsyncConnection
from psycopg.rows import tuple_row
from psycopg_pool import AsyncConnectionPool

from contracts.search import GroupStats, MarketStats, PriceSummary, RegionMarket
from services.housing.area import pyeong
from services.housing.dates import add_months
from services.platform.db import read_rows, run_again_on_closed
from services.search.listings import (
    COMPLEX_PRICE,
    ONE_ROOM_AREA,
    SNAPSHOT_SOURCE,
    ListingFilters,
    complex_where,
    describe,
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
