"""The map's figures, pure functions over the snapshot: which complexes a filter keeps, each one's asking
price for the deal asked, the median per 동, and the choropleth's bands.

The convention is the answers' (services/search/market.py, "호가 범위 중간값의 중앙값"): a complex's
asking price is the midpoint of its range for the deal type, (min + max) / 2, one known end standing
for the range; a complex counts for a deal when its range's lower end is known (as the answers'
samples); a 동's figure is the median of those midpoints over its complexes that pass the filters.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass

from contracts.api import ComplexPoint, MapBand, PriceRange

MAX_BANDS = 5


@dataclass(frozen=True)
class MapFilters:
    """What the map page filters by; every bound is inclusive, an unset one keeps everything."""

    deal: str = "sale"
    gu: tuple[str, ...] = ()
    dong: tuple[str, ...] = ()
    property_type: tuple[str, ...] = ()
    complex_id: tuple[str, ...] = ()
    price_min: int | None = None  # 만원; the range must reach into [price_min, price_max]
    price_max: int | None = None
    area_min: float | None = None  # ㎡ of supply area; the area range must reach into the bounds
    area_max: float | None = None
    households_min: int | None = None
    built_from: int | None = None  # 준공 year, at or after
    walk_max: int | None = None  # minutes to the station


def asking_price(price: PriceRange | None) -> float | None:
    """The midpoint of an asking range; one known end stands for the range."""
    if price is None or (price.min_manwon is None and price.max_manwon is None):
        return None
    lo, hi = price.min_manwon, price.max_manwon
    if lo is None or hi is None:
        return float(hi if lo is None else lo)  # type: ignore[arg-type]
    return (lo + hi) / 2


def priced(c: ComplexPoint, deal: str) -> float | None:
    """The complex's asking price for the deal, if it counts for it (its range's lower end is known)."""
    price = c.ranges.get(deal)
    return asking_price(price) if price is not None and price.min_manwon is not None else None


def kept(complexes: list[ComplexPoint], f: MapFilters) -> list[ComplexPoint]:
    """The complexes listing the deal that pass every filter, each with its asking price set."""
    found = []
    for c in complexes:
        price = priced(c, f.deal)
        if price is not None and _in_place(c, f) and _passes(c, f):
            found.append(c.model_copy(update={"asking_manwon": price}))
    return found


def _in_place(c: ComplexPoint, f: MapFilters) -> bool:
    return (
        (not f.gu or c.gu in f.gu)
        and (not f.dong or c.dong in f.dong)
        and (not f.property_type or c.property_type in f.property_type)
        and (not f.complex_id or c.complex_id in f.complex_id)
    )


def _passes(c: ComplexPoint, f: MapFilters) -> bool:
    price = c.ranges[f.deal]
    return (
        _reaches(price.min_manwon, price.max_manwon, f.price_min, f.price_max)
        and _reaches(c.area_min_m2, c.area_max_m2, f.area_min, f.area_max)
        and _at_least(c.households, f.households_min)
        and _at_least(int(c.completion_ym[:4]) if c.completion_ym else None, f.built_from)
        and (f.walk_max is None or (c.walk_min is not None and c.walk_min <= f.walk_max))
    )


def _reaches(lo: float | None, hi: float | None, low: float | None, high: float | None) -> bool:
    """A range meets the bounds when it overlaps them (as the listing search reads a size band)."""
    if low is None and high is None:
        return True
    if lo is None and hi is None:
        return False
    start, end = lo if lo is not None else hi, hi if hi is not None else lo
    return (low is None or end >= low) and (high is None or start <= high)  # type: ignore[operator]


def _at_least(value: int | None, bound: int | None) -> bool:
    return bound is None or (value is not None and value >= bound)


@dataclass(frozen=True)
class DongFigure:
    complexes: int
    median_manwon: float | None


def dong_figures(found: list[ComplexPoint]) -> dict[tuple[str, str], DongFigure]:
    """(구, 동) -> how many complexes and the median of their asking prices; computed once per request."""
    prices: dict[tuple[str, str], list[float]] = defaultdict(list)
    for c in found:
        if c.asking_manwon is not None:
            prices[(c.gu, c.dong)].append(c.asking_manwon)
    return {key: DongFigure(len(p), statistics.median(p)) for key, p in prices.items()}


def bands(medians: list[float], most: int = MAX_BANDS) -> list[MapBand]:
    """At most `most` bands of about as many 동 each (quantiles: one dear 동 does not wash the others
    into one colour), cheapest first; a band runs from its cheapest 동's median to its dearest's, and
    equal medians always share a band."""
    values = sorted(medians)
    count = min(most, len(set(values)))
    found: list[MapBand] = []
    start = 0
    for i in range(count):
        end = max(start + 1, round(len(values) * (i + 1) / count))
        while end < len(values) and values[end] == values[end - 1]:
            end += 1
        if start >= len(values):
            break
        group = values[start:end]
        found.append(MapBand(lo_manwon=group[0], hi_manwon=group[-1], dongs=len(group)))
        start = end
    return found


def band_of(median: float | None, found: list[MapBand]) -> int | None:
    if median is None:
        return None
    return next((i for i, b in enumerate(found) if b.lo_manwon <= median <= b.hi_manwon), None)
