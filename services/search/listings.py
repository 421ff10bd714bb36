"""Listing search over the `complexes` and `one_rooms` read models (snapshot of 2025-10-08).

Matching rules, shared with market figures (services/search/market.py) through `complex_where` and
`one_room_where`, so a filter means the same thing in both tools:
- size band: the asked band is [size_min_m2, size_max_m2) of supply area; a complex matches when its
  [area_min_m2, area_max_m2] overlaps it (only the smallest and largest unit type are known). A
  one-room is the single point of its supply area, or its exclusive area when supply is unknown.
- price: for the asked deal type, a complex matches when its [min, max] asking range overlaps the
  asked [price_min, price_max]; for 월세 the price bounds are the deposit and the rent bounds the
  monthly rent. Complexes carry no 월세 deposit, so a deposit bound only narrows one-rooms.
- deal type: a complex matches when it had at least one listing of that kind on the day.
- a filter on a value the row does not have (completion year of a one-room) does not match it.

Sorting: by the asked price (ascending: the cheapest first) when a price or rent was asked; by walk
minutes to the asked station when one was; otherwise by household count (big complexes first).
`listing_id` breaks ties so pages never overlap.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from psycopg import AsyncConnection
from psycopg.rows import dict_row, scalar_row
from psycopg_pool import AsyncConnectionPool

from contracts.entities import QueryEntities, Ranking
from contracts.results import Figure, ListingRow, StepResult
from contracts.steps import SearchOptions
from services.housing.amounts import Bounds, bounds_text
from services.housing.coverage import unlisted_gu, unlisted_regions, unlisted_types
from services.housing.money import format_manwon as won_text
from services.housing.places import MIN_NAME_ALONE, compact, default_gazetteer, series_of, written_name
from services.housing.text import topic_particle
from services.platform.db import read_rows, run_again_on_closed
from services.platform.team import StepWork

SNAPSHOT_DATE = "2025-10-08"
SNAPSHOT_SOURCE = f"매물 스냅샷 {SNAPSHOT_DATE} (호가)"
SNAPSHOT_CAVEAT = f"{SNAPSHOT_DATE} 매물 스냅샷의 호가(요청 가격)이며 실제 계약가격(실거래가)이 아닙니다."
DEFAULT_LIMIT, MAX_LIMIT = 20, 100
NO_OPTIONS = SearchOptions()
COMPLEX_TYPES = ("apartment", "officetel")
TYPE_KO = {
    "apartment": "아파트",
    "officetel": "오피스텔",
    "oneroom": "원룸",
    "villa": "빌라",
    "house": "단독주택",
    "commercial": "상가",
}
DEAL_KO = {"sale": "매매", "jeonse": "전세", "monthly": "월세", "short_term": "단기임대"}
# Column prefixes of a complex's asking range per deal type; 단기 listings are counted but unpriced.
COMPLEX_PRICE = {"sale": "sale", "jeonse": "jeonse"}
ONE_ROOM_LABEL = {
    "oneroom": "원룸",
    "urban_lifestyle_housing": "도시형생활주택",
    "officetel": "오피스텔",
    "studio_apartment": "원룸형 아파트",
    "other": "기타",
}


class ComplexNames:
    """Every complex's name, spacing aside, read once from the `complexes` read model: which complexes
    a question names is a scan of some two thousand short names in memory, not a table scan in Postgres
    at every question (docs/hot-path.md has the figures). The snapshot changes only with the build that
    ships it (infra/seed), which a process reads again when it starts."""

    def __init__(self) -> None:
        self._names: list[tuple[str, str]] | None = None

    async def load(self, pool: AsyncConnectionPool) -> list[tuple[str, str]]:
        rows = await read_rows(pool, "SELECT complex_id, name FROM complexes", ())
        self._names = [(r["complex_id"], compact(r["name"])) for r in rows]
        return self._names

    async def named_in(self, pool: AsyncConnectionPool, text: str) -> list[str]:
        """The ids of the complexes whose name or series, spacing aside, is in `text` (compacted)."""
        names = self._names if self._names is not None else await self.load(pool)
        return [complex_id for complex_id, name in names if name in text or series_of(name) in text]


class SearchContext(Protocol):
    """What the search tools need from their caller: a pool whose connections return dict rows, and
    the complexes' names."""

    @property
    def pool(self) -> AsyncConnectionPool: ...

    @property
    def complexes(self) -> ComplexNames: ...


@dataclass(frozen=True)
class ListingFilters:
    """What a listing question asks for; money in 만원, areas in m² of supply area."""

    gu: tuple[str, ...] = ()
    dong: tuple[str, ...] = ()
    stations: tuple[str, ...] = ()
    property_types: tuple[str, ...] = ()
    deal_type: str | None = None
    price_min: int | None = None
    price_max: int | None = None
    rent_min: int | None = None
    rent_max: int | None = None
    size_min_m2: float | None = None
    size_max_m2: float | None = None
    size_text: str | None = None  # the band as the person wrote it: 20평대, 전용 59
    walk_max_min: int | None = None
    completion_year_min: int | None = None
    completion_year_max: int | None = None
    households_min: int | None = None
    households_max: int | None = None
    complex_ids: tuple[str, ...] = ()  # a complex the question names: its own row, nothing around it
    conditions_said: tuple[str, ...] = ()  # the conditions above as the person's words were read
    conditions_not_in_data: tuple[str, ...] = ()  # conditions named that no column can check (주차)
    ranked_by: Ranking | None = None  # a superlative asked ("역에서 제일 가까운"): the order, best first
    limit: int = DEFAULT_LIMIT
    offset: int = 0

    @property
    def complex_types(self) -> tuple[str, ...]:
        """Complex types searched: those asked, or both when no type at all was named."""
        if not self.property_types:
            return COMPLEX_TYPES
        return tuple(t for t in COMPLEX_TYPES if t in self.property_types)

    @property
    def wants_one_rooms(self) -> bool:
        return "oneroom" in self.property_types and self.deal_type != "sale" and not self.complex_ids

    @property
    def unsupported_types(self) -> tuple[str, ...]:
        return tuple(t for t in self.property_types if t not in (*COMPLEX_TYPES, "oneroom"))

    @property
    def price_asked(self) -> bool:
        return self.price_min is not None or self.price_max is not None

    @property
    def rent_asked(self) -> bool:
        return self.rent_min is not None or self.rent_max is not None


def filters_from(entities: QueryEntities, options: SearchOptions = NO_OPTIONS) -> ListingFilters:
    """Filters from the question's entities; a step's search options, where set, narrow the conditions
    on complexes (walk minutes, completion year, households) in place of the question's, and page."""
    return ListingFilters(
        gu=tuple(entities.gu),
        dong=tuple(entities.dong),
        stations=tuple(s if s.endswith("역") else f"{s}역" for s in entities.stations),
        property_types=tuple(t.value for t in entities.property_types),
        deal_type=entities.deal_type.value if entities.deal_type else None,
        price_min=entities.price_min_manwon,
        price_max=entities.price_max_manwon,
        rent_min=entities.monthly_rent_min_manwon,
        rent_max=entities.monthly_rent_max_manwon,
        size_min_m2=entities.size_min_m2,
        size_max_m2=entities.size_max_m2,
        size_text=entities.size_text if entities.size_min_m2 or entities.size_max_m2 else None,
        walk_max_min=_either(options.walk_max_min, entities.walk_max_min),
        completion_year_min=_either(options.completion_year_min, entities.completion_year_min),
        completion_year_max=_either(options.completion_year_max, entities.completion_year_max),
        households_min=_either(options.households_min, entities.households_min),
        households_max=_either(options.households_max, entities.households_max),
        conditions_said=tuple(entities.conditions_said),
        conditions_not_in_data=tuple(entities.conditions_not_in_data),
        ranked_by=entities.ranked_by,
        limit=min(max(options.limit or DEFAULT_LIMIT, 1), MAX_LIMIT),
        offset=max(options.offset or 0, 0),
    )


def _either(option: int | None, said: int | None) -> int | None:
    return option if option is not None else said


def filters_from_step(step: StepWork) -> ListingFilters:
    return filters_from(step.entities, step.inputs.search)


@dataclass
class Where:
    """SQL conditions joined by AND, with their named parameters."""

    clauses: list[str] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)

    def add(self, clause: str, **params: Any) -> None:
        self.clauses.append(clause)
        self.params.update(params)

    @property
    def sql(self) -> str:
        return " AND ".join(self.clauses) or "TRUE"


def _place(f: ListingFilters, where: Where) -> None:
    if f.gu:
        where.add("gu = ANY(%(gu)s)", gu=list(f.gu))
    if f.dong:
        where.add("dong = ANY(%(dong)s)", dong=list(f.dong))
    if f.stations:
        where.add("subway_station = ANY(%(stations)s)", stations=list(f.stations))
    if f.walk_max_min is not None:
        where.add("subway_walk_min <= %(walk_max_min)s", walk_max_min=f.walk_max_min)


def _overlap(lo_col: str, hi_col: str, lo: float | None, hi: float | None, name: str, where: Where) -> None:
    """The row's range [lo_col, hi_col] overlaps the asked [lo, hi] (both ends inclusive)."""
    if lo is not None:
        where.add(f"{hi_col} >= %({name}_lo)s", **{f"{name}_lo": lo})
    if hi is not None:
        where.add(f"{lo_col} <= %({name}_hi)s", **{f"{name}_hi": hi})


def complex_where(f: ListingFilters) -> Where:
    where = Where()
    where.add("property_type = ANY(%(complex_types)s)", complex_types=list(f.complex_types))
    if f.complex_ids:
        where.add("complex_id = ANY(%(complex_ids)s)", complex_ids=list(f.complex_ids))
    _place(f, where)
    if f.deal_type:
        where.add(f"{f.deal_type}_listing_count > 0")
    if f.deal_type in COMPLEX_PRICE and f.price_asked:
        p = COMPLEX_PRICE[f.deal_type]
        _overlap(f"{p}_min_manwon", f"{p}_max_manwon", f.price_min, f.price_max, "price", where)
    if f.deal_type == "monthly" and f.rent_asked:
        _overlap("monthly_rent_min_manwon", "monthly_rent_max_manwon", f.rent_min, f.rent_max, "rent", where)
    if f.size_min_m2 is not None:
        where.add("area_max_m2 >= %(size_min)s", size_min=f.size_min_m2)
    if f.size_max_m2 is not None:  # the band's upper end is exclusive: 30평대 stops below 40평
        where.add("area_min_m2 < %(size_max)s", size_max=f.size_max_m2)
    if f.completion_year_min is not None:
        where.add("left(completion_ym, 4)::int >= %(built_min)s", built_min=f.completion_year_min)
    if f.completion_year_max is not None:
        where.add("left(completion_ym, 4)::int <= %(built_max)s", built_max=f.completion_year_max)
    if f.households_min is not None:
        where.add("household_count >= %(households_min)s", households_min=f.households_min)
    if f.households_max is not None:
        where.add("household_count <= %(households_max)s", households_max=f.households_max)
    return where


ONE_ROOM_AREA = "coalesce(area_supply_m2, area_exclusive_m2)"


def one_room_where(f: ListingFilters) -> Where:
    where = Where()
    _place(f, where)
    if f.deal_type:
        where.add("deal_type = %(deal_type)s", deal_type=f.deal_type)
    _overlap("deposit_manwon", "deposit_manwon", f.price_min, f.price_max, "price", where)
    if f.deal_type != "jeonse":  # a 전세 has no rent, so a rent bound says nothing about it
        _overlap("monthly_rent_manwon", "monthly_rent_manwon", f.rent_min, f.rent_max, "rent", where)
    if f.size_min_m2 is not None:
        where.add(f"{ONE_ROOM_AREA} >= %(size_min)s", size_min=f.size_min_m2)
    if f.size_max_m2 is not None:
        where.add(f"{ONE_ROOM_AREA} < %(size_max)s", size_max=f.size_max_m2)
    if any(v is not None for v in (f.completion_year_min, f.completion_year_max)) or any(
        v is not None for v in (f.households_min, f.households_max)
    ):
        where.add("FALSE")  # one-rooms carry no completion year or household count
    return where


def _complex_select(f: ListingFilters) -> str:
    p = COMPLEX_PRICE.get(f.deal_type or "")
    price_min, price_max = (f"{p}_min_manwon", f"{p}_max_manwon") if p else ("NULL::int", "NULL::int")
    monthly = f.deal_type == "monthly"
    rent_min, rent_max = (
        ("monthly_rent_min_manwon", "monthly_rent_max_manwon") if monthly else ("NULL::int", "NULL::int")
    )
    return (
        "SELECT complex_id AS listing_id, 'complex' AS kind, name, property_type, gu, dong,"
        " %(deal_type)s::text AS deal_type, area_min_m2, area_max_m2,"
        f" {price_min} AS price_min, {price_max} AS price_max,"
        f" {rent_min} AS rent_min, {rent_max} AS rent_max,"
        " subway_station AS station, subway_walk_min AS walk_min, completion_ym,"
        " household_count AS households"
        f" FROM complexes WHERE {complex_where(f).sql}"
    )


def _one_room_select(f: ListingFilters) -> str:
    label = " ".join(f"WHEN '{k}' THEN '{v}'" for k, v in ONE_ROOM_LABEL.items())
    rent = "CASE WHEN deal_type = 'jeonse' THEN NULL ELSE monthly_rent_manwon END"  # a 전세 has no rent
    return (
        "SELECT listing_id::text AS listing_id, 'one_room' AS kind,"
        f" dong || ' ' || CASE building_type {label} ELSE building_type END || ' #' || listing_id AS name,"
        " building_type AS property_type, gu, dong, deal_type,"
        f" {ONE_ROOM_AREA} AS area_min_m2, {ONE_ROOM_AREA} AS area_max_m2,"
        f" deposit_manwon AS price_min, deposit_manwon AS price_max, {rent} AS rent_min, {rent} AS rent_max,"
        " subway_station AS station, subway_walk_min AS walk_min, NULL::text AS completion_ym,"
        " NULL::int AS households"
        f" FROM one_rooms WHERE {one_room_where(f).sql}"
    )


def order_by(f: ListingFilters) -> str:
    """A superlative asked orders first; else bounds asked sort by price, a station by the walk, and
    anything else by the size of the complex."""
    price = "rent_min" if f.deal_type == "monthly" and (f.rent_asked or not f.price_asked) else "price_min"
    if f.ranked_by is Ranking.CHEAPEST:
        return f"{price} ASC NULLS LAST, walk_min ASC NULLS LAST, listing_id"
    if f.ranked_by is Ranking.PRICIEST:
        top = "rent_max" if price == "rent_min" else "price_max"
        return f"{top} DESC NULLS LAST, walk_min ASC NULLS LAST, listing_id"
    if f.ranked_by in RANKED_BY_FIGURE:
        return f"{RANKED_BY_FIGURE[f.ranked_by].order}, households DESC NULLS LAST, listing_id"
    if f.price_asked or f.rent_asked:
        price = "rent_min" if f.deal_type == "monthly" and f.rent_asked else "price_min"
        return f"{price} ASC NULLS LAST, walk_min ASC NULLS LAST, listing_id"
    if f.stations:
        return "walk_min ASC NULLS LAST, households DESC NULLS LAST, listing_id"
    return "households DESC NULLS LAST, walk_min ASC NULLS LAST, listing_id"


@dataclass(frozen=True)
class ListingQuery:
    rows_sql: str
    count_sql: str
    params: dict[str, Any]


def build_listing_query(f: ListingFilters) -> ListingQuery | None:
    """The page and count queries for `f`, or None when nothing in the data can match."""
    parts, params = [], {"deal_type": f.deal_type, "limit": f.limit, "offset": f.offset}
    if f.complex_types:
        parts.append(_complex_select(f))
        params |= complex_where(f).params
    if f.wants_one_rooms:
        parts.append(_one_room_select(f))
        params |= one_room_where(f).params
    if not parts:
        return None
    union = " UNION ALL ".join(f"({p})" for p in parts)
    return ListingQuery(
        rows_sql=f"SELECT * FROM ({union}) AS hits ORDER BY {order_by(f)} LIMIT %(limit)s OFFSET %(offset)s",
        count_sql=f"SELECT count(*) AS n FROM ({union}) AS hits",
        params=params,
    )


async def fetch_listings(pool: AsyncConnectionPool, f: ListingFilters) -> tuple[int, list[ListingRow]]:
    query = build_listing_query(f)
    if query is None:
        return 0, []

    async def read(conn: AsyncConnection) -> tuple[int, list[dict[str, Any]]]:
        total = await (
            await conn.cursor(row_factory=scalar_row).execute(query.count_sql, query.params)
        ).fetchone()
        assert total is not None  # count(*) without GROUP BY always returns its one row
        rows = await (
            await conn.cursor(row_factory=dict_row).execute(query.rows_sql, query.params)
        ).fetchall()
        return total, rows

    total, rows = await run_again_on_closed(pool, read)  # a read: safe to run again on a live connection
    return total, [_row(r) for r in rows]


def _row(r: dict[str, Any]) -> ListingRow:
    return ListingRow(
        listing_id=r["listing_id"],
        kind=r["kind"],
        name=r["name"],
        property_type=r["property_type"],
        gu=r["gu"],
        dong=r["dong"],
        deal_type=r["deal_type"],
        area_min_m2=r["area_min_m2"],
        area_max_m2=r["area_max_m2"],
        price_min_manwon=r["price_min"],
        price_max_manwon=r["price_max"],
        monthly_rent_min_manwon=r["rent_min"],
        monthly_rent_max_manwon=r["rent_max"],
        station=r["station"],
        walk_min=r["walk_min"],
        completion_ym=r["completion_ym"],
        households=r["households"],
    )


def describe(f: ListingFilters) -> str:
    """The question's scope in Korean: '강남구 아파트 전세', with its conditions on complexes."""
    place = " ".join((*f.gu, *f.dong, *f.stations)) or "강남·서초·송파"
    types = "·".join(TYPE_KO.get(t, t) for t in f.property_types) or "아파트·오피스텔"
    deal = DEAL_KO.get(f.deal_type or "", "")
    return " ".join(p for p in (place, types, f.size_text, deal, conditions_text(f)) if p)


def not_listed(unknown: list[str], named_any: bool) -> str | None:
    """What the answer says of complexes named that the snapshot does not hold ('은마아파트'), so the
    district's figures are never read as theirs."""
    if not unknown:
        return None
    names = "·".join(unknown)
    instead = "빼고 답합니다" if named_any else "대신 물으신 지역 전체로 답합니다"
    return f"{names}{topic_particle(names)} {SNAPSHOT_DATE} 매물 스냅샷에 없는 단지라 {instead}"


def said_first(result: StepResult, sentence: str | None) -> StepResult:
    """The result with `sentence` before its headline."""
    if sentence is None:
        return result
    headline = f"{sentence}: {result.headline}" if result.headline else f"{sentence}."
    return result.model_copy(update={"headline": headline})


def coverage_gap(entities: QueryEntities) -> StepResult | None:
    """The snapshot's coverage, said plainly, when the question names only places or kinds of home it
    does not list ("마포구 아파트", "서울 빌라", "수원 아파트"); None when it can answer."""
    regions = unlisted_regions(entities)
    if not unlisted_gu(entities) and not unlisted_types(entities) and not regions:
        return None
    types = [TYPE_KO.get(t.value, t.value) for t in entities.property_types]
    deal = DEAL_KO.get(entities.deal_type.value, "") if entities.deal_type else ""
    asked = " ".join(filter(None, (*regions, *entities.gu, "·".join(types), deal)))
    covered = "·".join(sorted(default_gazetteer().listed_gu))
    return StepResult(
        headline=(
            f"매물 데이터({SNAPSHOT_DATE} 스냅샷)는 {covered}의 아파트·오피스텔 단지와 원룸만 담고 있어"
            f" {asked} 시세·매물은 알려 드릴 수 없습니다."
        )
    )


def listing_result(f: ListingFilters, total: int, rows: list[ListingRow]) -> StepResult:
    """The total answers first ('서초구 아파트 단지는 453곳입니다'), then which page of them follows."""
    unit = "곳" if f.complex_types else "건"
    # Without a deal kind every complex counts, listed or not; with one, only those listing it.
    what = "매물이 있는 단지" if f.complex_types and f.deal_type else "단지" if f.complex_types else "매물"
    asked = asked_prices(f)
    # The bounds asked are part of what is counted: "잠실동 아파트 전세 8억원 이하 매물이 있는 단지는 2곳"
    described = describe(f)
    if described.endswith("월세") and asked.startswith("월세 "):  # "원룸 월세 60만원 이하", said once
        asked = asked.removeprefix("월세 ")
    scope = " ".join(filter(None, (described, asked)))
    headline = f"{scope} {what}{topic_particle(what)} {total:,}{unit}입니다"
    lead = ranked_first(f, rows[0]) if rows and not f.offset else None
    if lead:
        headline += f": {lead}"
    if rows and (len(rows) < total or f.offset):
        since = f"{f.offset + 1}번째부터 " if f.offset else ""
        headline += f". 그중 {since}{len(rows)}{unit}을 보여 드립니다"
    headline += "."
    findings = [SNAPSHOT_CAVEAT, _sort_note(f)]
    if f.unsupported_types:
        missing = "·".join(TYPE_KO.get(t, t) for t in f.unsupported_types)
        findings.append(f"{missing} 매물은 데이터에 없습니다 (아파트·오피스텔 단지와 원룸만 있음).")
    if f.deal_type is None and (f.price_asked or f.rent_asked) and f.complex_types:
        findings.append("거래 유형(매매·전세·월세)이 없어 단지에는 가격 조건을 적용하지 않았습니다.")
    if f.deal_type == "monthly" and f.price_asked and f.complex_types:
        findings.append("단지의 월세 호가에는 보증금이 없어, 보증금 조건은 원룸에만 적용했습니다.")
    findings.extend(condition_notes(f))
    figure = Figure(
        label=f"{describe(f)} 검색 결과 수", value=total, unit=unit, basis=headline, source=SNAPSHOT_SOURCE
    )
    return StepResult(headline=headline, findings=findings, figures=[figure], listings=rows)


def conditions_text(f: ListingFilters) -> str:
    """The conditions on complexes searched, as read: '세대수 1,500세대 초과, 역까지 도보 7분 이내'."""
    return ", ".join(f.conditions_said)


def condition_notes(f: ListingFilters) -> list[str]:
    """What the search could not apply, said plainly rather than dropped."""
    notes = []
    if f.conditions_not_in_data:
        named = "·".join(f.conditions_not_in_data)
        notes.append(f"{named} 조건은 매물 데이터에 자료가 없어 거르지 못했습니다(중개사무소에 확인하세요).")
    building = (f.households_min, f.households_max, f.completion_year_min, f.completion_year_max)
    if f.wants_one_rooms and any(v is not None for v in building):
        notes.append("원룸 매물에는 세대수·준공연도 자료가 없어 그 조건에 맞는지 알 수 없어 뺐습니다.")
    return notes


def asked_prices(f: ListingFilters) -> str:
    """The price and rent bounds searched, as said: '보증금 1,000만원 이하, 월세 60만원 이하'."""
    return bounds_text(f.deal_type, Bounds(f.price_min, f.price_max), Bounds(f.rent_min, f.rent_max))


def ranked_first(f: ListingFilters, row: ListingRow) -> str | None:
    """What the superlative asked names: the first row found and the figure that puts it first. A 매매 or
    전세 price bound asks for the cheapest first too ("8억 이하로 있어요?")."""
    priced = f.price_asked and f.deal_type in ("sale", "jeonse")
    ranked = f.ranked_by or (Ranking.CHEAPEST if priced else None)
    monthly = f.deal_type == "monthly"
    low = row.monthly_rent_min_manwon if monthly else row.price_min_manwon
    high = row.monthly_rent_max_manwon if monthly else row.price_max_manwon
    per = "월 " if monthly else ""
    match ranked:
        case Ranking.CHEAPEST if low is not None:
            return f"가장 낮은 호가는 {row.name} {per}{won_text(low)}"
        case Ranking.PRICIEST if high is not None:
            return f"가장 높은 호가는 {row.name} {per}{won_text(high)}"
    return ranked_said(ranked, row) if ranked in RANKED_BY_FIGURE else None


_PRICE_NOTES = {
    Ranking.CHEAPEST: "가격이 낮은 순으로 정렬했습니다.",
    Ranking.PRICIEST: "가격이 높은 순으로 정렬했습니다.",
}


class Ranked(Protocol):
    """A listing row or a named complex: what a ranking other than price reads."""

    @property
    def name(self) -> str: ...
    @property
    def station(self) -> str | None: ...
    @property
    def walk_min(self) -> int | None: ...
    @property
    def households(self) -> int | None: ...
    @property
    def completion_ym(self) -> str | None: ...


def _walk(r: Ranked) -> str | None:
    return f"{r.station} 도보 {r.walk_min}분" if r.walk_min is not None else None


def _households(r: Ranked) -> str | None:
    return f"{r.households:,}세대" if r.households is not None else None


def _built(r: Ranked) -> str | None:
    return f"{r.completion_ym} 준공" if r.completion_ym else None


def _built_at(r: Ranked) -> int:
    return int((r.completion_ym or "0").replace("-", ""))


@dataclass(frozen=True)
class ByFigure:
    """A ranking by a figure other than price, one entry each: how listing rows are ordered (SQL), how
    named complexes are (best first, `key` ascending over those whose figure is known), what the first
    is called, how its figure is said, and the note on the order."""

    order: str
    key: Callable[[Ranked], int]
    first: str
    figure: Callable[[Ranked], str | None]
    note: str


RANKED_BY_FIGURE: dict[Ranking, ByFigure] = {
    Ranking.NEAREST: ByFigure(
        "walk_min ASC NULLS LAST",
        lambda r: r.walk_min or 0,
        "역에서 가장 가까운 곳",
        _walk,
        "역까지 도보 시간이 짧은 순으로 정렬했습니다.",
    ),
    Ranking.LARGEST: ByFigure(
        "households DESC NULLS LAST",
        lambda r: -(r.households or 0),
        "세대수가 가장 많은 곳",
        _households,
        "세대수가 많은 순으로 정렬했습니다.",
    ),
    Ranking.SMALLEST: ByFigure(
        "households ASC NULLS LAST",
        lambda r: r.households or 0,
        "세대수가 가장 적은 곳",
        _households,
        "세대수가 적은 순으로 정렬했습니다.",
    ),
    Ranking.NEWEST: ByFigure(
        "completion_ym DESC NULLS LAST",
        lambda r: -_built_at(r),
        "가장 최근에 준공된 곳",
        _built,
        "준공이 최근인 순으로 정렬했습니다.",
    ),
    Ranking.OLDEST: ByFigure(
        "completion_ym ASC NULLS LAST",
        _built_at,
        "가장 오래된 곳",
        _built,
        "준공이 오래된 순으로 정렬했습니다.",
    ),
}


def recorded_facts(r: Ranked) -> list[str]:
    """What the listings record of a complex besides prices, as said: '5,678세대', '2008-09 준공',
    '잠실새내역 도보 6분' (those known)."""
    return [said for figure in (_households, _built, _walk) if (said := figure(r))]


def ranked_said(ranked: Ranking, first: Ranked) -> str | None:
    """'역에서 가장 가까운 곳은 리센츠(잠실새내역 도보 2분)'; None when its figure is unknown."""
    by = RANKED_BY_FIGURE[ranked]
    said = by.figure(first)
    return f"{by.first}은 {first.name}({said})" if said else None


def _sort_note(f: ListingFilters) -> str:
    if f.ranked_by is not None:
        by = RANKED_BY_FIGURE.get(f.ranked_by)
        return by.note if by else _PRICE_NOTES[f.ranked_by]
    if f.price_asked or f.rent_asked:
        return "가격이 낮은 순으로 정렬했습니다."
    if f.stations:
        return "역까지 도보 시간이 짧은 순으로 정렬했습니다."
    return "세대수가 많은 순으로 정렬했습니다."


async def listing_search(ctx: SearchContext, step: StepWork) -> StepResult:
    """The listing tool: filters from the step, one page of rows, the total and how it was sorted.
    The complexes the question names are the rows shown: the person asked about them, not their 구."""
    if gap := coverage_gap(step.entities):
        return gap
    f = filters_from_step(step)
    named = await complexes_of_step(ctx, step, f)
    if named:
        f = replace(f, complex_ids=tuple(c.complex_id for c in named))
    total, rows = await fetch_listings(ctx.pool, f)
    if named:
        return listing_result(f, total, rows).model_copy(update={"headline": None})
    return said_first(listing_result(f, total, rows), not_listed(step.entities.complexes_unknown, False))


# --- a complex named in the question -------------------------------------------------------------


@dataclass(frozen=True)
class NamedComplex:
    """A complex the question names, with its asking ranges (만원; 월세: 만원 a month) and listing counts."""

    complex_id: str
    name: str
    property_type: str
    gu: str
    dong: str
    households: int | None
    ranges: dict[str, tuple[int | None, int | None]]  # deal type -> (lowest ask, highest ask)
    listings: dict[str, int]  # deal type -> listings on the day
    station: str | None = None  # the nearest subway station and the walk to it, in minutes
    walk_min: int | None = None
    completion_ym: str | None = None  # 준공, "2008-09"


def pick_named_complex(text: str, candidates: list[NamedComplex], f: ListingFilters) -> NamedComplex | None:
    """The complex the question names: its exact name (spacing aside) written as a word, or its series
    ("타워팰리스" for 타워팰리스1차, 2차 …), not a place name, in the places the question also names if any;
    the longest name written wins ("래미안대치팰리스" over "래미안"), then the biggest complex among
    namesakes and a series' members."""
    places = default_gazetteer().place_names

    def written(c: NamedComplex) -> str | None:
        in_places = (not f.gu or c.gu in f.gu) and (not f.dong or c.dong in f.dong)
        placed = bool(f.gu or f.dong) and in_places
        said = written_name(text, c.name)
        if said is None or said in places or not in_places:
            return None
        return said if len(said) >= MIN_NAME_ALONE or placed else None

    found = [(said, c) for c in candidates if (said := written(c))]
    if not found:
        return None
    return max(found, key=lambda pair: (len(pair[0]), pair[1].households or 0))[1]


def pick_named_complexes(text: str, candidates: list[NamedComplex], f: ListingFilters) -> list[NamedComplex]:
    """Every complex the question names ("헬리오시티랑 잠실엘스"), in the order written, each picked as
    `pick_named_complex` picks one; a name inside a longer one named ("래미안" in "래미안대치팰리스")
    is not a complex of its own."""
    said = compact(text)
    by_name: dict[str, list[NamedComplex]] = {}
    for c in candidates:
        if (name := written_name(text, c.name)) is not None:
            by_name.setdefault(name, []).append(c)
    picked: dict[str, NamedComplex] = {}
    for name in sorted(by_name, key=len, reverse=True):
        if any(name in longer for longer in picked):
            continue
        if chosen := pick_named_complex(text, by_name[name], f):
            picked[name] = chosen
    return [picked[name] for name in sorted(picked, key=said.find)]


_RANGE_COLUMNS = {
    "sale": ("sale_min_manwon", "sale_max_manwon"),
    "jeonse": ("jeonse_min_manwon", "jeonse_max_manwon"),
    "monthly": ("monthly_rent_min_manwon", "monthly_rent_max_manwon"),
}


# A follow-up that sets a complex beside the one asked about before: "잠실엘스랑 비교하면요?"
_SET_BESIDE = re.compile(r"비교|vs|대비|랑|이랑|하고|와\s|과\s|보다|차이")


async def complexes_of_step(ctx: SearchContext, step: StepWork, f: ListingFilters) -> list[NamedComplex]:
    """The complexes the step's question names; for a follow-up ("그럼 매매는요?") those its earlier
    question named, unless the follow-up moved to places they are not in; a follow-up naming one
    complex to compare ("잠실엘스랑 비교하면요?") sets it beside the earlier one."""
    named = await find_named_complexes(ctx, step.query, f)
    earlier = step.inputs.previous_query
    if not earlier or len(named) > 1 or (named and not _SET_BESIDE.search(step.query)):
        return named
    before = [c for c in await find_named_complexes(ctx, earlier, f) if c not in named]
    return [*before, *named]


async def complex_of_step(ctx: SearchContext, step: StepWork, f: ListingFilters) -> NamedComplex | None:
    """The one complex a step is about, when its question names exactly one."""
    named = await complexes_of_step(ctx, step, f)
    return named[0] if len(named) == 1 else None


async def find_named_complexes(ctx: SearchContext, text: str, f: ListingFilters) -> list[NamedComplex]:
    """The complexes named in the question's text, read from the `complexes` read model."""
    said = compact(text)
    if not said or not (named := await ctx.complexes.named_in(ctx.pool, said)):
        return []
    ranges = ", ".join(col for pair in _RANGE_COLUMNS.values() for col in pair)
    counts = ", ".join(f"{d}_listing_count" for d in DEAL_KO)
    sql = (
        f"SELECT complex_id, name, property_type, gu, dong, household_count, {ranges}, {counts},"
        " subway_station, subway_walk_min, completion_ym FROM complexes WHERE complex_id = ANY(%s)"
    )
    rows = await read_rows(ctx.pool, sql, (named,))
    return pick_named_complexes(text, [_named_complex(r) for r in rows], f)


def _named_complex(r: dict[str, Any]) -> NamedComplex:
    return NamedComplex(
        complex_id=r["complex_id"],
        name=r["name"],
        property_type=r["property_type"],
        gu=r["gu"],
        dong=r["dong"],
        households=r["household_count"],
        ranges={deal: (r[lo], r[hi]) for deal, (lo, hi) in _RANGE_COLUMNS.items()},
        listings={deal: r[f"{deal}_listing_count"] or 0 for deal in DEAL_KO},
        station=r["subway_station"],
        walk_min=r["subway_walk_min"],
        completion_ym=r["completion_ym"],
    )
