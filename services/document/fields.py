"""The fields of a 주택임대차 표준계약서, collected from what the person wrote and answered.

Sources, weakest first, so a later word overrides an earlier one: a listing found by an earlier
step (its address), earlier turns of the session (`previous_queries`), the query itself, and the
answers the person gave to our questions (`StepInputs.answers`, {field: text}). Nothing is guessed:
a field no source states stays None and is asked for if it is required.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date
from functools import partial
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from contracts.results import StepResult
from services.housing.addresses import region_address
from services.housing.area import PYEONG_M2
from services.housing.dates import (
    DATE,
    DateError,
    parse_date,
    parse_term_months,
    spoken_dates,
    term_end,
    without_dates,
)
from services.housing.endings import strip_ending
from services.housing.money import AmountError, parse_won
from services.housing.names import person_name

Form = TypeVar("Form", bound=BaseModel)


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

NUM = r"(?<![\d.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
NOT_DATE = r"(?!\s*(?:년|월|일|개월|평|㎡|%|[./-]\s*\d)|[\d.,])"
UNIT = r"(?:조|억|천만|백만|십만|만|천|백|십)"
AMOUNT = rf"{NUM}{NOT_DATE}\s*{UNIT}?(?:\s*{NUM}{NOT_DATE}\s*{UNIT}?)*(?:\s*원)?"
AMOUNT_RE = re.compile(AMOUNT)


def keyword_pattern(keywords: Sequence[tuple[str | None, str]]) -> re.Pattern[str]:
    """One pattern for a keyword table; the group that matched names the row."""
    return re.compile("|".join(f"(?P<k{i}>{pattern})" for i, (_, pattern) in enumerate(keywords)))


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
# A clause ends at a comma or period that is not inside a number or a date, or at a line break.
CLAUSE_END = re.compile(r",(?!\d{3})|\.(?!\s*\d)|[;\n]|그리고")
LEADING = re.compile(r"^[\s:=]*(?:(?:의\s*)?(?:성명|이름)\s*)?(?:(?:은|는|이|가|을|를)(?=\s)|[:=])?\s*")
SLASH_PRICE = re.compile(rf"(?:월세|보증금)\s*(?:은|는)?\s*({NUM})\s*/\s*({NUM})(?!\s*/)")
FROM_TO_PRICE = re.compile(
    rf"(보증금|전세금|월세|차임)\s*(?:을|를|은|는)?\s*({AMOUNT})\s*에서\s*({AMOUNT})\s*(?:으로|로)"
)
PREVIOUS_PRICE = re.compile(
    rf"(?:기존|종전|현재|갱신\s*전)\s*(보증금|전세금|월세|차임)\s*(?:은|는|이|가)?\s*({AMOUNT})"
)
SPECIAL_TERMS = re.compile(r"특약\s*(?:사항)?\s*(?:은|는|으로|:)?\s*(.+)", re.DOTALL)
SPECIAL_ITEM_END = re.compile(r"[;\n]|(?<![\d.])\d+[.)](?!\d)")
AREA = re.compile(r"(\d+(?:\.\d+)?)\s*(㎡|m2|m²|제곱미터|평)")
RENT_DAY = re.compile(r"(?:매월|매달|지급일\s*(?:은|는|:)?\s*(?:매월\s*)?)\s*(\d{1,2})\s*일")
SHORT_REASON = re.compile(r"(?:사유|이유)\s*(?:는|은|:)?\s*([^,.\n]+)")
BROKER = re.compile(r"[가-힣A-Za-z0-9]+공인중개사(?:사무소)?")
TERM_RANGE = re.compile(rf"({DATE.pattern})\s*(?:부터|~|–|에서)\s*({DATE.pattern})")
START_MARK = re.compile(r"(?:입주일?|시작일|인도일|계약\s*시작)\s*(?:은|는|:)?\s*$")
END_MARK = re.compile(r"(?:종료일|만료일|계약\s*종료)\s*(?:은|는|:)?\s*$")
MORTGAGE = re.compile(r"근저당|융자|담보\s*대출")
# The day each payment is made, read from its amount's words ("계약금 1억은 내일 주고"): 계약금 is paid on
# the day the contract is made, so its day is the 계약일.
PAYMENT_DATES = {
    "down_payment_won": "contract_date",
    "interim_payment_won": "interim_payment_date",
    "balance_won": "balance_date",
}
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


def gather(
    model: type[Form],
    read_text: Callable[[str], dict[str, Any]],
    texts: Iterable[str],
    answers: Mapping[str, Any],
    base: Mapping[str, Any] | None = None,
    today: date | None = None,
) -> tuple[Form, dict[str, str]]:
    """A form's fields from `base`, then each text in order, then the answers (every document's way):
    a later source wins, and the answers that could not be read come back (field -> why)."""
    merged: dict[str, Any] = dict(base or {})
    for text in texts:
        _merge(merged, {k: v for k, v in read_text(text).items() if _is_valid(k, v, model)})
    answered, problems = fields_from_answers(answers, model, today)
    merged.update(answered)  # an answer replaces what was said before, 특약사항 included
    return model.model_validate(merged), problems


def _merge(into: dict[str, Any], found: dict[str, Any]) -> None:
    """A later source wins, except 특약사항, which add up across turns."""
    for name, value in found.items():
        if name == "special_terms":
            into[name] = [*into.get(name, []), *(t for t in value if t not in into.get(name, []))]
        else:
            into[name] = value


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


def keyed_fields(
    text: str,
    pattern: re.Pattern[str],
    keywords: Sequence[tuple[str | None, str]],
    today: date | None = None,
) -> dict[str, Any]:
    """The fields a sentence states after their keywords ("계약금 3천만원", "잔금 2025년 5월 31일에 …");
    a payment's date is read from its amount's words, the first mention of a field wins."""
    found: dict[str, Any] = {}
    for name, words in keyword_windows(text, pattern, keywords):
        value = _read_window(name, words, today)
        if value is not None and name not in found:
            found[name] = value
        if name in PAYMENT_DATES and (dates := spoken_dates(words, today)):
            found.setdefault(PAYMENT_DATES[name], dates[0].day)
    return found


def keyword_windows(
    text: str,
    pattern: re.Pattern[str] = KEYWORD_RE,
    keywords: Sequence[tuple[str | None, str]] = KEYWORDS,
) -> list[tuple[str, str]]:
    """(field, the words after its keyword up to the next keyword or the end of the clause)."""
    marks = list(pattern.finditer(text))
    windows = []
    for i, mark in enumerate(marks):
        name = keywords[int(str(mark.lastgroup)[1:])][0]
        stop = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        clause_end = CLAUSE_END.search(text, mark.end(), stop)
        if name is not None:
            windows.append((name, text[mark.end() : clause_end.start() if clause_end else stop]))
    return windows


def _read_window(name: str, words: str, today: date | None) -> Any:
    if name.endswith("_won"):
        amount = AMOUNT_RE.search(words)
        return parse_won(amount.group()) if amount else None
    if name.endswith("_date"):
        dates = spoken_dates(words, today)
        return dates[0].day if dates else None
    value = strip_ending(LEADING.sub("", words))
    if name.endswith("_name"):
        return person_name(value)
    return value or None


def take_special_terms(text: str, found: dict[str, Any]) -> str:
    """특약 run to the end of the text and may mention 보증금 or 잔금: read them first, then drop them."""
    match = SPECIAL_TERMS.search(text)
    if not match:
        return text
    items = [item.strip(" ,.") for item in SPECIAL_ITEM_END.split(match.group(1))]
    if terms := [item for item in items if item]:
        found["special_terms"] = terms
    return text[: match.start()]


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
        loose["rent_day"] = int(day.group(1))
    if reason := SHORT_REASON.search(text):
        loose["short_term_reason"] = reason.group(1).strip()
    if "broker_office" not in found and (broker := BROKER.search(text)):
        loose["broker_office"] = broker.group()
    return loose


def fields_from_answers(
    answers: Mapping[str, Any], model: type[BaseModel] = LeaseFields, today: date | None = None
) -> tuple[dict[str, Any], dict[str, str]]:
    """The person's answers to our questions, {field: text}; an answer that cannot be read is reported."""
    found: dict[str, Any] = {}
    problems: dict[str, str] = {}
    for name, raw in answers.items():
        text = str(raw).strip()
        if name not in model.model_fields or not text:
            continue
        try:
            values = read_answer(name, text, today)
        except (AmountError, DateError, ValueError) as unreadable:
            problems[name] = str(unreadable)
            continue
        if all(_is_valid(k, v, model) for k, v in values.items()):
            found.update(values)
        else:
            problems[name] = f"올바른 값이 아닙니다: {text!r}"
    return found, problems


def _is_valid(name: str, value: Any, model: type[BaseModel] = LeaseFields) -> bool:
    """A value the model accepts (매월 40일 or 0㎡ is read, then refused here, never stored)."""
    try:
        model.model_validate({name: value})
    except ValidationError:
        return False
    return True


def read_answer(name: str, text: str, today: date | None = None) -> dict[str, Any]:
    if name.endswith("_won"):
        return {name: parse_won(text)}
    if name in ("term_end", "term_months"):
        return _term_end_answer(text, today)
    if name.endswith("_date") or name == "term_start":
        return {name: parse_date(text, today)}
    if name == "rent_day":
        return {name: _day_of_month(text)}
    if name == "area_m2":
        return {name: area_m2(text)}
    if name == "special_terms":
        return {name: [line.strip() for line in SPECIAL_ITEM_END.split(text) if line.strip()]}
    return {name: text}


def _term_end_answer(text: str, today: date | None) -> dict[str, Any]:
    """The end of the term may be answered as a date or as a length ('2년')."""
    if spoken_dates(text, today):
        return {"term_end": parse_date(text, today)}
    if (months := parse_term_months(text)) is not None:
        return {"term_months": months}
    raise DateError(f"종료일이나 기간을 읽을 수 없습니다: {text!r} (예: 2027-02-28 또는 2년)")


def _day_of_month(text: str) -> int:
    day = re.search(r"\d{1,2}", text)
    if not day or not 1 <= int(day.group()) <= 31:
        raise ValueError(f"매월 며칠인지 읽을 수 없습니다: {text!r} (예: 25)")
    return int(day.group())


def area_m2(text: str) -> float:
    """'84.97㎡' or '25평' (1평 = 3.3058㎡); a bare number is taken as ㎡."""
    area = AREA.search(text)
    if area:
        size = float(area.group(1))
        return round(size * PYEONG_M2, 2) if area.group(2) == "평" else size
    return float(text)


def missing_fields(fields: LeaseFields) -> list[str]:
    """Required fields no source stated, plus those the stated ones make necessary."""
    missing = [name for name in REQUIRED if getattr(fields, name) is None]
    if fields.monthly_rent_won and fields.rent_day is None:
        missing.append("rent_day")
    if fields.interim_payment_won and fields.interim_payment_date is None:
        missing.append("interim_payment_date")
    return missing
