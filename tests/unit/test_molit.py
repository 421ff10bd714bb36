"""Parsing the government's 실거래가 exports: the table under its header rows, money with separators,
dates, cancelled deals, lease rows, the key that makes re-imports idempotent, and complex matching."""

from __future__ import annotations

from datetime import date

import pytest

from services.search.molit import (
    Candidate,
    RowSkipped,
    amount,
    decode,
    match_complex,
    normalise_name,
    parse_row,
    property_type_of,
    read_table,
)

pytestmark = pytest.mark.unit

SALE = """□ 본 서비스에서 제공하는 정보는 참고용입니다.
□ 실거래가 구분 : 아파트(매매)
,,,
"NO","시군구","번지","단지명","전용면적(㎡)","계약년월","계약일","거래금액(만원)","층","건축년도","해제사유발생일"
1,"서울특별시 강남구 대치동","316",래미안대치팰리스1단지,"84.97","202503","7","345,000","12","2015","-"
2,"서울특별시 강남구 대치동","316",래미안대치팰리스1단지,"84.97","202503","9","350,000","3","2015","25.04.02"

"""


def sale_record(**changes: str) -> dict[str, str]:
    _, rows = read_table(SALE)
    return {**rows[0], **changes}


def test_table_is_found_under_the_junk_rows() -> None:
    preamble, rows = read_table(SALE)
    assert property_type_of(preamble) == "apartment"
    assert len([r for r in rows if any(r.values())]) == 2
    with pytest.raises(ValueError, match="not a 실거래가 export"):
        read_table("a,b\n1,2\n")


def test_a_sale_row() -> None:
    deal = parse_row(sale_record())
    assert (deal.deal_kind, deal.gu, deal.dong, deal.complex_name) == (
        "sale",
        "강남구",
        "대치동",
        "래미안대치팰리스1단지",
    )
    assert (deal.price_manwon, deal.area_m2, deal.contract_date) == (345000, 84.97, date(2025, 3, 7))
    assert (deal.floor, deal.built_year, deal.cancelled) == (12, 2015, False)


def test_a_cancelled_deal_is_flagged_and_keeps_its_key() -> None:
    _, rows = read_table(SALE)
    cancelled = parse_row(rows[1])
    assert cancelled.cancelled
    live = parse_row({**rows[1], "해제사유발생일": ""})
    assert live.deal_key == cancelled.deal_key  # a later cancellation updates the deal, never adds one


def test_key_changes_with_the_deal_not_with_spacing() -> None:
    base = parse_row(sale_record())
    assert parse_row(sale_record(단지명="래미안 대치팰리스1단지")).deal_key == base.deal_key
    assert parse_row(sale_record(계약일="8")).deal_key != base.deal_key


def test_lease_rows() -> None:
    lease = {
        "시군구": "서울특별시 송파구 잠실동",
        "단지명": "엘스",
        "전월세구분": "월세",
        "전용면적(㎡)": "59.9",
    }
    lease |= {"계약년월": "202505", "계약일": "1", "보증금(만원)": "20,000", "월세금(만원)": "150", "층": "4"}
    monthly = parse_row(lease)
    assert (monthly.deal_kind, monthly.deposit_manwon, monthly.monthly_manwon) == ("monthly", 20000, 150)
    jeonse = parse_row({**lease, "전월세구분": "전세", "보증금(만원)": "95,000", "월세금(만원)": "0"})
    assert (jeonse.deal_kind, jeonse.deposit_manwon, jeonse.price_manwon) == ("jeonse", 95000, None)


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"거래금액(만원)": "모름"}, "bad amount"),
        ({"거래금액(만원)": ""}, "no 거래금액"),
        ({"계약년월": "2025", "계약일": "7"}, "bad contract date"),
        ({"계약일": "32"}, "bad contract date"),
        ({"전용면적(㎡)": "넓음"}, "bad 전용면적"),
        ({"단지명": ""}, "no complex name"),
        ({"시군구": "경기도 가평군 청평면"}, "no 구"),
        ({"시군구": ""}, "not a deal row"),
    ],
)
def test_bad_rows_are_skipped_with_a_reason(changes: dict[str, str], reason: str) -> None:
    with pytest.raises(RowSkipped, match=reason):
        parse_row(sale_record(**changes))


def test_amounts_and_encodings() -> None:
    assert amount(" 1,234,500 ") == 1234500
    assert amount("-") is None
    assert decode("시군구".encode("cp949")) == "시군구"
    assert decode("\ufeff시군구".encode()) == "시군구"


def test_names_normalise() -> None:
    assert normalise_name("래미안 대치팰리스(주상복합) 아파트") == "래미안대치팰리스"
    assert normalise_name("LG개포자이") == "lg개포자이"


def candidate(cid: str, dong: str, name: str, kind: str = "apartment") -> Candidate:
    return Candidate(cid, "강남구", dong, normalise_name(name), kind)


def test_matching_rules() -> None:
    deal = parse_row(sale_record())
    same = [candidate("1", "대치동", "래미안대치팰리스1단지")]
    assert match_complex(deal, same, "apartment") == "1"
    assert match_complex(deal, [candidate("2", "도곡동", "래미안대치팰리스1단지")], None) == "2"  # dong line
    assert match_complex(deal, [candidate("3", "대치동", "래미안대치팰리스")], None) == "3"  # prefix
    twins = [
        candidate("4", "대치동", "래미안대치팰리스1단지"),
        candidate("5", "대치동", "래미안대치팰리스1단지", "officetel"),
    ]
    assert match_complex(deal, twins, "officetel") == "5"
    assert match_complex(deal, twins, None) is None  # ambiguous: no match rather than a wrong one
    assert match_complex(deal, [candidate("6", "대치동", "은마")], None) is None
