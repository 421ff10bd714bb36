"""The fields of a 주택임대차 표준계약서, collected from what the person wrote and answered.

Sources, weakest first, so a later word overrides an earlier one: a listing found by an earlier
step (its address), earlier turns of the session (`previous_queries`), the query itself, and the
answers the person gave to our questions (`StepInputs.answers`, {field: text}); the reading and the
merging are every document's (common/fields.py), the lease's own are its fields, its keywords and the
words of a renewal and a term. Nothing is guessed: a field no source states stays None and is asked
for if it is required.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import date
from functools import partial
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from contracts.results import StepResult
from services.document.common.fields import (
    AMOUNT,
    AREA,
    BROKER,
    MORTGAGE,
    NUM,
    area_m2,
    gather,
    keyed_fields,
    keyword_pattern,
    take_special_terms,
)
from services.housing.addresses import region_address
from services.housing.dates import DATE, parse_date, parse_term_months, spoken_dates, term_end, without_dates
from services.housing.money import parse_won


class LeaseFields(BaseModel):
    """What the contract states. Money in won; dates as calendar dates."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    landlord_name: str | None = None  # 임대인
    tenant_name: str | None = None  # 임차인
    address: str | None = None  # 소재지
    leased_part: str | None = None  # 임차할 부분
    area_m2: float | None = Field(default=None, gt=0)  # 면적
    deposit_won: int | None = Field(default=None, ge=0)  # 보증금
    down_payment_won: int | None = Field(default=None, ge=0)  # 계약금
    interim_payment_won: int | None = Field(default=None, ge=0)  # 중도금
    interim_payment_date: date | None = None
    balance_won: int | None = Field(default=None, ge=0)  # 잔금
    balance_date: date | None = None
    monthly_rent_won: int | None = Field(default=None, ge=0)  # 차임(월세)
    rent_day: int | None = Field(default=None, ge=1, le=31)  # 차임 지급일 (매월 n일)
    maintenance_fee_won: int | None = Field(default=None, ge=0)  # 관리비 (정액)
    term_start: date | None = None  # 임대차 시작일 (인도일)
    term_end: date | None = None  # 임대차 종료일
    term_months: int | None = Field(default=None, gt=0)  # 기간만 말한 경우 ('2년')
    short_term_reason: str | None = None  # 2년 미만으로 정한 사유
    special_terms: list[str] = []  # 특약사항
    broker_office: str | None = None  # 중개업소
    previous_deposit_won: int | None = Field(default=None, ge=0)  # 갱신 전 보증금
    previous_rent_won: int | None = Field(default=None, ge=0)  # 갱신 전 차임
    renewal: bool = False  # 갱신계약
    mortgage: bool = False  # 근저당·융자가 있다고 말함 (말소 특약을 권할 근거)


LABELS = {
    "landlord_name": ("임대인 성명", "예: 홍길동"),
    "tenant_name": ("임차인 성명", "예: 김영희"),
    "address": ("임차주택 소재지", "예: 서울특별시 강남구 역삼동 123-4 ○○아파트 101동 1203호"),
    "leased_part": ("임차할 부분", "예: 101동 1203호 전부"),
    "area_m2": ("임차할 부분 면적", "예: 84.97㎡ 또는 25평"),
    "deposit_won": ("보증금", "예: 3억 5천만원"),
    "down_payment_won": ("계약금", "계약할 때 지급하는 금액, 예: 3천500만원"),
    "interim_payment_won": ("중도금", "없으면 비워 두세요"),
    "interim_payment_date": ("중도금 지급일", "예: 2025-02-01"),
    "balance_won": ("잔금", "예: 3억 1천500만원"),
    "balance_date": ("잔금 지급일", "예: 2025-03-01"),
    "monthly_rent_won": ("차임(월세)", "예: 50만원, 전세면 비워 두세요"),
    "rent_day": ("차임 지급일", "매월 며칠에 지급하는지, 예: 25"),
    "maintenance_fee_won": ("관리비(정액)", "예: 10만원"),
    "term_start": ("임대차 시작일(인도일)", "예: 2025-03-01 또는 2025년 3월 1일"),
    "term_end": ("임대차 종료일", "예: 2027-02-28, 또는 기간만: 2년"),
    "short_term_reason": ("2년 미만으로 정하는 사유", "주택임대차보호법 제4조: 2년 미만은 2년으로 봅니다"),
    "special_terms": ("특약사항", "한 줄에 하나씩"),
    "broker_office": ("중개업소", "예: ○○공인중개사사무소"),
}

# Without these a signable contract cannot exist (the parties, the home, the money, the term).
# Everything else is optional and left blank on the form for the parties to fill in by hand.
REQUIRED = (
    "landlord_name",
    "tenant_name",
    "address",
    "deposit_won",
    "down_payment_won",
    "term_start",
    "term_end",
)


# Keywords that open a field's words; the first alternatives (전세보증보험 ...) only end a window.
KEYWORDS: tuple[tuple[str | None, str], ...] = (
    (None, r"전세\s*보증\s*보험|전세\s*대출|전세\s*계약|월세\s*계약"),
    ("deposit_won", r"전세\s*보증금|임대\s*보증금|보증금|전세금|전세가|전세"),
    ("down_payment_won", r"계약금"),
    ("interim_payment_won", r"중도금"),
    ("balance_won", r"잔금|잔액"),
    ("monthly_rent_won", r"월\s*차임|월세|차임|월\s*임대료|임대료"),
    ("maintenance_fee_won", r"관리비"),
    ("landlord_name", r"임대인|집주인"),
    ("tenant_name", r"임차인|세입자"),
    ("address", r"소재지|주택\s*주소|주소지|물건지|주소"),
    ("leased_part", r"임차할\s*부분|임차\s*부분"),
    ("broker_office", r"중개업소|중개사무소"),
    (None, r"계약\s*기간|임대차\s*기간|입주|지급일|매월|면적|갱신"),
)
KEYWORD_RE = keyword_pattern(KEYWORDS)
SLASH_PRICE = re.compile(rf"(?:월세|보증금)\s*(?:은|는)?\s*({NUM})\s*/\s*({NUM})(?!\s*/)")
FROM_TO_PRICE = re.compile(
    rf"(보증금|전세금|월세|차임)\s*(?:을|를|은|는)?\s*({AMOUNT})\s*에서\s*({AMOUNT})\s*(?:으로|로)"
)
PREVIOUS_PRICE = re.compile(
    rf"(?:기존|종전|현재|갱신\s*전)\s*(보증금|전세금|월세|차임)\s*(?:은|는|이|가)?\s*({AMOUNT})"
)
# "매월 25일", "매달 말일" (the last day: kept as 31, which every contract reads as 말일).
RENT_DAY = re.compile(
    r"(?:매월|매달|지급일\s*(?:은|는|:)?\s*(?:매월\s*)?)\s*(?:(\d{1,2})\s*일|(말일|월말|마지막\s*날))"
)
LAST_DAY = 31
SHORT_REASON = re.compile(r"(?:사유|이유)\s*(?:는|은|:)?\s*([^,.\n]+)")
TERM_RANGE = re.compile(rf"({DATE.pattern})\s*(?:부터|~|–|에서)\s*({DATE.pattern})")
START_MARK = re.compile(r"(?:입주일?|시작일|인도일|계약\s*시작)\s*(?:은|는|:)?\s*$")
END_MARK = re.compile(r"(?:종료일|만료일|계약\s*종료)\s*(?:은|는|:)?\s*$")
PREVIOUS_FIELD = {"보증금": "previous_deposit_won", "전세금": "previous_deposit_won"}


def collect_fields(
    query: str,
    previous_queries: Iterable[str] = (),
    answers: Mapping[str, Any] | None = None,
    dependency_results: Mapping[str, StepResult] | None = None,
    today: date | None = None,
) -> tuple[LeaseFields, dict[str, str]]:
    """The contract's fields from every source, and the answers that could not be read (field -> why);
    `today` is the day the person asked, against which '내일' or '다음 달 말' is read."""
    texts = [*previous_queries, query]
    base = listing_fields(dependency_results or {})
    read = partial(fields_from_text, today=today)
    fields, problems = gather(LeaseFields, read, texts, answers or {}, base, today)
    return resolve_term(fields), problems


def resolve_term(fields: LeaseFields) -> LeaseFields:
    """'2025년 3월 1일부터 2년' states the end by its length: 2027-02-28."""
    if fields.term_end is None and fields.term_start and fields.term_months:
        return fields.model_copy(update={"term_end": term_end(fields.term_start, fields.term_months)})
    return fields


def listing_fields(dependency_results: Mapping[str, StepResult]) -> dict[str, Any]:
    """The address (and area, when the listing has one) of the first listing an earlier step found."""
    for result in dependency_results.values():
        for row in result.listings:
            if not (row.gu and row.dong and row.name):
                continue
            found: dict[str, Any] = {"address": f"서울특별시 {row.gu} {row.dong} {row.name}"}
            if row.area_min_m2 and row.area_min_m2 == row.area_max_m2:
                found["area_m2"] = row.area_min_m2
            return found
    return {}


def fields_from_text(text: str, today: date | None = None) -> dict[str, Any]:
    """Every field a free Korean sentence states, its dates read against `today`."""
    text = text.replace("：", ":").replace("～", "~")
    found: dict[str, Any] = {}
    text = take_special_terms(text, found)
    text = _take_situation(text, found)
    text = SLASH_PRICE.sub(r"보증금 \1, 월세 \2", text)
    for name, value in keyed_fields(text, KEYWORD_RE, KEYWORDS, today).items():
        found.setdefault(name, value)
    found.update(_term(text, today))
    found.update(_loose_fields(text, found))
    return found


def _take_situation(text: str, found: dict[str, Any]) -> str:
    """'보증금을 3억에서 3억 3천으로' and '기존 보증금 3억' state the price before a renewal; said
    outside the 특약, 근저당 or 융자 is a fact about the home worth a protective 특약."""
    for match in FROM_TO_PRICE.finditer(text):
        found[_previous_field(match.group(1))] = parse_won(match.group(2))
        found["renewal"] = True
    text = FROM_TO_PRICE.sub(lambda m: f"{m.group(1)} {m.group(3)}", text)
    for match in PREVIOUS_PRICE.finditer(text):
        found[_previous_field(match.group(1))] = parse_won(match.group(2))
    if "갱신" in text:
        found["renewal"] = True
    if MORTGAGE.search(text):
        found["mortgage"] = True
    return PREVIOUS_PRICE.sub("", text)


def _previous_field(keyword: str) -> str:
    return PREVIOUS_FIELD.get(keyword, "previous_rent_won")


def _term(text: str, today: date | None) -> dict[str, Any]:
    """Start, end and length of the term: a range, a date marked 부터/입주/까지, a length like '2년'."""
    found: dict[str, Any] = {}
    if match := TERM_RANGE.search(text):
        return {"term_start": parse_date(match.group(1)), "term_end": parse_date(match.group(5))}
    for spoken in spoken_dates(text, today):
        before, rest = text[: spoken.start], text[spoken.end :]
        if re.match(r"\s*(?:부터|에\s*입주|입주|시작)", rest) or START_MARK.search(before):
            found.setdefault("term_start", spoken.day)
        elif re.match(r"\s*까지", rest) or END_MARK.search(before):
            found.setdefault("term_end", spoken.day)
    if (months := parse_term_months(without_dates(text, today))) is not None:
        found["term_months"] = months
    return found


def _loose_fields(text: str, found: dict[str, Any]) -> dict[str, Any]:
    """Fields stated without their keyword: an address by its region, an area, the rent day, a broker."""
    loose: dict[str, Any] = {}
    if "address" not in found and (address := region_address(text)):
        loose["address"] = address
    if AREA.search(text):
        loose["area_m2"] = area_m2(text)
    if day := RENT_DAY.search(text):
        loose["rent_day"] = int(day.group(1)) if day.group(1) else LAST_DAY
    if reason := SHORT_REASON.search(text):
        loose["short_term_reason"] = reason.group(1).strip()
    if "broker_office" not in found and (broker := BROKER.search(text)):
        loose["broker_office"] = broker.group()
    return loose


def missing_fields(fields: LeaseFields) -> list[str]:
    """Required fields no source stated, plus those the stated ones make necessary."""
    missing = [name for name in REQUIRED if getattr(fields, name) is None]
    if fields.monthly_rent_won and fields.rent_day is None:
        missing.append("rent_day")
    if fields.interim_payment_won and fields.interim_payment_date is None:
        missing.append("interim_payment_date")
    return missing
