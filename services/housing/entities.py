"""A question's entities (places, property and deal kinds, amounts and their roles, size, dates), read by
rules from the package's readers.

The LLM is never asked for these: a number misread by a model would be passed to every team as fact.
"""

from __future__ import annotations

import re
from datetime import date
from typing import TypeVar

from contracts.entities import DealType, PropertyType, QueryEntities
from services.housing import household, reading
from services.housing.amounts import (
    Bounds,
    PriceBounds,
    bounds_text,
    given_figures,
    parse_percent,
    price_bounds,
    read_amounts,
)
from services.housing.area import parse_size
from services.housing.constraints import rankings_asked, read_constraints
from services.housing.dates import find_dates, parse_term_months
from services.housing.elapsed import elapsed_since
from services.housing.places import Gazetteer, compact, default_gazetteer, regions_named
from services.housing.text import normalize
from services.housing.vocabulary import JUDGED, PROPERTY_KIND_WORDS

T = TypeVar("T")

# 반전세 is 월세 with a large deposit; 전세 inside 반전세 must not count as jeonse.
_DEAL_WORDS: tuple[tuple[DealType, str], ...] = (
    (DealType.MONTHLY, r"반전세|월세|월\s*임대"),
    (DealType.SHORT_TERM, r"단기\s*임대|단기"),
    (DealType.JEONSE, r"(?<!반)전세|jeonse"),
    (DealType.SALE, r"매매|매수|매입|구매|구입|분양|살\s*집|사려|사고\s*싶|살까|사도\s*될|집을\s*사"),
)


def _in_order(text: str, table: tuple[tuple[T, str], ...]) -> list[T]:
    """The table's values whose words appear in the text, in the order first written."""
    hits = [(m.start(), value) for value, pattern in table if (m := re.search(pattern, text, re.IGNORECASE))]
    return [value for _, value in sorted(hits, key=lambda hit: hit[0])]


def property_types(text: str) -> list[PropertyType]:
    """Property kinds in the order named."""
    return _in_order(text, PROPERTY_KIND_WORDS)


def deal_type(text: str) -> DealType | None:
    """The first deal kind named (in "전세를 월세로", 전세)."""
    deals = _in_order(text, _DEAL_WORDS)
    return deals[0] if deals else None


def extract_entities(
    query: str, gazetteer: Gazetteer | None = None, today: date | None = None
) -> QueryEntities:
    """Everything a team may need from the question; odd input gives empty entities, never an error.
    `today` is the day the question was asked: dates said relative to it ("내일", "다음 달 말") are read."""
    text = normalize(query)
    if not text.strip():
        return QueryEntities()
    gazetteer = gazetteer or default_gazetteer()
    places = gazetteer.find(text)
    amounts = read_amounts(text)
    given = given_figures(amounts)
    # "보증금 500에 월세 45인데 시세보다 비싼 편인가요?": the person's own figures are judged, not searched
    bounds = PriceBounds() if JUDGED.search(text) else price_bounds(text)
    size = parse_size(text)
    wanted = read_constraints(text, today)
    regions = [r for r in regions_named(text) if r != "서울"]  # Seoul's 구 are read as places
    raised = reading.raise_percent(text)
    return QueryEntities(
        gu=places.gu,
        dong=places.dong,
        stations=places.stations,
        complexes=sorted(gazetteer.complexes_named(text), key=compact(text).find),
        # "수원 아파트", "부산 해운대 아파트": a region's own names are no unknown complexes
        complexes_unknown=[] if regions else gazetteer.complexes_unknown(text),
        regions=regions,
        property_types=property_types(text),
        deal_type=deal_type(text),
        price_min_manwon=bounds.price.low,
        price_max_manwon=bounds.price.high,
        monthly_rent_min_manwon=bounds.monthly_rent.low,
        monthly_rent_max_manwon=bounds.monthly_rent.high,
        size_min_m2=size.min_m2 if size else None,
        size_max_m2=size.max_m2 if size else None,
        size_text=size.text if size else None,
        amounts_manwon=[amount.manwon for amount in amounts],
        deposit_manwon=given.deposit,
        monthly_rent_manwon=given.monthly_rent,
        requested_deposit_manwon=given.requested_deposit,
        requested_monthly_rent_manwon=given.requested_monthly_rent,
        sale_price_manwon=given.sale_price,
        loan_manwon=given.loan,
        senior_debt_manwon=given.senior_debt,
        income_manwon=given.income,
        house_count=household.houses(text)[0],
        age=household.age(text),
        marriage_years=household.marriage(text)[1],
        children=household.children(text)[0],
        percent=parse_percent(text),
        dates=find_dates(text, today),
        term_months=parse_term_months(_without_elapsed(text)),
        households_min=wanted.households_min,
        households_max=wanted.households_max,
        completion_year_min=wanted.built_year_min,
        completion_year_max=wanted.built_year_max,
        walk_max_min=wanted.walk_max_min,
        conditions_said=list(wanted.said),
        conditions_not_in_data=list(wanted.not_in_data),
        ranked_by=wanted.ranked_by,
        debt_spoken_of=reading.debt_spoken_of(text),
        no_debt_said=reading.no_debt_said(text),
        guarantee_asked=reading.guarantee_asked(text),
        dsr_percent=reading.dsr_stated(text),
        loan_limit_asked=reading.loan_limit_asked(text),
        amounts=reading.stated_amounts(amounts),
        monthly_rent_spoken_of=reading.monthly_rent_spoken_of(text),
        conversion_asked=reading.conversion_asked(text),
        raise_asked=reading.raise_asked(text),
        raise_percent=raised[0],
        raise_percent_of=raised[1],
        lease_kinds_named=reading.lease_kinds_named(text),
        since_last=reading.since_last(text),
        listings_asked=reading.listings_asked(text),
        market_level_asked=reading.market_level_asked(text),
        count_asked=reading.count_asked(text),
        rankings_asked=rankings_asked(text),
    )


def asked_bounds_text(entities: QueryEntities) -> str:
    """The price and rent ranges the entities ask for, in words: "보증금 1,000만원 이하, 월세 60만원 이하"."""
    price = Bounds(entities.price_min_manwon, entities.price_max_manwon)
    rent = Bounds(entities.monthly_rent_min_manwon, entities.monthly_rent_max_manwon)
    return bounds_text(entities.deal_type, price, rent)


def _without_elapsed(text: str) -> str:
    """The text without the time since an event ("재계약한지 6개월 됐는데"): that is no lease term."""
    for elapsed in elapsed_since(text):
        text = text.replace(elapsed.text, " ")
    return text
