"""A form answered in words: the fields a step asked for, read from the message the person typed.

A run that waits for input has asked questions (field, label, hint): '임차주택 소재지', '임대차 시작일',
'임대차 종료일'. A person often answers them in a sentence instead of the form: "주소는 서울 서초구
반포대로 58, 301동 1502호이고 기간은 2026년 4월 1일부터 2년이에요". `form_answers` gives back, per asked
field, the text of its answer ({"address": "서울 서초구 반포대로 58, 301동 1502호", "term_start":
"2026-04-01", "term_end": "24개월"}), the shape of a filled form, so the step that asked reads and checks
it the same way. Dates said relatively ("다음 주 화요일부터") are resolved against the day the message was
typed and answered as ISO dates, so the step reads the day the person meant whenever it runs.
A message that carries none of the asked fields, or that asks something new without naming a field
("강남구 전세 시세 알려줘"), answers nothing: it is a question of its own.

What a question asks is read from its label (the words the person saw), so any step's form can be
answered; each subject has the words people use for it in a sentence (주소, 집주인, 기간 ...).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from enum import Enum

from contracts.results import Question
from services.housing.addresses import region_address
from services.housing.dates import SpokenDate, find_dates, parse_term_months, spoken_dates, without_dates
from services.housing.endings import strip_ending
from services.housing.money import find_money
from services.housing.names import person_name
from services.housing.text import normalize


class Kind(Enum):
    ADDRESS = "address"
    START = "start"  # the first day of a term
    END = "end"  # the last day of a term, or its length
    DATE = "date"
    DAY = "day"  # a day of the month
    NAME = "name"
    MONEY = "money"
    AREA = "area"
    TEXT = "text"


@dataclass(frozen=True)
class Subject:
    """What a question is about, known by its label, and the words that name it in a sentence."""

    label: re.Pattern[str]
    words: str
    kind: Kind


def _subject(label: str, words: str, kind: Kind) -> Subject:
    return Subject(re.compile(label), words, kind)


TERM_WORDS = r"계약\s*기간|임대차\s*기간|기간"
# First match wins: '차임 지급일' is a day of the month before it is 차임, '잔금 지급일' a date before 잔금.
SUBJECTS = (
    _subject(r"소재지|주소", r"주소지?|소재지|물건지", Kind.ADDRESS),
    _subject(r"시작일|인도일|입주일", rf"시작일?|인도일?|입주일?|{TERM_WORDS}", Kind.START),
    _subject(r"종료일|만료일", rf"종료일?|만료일?|{TERM_WORDS}", Kind.END),
    _subject(r"차임\s*지급일|월세\s*지급일", r"지급일|매월|매달", Kind.DAY),
    _subject(r"중도금\s*지급일", r"중도금", Kind.DATE),
    _subject(r"잔금\s*지급일", r"잔금", Kind.DATE),
    _subject(r"계약일", r"계약일|계약하는\s*날|계약(?:은|는|을|를)", Kind.DATE),  # "계약은 모레 하고"
    _subject(r"임대인", r"임대인|집주인", Kind.NAME),
    _subject(r"임차인", r"임차인|세입자", Kind.NAME),
    _subject(r"매도인", r"매도인|파는\s*사람", Kind.NAME),
    _subject(r"매수인", r"매수인|사는\s*사람", Kind.NAME),
    _subject(r"매매대금", r"매매\s*대금|매매가|매매\s*금액", Kind.MONEY),
    _subject(r"주택\s*가격", r"주택\s*가격|집값|매매가", Kind.MONEY),
    _subject(r"연소득", r"연소득|연봉|소득", Kind.MONEY),
    _subject(
        r"상환액|부채|기존\s*대출", r"기존\s*(?:대출|빚|부채)|다른\s*대출|대출|빚|부채|상환액?", Kind.MONEY
    ),
    _subject(r"보증금", r"보증금|전세금", Kind.MONEY),
    _subject(r"계약금", r"계약금", Kind.MONEY),
    _subject(r"중도금", r"중도금", Kind.MONEY),
    _subject(r"잔금", r"잔금", Kind.MONEY),
    _subject(r"차임|월세", r"월세|차임", Kind.MONEY),
    _subject(r"관리비", r"관리비", Kind.MONEY),
    _subject(r"면적", r"면적|평수|크기", Kind.AREA),
    _subject(r"임차할\s*부분", r"임차할\s*부분|동\s*호수|호수", Kind.TEXT),
    _subject(r"특약", r"특약\s*사항|특약", Kind.TEXT),
    _subject(r"중개", r"중개\s*(?:업소|사무소)|부동산", Kind.TEXT),
    _subject(r"사유|이유", r"사유|이유", Kind.TEXT),
)
DATED = (Kind.START, Kind.END, Kind.DATE)
# Every subject's words, so the words of one field end where the next field is named.
_MENTION = re.compile("|".join(sorted({s.words for s in SUBJECTS}, key=len, reverse=True)))
# Where a sentence ends, and with it the words of a field.
_SENTENCE_END = re.compile(r"[.!?\n](?!\d)|그리고")
# A comma ends free text, unless the building and unit follow ('58, 301동').
_COMMA = re.compile(r",(?!\s*\d+\s*[동호])")
_OPENING = re.compile(r"^\s*(?:은|는|이|가|을|를|의)?\s*[:=]?\s*")
_FROM = re.compile(r"\s*(?:부터|에\s*입주|~|에서)")  # right after a date, so not 서초구에서
_UNTIL = re.compile(r"까지")
_AREA = re.compile(r"\d+(?:\.\d+)?\s*(?:㎡|m2|m²|제곱미터|평)")
_DAY = re.compile(r"(?:매월|매달)?\s*(\d{1,2})\s*일")
# "없어요", "하나도 없습니다", "안 받았어요": nothing of it, 0 for a sum asked ('대출 없이' is not one).
_NONE = re.compile(r"없(?:어|습|음|고|다|는데|$)|안\s*(?:받|했|써|썼|갚|빌)|0\s*원")
# A message that asks something: a question of its own unless it names an asked field.
_ASKS = re.compile(
    r"\?|알려|어때|어떻|어떤|얼마|뭐|무엇|무슨|찾아|추천|분석|비교|시세|가능한|되나요|될까|할까|인가요|나요|까요|있나"
)


def form_answers(questions: Iterable[Question], message: str, today: date | None = None) -> dict[str, str]:
    """{field: the text of its answer} for every asked field the message answers; {} when it answers none
    (a new question, or words about something else). `today` is the day the message was typed."""
    text = normalize(message).strip()
    asked = [(q, subject) for q in questions if (subject := subject_of(q)) is not None]
    segments = _segments(text)
    named = {}
    for question, subject in asked:
        said = [words for mention, words in segments if re.fullmatch(subject.words, mention)]
        if value := next((v for words in said if (v := _read(subject.kind, words, today)) is not None), None):
            named[question.field] = value
    if not named and _ASKS.search(text):
        return {}
    found = dict(named)
    for question, subject in asked:
        if (
            question.field not in found
            and (value := _read_loose(subject.kind, text, asked, today)) is not None
        ):
            found[question.field] = value
    return found


def dated_answers(questions: Iterable[Question], answers: dict[str, str], today: date) -> dict[str, str]:
    """A filled form's answers, each date field said relatively ('내일', '다음 달 말') written as the ISO
    day it means on `today`, as `form_answers` gives it; a term's length ('2년') and the rest stay as
    typed."""
    dated = dict(answers)
    for question in questions:
        subject = subject_of(question)
        text = answers.get(question.field)
        if text and subject and subject.kind in DATED and (days := find_dates(text, today)):
            dated[question.field] = days[0]
    return dated


def subject_of(question: Question) -> Subject | None:
    return next((s for s in SUBJECTS if s.label.search(question.label)), None)


def _segments(text: str) -> list[tuple[str, str]]:
    """(the words that name a field, the words after them up to the next named field or sentence end)."""
    mentions = list(_MENTION.finditer(text))
    found = []
    for i, mention in enumerate(mentions):
        stop = mentions[i + 1].start() if i + 1 < len(mentions) else len(text)
        end = _SENTENCE_END.search(text, mention.end(), stop)
        found.append((mention.group(), _OPENING.sub("", text[mention.end() : end.start() if end else stop])))
    return found


def _read(kind: Kind, words: str, today: date | None) -> str | None:
    """The answer the words right after a field's name give, in the form the field is filled in."""
    match kind:
        case Kind.ADDRESS:
            return region_address(words) or _free_text(words)
        case Kind.START | Kind.END:
            return _term(kind, words, today)
        case Kind.DATE:
            dates = find_dates(words, today)
            return dates[0] if dates else None
        case Kind.DAY:
            day = _DAY.search(words)
            return day.group(1) if day and 1 <= int(day.group(1)) <= 31 else None
        case Kind.NAME:  # "임대인은 홍길동, 임차인은 …": the name ends at the comma
            return person_name(_COMMA.split(words)[0])
        case Kind.MONEY:
            return _sum(words)
        case Kind.AREA:
            area = _AREA.search(words)
            return area.group() if area else None
        case Kind.TEXT:
            return _free_text(words)


def _read_loose(
    kind: Kind, text: str, asked: list[tuple[Question, Subject]], today: date | None
) -> str | None:
    """An answer given without naming its field, taken only where it cannot be another field's."""
    kinds = [subject.kind for _, subject in asked]
    match kind:
        case Kind.ADDRESS:
            address = region_address(text)
            return address if address and re.search(r"\d", address) else None
        case Kind.START | Kind.END:
            return _term(kind, text, today)
        case Kind.MONEY if kinds.count(Kind.MONEY) == 1:
            return _sum(text) if len(find_money(text)) <= 1 else None
        case Kind.NAME if kinds.count(Kind.NAME) == 1:
            words = text.split()
            return person_name(text) if len(words) == 1 else None  # '정미경이요' alone
        case Kind.AREA:
            return _read(kind, text, today)
    return None


def _sum(words: str) -> str | None:
    """A sum in won, or 0 when the words say there is none ("기존 대출은 하나도 없어요")."""
    amounts = find_money(words)
    return f"{amounts[0].won:,}원" if amounts else _none(words)


def _none(words: str) -> str | None:
    """ "0" (what the form takes for none) when the words say there is none of it; never in a message that
    asks something."""
    return "0" if _NONE.search(words) and not _ASKS.search(words) else None


def _term(kind: Kind, words: str, today: date | None) -> str | None:
    """A term's start (an ISO date) or end (an ISO date, or its length in months) from "2026년 4월 1일부터
    2년", "2026.4.1 ~ 2028.3.31", "2028년 3월 31일까지", "다음 주 화요일부터 2년", "2년"; a lone date is
    the start."""
    dates = spoken_dates(words, today)
    if since := next((d for d in dates if _FROM.match(words, d.end)), None):
        if kind is Kind.START:
            return _iso(since)
        ends = [d for d in dates if d.start > since.end]
        return _iso(ends[0]) if ends else _months(words[since.end :], today)
    if until := _UNTIL.search(words):  # '2028년 3월 31일까지': the last date before 까지 is the end
        dates = [d for d in dates if d.end <= until.start()]
        if kind is Kind.END:
            return _iso(dates[-1]) if dates else None
        return _iso(dates[0]) if len(dates) > 1 else None
    if kind is Kind.START:
        return _iso(dates[0]) if dates else None
    return _iso(dates[1]) if len(dates) > 1 else _months(words, today)


def _iso(spoken: SpokenDate) -> str:
    return spoken.day.isoformat()


def _months(words: str, today: date | None) -> str | None:
    months = parse_term_months(without_dates(words, today))
    return f"{months}개월" if months else None


def _free_text(words: str) -> str | None:
    clause = _COMMA.split(words, maxsplit=1)[0]
    value = strip_ending(clause)
    return value or None
