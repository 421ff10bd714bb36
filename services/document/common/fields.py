"""How a form's fields are collected, the same for every document: a free Korean sentence read field by
field after its keywords, the person's answers to our questions read by each field's kind, and the sources
merged in order (`gather`), a later word overriding an earlier one. Each document names its own fields,
keywords and required ones (lease/fields.py, sale/fields.py, loan/applicant.py); nothing is guessed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from services.housing.area import PYEONG_M2
from services.housing.dates import DateError, parse_date, parse_term_months, spoken_dates
from services.housing.endings import strip_ending
from services.housing.money import AmountError, parse_won
from services.housing.names import person_name
from services.housing.text import normalize
from services.housing.vocabulary import HOME_DEBT_WORDS

Form = TypeVar("Form", bound=BaseModel)

NUM = r"(?<![\d.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
NOT_DATE = r"(?!\s*(?:년|월|일|개월|평|㎡|%|[./-]\s*\d)|[\d.,])"
UNIT = r"(?:조|억|천만|백만|십만|만|천|백|십)"
AMOUNT = rf"{NUM}{NOT_DATE}\s*{UNIT}?(?:\s*{NUM}{NOT_DATE}\s*{UNIT}?)*(?:\s*원)?"
AMOUNT_RE = re.compile(AMOUNT)
# A clause ends at a comma or period that is not inside a number or a date, or at a line break.
CLAUSE_END = re.compile(r",(?!\d{3})|\.(?!\s*\d)|[;\n]|그리고")
LEADING = re.compile(r"^[\s:=]*(?:(?:의\s*)?(?:성명|이름)\s*)?(?:(?:은|는|이|가|을|를)(?=\s)|[:=])?\s*")
SPECIAL_TERMS = re.compile(r"특약\s*(?:사항)?\s*(?:은|는|으로|:)?\s*(.+)", re.DOTALL)
SPECIAL_ITEM_END = re.compile(r"[;\n]|(?<![\d.])\d+[.)](?!\d)")
AREA = re.compile(r"(\d+(?:\.\d+)?)\s*(㎡|m2|m²|제곱미터|평)")
BROKER = re.compile(r"[가-힣A-Za-z0-9]+공인중개사(?:사무소)?")
MORTGAGE = re.compile(HOME_DEBT_WORDS)
# The day each payment is made, read from its amount's words ("계약금 1억은 내일 주고"): 계약금 is paid on
# the day the contract is made, so its day is the 계약일.
PAYMENT_DATES = {
    "down_payment_won": "contract_date",
    "interim_payment_won": "interim_payment_date",
    "balance_won": "balance_date",
}


def keyword_pattern(keywords: Sequence[tuple[str | None, str]]) -> re.Pattern[str]:
    """One pattern for a keyword table; the group that matched names the row."""
    return re.compile("|".join(f"(?P<k{i}>{pattern})" for i, (_, pattern) in enumerate(keywords)))


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
    pattern: re.Pattern[str],
    keywords: Sequence[tuple[str | None, str]],
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
    if name.endswith("_won"):  # in digits or in words ("보증금 천만원", "월세 육십")
        amount = AMOUNT_RE.search(normalize(words))
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


def fields_from_answers(
    answers: Mapping[str, Any], model: type[BaseModel], today: date | None = None
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


def _is_valid(name: str, value: Any, model: type[BaseModel]) -> bool:
    """A value the model accepts (매월 40일 or 0㎡ is read, then refused here, never stored)."""
    try:
        model.model_validate({name: value})
    except ValidationError:
        return False
    return True


def read_answer(name: str, text: str, today: date | None = None) -> dict[str, Any]:
    """One answer read by its field's kind, told by its name: money (`_won`), a date, the term's end
    (a date or a length), the rent's day of the month, an area, 특약 one a line; else the text as said."""
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
    """'25일', '매월 25일', '말일' (31: every month's last day)."""
    if re.search(r"말일|월말|마지막\s*날", text):
        return 31
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
