"""What one analysis step knows (사안): the question, its entities, the figures stated beside them and the
results of the steps it depends on. The entities and results arrive typed (contracts.steps, contracts.
results); only the open parts are read defensively: a result's `data`, and the facts stated in it."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from datetime import date
from typing import Any, TypeGuard

from contracts.entities import QueryEntities
from contracts.results import ListingRow, StepResult
from contracts.steps import split_fields
from services.housing.area import PYEONG_M2

DEAL_NAMES = {"sale": "매매", "jeonse": "전세", "monthly": "월세", "short_term": "단기임대"}
AREA_TOLERANCE = 0.25  # a comparable's areas must come within ±25% of the home's size
# A monthly rent (월차임) above this many 만원 is read as a deposit when the question gives both.
RENT_CEILING_MANWON = 500


@dataclass(frozen=True)
class Comparable:
    """A comparable complex (비교 단지) with its price range for one deal type, in 만원."""

    listing_id: str
    name: str
    price_min: float
    price_max: float
    area_min_m2: float | None
    area_max_m2: float | None

    @property
    def price_mid(self) -> float:
        return (self.price_min + self.price_max) / 2

    @property
    def area_mid_m2(self) -> float | None:
        areas = [a for a in (self.area_min_m2, self.area_max_m2) if a]
        return sum(areas) / len(areas) if areas else None

    @property
    def price_per_pyeong(self) -> float | None:
        area = self.area_mid_m2
        return self.price_mid / (area / PYEONG_M2) if area else None


@dataclass(frozen=True)
class Case:
    query: str
    entities: QueryEntities = QueryEntities()
    # Figures given outside the question's words, by the names `number` and `text` read: the applicant's
    # facts a loan application asked for (they outrank the entities), or the day to read the rules at
    # (`as_of`, for a test).
    facts: dict[str, Any] = field(default_factory=dict)
    dependency_results: dict[str, StepResult] = field(default_factory=dict)
    said_on: date | None = None  # the day the person asked (StepInputs.said_on)

    def day(self) -> date:
        """The day the dated rules are read for: the `as_of` fact when given (a test), else the day the
        person asked, so a replay next year reads the rules the run read. Only a step recorded before
        steps carried that day falls back to the machine's today."""
        as_of = self.text("as_of")
        if as_of:
            return date.fromisoformat(as_of)
        return self.said_on or date.today()

    def amounts(self) -> list[int]:
        """Money amounts in the question in order (만원), as the planner read them."""
        return self.entities.amounts_manwon

    def deposits_and_rents(self) -> tuple[list[float], list[float]]:
        """The amounts as (deposits, monthly rents) when no role was given: a question that speaks of 월세
        and gives a small amount means a monthly rent; otherwise every amount is a deposit (보증금)."""
        amounts = [float(a) for a in self.amounts()]
        if not self.entities.monthly_rent_spoken_of:
            return amounts, []
        rents = [a for a in amounts if a <= RENT_CEILING_MANWON]
        return [a for a in amounts if a > RENT_CEILING_MANWON], rents

    def number(self, *keys: str) -> float | None:
        """The first of `keys` given as a number: each in the facts, then among the entities."""
        for key in keys:
            for value in (self.facts.get(key), getattr(self.entities, key, None)):
                if _is_number(value):
                    return float(value)
        return None

    def text(self, key: str) -> str | None:
        value = self.facts.get(key, getattr(self.entities, key, None))
        return str(value) if value else None

    def size_m2(self) -> float | None:
        """The home's size (면적) in ㎡: the middle of the asked range when both ends are given."""
        sizes = [s for s in (self.number("size_min_m2"), self.number("size_max_m2")) if s]
        return sum(sizes) / len(sizes) if sizes else None

    def comparables(self, deal_type: str) -> list[Comparable]:
        """Comparable complexes for `deal_type` from the dependencies' listings, one per listing id; when
        the home's size is known, only those whose area range comes near it."""
        seen: dict[str, Comparable] = {}
        for result in self.dependency_results.values():
            for row in result.listings:
                comparable = _comparable(row, deal_type)
                if comparable:
                    seen.setdefault(comparable.listing_id, comparable)
        size = self.size_m2()
        similar = [c for c in seen.values() if size is None or _near(c, size)]
        return similar or list(seen.values())

    def market_value(self, deal_type: str = "sale") -> tuple[float, str] | None:
        """The market price (시세) in 만원 with how it was found: stated by the person, a search step's
        market statistics, or the median of comparable complexes' mid prices."""
        stated = self.number("market_value_manwon", "sale_price_manwon")
        if stated:
            return stated, "질문/입력에 주어진 시세"
        for step_id, result in self.dependency_results.items():
            data = result.data
            for stats in [data.get("market_stats"), *data.get("market_stats_also", [])]:
                stat = _market_stat(stats, deal_type)
                if stat:
                    return stat, f"검색 단계 {step_id}의 시세 통계 ({DEAL_NAMES[deal_type]} 중앙값)"
        comparables = self.comparables(deal_type)
        if comparables:
            median = statistics.median(c.price_mid for c in comparables)
            names = DEAL_NAMES[deal_type]
            return median, f"비교 단지 {len(comparables)}곳 {names} 가격범위 중간값의 중앙값"
        return None


def stated_facts(dependency_results: dict[str, StepResult]) -> dict[str, Any]:
    """The person's own figures that a step asked them for (a loan application's applicant, in the
    simulator's terms): they outrank what the planner read from the question."""
    facts: dict[str, Any] = {}
    for result in dependency_results.values():
        stated = result.data.get("applicant")
        facts.update(stated if isinstance(stated, dict) else {})
    return facts


def with_stated(entities: QueryEntities, facts: dict[str, Any]) -> QueryEntities:
    """The question's entities with the stated facts that are entities (the 구 of the applicant's address,
    a deposit) in their place: the person's own answer outranks what was read from the question."""
    stated, _ = split_fields(QueryEntities, facts)
    return QueryEntities.model_validate({**entities.model_dump(), **stated})


def _is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _near(comparable: Comparable, size_m2: float) -> bool:
    low = comparable.area_min_m2 or comparable.area_max_m2
    high = comparable.area_max_m2 or comparable.area_min_m2
    if low is None or high is None:
        return True
    return low * (1 - AREA_TOLERANCE) <= size_m2 <= high * (1 + AREA_TOLERANCE)


def _comparable(row: ListingRow, deal_type: str) -> Comparable | None:
    """A listing row counts when it is for `deal_type` (or carries no deal type) and has a price."""
    if row.deal_type not in (None, deal_type):
        return None
    # One figure of the two stands for both.
    prices = [float(p) for p in (row.price_min_manwon, row.price_max_manwon) if p is not None]
    if not prices:
        return None
    return Comparable(
        listing_id=row.listing_id,
        name=row.name,
        price_min=prices[0],
        price_max=prices[-1],
        area_min_m2=row.area_min_m2,
        area_max_m2=row.area_max_m2,
    )


_STAT_KEYS = ("median_manwon", "median", "avg_manwon", "mean_manwon", "average_manwon", "mean")


def _market_stat(stats: Any, deal_type: str) -> float | None:
    """A central price for `deal_type` from a search step's `market_stats`, whichever of the shapes
    {deal_type: {median_manwon: ..}}, [{deal_type, median_manwon}] or {"sale_median_manwon": ..} it has."""
    if isinstance(stats, dict):
        nested = stats.get(deal_type)
        if isinstance(nested, dict):
            return _central(nested)
        flat = {k.removeprefix(f"{deal_type}_"): v for k, v in stats.items() if k.startswith(f"{deal_type}_")}
        if flat:
            return _central(flat)
        if stats.get("deal_type") == deal_type:
            regions = stats.get("regions")  # contracts.search.MarketStats: the first region's median
            if isinstance(regions, list) and regions and isinstance(regions[0], dict):
                return _central(regions[0].get("stats", {}))
            return _central(stats)
        by_type = stats.get("by_deal_type")
        return _market_stat(by_type, deal_type) if by_type is not None else None
    if isinstance(stats, list):
        for item in stats:
            if isinstance(item, dict) and item.get("deal_type") == deal_type:
                return _central(item)
    return None


def _central(values: dict[str, Any]) -> float | None:
    return next((float(values[k]) for k in _STAT_KEYS if _is_number(values.get(k))), None)
