"""Listing search and market figures against a real migrated Postgres holding the shipped CSVs, checked
against an independent computation over the same CSVs (csv module + statistics.median)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from psycopg_pool import AsyncConnectionPool

from contracts.steps import StepInputs
from services.housing.area import PYEONG_M2
from services.platform.team import StepWork
from services.search.listings import ComplexNames, listing_search
from services.search.market import market_stats
from services.search.molit import import_molit
from tests.integration.listing_helpers import load_listings, read_csv

pytestmark = pytest.mark.integration


@dataclass
class Ctx:
    pool: AsyncConnectionPool
    complexes: ComplexNames = field(default_factory=ComplexNames)


def step(
    entities: dict[str, Any], query: str = "", also_deal_types: tuple[str, ...] = (), **search: Any
) -> StepWork:
    inputs = StepInputs.model_validate(
        {"query": query, "entities": entities, "also_deal_types": also_deal_types, "search": search}
    )
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


def ask_ends(rows: list[dict[str, str]], deal: str) -> tuple[int, int]:
    """Independent: the lowest and highest ask over complexes' ranges (min of mins, max of maxes)."""
    priced = [r for r in rows if r[f"{deal}_min_manwon"]]
    return min(int(r[f"{deal}_min_manwon"]) for r in priced), max(
        int(r[f"{deal}_max_manwon"]) for r in priced
    )


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
    assert (
        result.headline
        == f"강남구 아파트 전세 매물이 있는 단지는 {len(expected)}곳입니다. 그중 20곳을 보여 드립니다."
    )
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
    rows = [r for r in read_csv("complexes.csv") if r["gu"] == "강남구" and r["property_type"] == "apartment"]
    lowest, highest = ask_ends(rows, "jeonse")
    ents = {"gu": ["강남구"], "property_types": ["apartment"], "deal_type": "jeonse"}
    result = await market_stats(ctx, step(ents))
    assert figure(result, "강남구 전세 표본 수") == len(prices)
    assert figure(result, "강남구 전세 최저 호가") == lowest
    assert figure(result, "강남구 전세 호가 범위 중간값의 중앙값") == statistics.median(prices)
    assert figure(result, "강남구 전세 최고 호가") == highest
    assert all("2025-10-08" in f.source for f in result.figures)
    assert any("실거래가가 아닙니다" in f or "실거래가)이 아닙니다" in f for f in result.findings)
    stats = result.data["market_stats"]
    assert stats["basis"] == "asking"
    assert sum(g["stats"]["count"] for g in stats["regions"][0]["by_dong"]) == len(prices)
    assert sum(g["stats"]["count"] for g in stats["regions"][0]["by_band"]) == len(prices)


async def test_a_jeonse_search_for_a_risk_analysis_also_brings_sale_prices(ctx: Ctx) -> None:
    """The 8억 asked is a 전세 deposit: it bounds the 전세 sample, never the 매매 one beside it."""
    ents = {
        "gu": ["송파구"],
        "property_types": ["apartment"],
        "deal_type": "jeonse",
        "price_max_manwon": 80000,
    }
    result = await market_stats(ctx, step(ents, also_deal_types=["sale"]))
    (sale,) = result.data["market_stats_also"]
    assert sale["deal_type"] == "sale" and result.data["market_stats"]["deal_type"] == "jeonse"
    assert sale["regions"][0]["stats"]["median"] == statistics.median(
        midpoints("송파구", "apartment", "sale")
    )
    assert figure(result, "송파구 매매 호가 범위 중간값의 중앙값") == sale["regions"][0]["stats"]["median"]


async def test_market_compares_two_gu(ctx: Ctx) -> None:
    gangnam, seocho = midpoints("강남구", "apartment", "jeonse"), midpoints("서초구", "apartment", "jeonse")
    ents = {"gu": ["강남구", "서초구"], "property_types": ["apartment"], "deal_type": "jeonse"}
    result = await market_stats(ctx, step(ents))
    regions = result.data["market_stats"]["regions"]
    assert [r["region"] for r in regions] == ["강남구", "서초구"]
    assert regions[1]["stats"]["median"] == statistics.median(seocho)
    diff = figure(result, "강남구 − 서초구 전세 호가 범위 중간값의 중앙값 차이")
    assert diff == statistics.median(gangnam) - statistics.median(seocho)


async def test_a_dong_answers_with_its_count_and_both_ends_of_the_asks(ctx: Ctx) -> None:
    """문정동 오피스텔 전세 (a dev scenario): 10 complexes, asks from 1억 8,000만원 to 6억 5,000만원."""
    rows = [
        r
        for r in read_csv("complexes.csv")
        if r["dong"] == "문정동" and r["property_type"] == "officetel" and int(r["jeonse_listing_count"] or 0)
    ]
    assert (len(rows), *ask_ends(rows, "jeonse")) == (10, 18000, 65000)
    # each end is named where it is asked (the complex whose range reaches it)
    cheapest = min(rows, key=lambda r: float(r["jeonse_min_manwon"]))["name"]
    dearest = max(rows, key=lambda r: float(r["jeonse_max_manwon"]))["name"]
    ents = {"dong": ["문정동"], "property_types": ["officetel"], "deal_type": "jeonse"}
    result = await market_stats(ctx, step(ents, query="문정동 오피스텔 전세 시세 알려줘"))
    assert result.headline.startswith(
        f"문정동 오피스텔 전세 호가는 10곳 중 최저 호가 1억 8,000만원({cheapest})부터 "
        f"최고 호가 6억 5,000만원({dearest})까지입니다"
    )
    assert figure(result, "문정동 전세 최저 호가") == 18000
    assert figure(result, "문정동 전세 최고 호가") == 65000


async def test_a_named_complex_is_answered_with_its_own_range_first(ctx: Ctx) -> None:
    """헬리오시티 (complex 111515, a dev scenario): 전세 asks from 6억 9,000만원 to 26억 5,000만원; the
    statistics of its 동 follow, not those of three whole districts."""
    query = "헬리오시티 전세 호가 얼마부터 얼마까지 나와있어요?"
    result = await market_stats(ctx, step({"deal_type": "jeonse"}, query=query))
    assert result.headline == (
        "헬리오시티(송파구 가락동 아파트, 9,510세대, 2018-12 준공, 송파역 도보 7분) 전세 호가는 "
        "6억 9,000만원부터 26억 5,000만원까지입니다(매물 601건)."
    )
    assert (figure(result, "헬리오시티 전세 최저 호가"), figure(result, "헬리오시티 전세 최고 호가")) == (
        69000,
        265000,
    )
    assert result.data["market_stats"]["scope"] == "송파구 가락동 아파트 전세"
    assert result.findings[0].startswith("비교: 송파구 가락동 아파트 전세 호가는")


async def test_a_named_complex_lists_its_own_row_only(ctx: Ctx) -> None:
    """Asked about 헬리오시티, the listing table holds 헬리오시티 and no other complex; the market
    tool's headline answers, so the listing tool adds no headline of its own."""
    query = "헬리오시티 전세 호가 얼마부터 얼마까지 나와있어요?"
    result = await listing_search(ctx, step({"deal_type": "jeonse"}, query=query))
    assert [r.name for r in result.listings] == ["헬리오시티"]
    assert (result.listings[0].price_min_manwon, result.listings[0].price_max_manwon) == (69000, 265000)
    assert result.headline is None


SALE_HEADER = (
    "NO,시군구,번지,본번,부번,단지명,전용면적(㎡),계약년월,계약일,거래금액(만원),동,층,매수자,매도자,"
    "건축년도,도로명,해제사유발생일,거래유형,중개사소재지,등기일자"
)
LEASE_HEADER = (
    "NO,시군구,번지,본번,부번,단지명,전월세구분,전용면적(㎡),계약년월,계약일,보증금(만원),월세금(만원),층,"
    "건축년도,도로명,계약기간,계약구분,갱신요구권 사용,종전계약 보증금(만원),종전계약 월세(만원),주택유형"
)
PREAMBLE = [
    "□ 본 서비스에서 제공하는 정보는 법적인 효력이 없으므로 참고용으로만 활용하시기 바랍니다.",
    "□ 검색조건",
    "계약일자 : 20240101 ~ 20250630",
    "실거래가 구분 : 아파트(매매)",
    "",
]


def a_complex(gu: str) -> dict[str, str]:
    """An apartment complex of `gu` whose name no other complex of the 구 shares."""
    rows = [r for r in read_csv("complexes.csv") if r["gu"] == gu]
    names = [r["name"] for r in rows]
    return next(r for r in rows if r["property_type"] == "apartment" and names.count(r["name"]) == 1)


def write_export(path: Path, header: str, rows: list[list[str]]) -> Path:
    body = [",".join(f'"{c}"' for c in row) for row in rows]
    path.write_text("\n".join([*PREAMBLE, header, *body]) + "\n", encoding="utf-8")
    return path


async def test_molit_import_then_market_uses_contract_prices(ctx: Ctx, tmp_path: Path) -> None:
    c = a_complex("송파구")
    place = f"서울특별시 {c['gu']} {c['dong']}"
    deals = [("202407", "3", "152,000", ""), ("202503", "15", "171,500", ""), ("202506", "2", "180,000", "")]
    deals += [("202505", "20", "250,000", "25.05.30"), ("202301", "9", "90,000", "")]  # cancelled, too old
    rows = [
        [
            str(i),
            place,
            "1-1",
            "0001",
            "0001",
            c["name"],
            "84.97",
            ym,
            d,
            price,
            "",
            "7",
            "개인",
            "개인",
            "2008",
            "도로",
            cancel,
            "중개거래",
            "서울",
            "",
        ]
        for i, (ym, d, price, cancel) in enumerate(deals, 1)
    ]
    rows.append(["6", place, "2", "", "", "어디에도없는단지", "59.9", "202504", "1", "99,000", *[""] * 10])
    rows.append(["7", place, "3", "", "", c["name"], "59.9", "202504", "1", "모름", *[""] * 10])
    export = write_export(tmp_path / "sale.csv", SALE_HEADER, rows)
    async with ctx.pool.connection() as conn:
        report = await import_molit(conn, export)
    assert (report.rows_read, report.imported, report.cancelled) == (7, 6, 1)
    assert (report.matched, report.unmatched, report.skipped) == (5, 1, {"bad amount: 모름": 1})
    assert report.property_type == "apartment"
    async with ctx.pool.connection() as conn:
        again = await import_molit(conn, export)
    assert (again.imported, again.already_present) == (0, 6)

    result = await market_stats(
        ctx, step({"gu": ["송파구"], "property_types": ["apartment"], "deal_type": "sale"})
    )
    stats = result.data["market_stats"]
    assert stats["basis"] == "contract"
    # the window is the 12 months up to the latest deal (2025-06-02): the 2023 deal and the cancelled one drop
    window = [152000, 171500, 180000]
    assert figure(result, "송파구 매매 실거래가 중앙값") == statistics.median(window)
    assert (figure(result, "송파구 매매 최저 실거래가"), figure(result, "송파구 매매 최고 실거래가")) == (
        min(window),
        max(window),
    )
    assert figure(result, "송파구 매매 표본 수") == len(window)
    assert all(f.source.startswith("국토교통부 실거래가") for f in result.figures)
    assert any("실거래가(계약가격) 기준" in f for f in result.findings)


async def test_molit_lease_import_feeds_jeonse_and_monthly(ctx: Ctx, tmp_path: Path) -> None:
    c = a_complex("서초구")
    place = f"서울특별시 {c['gu']} {c['dong']}"
    rows = [
        [
            "1",
            place,
            "5",
            "",
            "",
            c["name"],
            "전세",
            "84.9",
            "202505",
            "10",
            "95,000",
            "0",
            "3",
            "2010",
            *[""] * 7,
        ],
        [
            "2",
            place,
            "5",
            "",
            "",
            c["name"],
            "월세",
            "59.8",
            "202505",
            "11",
            "20,000",
            "150",
            "4",
            "2010",
            *[""] * 7,
        ],
        [
            "3",
            place,
            "5",
            "",
            "",
            c["name"],
            "반반",
            "59.8",
            "202505",
            "11",
            "20,000",
            "150",
            "4",
            "2010",
            *[""] * 7,
        ],
    ]
    export = write_export(tmp_path / "lease.csv", LEASE_HEADER, rows)
    async with ctx.pool.connection() as conn:
        report = await import_molit(conn, export)
    assert (report.imported, report.matched, report.skipped) == (2, 2, {"unknown 전월세구분: 반반": 1})
    jeonse = await market_stats(ctx, step({"dong": [c["dong"]], "deal_type": "jeonse"}))
    assert jeonse.data["market_stats"]["basis"] == "contract"
    assert figure(jeonse, f"{c['dong']} 전세 실거래가 중앙값") == 95000
    monthly = await market_stats(ctx, step({"dong": [c["dong"]], "deal_type": "monthly"}))
    assert figure(monthly, f"{c['dong']} 월세 실거래가 중앙값") == 150
    banded = await market_stats(ctx, step({"dong": [c["dong"]], "deal_type": "jeonse", "size_min_m2": 99.17}))
    assert banded.data["market_stats"]["basis"] == "asking"  # 실거래가 areas are 전용: bands use the snapshot
