"""Market statistics as pure functions: representative price and area, size bands, summaries,
region splits, the contract-price window and the result's wording."""

from __future__ import annotations

from datetime import date

import pytest

from services.housing.area import PYEONG_M2
from services.search.listings import ListingFilters
from services.search.market import (
    MarketStats,
    Sample,
    _months_before,
    asking_stats,
    contract_query,
    contract_usable,
    market_result,
    representative_area,
    representative_price,
    size_band,
    summarise,
)

pytestmark = pytest.mark.unit


def sample(i: int, gu: str, price: float, area: float | None = 100.0, dong: str = "역삼동") -> Sample:
    return Sample(str(i), gu, dong, None, price, area)


def test_representative_price_is_the_midpoint() -> None:
    assert representative_price(100000, 150000) == 125000
    assert representative_price(None, 9000) == 9000
    assert representative_price(9000, None) == 9000
    assert representative_area(84.0, 60.0, 120.0) == 84.0
    assert representative_area(None, 60.0, 120.0) == 90.0


@pytest.mark.parametrize(
    ("pyeong", "band"),
    [
        (10, "20평 미만"),
        (19.99, "20평 미만"),
        (20, "20평대"),
        (34, "30평대"),
        (40, "40평대"),
        (50, "50평 이상"),
    ],
)
def test_size_bands_by_pyeong(pyeong: float, band: str) -> None:
    assert size_band(pyeong * PYEONG_M2 + 1e-9) == band


def test_summary_min_median_max_and_per_pyeong() -> None:
    s = summarise([sample(1, "강남구", 100), sample(2, "강남구", 300), sample(3, "강남구", 200, area=None)])
    assert (s.count, s.min, s.median, s.max) == (3, 100, 200, 300)
    # per 평 from the two samples with an area: 100 and 300 over 100 m² = 30.25 평
    assert s.per_pyeong_median == round(200 / (100 / PYEONG_M2), 1)


def test_two_gu_are_compared_in_the_order_asked() -> None:
    f = ListingFilters(gu=("서초구", "강남구"), deal_type="jeonse")
    samples = [sample(1, "강남구", 100), sample(2, "서초구", 300), sample(3, "서초구", 100, dong="반포동")]
    stats = asking_stats(f, samples)
    assert [r.region for r in stats.regions] == ["서초구", "강남구"]
    assert stats.regions[0].stats.median == 200
    assert [g.key for g in stats.regions[0].by_dong] == ["반포동", "역삼동"]
    result = market_result(stats)
    diff = next(f for f in result.figures if f.label == "서초구 − 강남구 전세 중앙값 차이")
    assert diff.value == 100
    assert any("서초구이(가) 강남구보다 100만원(100.0%) 높습니다" in x for x in result.findings)


def test_asking_figures_say_snapshot_not_contract() -> None:
    result = market_result(
        asking_stats(ListingFilters(gu=("강남구",), deal_type="sale"), [sample(1, "강남구", 10)])
    )
    assert "실제 계약가격(실거래가)이 아닙니다" in result.findings[0]
    assert all("2025-10-08" in f.source for f in result.figures)
    assert MarketStats.model_validate(result.data["market_stats"]).basis == "asking"


def test_empty_sample_says_so() -> None:
    result = market_result(asking_stats(ListingFilters(gu=("강남구",), deal_type="short_term"), []))
    assert "없습니다" in result.headline and not result.figures


def test_contract_prices_only_without_band_or_building_filters() -> None:
    assert contract_usable(ListingFilters(gu=("강남구",), deal_type="sale"))
    assert not contract_usable(ListingFilters(deal_type="sale", size_min_m2=99.17))
    assert not contract_usable(ListingFilters(deal_type="sale", households_min=100))
    assert not contract_usable(ListingFilters(deal_type="short_term"))


def test_contract_query_filters_kind_place_type_and_rent() -> None:
    sql, params = contract_query(
        ListingFilters(dong=("잠실동",), property_types=("apartment",), deal_type="monthly", rent_max=200), 12
    )
    assert "NOT d.cancelled" in sql and "d.monthly_manwon <= %(rent_max)s" in sql
    assert params == {
        "kind": "monthly",
        "months": 12,
        "dong": ["잠실동"],
        "types": ["apartment"],
        "rent_max": 200,
    }


def test_window_start_matches_postgres_month_arithmetic() -> None:
    assert _months_before(date(2025, 6, 2), 12) == date(2024, 6, 2)
    assert _months_before(date(2024, 3, 31), 1) == date(2024, 2, 29)
