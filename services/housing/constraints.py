"""Conditions a person puts on the homes they look for, beyond place, kind, price and size: how many
households a complex has (세대수), when it was built (준공), how far a station is on foot, and the
conditions the listings cannot tell ("주차 2대", "반려동물").

    read_constraints("송파구 1,500세대 넘는 아파트, 지하철 도보 7분 안쪽", today)
      -> households_min=1501, walk_max_min=7

How a bound reads: 넘는/초과/넘게 exclude the figure (1,500세대 넘는 -> 1,501 and up), 이상/이후/부터
include it, 이하/이내/까지/안쪽 include it, 미만/전에/안 되는 exclude it. Ages count from the year the
question was asked (`today`, the turn's own time, so a replay reads the same): "준공 10년 이내" in 2026
is 2016 and later, "지은 지 10년 안 된" (younger than ten) 2017 and later. Where a word stands for a
bound by convention (대단지, 신축, 역세권), the bound used is said in `said`, so the answer can show it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date

from contracts.entities import Ranking
from services.housing.text import normalize

# How a number is written before 세대: "1,500", "1500", "2천", "1천5백", "천"
_COUNT = r"(?P<n>\d[\d,]*(?:\s*천(?:\s*\d\s*백)?)?|천|\d+\s*백)"
_MORE = r"넘는|넘은|넘게|넘어|초과|보다\s*많|이상|부터|넘"
_LESS = r"미만|안\s*되는|안\s*된|아래|보다\s*적|이하|까지|이내|안쪽|안"
_CMP = rf"(?P<cmp>{_MORE}|{_LESS})"
_COUNT_BEFORE_UNIT = _COUNT.replace("?P<n>", "?P<n2>")
_HOUSEHOLDS = re.compile(
    rf"(?:세대\s*수\s*(?:가|는|이)?\s*{_COUNT}\s*(?:세대)?|{_COUNT_BEFORE_UNIT}\s*세대(?:\s*수)?)"
    rf"\s*(?:가|이|는|짜리)?\s*{_CMP}"
)
_BIG_COMPLEX = re.compile(r"대단지")
BIG_COMPLEX_HOUSEHOLDS = 1000  # 대단지: 1,000세대 이상, as listings and news use the word

_BUILT = r"(?:준공|지어|지은|건축|완공|입주|신축|연식|년식|건물)"
_YEAR = r"(?P<y>(?:19|20)\d{2})\s*년"
_YEARS_BETWEEN = re.compile(
    r"(?P<a>(?:19|20)\d{2})\s*년\s*(?:부터|~|-|에서)\s*(?P<b>(?:19|20)\d{2})\s*년\s*(?:사이|까지)?"
)
_YEAR_BOUND = re.compile(
    rf"{_YEAR}\s*(?:도\s*)?(?P<cmp>이후|부터|이상|넘어서|뒤|이전|전에|전|까지|이하|이내)"
)
_AGE = re.compile(
    r"(?P<n>\d{1,2})\s*년\s*(?:차\s*)?(?P<cmp>이내|안쪽|내외|안\s*된|안\s*넘은|미만|이하|내|넘은|넘는|이상\s*된|이상|초과|된)"
)
_NEW_BUILD = re.compile(r"신축")
NEW_BUILD_YEARS = 5  # 신축: 준공 5년 이내, as the word is commonly used
_CONVENTIONS = ("대단지", "신축", "역세권")  # how `said` begins for a bound read by convention

_WALK = re.compile(
    r"(?:도보|걸어서|걸어|역\s*(?:에서|까지|부터)?|역세권)\s*(?:로|으로)?\s*(?P<n>\d{1,2})\s*분"
    r"\s*(?:거리)?\s*(?:이내|안쪽|안|이하|까지|내|정도|쯤|거리)?"
)
_STATION_AREA = re.compile(r"역세권")
STATION_AREA_WALK_MIN = 10  # 역세권 with no minutes: 도보 10분 이내

# Conditions people put on a home that the listings snapshot has no column for.
# A superlative asked ("역에서 제일 가까운", "제일 싼"), or a comparative ("어디가 역에서 더 가까워요?"):
# it orders what is found, best first.
_MOST = r"(?:제일|가장|젤|최고로|더)\s*"
_RANKINGS: tuple[tuple[Ranking, re.Pattern[str]], ...] = (
    (Ranking.CHEAPEST, re.compile(rf"{_MOST}(?:싼|싸|저렴)|최저가")),
    (Ranking.PRICIEST, re.compile(rf"{_MOST}비싼|최고가")),
    # "지하철역 가까운 데 있어요?": near a station asks the nearest first, with or without 제일
    (Ranking.NEAREST, re.compile(rf"{_MOST}가까|역\S{{0,3}}\s*가까운\s*(?:곳|데|단지|집|거|순)")),
    (
        Ranking.LARGEST,
        re.compile(rf"세대\s*수?\S{{0,2}}\s*{_MOST}많|{_MOST}(?:큰|많은)\s*단지|{_MOST}대단지"),
    ),
    (
        Ranking.SMALLEST,
        re.compile(rf"세대\s*수?\S{{0,2}}\s*{_MOST}적|{_MOST}(?:작은|적은)\s*단지|{_MOST}소단지"),
    ),
    (Ranking.NEWEST, re.compile(rf"{_MOST}(?:새|신축|최근|최신|늦게)")),
    (
        Ranking.OLDEST,
        re.compile(rf"{_MOST}(?:오래\s*(?:된|됐|되)|낡은|옛날|일찍\s*지)|연식이?\s*{_MOST}(?:오래|높)"),
    ),
)

_NOT_IN_DATA: tuple[tuple[str, str], ...] = (
    ("주차", r"주차"),
    ("엘리베이터", r"엘리베이터|엘베|승강기"),
    ("반려동물", r"반려\s*(?:동물|견|묘)|애완|강아지|고양이"),
    ("옵션", r"풀\s*옵션|옵션"),
    ("향", r"남향|동향|서향|북향|남동향|남서향"),
    ("층", r"로얄\s*층|고층|저층|탑층|반지하"),
    ("조망", r"한강\s*뷰|조망|전망|뷰\s*좋"),
    ("학군", r"초품아|학군|학교\s*(?:가까|근처|옆|앞)"),
    ("방 개수", r"방\s*(?:\d|한|두|세|네)\s*(?:개|칸)|(?:투|쓰리)\s*룸|방\s*[2-4]\s*개"),
    ("관리 상태", r"리모델링|올수리|수리\s*된|인테리어"),
)


@dataclass(frozen=True)
class Constraints:
    households_min: int | None = None
    households_max: int | None = None
    built_year_min: int | None = None
    built_year_max: int | None = None
    walk_max_min: int | None = None
    not_in_data: tuple[str, ...] = ()  # conditions named that no listing column can check
    said: tuple[str, ...] = field(default=())  # each bound read, as the answer says it
    ranked_by: Ranking | None = None


def rankings_asked(text: str) -> list[Ranking]:
    """Every superlative or comparative the text asks for, in the catalogue's order: "제일 싼 거랑 제일
    비싼 거" asks two, and no one listing answers it."""
    return [r for r, words in _RANKINGS if words.search(normalize(text))]


# A figure set side by side with no direction ("반포자이 vs 래미안퍼스티지 세대수 비교"): compared by it,
# in the order people mean by it (more households, newer, nearer first).
_COMPARED = re.compile(r"비교|차이|\bvs\b|대비|어때|어떤가", re.IGNORECASE)
_FIGURES_COMPARED: tuple[tuple[Ranking, re.Pattern[str]], ...] = (
    (Ranking.LARGEST, re.compile(r"세대\s*수|규모")),
    (Ranking.NEWEST, re.compile(r"준공|연식|연차|지어진\s*(?:해|연도|년도)")),
    (Ranking.NEAREST, re.compile(r"역\s*(?:까지|에서)?\s*(?:거리|도보)|역세권|지하철\s*거리")),
)


def figure_compared(text: str) -> Ranking | None:
    """The figure a comparison is asked by when it names one and no direction ('세대수 비교')."""
    text = normalize(text)
    if not _COMPARED.search(text):
        return None
    return next((r for r, words in _FIGURES_COMPARED if words.search(text)), None)


def read_constraints(text: str, today: date | None = None) -> Constraints:
    """The conditions the text puts on complexes; nothing when it puts none. Ages need `today`."""
    text = normalize(text)
    households = _households(text)
    built = _built_years(text, today)
    walk = _walk(text)
    said = tuple(s for s in (households[2], built[2], walk[1]) if s)
    missing = tuple(name for name, words in _NOT_IN_DATA if re.search(words, text))
    ranked = next(iter(rankings_asked(text)), None) or figure_compared(text)
    return Constraints(households[0], households[1], built[0], built[1], walk[0], missing, said, ranked)


def stated_with_figures(said: Iterable[str]) -> bool:
    """Whether a condition read was stated with a figure ("1,500세대", "도보 7분"): only a listing search
    asks that. A word read by convention (대단지, 신축, 역세권) also turns up in questions of law ("신축
    아파트 하자보수는 몇 년?")."""
    return any(not s.startswith(_CONVENTIONS) for s in said)


def _count(written: str) -> int | None:
    """'1,500' -> 1500, '2천' -> 2000, '1천5백' -> 1500, '천' -> 1000, '5백' -> 500."""
    w = re.sub(r"[\s,]", "", written)
    m = re.fullmatch(r"(\d*)천(?:(\d)백)?|(\d+)백|(\d+)", w)
    if not m:
        return None
    if m[4]:
        return int(m[4])
    if m[3]:
        return int(m[3]) * 100
    return int(m[1] or 1) * 1000 + int(m[2] or 0) * 100


def _bound(n: int, cmp: str) -> tuple[int | None, int | None]:
    """(low, high), both inclusive, for "n <cmp>"."""
    cmp = re.sub(r"\s", "", cmp)
    if re.fullmatch(r"넘는|넘은|넘게|넘어|초과|보다많|넘", cmp):
        return n + 1, None
    if re.fullmatch(r"이상|부터", cmp):
        return n, None
    if re.fullmatch(r"미만|안되는|안된|아래|보다적|안", cmp):
        return None, n - 1
    return None, n


# A bound the person rules out, with a word or two between ("300세대 미만은 빼고", "10년 넘은 곳은
# 제외", "2010년 이전 준공은 말고"): its complement is asked.
_RULED_OUT = re.compile(r"\s*(?:[가-힣]{1,4}\s*){0,2}?(?:은|는|도)?\s*(?:빼|제외|말고|싫)")


def _kept(low: int | None, high: int | None, text: str, m: re.Match[str]) -> tuple[int | None, int | None]:
    """The bound read, or its complement when the words after it rule it out."""
    if not _RULED_OUT.match(text, m.end()):
        return low, high
    return (None, low - 1) if low is not None else (None if high is None else high + 1, None)


def _households(text: str) -> tuple[int | None, int | None, str | None]:
    if m := _HOUSEHOLDS.search(text):
        n = _count(m["n"] or m["n2"])
        if n:
            low, high = _kept(*_bound(n, m["cmp"]), text, m)
            return low, high, _households_said(n, low, high)
    if _BIG_COMPLEX.search(text):
        return BIG_COMPLEX_HOUSEHOLDS, None, f"대단지(세대수 {BIG_COMPLEX_HOUSEHOLDS:,}세대 이상)"
    return None, None, None


def _households_said(n: int, low: int | None, high: int | None) -> str:
    if low is not None:
        return f"세대수 {n:,}세대 {'이상' if low == n else '초과'}"
    return f"세대수 {n:,}세대 {'이하' if high == n else '미만'}"


def _years_said(low: int | None, high: int | None) -> str:
    return f"준공 {low}년 이후" if low is not None else f"준공 {high}년 이전"


def _built_years(text: str, today: date | None) -> tuple[int | None, int | None, str | None]:
    """Completion-year bounds: years written beside a word of building, or an age from `today`."""
    if (m := _YEARS_BETWEEN.search(text)) and _near_built(text, m):
        first, last = sorted((int(m["a"]), int(m["b"])))
        return first, last, f"준공 {first}~{last}년"
    if (m := _YEAR_BOUND.search(text)) and _near_built(text, m):
        year, cmp = int(m["y"]), m["cmp"]
        if cmp in ("이후", "부터", "이상", "넘어서", "뒤"):
            since, until = _kept(year, None, text, m)
        else:
            since, until = _kept(None, year - 1 if cmp in ("전에", "전") else year, text, m)
        return since, until, _years_said(since, until)
    if today is None:
        return None, None, None
    if (m := _AGE.search(text)) and _near_built(text, m):
        n, cmp = int(m["n"]), re.sub(r"\s", "", m["cmp"])
        low, high = _kept(*_age_bound(n, cmp, today), text, m)
        if _RULED_OUT.match(text, m.end()):  # "10년 넘은 건 빼고": the complement, said as years
            return low, high, _years_said(low, high)
        if low is None:
            over = "넘음" if cmp in ("넘은", "넘는", "초과") else "이상"
            return None, high, f"준공 {n}년 {over}(준공 {high}년 이전)"
        return low, None, f"준공 {n}년 이내(준공 {low}년 이후)"
    if _NEW_BUILD.search(text):
        low = today.year - NEW_BUILD_YEARS
        return low, None, f"신축(준공 {NEW_BUILD_YEARS}년 이내, {low}년 이후)"
    return None, None, None


def _age_bound(n: int, cmp: str, today: date) -> tuple[int | None, int | None]:
    """Completion years (low, high) of "n년 <cmp>" counted back from `today`."""
    if cmp in ("넘은", "넘는", "초과"):
        return None, today.year - n - 1
    if cmp in ("이상된", "이상", "된"):
        return None, today.year - n
    return (today.year - n + 1 if cmp in ("안된", "안넘은", "미만") else today.year - n), None


def _near_built(text: str, m: re.Match[str]) -> bool:
    """A year or an age is about the building only with a word of building within a few words."""
    return bool(re.search(_BUILT, text[max(0, m.start() - 12) : m.end() + 14]))


def _walk(text: str) -> tuple[int | None, str | None]:
    if m := _WALK.search(text):
        return int(m["n"]), f"역까지 도보 {int(m['n'])}분 이내"
    if _STATION_AREA.search(text):
        return STATION_AREA_WALK_MIN, f"역세권(역까지 도보 {STATION_AREA_WALK_MIN}분 이내)"
    return None, None
