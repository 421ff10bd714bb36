"""Entities read from questions: places, property and deal kinds, money, sizes, dates and terms."""

from __future__ import annotations

import pytest

from contracts.entities import DealType, PropertyType, QueryEntities
from services.housing.dates import find_dates, parse_term_months
from services.housing.entities import extract_entities
from services.housing.places import SEOUL_GU, Gazetteer, default_gazetteer, read_gazetteer

pytestmark = pytest.mark.unit


def test_a_market_question_with_station_size_type_and_deal() -> None:
    e = extract_entities("강남역 근처 30평대 아파트 매매 시세 알려줘")
    assert e.stations == ["강남역"] and e.gu == [] and e.dong == []
    assert e.property_types == [PropertyType.APARTMENT]
    assert e.deal_type is DealType.SALE
    assert (e.size_min_m2, e.size_max_m2, e.size_text) == (99.17, 132.23, "30평대")


def test_deposit_and_rent_of_a_one_room_search() -> None:
    e = extract_entities("역삼동 원룸 보증금 1000에 월세 50 이하")
    assert e.dong == ["역삼동"] and e.gu == ["강남구"]  # a 동 implies its 구
    assert e.property_types == [PropertyType.ONEROOM]
    assert e.deal_type is DealType.MONTHLY
    assert (e.price_min_manwon, e.price_max_manwon) == (1000, 1000)
    assert (e.monthly_rent_min_manwon, e.monthly_rent_max_manwon) == (None, 50)
    assert e.amounts_manwon == [1000, 50]
    assert (e.deposit_manwon, e.monthly_rent_manwon) == (1000, None)  # 50 이하 asks for a range


def test_a_rent_increase_keeps_every_amount_and_sets_no_range() -> None:
    e = extract_entities("전세금 3억을 3억 5천으로 올려달래요")
    assert e.amounts_manwon == [30000, 35000]
    assert e.price_min_manwon is None and e.price_max_manwon is None
    assert e.deal_type is DealType.JEONSE


def test_percent_dates_and_term() -> None:
    e = extract_entities("2025년 3월 1일 시작한 2년 계약인데 5% 올려도 되나요")
    assert e.dates == ["2025-03-01"] and e.term_months == 24 and e.percent == 5.0


def test_dates_and_terms() -> None:
    assert find_dates("2025년 3월 1일부터 2025.03.31까지") == ["2025-03-01", "2025-03-31"]
    assert find_dates("2025년 2월 30일") == []  # no such day
    assert parse_term_months("2년 계약") == 24
    assert parse_term_months("1년 6개월") == 18
    assert parse_term_months("2년 전세 계약") == 24
    assert parse_term_months("10년 된 아파트") is None
    assert parse_term_months("3년 전에 샀어요") is None
    assert parse_term_months("2025년") is None
    assert find_dates(None) == [] and parse_term_months(42) is None


def test_the_time_since_an_event_is_no_lease_term() -> None:
    # "재계약한지 6개월" is how long ago the lease was renewed (elapsed.py reads it), not a 6-month lease
    assert extract_entities("재계약한지 6개월 됐는데 집주인이 또 올려달래요").term_months is None
    assert extract_entities("입주한 지 1년 됐는데 2년 계약 연장하려고요").term_months == 24


@pytest.mark.parametrize(
    ("text", "gu", "dong", "stations"),
    [
        ("강남 아파트", ["강남구"], [], []),
        ("강남역 오피스텔", [], [], ["강남역"]),
        ("강남구청역 근처", [], [], ["강남구청역"]),
        ("역삼 원룸", ["강남구"], ["역삼동"], []),
        ("역삼역 원룸", [], [], ["역삼역"]),
        ("잠실역 근처 매물", [], [], ["잠실역"]),
        ("잠실 근처 매물", ["송파구"], ["잠실동"], []),
        ("서초 아파트", ["서초구"], [], []),  # a short name that is both: the 구
        ("서초동 전세", ["서초구"], ["서초동"], []),
        ("마포구와 용산구 비교", ["마포구", "용산구"], [], []),
        ("신원 확인이 필요해요", [], [], []),  # 신원 is identity, not 신원동
        ("방이 넓은 원룸", [], [], []),  # the room, not 방이동
    ],
)
def test_places(text: str, gu: list[str], dong: list[str], stations: list[str]) -> None:
    e = extract_entities(text)
    assert (e.gu, e.dong, e.stations) == (gu, dong, stations)


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("빌라나 다세대", [PropertyType.VILLA]),
        ("투룸 구해요", [PropertyType.ONEROOM]),
        ("단독주택 매매", [PropertyType.HOUSE]),
        ("주택을 사고 싶어요", [PropertyType.HOUSE]),
        ("주택임대차보호법 조항", []),  # a law, not a house
        ("주택담보대출 금리", []),
        ("상가 임대", [PropertyType.COMMERCIAL]),
        ("오피스텔이랑 아파트", [PropertyType.OFFICETEL, PropertyType.APARTMENT]),
    ],
)
def test_property_types(text: str, kinds: list[PropertyType]) -> None:
    assert extract_entities(text).property_types == kinds


@pytest.mark.parametrize(
    ("text", "deal"),
    [
        ("매매가", DealType.SALE),
        ("살 집 구해요", DealType.SALE),
        ("반전세 오피스텔", DealType.MONTHLY),  # 반전세 is 월세 with a big deposit
        ("전세를 월세로 바꾸면", DealType.JEONSE),  # the first named
        ("단기임대 원룸", DealType.SHORT_TERM),
        ("시세 알려줘", None),
    ],
)
def test_deal_type(text: str, deal: DealType | None) -> None:
    assert extract_entities(text).deal_type == deal


def test_entities_travel_as_compact_json_and_come_back() -> None:
    e = extract_entities("대치동 84㎡ 아파트 10억 이하")
    dumped = e.model_dump(mode="json", exclude_defaults=True)
    assert dumped["price_max_manwon"] == 100000 and dumped["size_text"] == "84㎡"
    assert "stations" not in dumped  # defaults are left out
    assert QueryEntities.model_validate(dumped) == e


def test_the_gazetteer_knows_all_of_seoul_and_the_listing_dongs() -> None:
    g = default_gazetteer()
    assert len(SEOUL_GU) == 25 and g.gu == SEOUL_GU
    assert (
        g.dong_gu["역삼동"] == "강남구"
        and g.dong_gu["잠실동"] == "송파구"
        and g.dong_gu["반포동"] == "서초구"
    )
    assert {"강남역", "잠실역", "선릉역"} <= g.stations
    assert default_gazetteer() is g  # read once


def test_a_gazetteer_without_seed_files_still_knows_the_districts(tmp_path) -> None:
    g = read_gazetteer((tmp_path / "missing.csv",))
    assert g.find("마포구 아파트").gu == ["마포구"]


def test_a_dong_in_two_districts_implies_neither(tmp_path) -> None:
    csv = tmp_path / "x.csv"
    csv.write_text("gu,dong,subway_station\n강남구,신사동,신사역\n관악구,신사동,\n", encoding="utf-8")
    g = read_gazetteer((csv,))
    assert isinstance(g, Gazetteer)
    found = g.find("신사동 원룸")
    assert found.dong == ["신사동"] and found.gu == []
    assert g.find("신사역").stations == ["신사역"]


@pytest.mark.parametrize(
    "text", ["", "   ", "🙂🏠", "x" * 2000, "강남 " * 400, "Gangnam apartment 3 rooms", "\x00\n\t"]
)
def test_odd_input_gives_entities_never_an_error(text: str) -> None:
    assert isinstance(extract_entities(text), QueryEntities)


def test_mixed_english_keeps_the_korean_parts() -> None:
    e = extract_entities("강남구 apartment 전세 under 5억 이하")
    assert e.gu == ["강남구"] and e.property_types == [PropertyType.APARTMENT] and e.price_max_manwon == 50000


@pytest.mark.parametrize(
    ("text", "not_in_data"),
    [
        ("방 두 개짜리 아파트 전세 서초구 5억 이하", ["방 개수"]),  # and "개짜리" is no complex's name
        ("잠실 쪽에 애들 학교 가까운 아파트 전세 있을까요?", ["학군"]),
    ],
)
def test_conditions_the_listings_cannot_check_are_named_not_taken_for_names(
    text: str, not_in_data: list[str]
) -> None:
    read = extract_entities(text)
    assert read.conditions_not_in_data == not_in_data and read.complexes_unknown == []
