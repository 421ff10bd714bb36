"""Market statistics as pure functions: representative price and area, size bands, summaries,
region splits, the contract-price window and the result's wording."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest

from services.housing.area import PYEONG_M2
from services.housing.dates import add_months
from services.housing.entities import extract_entities
from services.search.listings import ListingFilters, NamedComplex
from services.search.market import (
    MarketStats,
    around_complex,
    compared_by,
    complex_headline,
    complexes_compared,
    market_result,
    with_complex_first,
)
from services.search.market_samples import (
    Sample,
    asking_stats,
    contract_query,
    contract_usable,
    representative_area,
    representative_price,
    size_band,
    summarise,
)
from services.search.market_samples import sample as make_sample

pytestmark = pytest.mark.unit


def sample(i: int, gu: str, price: float, area: float | None = 100.0, dong: str = "역삼동") -> Sample:
    return make_sample(str(i), gu, dong, None, price, area)


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
    diff = next(f for f in result.figures if f.label == "서초구 − 강남구 전세 호가 범위 중간값의 중앙값 차이")
    assert diff.value == 100
    # "어디가 더 싸요?": the lower of the two, by the median, answers first; both ranges after it
    assert result.headline == (
        "전세 호가 범위 중간값의 중앙값은 강남구가 서초구보다 100만원(50.0%) 낮습니다. "
        "서초구 강남구 아파트·오피스텔 전세 호가 지역 비교: 서초구 100만원~300만원, 강남구 100만원~100만원."
    )


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
    assert add_months(date(2025, 6, 2), -12) == date(2024, 6, 2)
    assert add_months(date(2024, 3, 31), -1) == date(2024, 2, 29)


def complex_sample(i: int, low: float, high: float, dong: str = "문정동") -> Sample:
    return make_sample(str(i), "송파구", dong, None, (low + high) / 2, 40.0, low=low, high=high)


def test_lowest_and_highest_ask_are_the_ends_of_the_ranges_not_of_the_midpoints() -> None:
    """Three complexes asking 1.8억~3억, 2억~6.5억 and 2.5억~3억: the asks go from 1.8억 to 6.5억; the
    midpoints (2.4억, 4.25억, 2.75억) give only the median, 2.75억."""
    samples = [
        complex_sample(1, 18000, 30000),
        complex_sample(2, 20000, 65000),
        complex_sample(3, 25000, 30000),
    ]
    s = summarise(samples)
    assert (s.count, s.min, s.median, s.max) == (3, 18000, 27500, 65000)


def test_a_dong_headline_gives_the_count_and_both_ends_and_labels_the_median() -> None:
    f = ListingFilters(dong=("문정동",), property_types=("officetel",), deal_type="jeonse")
    samples = [
        complex_sample(1, 18000, 30000),
        complex_sample(2, 20000, 65000),
        complex_sample(3, 25000, 30000),
    ]
    result = market_result(asking_stats(f, samples))
    assert result.headline == (
        "문정동 오피스텔 전세 호가는 3곳 중 최저 호가 1억 8,000만원부터 최고 호가 6억 5,000만원까지입니다"
        " (호가 범위 중간값의 중앙값 2억 7,500만원)."
    )
    labels = {f.label: f.value for f in result.figures}
    assert labels["문정동 전세 최저 호가"] == 18000 and labels["문정동 전세 최고 호가"] == 65000
    assert labels["문정동 전세 호가 범위 중간값의 중앙값"] == 27500
    assert set(labels) == {
        "문정동 전세 표본 수",
        "문정동 전세 최저 호가",
        "문정동 전세 호가 범위 중간값의 중앙값",
        "문정동 전세 최고 호가",
        "문정동 전세 평당 가격 중앙값",
    }


HELIO = NamedComplex(
    complex_id="111515",
    name="헬리오시티",
    property_type="apartment",
    gu="송파구",
    dong="가락동",
    households=9510,
    ranges={"sale": (170000, 550000), "jeonse": (69000, 265000), "monthly": (30, 700)},
    listings={"sale": 880, "jeonse": 601, "monthly": 675, "short_term": 21},
)


def test_a_named_complex_is_answered_with_its_own_range() -> None:
    assert complex_headline(HELIO, "jeonse") == (
        "헬리오시티(송파구 가락동 아파트, 9,510세대) 전세 호가는 6억 9,000만원부터 26억 5,000만원까지입니다"
        "(매물 601건)."
    )
    assert complex_headline(HELIO, "monthly") == (
        "헬리오시티(송파구 가락동 아파트, 9,510세대) 월세 호가(보증금 별도)는 "
        "월 30만원부터 월 700만원까지입니다(매물 675건)."
    )
    assert "호가는 없습니다" in complex_headline(HELIO, "short_term")


def test_a_named_complex_says_what_the_listings_record_of_it() -> None:
    """'거기 몇 년에 지어졌어요?', '그 단지 역까지 몇 분?': the complex's line is the answer."""
    recorded = replace(HELIO, station="송파역", walk_min=7, completion_ym="2018-12")
    assert complex_headline(recorded, "jeonse").startswith(
        "헬리오시티(송파구 가락동 아파트, 9,510세대, 2018-12 준공, 송파역 도보 7분) 전세 호가는"
    )


def test_the_complex_comes_first_and_the_statistics_of_its_dong_after() -> None:
    f = around_complex(ListingFilters(deal_type="jeonse"), HELIO)
    assert (f.gu, f.dong, f.property_types) == (("송파구",), ("가락동",), ("apartment",))
    asked = ListingFilters(gu=("강남구",), deal_type="jeonse")
    assert around_complex(asked, HELIO) == asked  # places the person named stay as asked
    district = market_result(asking_stats(f, [complex_sample(1, 50000, 90000, dong="가락동")]))
    result = with_complex_first(district, HELIO, "jeonse")
    assert result.headline.startswith("헬리오시티(송파구 가락동")
    assert result.findings[0] == f"비교: {district.headline}"
    assert [(x.label, x.value) for x in result.figures[:2]] == [
        ("헬리오시티 전세 최저 호가", 69000),
        ("헬리오시티 전세 최고 호가", 265000),
    ]
    assert result.data["named_complex"]["lowest_ask_manwon"] == 69000
    assert result.data["market_stats"] == district.data["market_stats"]


def test_complexes_compared_answer_which_asks_least_and_which_most() -> None:
    """'헬리오시티랑 잠실엘스랑 리센츠 중에 전세 제일 싼 데는?' is answered in the first sentence."""

    def named(name: str, low: int, high: int) -> NamedComplex:
        ranges = {"jeonse": (low, high), "sale": (low, high)}
        return NamedComplex(
            name, name, "apartment", "송파구", "잠실동", 5000, ranges, {"jeonse": 9, "sale": 9}
        )

    compared = complexes_compared(
        [
            named("헬리오시티", 69000, 265000),
            named("잠실엘스", 102000, 170000),
            named("리센츠", 49500, 190000),
        ],
        "jeonse",
        [],
    )
    assert compared.headline == (
        "헬리오시티 · 잠실엘스 · 리센츠 전세 호가를 비교하면 리센츠는 최저 호가 4억 9,500만원으로 가장 낮고, "
        "헬리오시티는 최고 호가 26억 5,000만원으로 가장 높습니다."
    )
    # complexes.csv 매매: 잠실엘스 289,000~450,000, 헬리오시티 170,000~550,000 (one asks least and most)
    wide = complexes_compared(
        [named("잠실엘스", 289000, 450000), named("헬리오시티", 170000, 550000)], "sale", []
    )
    assert wide.headline == (
        "잠실엘스 · 헬리오시티 매매 호가를 비교하면 헬리오시티는 최저 호가 17억원으로 가장 낮고 "
        "최고 호가 55억원으로 가장 높아, 호가 폭이 가장 넓습니다."
    )


def _complex(name: str, households: int, station: str, walk: int, built: str) -> NamedComplex:
    return NamedComplex(name, name, "apartment", "송파구", "잠실동", households, {}, {}, station, walk, built)


# complexes.csv: 잠실엘스 5,678세대 잠실새내역 6분 2008-09, 리센츠 5,563세대 2분 2008-07, 트리지움 3,696세대
# 4분 2007-08.
JAMSIL = [
    _complex("잠실엘스", 5678, "잠실새내역", 6, "2008-09"),
    _complex("리센츠", 5563, "잠실새내역", 2, "2008-07"),
    _complex("트리지움", 3696, "잠실새내역", 4, "2007-08"),
]


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (
            "잠실엘스, 리센츠, 트리지움 중에 역에서 더 가까운 곳은?",
            "역에서 가장 가까운 곳은 리센츠(잠실새내역 도보 2분)",
        ),
        ("셋 중에 세대수 제일 많은 데가 어디예요?", "세대수가 가장 많은 곳은 잠실엘스(5,678세대)"),
        ("어디가 제일 최근에 지었어요?", "가장 최근에 준공된 곳은 잠실엘스(2008-09 준공)"),
        ("어디가 더 오래된 아파트예요?", "가장 오래된 곳은 트리지움(2007-08 준공)"),
        ("세대수 제일 적은 데는?", "세대수가 가장 적은 곳은 트리지움(3,696세대)"),
        # a figure set side by side with no direction: more households, newer, nearer first
        ("세 단지 세대수 비교해줘", "세대수가 가장 많은 곳은 잠실엘스(5,678세대)"),
        ("준공 연도 비교", "가장 최근에 준공된 곳은 잠실엘스(2008-09 준공)"),
        ("역까지 거리 비교하면요?", "역에서 가장 가까운 곳은 리센츠(잠실새내역 도보 2분)"),
    ],
)
def test_complexes_compared_by_what_was_asked_answer_by_it(question: str, answer: str) -> None:
    said = compared_by(JAMSIL, extract_entities(question).ranked_by) or ""
    assert said.startswith("잠실엘스 · 리센츠 · 트리지움 중 " + answer)
    assert compared_by(JAMSIL, extract_entities("어디가 더 싸요?").ranked_by) is None  # the price answers it
