"""Time since a lease event as people say it (경과 기간): "재계약한 지 6개월", "계약한지 8개월", "올린 지
반년", "1년 반 전에 올렸", "재계약한 게 석 달 전", "재계약 후 4개월 만에". It is what the rule that an
increase may not be asked within a year of the contract or of the last increase needs (주택임대차보호법
제7조① 후단, 시행령 제8조②).

An event is a contract (계약, 재계약, 갱신, 연장), an increase (올린, 인상, 증액) or a move (이사, 입주,
들어온 지, 산 지). A duration is read in months: "6개월", "8달", "석 달", "반년", "1년 반", "1년 2개월",
"일 년", "3주". "1년이 안 됐", "1년 다 돼 가", "거의 1년" and "1년 가까이" are less than that (`under`);
"6개월밖에 안 됐" is that much. A term ("2년 계약"), a time to come ("만료 6개월 전에") and a duration
with no event are not elapsed times.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from contracts.entities import LeaseEvent as Event
from services.housing.text import normalize

# The event named as the person named it ("재계약", "갱신"), else by its kind.
_EVENT_WORD = re.compile(r"재계약|갱신|연장|계약|입주|이사")
_EVENT_NAMES: dict[Event, str] = {"contract": "계약", "increase": "직전 인상", "move_in": "입주"}

_WORD_COUNTS = {
    "한": 1,
    "두": 2,
    "세": 3,
    "석": 3,
    "네": 4,
    "넉": 4,
    "다섯": 5,
    "여섯": 6,
    "일곱": 7,
    "여덟": 8,
    "아홉": 9,
    "열": 10,
    "열한": 11,
    "열두": 12,
}
_WORD_COUNT = r"(?<![가-힣])(?:열한|열두|다섯|여섯|일곱|여덟|아홉|열|한|두|세|석|네|넉)"
_DURATION = (
    r"(?:(?<![가-힣])(?P<half_year>반\s*년)"
    r"|(?:(?<![\d.])(?P<years>\d{1,2})|(?<![가-힣])(?P<one_year>일|한))\s*(?:년|해)"
    r"(?:\s*(?P<year_half>반)|\s*(?P<year_months>\d{1,2})\s*(?:개월|달))?"
    r"|(?<![\d.])(?P<months>\d{1,3})\s*(?:개월|달)(?:\s*(?P<month_half>반))?"
    rf"|(?P<count>{_WORD_COUNT})\s*달"
    rf"|(?:(?<![\d.])(?P<weeks>\d{{1,2}})|(?P<word_weeks>{_WORD_COUNT}))\s*주(?:일)?)"
)
# Each event as a word that can stand before 지 / 게 ("재계약한", "올린", "이사 온") and as a past
# verb after "N개월 전에" ("재계약했", "올렸", "이사 왔").
_BEFORE_WORDS: dict[Event, str] = {
    "contract": r"(?:재계약|계약|갱신|연장)\s*(?:을\s*|이\s*)?(?:한|된|하고\s*난|했던|해\s*준|해\s*드린)",
    "increase": r"(?:올린|올려\s*(?:준|드린|받은|주고\s*난)|인상\s*(?:한|된|해\s*준)|증액\s*(?:한|된)|오른)",
    "move_in": r"(?:이사\s*(?:온|한|간|들어온)|입주\s*(?:한|된)|들어온|들어간|살기\s*시작한|(?<![가-힣])산)",
}
_NOUNS: dict[Event, str] = {
    "contract": r"(?:재계약|계약|갱신|연장)",
    "increase": r"(?:인상|증액)",
    "move_in": r"(?:이사|입주)",
}
_PAST_WORDS: dict[Event, str] = {
    "contract": r"(?:재계약|계약|갱신|연장)\s*(?:을|를|이)?\s*(?:했|됐|되었|하였)",
    "increase": r"(?:올렸|올려\s*(?:줬|주었|드렸|받았)|인상\s*(?:했|됐|되었|해\s*줬)|증액\s*(?:했|됐)|올랐)",
    "move_in": r"(?:이사\s*(?:왔|했|들어왔)|입주\s*했|들어왔|들어갔)",
}
_CLAUSE = r"[^,.?!\n]"
# After the duration: that much ("6개월밖에 안 됐", "8개월 됐") or less ("1년이 안 됐", "1년 다 돼 가").
_ONLY = re.compile(r"\s*(?:이|가)?\s*(?:밖에|뿐)")
_LESS_AFTER = re.compile(
    r"\s*(?:이|가|은|는)?\s*(?:채\s*)?(?:조금\s*|좀\s*|아직\s*)?"
    r"(?:안\s*(?:됐|되|돼|지났|지나|넘)|못\s*(?:됐|되|돼|넘)|덜\s*(?:됐|되|돼)|다\s*(?:돼|되|되어)\s*가|가까이|미만)"
)
_LESS_BEFORE = re.compile(r"(?:거의|채|아직)\s*$")
# A time to come: "만료 6개월 전에", "만기 2개월 전까지".
_TO_COME = re.compile(r"(?:만료|만기|종료|끝나기|끝날\s*때)\s*$")


@dataclass(frozen=True)
class Elapsed:
    """The time since an event, in months; `under` says less than that ("1년이 안 됐")."""

    event: Event
    months: float
    under: bool
    text: str  # as written: "재계약한지 6개월"

    @property
    def name(self) -> str:
        """The event in a word: "재계약", "갱신", "계약", "직전 인상", "입주"."""
        said = _EVENT_WORD.search(self.text) if self.event != "increase" else None
        return said.group() if said else _EVENT_NAMES[self.event]

    def at_least(self, months: float) -> bool:
        """Whether at least `months` have passed: "1년 넘었" yes, "1년이 안 됐" no, "1년 됐" yes."""
        return self.months > months or (self.months == months and not self.under)

    @property
    def words(self) -> str:
        """The time in words: "6개월", "1년 6개월", "1년 미만"."""
        return months_text(self.months) + (" 미만" if self.under else "")


def elapsed_since(text: object) -> list[Elapsed]:
    """Every time since an event the text states, in the order written."""
    text = normalize(text)
    found: list[tuple[int, Elapsed]] = []
    for event in _BEFORE_WORDS:
        for pattern in _patterns(event):
            for m in pattern.finditer(text):
                if _TO_COME.search(text[max(0, m.start() - 8) : m.start()]):
                    continue
                months = _months(m)
                if months is None:
                    continue
                under = bool(
                    not _ONLY.match(text, m.end("duration"))
                    and (
                        _LESS_AFTER.match(text, m.end("duration"))
                        or _LESS_BEFORE.search(text[max(0, m.start("duration") - 4) : m.start("duration")])
                    )
                )
                found.append((m.start(), Elapsed(event, months, under, m.group().strip())))
    found.sort(key=lambda hit: hit[0])
    return _without_overlaps(found)


def months_since_last(text: object, events: tuple[Event, ...] = ("contract", "increase")) -> Elapsed | None:
    """The time since the latest of `events` the text states (the least time); a move counts as the
    contract's start only when no contract or increase is named."""
    said = elapsed_since(text)
    named = [e for e in said if e.event in events] or [e for e in said if e.event == "move_in"]
    return min(named, key=lambda e: (e.months, not e.under)) if named else None


def months_text(months: float) -> str:
    """12 -> "1년", 18 -> "1년 6개월", 6 -> "6개월", 0.75 -> "3주"."""
    if months < 1:
        return f"{round(months * 52 / 12)}주"
    whole = round(months)
    years, rest = divmod(whole, 12)
    parts = ([f"{years}년"] if years else []) + ([f"{rest}개월"] if rest or not years else [])
    return " ".join(parts)


def _patterns(event: Event) -> list[re.Pattern[str]]:
    duration = rf"(?P<duration>{_DURATION})"
    before, noun, past = _BEFORE_WORDS[event], _NOUNS[event], _PAST_WORDS[event]
    return [
        # "재계약한 지 6개월", "올린 지 반년", "이사 온 지 2년"
        re.compile(rf"{before}\s*지\s*(?:(?:벌써|이제|아직|겨우|고작|거의|한)\s*)?{duration}"),
        # "재계약한 게 석 달 전", "올린 건 1년 전"
        re.compile(rf"{before}\s*(?:게|것이|것은|건|때가)\s*(?:(?:벌써|거의|한)\s*)?{duration}\s*전"),
        # "1년 반 전에 올렸", "6개월 전에 재계약했는데"
        re.compile(rf"{duration}\s*(?:정도|쯤|가량)?\s*전에?\s*{_CLAUSE}{{0,16}}?{past}"),
        # "재계약 후 6개월밖에 안 됐", "재계약하고 4개월 만에", "계약 이후 8개월째"
        re.compile(
            rf"{noun}\s*(?:(?:을|를)\s*)?(?:한\s*|하고\s*|된\s*)?(?:후|이후|뒤|하고|되고)\s*{duration}"
            r"(?=\s*(?:이|가)?\s*(?:밖에|뿐|만에|째|됐|되었|돼|지났|지난|넘었|넘게|안\s*됐|안\s*되|인데))"
        ),
    ]


def _months(m: re.Match[str]) -> float | None:
    if m["half_year"]:
        return 6.0
    if m["years"] or m["one_year"]:
        years = int(m["years"]) if m["years"] else 1
        extra = 6 if m["year_half"] else int(m["year_months"] or 0)
        return float(years * 12 + extra)
    if m["months"]:
        return int(m["months"]) + (0.5 if m["month_half"] else 0.0)
    if m["count"]:
        return float(_WORD_COUNTS[m["count"]])
    weeks = int(m["weeks"]) if m["weeks"] else _WORD_COUNTS.get(m["word_weeks"] or "")
    return weeks * 12 / 52 if weeks else None


def _without_overlaps(found: list[tuple[int, Elapsed]]) -> list[Elapsed]:
    """One reading per place: two patterns matching the same words give the first."""
    kept: list[Elapsed] = []
    end = -1
    for start, elapsed in found:
        if start >= end:
            kept.append(elapsed)
            end = start + len(elapsed.text)
    return kept
