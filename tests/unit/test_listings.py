"""Listing filters from entities, and the SQL conditions and parameters they become."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contracts.entities import DealType, QueryEntities
from contracts.results import ListingRow
from contracts.steps import SearchOptions
from services.housing.area import PYEONG_M2
from services.housing.entities import extract_entities
from services.search.listings import (
    ListingFilters,
    NamedComplex,
    build_listing_query,
    complex_where,
    coverage_gap,
    describe,
    filters_from,
    listing_result,
    not_listed,
    one_room_where,
    order_by,
    pick_named_complex,
    pick_named_complexes,
    said_first,
)

pytestmark = pytest.mark.unit


def test_entities_and_search_options_become_filters_with_paging_bounded() -> None:
    ents = QueryEntities(gu=["강남구"], stations=["강남"], deal_type=DealType.JEONSE)
    f = filters_from(ents, SearchOptions(walk_max_min=10, limit=500, offset=-3))
    assert (f.gu, f.stations, f.deal_type, f.walk_max_min) == (("강남구",), ("강남역",), "jeonse", 10)
    assert (f.limit, f.offset) == (100, 0)
    assert filters_from(QueryEntities()).limit == 20


def test_no_type_searches_both_complex_types_and_no_one_rooms() -> None:
    f = ListingFilters()
    assert f.complex_types == ("apartment", "officetel") and not f.wants_one_rooms
    rooms = ListingFilters(property_types=("oneroom",), deal_type="monthly")
    assert rooms.complex_types == () and rooms.wants_one_rooms
    assert not ListingFilters(property_types=("oneroom",), deal_type="sale").wants_one_rooms
    assert ListingFilters(property_types=("villa",)).unsupported_types == ("villa",)
    assert build_listing_query(ListingFilters(property_types=("villa",))) is None


def test_size_band_is_an_overlap_with_an_exclusive_upper_end() -> None:
    lo, hi = 30 * PYEONG_M2, 40 * PYEONG_M2
    where = complex_where(ListingFilters(size_min_m2=lo, size_max_m2=hi))
    assert "area_max_m2 >= %(size_min)s" in where.clauses
    assert "area_min_m2 < %(size_max)s" in where.clauses
    assert where.params["size_min"] == pytest.approx(99.17, abs=0.01)
    assert where.params["size_max"] == pytest.approx(132.23, abs=0.01)


def test_price_overlaps_the_asked_deal_types_range() -> None:
    where = complex_where(ListingFilters(deal_type="sale", price_min=50000, price_max=80000))
    assert "sale_listing_count > 0" in where.clauses
    assert "sale_max_manwon >= %(price_lo)s" in where.clauses
    assert "sale_min_manwon <= %(price_hi)s" in where.clauses
    assert (where.params["price_lo"], where.params["price_hi"]) == (50000, 80000)


def test_monthly_bounds_rent_on_complexes_and_deposit_on_one_rooms() -> None:
    f = ListingFilters(
        deal_type="monthly", price_max=1000, rent_max=80, property_types=("apartment", "oneroom")
    )
    complexes = complex_where(f)
    assert "monthly_rent_min_manwon <= %(rent_hi)s" in complexes.clauses
    assert not any("price" in c for c in complexes.clauses)  # complexes carry no 월세 deposit
    rooms = one_room_where(f)
    assert "deposit_manwon <= %(price_hi)s" in rooms.clauses
    assert "monthly_rent_manwon <= %(rent_hi)s" in rooms.clauses
    assert "deal_type = %(deal_type)s" in rooms.clauses


def test_building_filters_exclude_one_rooms_that_lack_them() -> None:
    where = one_room_where(ListingFilters(households_min=500))
    assert "FALSE" in where.clauses
    built = complex_where(ListingFilters(completion_year_min=2010, households_min=500))
    assert built.params == {
        "complex_types": ["apartment", "officetel"],
        "built_min": 2010,
        "households_min": 500,
    }


def test_places_are_any_of_the_named() -> None:
    where = complex_where(ListingFilters(gu=("강남구", "서초구"), dong=("역삼동",), stations=("강남역",)))
    assert where.params["gu"] == ["강남구", "서초구"]
    assert "subway_station = ANY(%(stations)s)" in where.clauses


@pytest.mark.parametrize(
    ("filters", "first_key"),
    [
        (ListingFilters(price_max=10), "price_min ASC"),
        (ListingFilters(deal_type="monthly", rent_max=80), "rent_min ASC"),
        (ListingFilters(stations=("강남역",)), "walk_min ASC"),
        (ListingFilters(), "households DESC"),
    ],
)
def test_sorting(filters: ListingFilters, first_key: str) -> None:
    assert order_by(filters).startswith(first_key)
    assert order_by(filters).endswith("listing_id")  # a total order: pages never overlap


def test_query_pages_and_unions_both_tables() -> None:
    f = ListingFilters(property_types=("apartment", "oneroom"), deal_type="jeonse", limit=5, offset=10)
    q = build_listing_query(f)
    assert q is not None
    assert "UNION ALL" in q.rows_sql and "FROM complexes" in q.rows_sql and "FROM one_rooms" in q.rows_sql
    assert (q.params["limit"], q.params["offset"]) == (5, 10)
    assert q.count_sql.startswith("SELECT count(*)")


def test_result_headline_and_snapshot_note() -> None:
    f = ListingFilters(gu=("강남구",), property_types=("apartment",), deal_type="jeonse")
    result = listing_result(f, 132, [])
    assert result.headline == "강남구 아파트 전세 매물이 있는 단지는 132곳입니다."
    assert "2025-10-08" in result.findings[0] and result.figures[0].value == 132


def test_without_a_deal_kind_every_complex_counts_and_the_total_leads() -> None:
    # "서초구에 아파트 단지가 몇 개나 돼요?": no deal kind, so no listing filter and no "매물이 있는".
    f = ListingFilters(gu=("서초구",), property_types=("apartment",))
    assert "listing_count" not in complex_where(f).sql
    row = {"kind": "complex", "property_type": "apartment", "gu": "서초구", "dong": "반포동"}
    rows = [ListingRow(listing_id=str(i), name=f"단지{i}", **row) for i in range(20)]
    assert (
        listing_result(f, 453, rows).headline
        == "서초구 아파트 단지는 453곳입니다. 그중 20곳을 보여 드립니다."
    )


def test_a_named_complex_is_its_own_row_and_never_a_one_room_search() -> None:
    f = ListingFilters(property_types=("apartment", "oneroom"), deal_type="jeonse", complex_ids=("22627",))
    assert "complex_id = ANY(%(complex_ids)s)" in complex_where(f).clauses
    assert not f.wants_one_rooms


def test_a_one_room_question_bounds_the_deposit_and_the_monthly_rent_apart() -> None:
    # "보증금 1000 이하 월세 60 이하": 보증금 <= 1,000만원 and 월세 <= 60만원, never 월세 <= 1,000만원.
    f = filters_from(extract_entities("역삼동 원룸 보증금 1000 이하 월세 60 이하로 찾아줘"))
    rooms = one_room_where(f)
    assert "deposit_manwon <= %(price_hi)s" in rooms.clauses and rooms.params["price_hi"] == 1000
    assert "monthly_rent_manwon <= %(rent_hi)s" in rooms.clauses and rooms.params["rent_hi"] == 60
    # the bounds are part of what the answer counts
    assert listing_result(f, 0, []).headline == (
        "강남구 역삼동 원룸 월세 보증금 1,000만원 이하, 월세 60만원 이하 매물은 0건입니다."
    )


def test_a_rent_bound_alone_names_월세_once() -> None:
    f = filters_from(extract_entities("강남역 근처 원룸 월세 60 이하로 있나요?"))
    assert listing_result(f, 3, []).headline == "강남역 원룸 월세 60만원 이하 매물은 3건입니다."


def a_complex(name: str, dong: str = "가락동", gu: str = "송파구", households: int = 100) -> NamedComplex:
    return NamedComplex(name, name, "apartment", gu, dong, households, {}, {})


@pytest.mark.parametrize(
    ("question", "asked", "named"),
    [
        ("헬리오시티 전세 호가 얼마부터 얼마까지 나와있어요?", ListingFilters(), "헬리오시티"),
        ("잠실 엘스 전세 요즘 얼마예요", ListingFilters(), "잠실엘스"),  # spacing aside
        ("래미안대치팰리스 매매 호가 범위", ListingFilters(), "래미안대치팰리스"),  # longest name
        ("테헤란로 오피스텔 시세", ListingFilters(), None),  # 테헤란 is part of a road's name here
        ("역삼 전세 시세", ListingFilters(), None),  # a complex called 역삼 is not meant: the 동 is
        ("우성 아파트 전세", ListingFilters(), None),  # a short name alone is too common a word
        ("대치동 우성 아파트 전세", ListingFilters(dong=("대치동",)), "우성"),
        ("강남구 헬리오시티 전세", ListingFilters(gu=("강남구",)), None),  # not in the place named
    ],
)
def test_a_complex_is_named_by_its_whole_name_as_a_word(
    question: str, asked: ListingFilters, named: str | None
) -> None:
    candidates = [
        a_complex("헬리오시티"),
        a_complex("잠실엘스", dong="잠실동"),
        a_complex("래미안", dong="대치동", gu="강남구"),
        a_complex("래미안대치팰리스", dong="대치동", gu="강남구"),
        a_complex("테헤란", dong="역삼동", gu="강남구"),
        a_complex("역삼", dong="역삼동", gu="강남구"),
        a_complex("우성", dong="대치동", gu="강남구"),
    ]
    found = pick_named_complex(question, candidates, asked)
    assert (found.name if found else None) == named


# Two-letter complex names that are everyday words too, and what follows them in sentences.
EVERYDAY_SHORT_NAMES = st.sampled_from(
    ["제일", "수정", "청구", "미소", "그린", "호수", "정원", "금일", "현대"]
)  # fmt: skip
GOES_ON_AS_A_WORD = st.sampled_from(
    [" 싼", " 비싼", " 좋은", " 가까운", " 큰 평수", "해 주세요", "할 수 있어요", "하려면", "적인", " 많은",
     "된"]
)  # fmt: skip
HOUSING_AFTER = st.sampled_from([" 아파트", " 전세", " 매매", " 시세", " 호가", " 단지", "", "?"])


@given(EVERYDAY_SHORT_NAMES, GOES_ON_AS_A_WORD, HOUSING_AFTER)
def test_a_short_name_is_a_complex_only_where_housing_follows(name: str, word: str, housing: str) -> None:
    """ "송파구에서 제일 싼 아파트" asks for the cheapest, not for the complex 제일; "송파구 제일 아파트"
    names it."""
    candidates = [a_complex(name)]
    asked = ListingFilters(gu=("송파구",))
    assert pick_named_complex(f"송파구에서 {name}{word} 아파트 매매", candidates, asked) is None
    named = pick_named_complex(f"송파구 {name}{housing}", candidates, asked)
    assert named is not None and named.name == name


def test_among_namesakes_the_biggest_complex_is_meant() -> None:
    small, big = a_complex("신동아", households=120), a_complex("신동아", dong="방이동", households=900)
    assert pick_named_complex("신동아 전세 시세", [small, big], ListingFilters()) == big


def test_the_conditions_a_person_states_become_filters_and_the_scope_says_them() -> None:
    ents = extract_entities("송파구 1,500세대 넘는 아파트 전세, 도보 7분 안쪽", today=date(2026, 11, 28))
    f = filters_from(ents)
    assert (f.households_min, f.walk_max_min) == (1501, 7)
    where = complex_where(f)
    assert "household_count >= %(households_min)s" in where.clauses and where.params["households_min"] == 1501
    headline = listing_result(f, 10, []).headline or ""
    assert "세대수 1,500세대 초과" in headline and "역까지 도보 7분 이내" in headline and "10곳" in headline


def test_a_step_option_narrows_in_place_of_the_question() -> None:
    ents = QueryEntities(walk_max_min=10, households_min=500)
    f = filters_from(ents, SearchOptions(walk_max_min=5))
    assert (f.walk_max_min, f.households_min) == (5, 500)


def test_what_the_data_cannot_check_is_said_never_dropped() -> None:
    ents = extract_entities("강남구 오피스텔 전세 주차 2대 가능한 곳", today=date(2026, 11, 28))
    findings = listing_result(filters_from(ents), 3, []).findings
    assert any("주차" in line and "자료가 없어" in line for line in findings)
    rooms = filters_from(QueryEntities(households_min=500, property_types=["oneroom"], deal_type="monthly"))
    assert any("원룸" in line and "세대수" in line for line in listing_result(rooms, 0, []).findings)


@pytest.mark.parametrize(
    ("question", "named"),
    [
        ("헬리오시티랑 잠실엘스 전세 비교해줘", ["헬리오시티", "잠실엘스"]),
        ("잠실엘스하고 헬리오시티 중에 어디가 싸요?", ["잠실엘스", "헬리오시티"]),  # in the order written
        (
            "래미안대치팰리스 vs 헬리오시티 매매",
            ["래미안대치팰리스", "헬리오시티"],
        ),  # 래미안 is inside a name
        ("헬리오시티 전세 시세", ["헬리오시티"]),
        ("송파구 아파트 전세 시세", []),
    ],
)
def test_every_complex_a_question_names_is_found_once(question: str, named: list[str]) -> None:
    candidates = [
        a_complex("헬리오시티"),
        a_complex("잠실엘스", dong="잠실동"),
        a_complex("래미안", dong="대치동", gu="강남구"),
        a_complex("래미안대치팰리스", dong="대치동", gu="강남구"),
    ]
    assert [c.name for c in pick_named_complexes(question, candidates, ListingFilters())] == named


def test_the_entities_name_the_complexes_in_the_order_written() -> None:
    assert extract_entities("리센츠하고 트리지움 중에 전세 어디가 더 싸요?").complexes == [
        "리센츠",
        "트리지움",
    ]


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("마포구 아파트 전세 시세", "마포구 아파트 전세"),
        ("서울 빌라 전세 시세", "빌라 전세"),
        ("수원 아파트 전세 시세 어때요?", "수원 아파트 전세"),  # a region outside Seoul, never a complex
        ("부산 해운대 아파트 매매 5억 이하 있어요?", "부산 아파트 매매"),
    ],
)
def test_what_the_snapshot_does_not_list_is_said_once_with_what_it_does(question: str, asked: str) -> None:
    gap = coverage_gap(extract_entities(question))
    assert gap is not None and gap.headline is not None
    assert f"{asked} 시세·매물은 알려 드릴 수 없습니다" in gap.headline
    assert "강남구·서초구·송파구" in gap.headline and not gap.figures


@pytest.mark.parametrize(
    "question",
    [
        "송파구 아파트 전세",
        "강남구 빌라랑 아파트 매매",
        "원룸 월세 시세",
        "수원 살다가 잠실 아파트 전세 보려고요",
    ],
)
def test_a_question_the_snapshot_can_answer_has_no_gap(question: str) -> None:
    assert coverage_gap(extract_entities(question)) is None


def row(name: str, **fields: object) -> ListingRow:
    return ListingRow(listing_id=name, kind="complex", name=name, property_type="officetel", gu="강남구",
                      dong="역삼동", **fields)  # type: ignore[arg-type]  # fmt: skip


def test_a_superlative_orders_the_rows_and_the_first_row_answers_it() -> None:
    """'강남구 오피스텔 중에 역에서 제일 가까운 곳 월세로': sorted by the walk, the nearest named first."""
    f = filters_from(extract_entities("강남구 오피스텔 중에 역에서 제일 가까운 곳 월세로"))
    assert order_by(f).startswith("walk_min ASC")
    near = row("역삼푸르지오시티", station="역삼역", walk_min=1, monthly_rent_min_manwon=70)
    headline = listing_result(f, 189, [near]).headline or ""
    assert "역에서 가장 가까운 곳은 역삼푸르지오시티(역삼역 도보 1분)" in headline
    cheap = filters_from(extract_entities("송파구에서 제일 싼 아파트 매매 매물 어디예요?"))
    assert order_by(cheap).startswith("price_min ASC")
    found = listing_result(cheap, 269, [row("한양", price_min_manwon=13500)]).headline or ""
    assert "가장 낮은 호가는 한양 1억 3,500만원" in found
    newest = filters_from(extract_entities("서초구 가장 최근에 지은 아파트 전세"))
    assert order_by(newest).startswith("completion_ym DESC")
    assert "세대수가 많은 순" not in (listing_result(newest, 1, []).findings[1])
    fewest = filters_from(extract_entities("강남구 아파트 전세 10억 넘는 곳 중에 세대수 제일 적은 곳"))
    assert order_by(fewest).startswith("households ASC")
    small = row("나라아파트", households=19, price_min_manwon=100000)
    headline = listing_result(fewest, 12, [small]).headline or ""
    assert "세대수가 가장 적은 곳은 나라아파트(19세대)" in headline


def test_a_series_named_alone_is_its_biggest_member_and_its_whole_name_wins() -> None:
    """'도곡렉슬이랑 타워팰리스 중에 어디가 더 비싸요?': 타워팰리스 is the series of 타워팰리스1~3차."""
    towers = [
        a_complex("타워팰리스1차", dong="도곡동", gu="강남구", households=1297),
        a_complex("타워팰리스2차", dong="도곡동", gu="강남구", households=813),
        a_complex("도곡렉슬", dong="도곡동", gu="강남구", households=3002),
    ]
    named = pick_named_complexes("도곡렉슬이랑 타워팰리스 중에 어디가 더 비싸요?", towers, ListingFilters())
    assert [c.name for c in named] == ["도곡렉슬", "타워팰리스1차"]
    second = pick_named_complexes("타워팰리스2차 전세 얼마", towers, ListingFilters())
    assert [c.name for c in second] == ["타워팰리스2차"]


@pytest.mark.parametrize(
    ("question", "unknown"),
    [
        ("대치동 은마아파트 전세 얼마예요?", ["은마"]),
        ("은마 아파트 매매 시세", ["은마"]),
        ("도곡렉슬이랑 은마아파트 비교해줘", ["은마"]),
        ("신축 아파트 전세 알려줘", []),
        ("좋은 아파트 추천해줘", []),
        ("오래된 아파트 재건축", []),
        ("압구정 현대아파트 매매", []),  # 현대: a listed name, short as it is
        ("잠실엘스 아파트 전세", []),
        ("강남 아파트 시세", []),
    ],
)
def test_a_complex_named_that_the_snapshot_does_not_hold_is_said_so(
    question: str, unknown: list[str]
) -> None:
    entities = extract_entities(question)
    assert entities.complexes_unknown == unknown
    said = not_listed(entities.complexes_unknown, named_any=bool(entities.complexes))
    headline = said_first(listing_result(filters_from(entities), 45, []), said).headline or ""
    assert headline.startswith("은마는 2025-10-08 매물 스냅샷에 없는 단지라") == bool(unknown)


def test_the_size_band_asked_is_part_of_what_is_described() -> None:
    # "20평대" filters on supply area (66.12-99.17 m²); the answer names the band as the person wrote it
    asked = filters_from(extract_entities("신혼집 구하는데 송파구 20평대 전세 6억 이하로 추천해줘"))
    assert describe(asked) == "송파구 아파트·오피스텔 20평대 전세"
