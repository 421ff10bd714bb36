"""A form answered in words: the asked fields read from what a person types, and the messages that
answer nothing (a new question). Real phrasings, table-driven."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contracts.results import Question
from services.document.common.fields import fields_from_answers
from services.document.lease.fields import LeaseFields, collect_fields, missing_fields
from services.document.loan.applicant import LoanApplicant
from services.document.sale.fields import LABELS as SALE_LABELS
from services.housing.addresses import region_address
from services.housing.form_answers import dated_answers, form_answers
from services.housing.names import person_name

pytestmark = pytest.mark.unit

ADDRESS = Question(field="address", label="임차주택 소재지", hint="예: 서울특별시 강남구 역삼동 123-4")
START = Question(field="term_start", label="임대차 시작일(인도일)")
END = Question(field="term_end", label="임대차 종료일", hint="예: 2027-02-28, 또는 기간만: 2년")
LANDLORD = Question(field="landlord_name", label="임대인 성명")
TENANT = Question(field="tenant_name", label="임차인 성명")
DEPOSIT = Question(field="deposit_won", label="보증금")
DOWN = Question(field="down_payment_won", label="계약금")
RENT = Question(field="monthly_rent_won", label="차임(월세)")
RENT_DAY = Question(field="rent_day", label="차임 지급일", hint="매월 며칠에 지급하는지, 예: 25")
BALANCE_DATE = Question(field="balance_date", label="잔금 지급일")
CONTRACT_DATE = Question(field="contract_date", label="계약일")
AREA = Question(field="area_m2", label="임차할 부분 면적")

WHERE_AND_WHEN = [ADDRESS, START, END]


@pytest.mark.parametrize(
    ("questions", "message", "answers"),
    [
        (
            WHERE_AND_WHEN,
            "주소는 서울 서초구 반포대로 58, 301동 1502호이고 기간은 2026년 4월 1일부터 2년이에요",
            {
                "address": "서울 서초구 반포대로 58, 301동 1502호",
                "term_start": "2026-04-01",
                "term_end": "24개월",
            },
        ),
        (
            WHERE_AND_WHEN,
            "서울 서초구 반포대로 58 301동 1502호, 2026.4.1 ~ 2028.3.31",
            {
                "address": "서울 서초구 반포대로 58 301동 1502호",
                "term_start": "2026-04-01",
                "term_end": "2028-03-31",
            },
        ),
        (
            WHERE_AND_WHEN,
            "소재지: 부산 해운대구 우동 1408 101동 202호\n계약기간: 2026-05-01부터 2028-04-30까지",
            {
                "address": "부산 해운대구 우동 1408 101동 202호",
                "term_start": "2026-05-01",
                "term_end": "2028-04-30",
            },
        ),
        (
            WHERE_AND_WHEN,
            "입주는 2026년 3월 2일이고 1년 6개월 살 거예요",
            {"term_start": "2026-03-02", "term_end": "18개월"},
        ),
        (WHERE_AND_WHEN, "2026년 4월 1일에 입주해요", {"term_start": "2026-04-01"}),
        (WHERE_AND_WHEN, "종료일은 2028년 2월 29일까지요", {"term_end": "2028-02-29"}),
        ([END], "2년이요", {"term_end": "24개월"}),
        (
            [LANDLORD, TENANT],
            "집주인은 김영수 씨, 세입자는 저 박지민입니다",
            {"landlord_name": "김영수", "tenant_name": "박지민"},
        ),
        ([TENANT], "이서연이요", {"tenant_name": "이서연"}),
        (
            [DEPOSIT, DOWN],
            "보증금은 2억 3천이고 계약금은 2,300만원 넣었어요",
            {"deposit_won": "230,000,000원", "down_payment_won": "23,000,000원"},
        ),
        (
            [RENT, RENT_DAY],
            "월세 65만원, 매월 25일에 내요",
            {"monthly_rent_won": "650,000원", "rent_day": "25"},
        ),
        ([DEPOSIT], "1억 5천이요", {"deposit_won": "150,000,000원"}),
        ([BALANCE_DATE], "잔금은 2026년 3월 31일에 치러요", {"balance_date": "2026-03-31"}),
        ([AREA], "면적은 25평이에요", {"area_m2": "25평"}),
    ],
)
def test_the_asked_fields_are_read_from_a_sentence(questions, message, answers) -> None:
    assert form_answers(questions, message) == answers


@pytest.mark.parametrize(
    "message",
    [
        "강남구 전세 시세 알려줘",
        "서초구 아파트 매매 얼마예요?",
        "전세금 5% 인상 가능한가요?",
        "안녕하세요",
        "잘 모르겠어요",
    ],
)
def test_a_new_question_or_small_talk_answers_nothing(message) -> None:
    assert form_answers([*WHERE_AND_WHEN, DEPOSIT], message) == {}


def test_only_the_asked_fields_are_answered() -> None:
    """A message may say more than was asked; the form takes what it asked for."""
    said = "주소는 서울 마포구 합정동 12-3 합정빌라 201호, 보증금은 1억이에요"
    assert form_answers([ADDRESS], said) == {"address": "서울 마포구 합정동 12-3 합정빌라 201호"}


def test_the_document_reads_the_answers_as_it_reads_the_form() -> None:
    """What the reader gives is what a filled form gives: the document service parses it the same way."""
    typed = form_answers(
        WHERE_AND_WHEN, "주소는 서울 서초구 반포대로 58, 301동 1502호이고 기간은 2026년 4월 1일부터 2년이에요"
    )
    found, problems = fields_from_answers(typed, LeaseFields)
    assert problems == {}
    assert (str(found["term_start"]), found["term_months"]) == ("2026-04-01", 24)


@pytest.mark.parametrize(
    ("questions", "message", "answers"),
    [
        (
            [START, END],
            "기간은 다음 주 화요일부터 2년이요",
            {"term_start": "2026-12-01", "term_end": "24개월"},
        ),
        ([START, END], "입주는 3일 뒤부터 2년이요", {"term_start": "2026-12-01", "term_end": "24개월"}),
        (
            [START, END],
            "다음 달 말부터 내년 12월 30일까지",
            {"term_start": "2026-12-31", "term_end": "2027-12-30"},
        ),
        (
            [CONTRACT_DATE, BALANCE_DATE],
            "계약일은 오늘이고 잔금은 다음 달 말일에 줘요",
            {"contract_date": "2026-11-28", "balance_date": "2026-12-31"},
        ),
        (  # 계약 named without 일, a span counted in native words
            [CONTRACT_DATE, BALANCE_DATE],
            "계약은 모레 하고 잔금은 석 달 뒤에 치를게요",
            {"contract_date": "2026-11-30", "balance_date": "2027-02-28"},
        ),
    ],
)
def test_dates_said_relatively_are_answered_as_the_days_they_mean(questions, message, answers) -> None:
    """Read against the day the message was typed (a Saturday, 2026-11-28), so the step that asked reads the
    day the person meant whenever it runs."""
    assert form_answers(questions, message, date(2026, 11, 28)) == answers


def test_without_a_reference_day_a_relative_date_answers_nothing() -> None:
    assert form_answers([CONTRACT_DATE], "계약일은 내일이요") == {}


def test_a_form_typed_with_relative_dates_is_sent_with_the_days_they_mean() -> None:
    typed = {"term_start": "다음 달 초", "term_end": "2년", "address": "서울 마포구 독막로 50"}
    assert dated_answers([START, END, ADDRESS], typed, date(2026, 11, 28)) == {
        "term_start": "2026-12-01",
        "term_end": "2년",
        "address": "서울 마포구 독막로 50",
    }


def test_the_lease_question_asks_only_for_what_it_does_not_say() -> None:
    """mt-document-fill, turn 1: the parties and the money are in the question, the address and term not."""
    fields, problems = collect_fields(
        "전세 계약서 만들어줘. 집주인은 정미경, 세입자는 저 한지훈이고 "
        "보증금은 3억5천(계약금 3천5백, 잔금 3억1천5백)이에요"
    )
    assert problems == {} and missing_fields(fields) == ["address", "term_start", "term_end"]
    assert (fields.landlord_name, fields.tenant_name) == ("정미경", "한지훈")
    assert (fields.deposit_won, fields.down_payment_won, fields.balance_won) == (
        350_000_000,
        35_000_000,
        315_000_000,
    )


@pytest.mark.parametrize(
    ("words", "name"),
    [
        ("저 한지훈이고", "한지훈"),
        ("정미경이요", "정미경"),
        ("홍길동 씨", "홍길동"),
        ("김지은", "김지은"),
        ("반려동물을 키울 수 있다", None),
        ("미정", None),
    ],
)
def test_a_party_is_read_by_name(words, name) -> None:
    assert person_name(words) == name


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("서울 서초구 반포대로 58, 301동 1502호이고", "서울 서초구 반포대로 58, 301동 1502호"),
        (
            "서울 강남구 테헤란로 152 강남파이낸스센터 10층이에요",
            "서울 강남구 테헤란로 152 강남파이낸스센터 10층",
        ),
        ("서울 마포구 합정동 12-3 합정빌라 201호를 보증금 1억에", "서울 마포구 합정동 12-3 합정빌라 201호"),
        ("서울 강남구 전세 시세", None),
    ],
)
def test_an_address_keeps_its_road_number_and_unit(text, address) -> None:
    assert region_address(text) == address


def test_a_sale_contracts_form_is_answered_in_a_sentence() -> None:
    """The sale contract asks with the same loop (services/document/sale/fields.py LABELS): its parties,
    price and dates are read from a sentence as the lease's are, each name ending at its comma."""
    asked = [Question(field=f, label=label, hint=hint) for f, (label, hint) in SALE_LABELS.items()]
    said = (
        "매도인은 홍길동, 매수인은 김영희이고 매매대금은 9억, 계약금 9천만원, 잔금 8억 1천은 "
        "2026년 5월 29일에 줍니다. 계약일은 2026년 3월 20일이에요"
    )
    assert form_answers(asked, said) == {
        "seller_name": "홍길동",
        "buyer_name": "김영희",
        "price_won": "900,000,000원",
        "down_payment_won": "90,000,000원",
        "balance_won": "810,000,000원",
        "balance_date": "2026-05-29",
        "contract_date": "2026-03-20",
    }
    assert form_answers(asked, "강남구 아파트 매매 시세 알려줘") == {}  # a new question answers nothing


DEBT = Question(field="existing_debt_monthly_won", label="기존 대출의 월 상환액 (없으면 0)")
INCOME = Question(field="income_won", label="연소득 (부부합산이면 합산액)")
DEBT_WORDS = ["대출", "기존 대출", "빚", "기존 빚", "다른 대출", "부채", "갚고 있는 대출"]
TOPICS = st.sampled_from(["", "은 ", "는 ", "이 ", "도 ", "같은 건 "])
NONE_SAID = st.sampled_from(
    ["없어요", "없습니다", "하나도 없습니다", "전혀 없어요", "없음", "안 받았어요", "없고요", "0원이에요"]
)


@given(words=st.sampled_from(DEBT_WORDS), topic=TOPICS, none=NONE_SAID)
def test_saying_there_is_none_answers_a_sum_with_zero(words, topic, none) -> None:
    """'기존 빚 없어요' answers the loan form's debt question: 0, which the application reads as no debt."""
    typed = form_answers([DEBT], f"{words}{topic}{none}")
    assert typed == {"existing_debt_monthly_won": "0"}
    found, problems = fields_from_answers(typed, LoanApplicant)
    assert (found, problems) == ({"existing_debt_monthly_won": 0}, {})


@given(none=NONE_SAID)
def test_a_bare_none_answers_the_one_sum_asked(none) -> None:
    assert form_answers([DEBT], none) == {"existing_debt_monthly_won": "0"}


def test_a_negation_answers_the_field_it_names_among_several() -> None:
    assert form_answers([INCOME, DEBT], "연봉은 6천이고 대출은 하나도 없어요") == {
        "income_won": "60,000,000원",
        "existing_debt_monthly_won": "0",
    }


NEW_QUESTIONS = st.sampled_from(
    [
        "대출 없이 살 수 있는 집 추천해줘",
        "전세대출 한도 얼마나 나와요?",
        "빚 없는 집주인 찾는 방법 알려줘",
        "강남구 전세 시세 알려줘",
        "송파구 아파트 매매 얼마예요?",
        "주택임대차보호법 제7조 알려줘",
        "안녕하세요",
        "월세 50을 60으로 올린다는데 가능한가요?",
    ]
)


@given(question=NEW_QUESTIONS)
def test_a_new_question_never_fills_an_open_form(question) -> None:
    assert form_answers([DEBT], question) == {}
    assert form_answers([*WHERE_AND_WHEN, DEBT], question) == {}
