"""Listing search and market figures against a real migrated Postgres holding the shipped CSVs, checked
against an independent computation over the same CSVs (csv module + statistics.median)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

import pytest
from psycopg_pool import AsyncConnectionPool

from services.platform.team import StepWork
from services.search.listings import PYEONG_M2, listing_search
from services.search.market import market_stats
from tests.integration.listing_helpers import load_listings, read_csv

pytestmark = pytest.mark.integration


@dataclass
class Ctx:
    pool: AsyncConnectionPool


def step(entities: dict[str, Any], **options: Any) -> StepWork:
    inputs = {"query": "", "entities": entities, **options}
    return StepWork(run_id="r", step_id="s", task="t", inputs=inputs, dependency_results={}, attempt=1)


@pytest.fixture
async def ctx(pool: AsyncConnectionPool) -> Ctx:
    await load_listings(pool)
    return Ctx(pool)


def midpoints(gu: str, kind: str, deal: str) -> list[float]:
    """Independent: the midpoint of each complex's asking range, straight from the CSV."""
    return [
        (int(r[f"{deal}_min_manwon"]) + int(r[f"{deal}_max_manwon"])) / 2
        for r in read_csv("complexes.csv")
        if r["gu"] == gu and r["property_type"] == kind and r[f"{deal}_min_manwon"]
    ]


def figure(result: Any, label: str) -> float:
    return next(f.value for f in result.figures if f.label == label)


async def test_gangnam_apartment_jeonse_listings_count_and_page(ctx: Ctx) -> None:
    expected = [
        r
        for r in read_csv("complexes.csv")
        if r["gu"] == "강남구" and r["property_type"] == "apartment" and int(r["jeonse_listing_count"]) > 0
    ]
    ents = {"gu": ["강남구"], "property_types": ["apartment"], "deal_type": "jeonse"}
    result = await listing_search(ctx, step(ents))
    assert result.figures[0].value == len(expected)
    assert result.headline == f"강남구 아파트 전세 매물이 있는 단지 {len(expected)}곳 중 20곳"
    assert len(result.listings) == 20
    households = [r.households or 0 for r in result.listings]
    assert households == sorted(households, reverse=True)
    by_id = {r["complex_id"]: r for r in expected}
    for row in result.listings:
        src = by_id[row.listing_id]
        assert (row.price_min_manwon, row.price_max_manwon) == (
            int(src["jeonse_min_manwon"]),
            int(src["jeonse_max_manwon"]),
        )
    page2 = await listing_search(ctx, step(ents, offset=20))
    assert not {r.listing_id for r in page2.listings} & {r.listing_id for r in result.listings}


async def test_size_band_and_price_overlap_match_the_csv(ctx: Ctx) -> None:
    lo, hi = 30 * PYEONG_M2, 40 * PYEONG_M2  # 30평대, upper end exclusive
    expected = {
        r["complex_id"]
        for r in read_csv("complexes.csv")
        if r["gu"] == "서초구"
        and r["property_type"] == "apartment"
        and r["sale_min_manwon"]
        and float(r["area_max_m2"]) >= lo
        and float(r["area_min_m2"]) < hi
        and int(r["sale_max_manwon"]) >= 100000
        and int(r["sale_min_manwon"]) <= 200000
    }
    ents = {
        "gu": ["서초구"],
        "property_types": ["apartment"],
        "deal_type": "sale",
        "size_min_m2": lo,
        "size_max_m2": hi,
        "price_min_manwon": 100000,
        "price_max_manwon": 200000,
    }
    result = await listing_search(ctx, step(ents, limit=100))
    assert {r.listing_id for r in result.listings} == expected
    prices = [r.price_min_manwon for r in result.listings]
    assert prices == sorted(prices)


async def test_station_walk_and_one_rooms(ctx: Ctx) -> None:
    expected = [
        r
        for r in read_csv("one_rooms.csv")
        if r["subway_station"] == "역삼역"
        and r["deal_type"] == "monthly"
        and r["subway_walk_min"]
        and int(r["subway_walk_min"]) <= 5
        and int(r["monthly_rent_manwon"]) <= 100
    ]
    ents = {
        "stations": ["역삼역"],
        "property_types": ["oneroom"],
        "deal_type": "monthly",
        "monthly_rent_max_manwon": 100,
    }
    result = await listing_search(ctx, step(ents, walk_max_min=5, limit=100))
    assert result.figures[0].value == len(expected)
    assert {r.listing_id for r in result.listings} == {r["id"] for r in expected}
    assert all(r.kind == "one_room" and r.walk_min <= 5 for r in result.listings)


async def test_market_asking_figures_match_the_csv(ctx: Ctx) -> None:
    prices = midpoints("강남구", "apartment", "jeonse")
    ents = {"gu": ["강남구"], "property_types": ["apartment"], "deal_type": "jeonse"}
    result = await market_stats(ctx, step(ents))
    assert figure(result, "강남구 전세 표본 수") == len(prices)
    assert figure(result, "강남구 전세 최저") == min(prices)
    assert figure(result, "강남구 전세 중앙값") == statistics.median(prices)
    assert figure(result, "강남구 전세 최고") == max(prices)
    assert all("2025-10-08" in f.source for f in result.figures)
    assert any("실거래가가 아닙니다" in f or "실거래가)이 아닙니다" in f for f in result.findings)
    stats = result.data["market_stats"]
    assert stats["basis"] == "asking"
    assert sum(g["stats"]["count"] for g in stats["regions"][0]["by_dong"]) == len(prices)
    assert sum(g["stats"]["count"] for g in stats["regions"][0]["by_band"]) == len(prices)


async def test_market_compares_two_gu(ctx: Ctx) -> None:
    gangnam, seocho = midpoints("강남구", "apartment", "jeonse"), midpoints("서초구", "apartment", "jeonse")
    ents = {"gu": ["강남구", "서초구"], "property_types": ["apartment"], "deal_type": "jeonse"}
    result = await market_stats(ctx, step(ents))
    regions = result.data["market_stats"]["regions"]
    assert [r["region"] for r in regions] == ["강남구", "서초구"]
    assert regions[1]["stats"]["median"] == statistics.median(seocho)
    diff = figure(result, "강남구 − 서초구 전세 중앙값 차이")
    assert diff == statistics.median(gangnam) - statistics.median(seocho)
