"""The place names Jipsa knows: Seoul's 25 districts (구), and the legal dongs (법정동) and subway stations
of the listings data, with the 구 each dong lies in.

Places are found longest name first and a found name's characters are not read again, so "강남구청역"
is a station and not also 강남구, and "역삼역" is a station and not also 역삼동. A short name without
its suffix ("강남", "역삼", "서초") means the district or dong, never the station: a station is named
with 역. Where a short name is both a 구 and a 동 ("서초", "송파"), the 구 is meant.
"""

from __future__ import annotations

import csv
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

SEOUL_GU = (
    "강남구", "강동구", "강북구", "강서구", "관악구", "광진구", "구로구", "금천구", "노원구", "도봉구",
    "동대문구", "동작구", "마포구", "서대문구", "서초구", "성동구", "성북구", "송파구", "양천구", "영등포구",
    "용산구", "은평구", "종로구", "중구", "중랑구",
)  # fmt: skip

LISTINGS_DIR = Path(__file__).resolve().parents[2] / "infra" / "seed" / "listings"
REGIONS_FILE = Path(__file__).resolve().parents[2] / "infra" / "seed" / "rules" / "regions.toml"
LISTING_FILES = ("complexes.csv", "one_rooms.csv")

# Short names that are also everyday words (신원 identity, 동작 motion, 일원 a member,
# 방이 "the room"): only their full names count.
AMBIGUOUS_SHORT_NAMES = frozenset({"중", "신원", "일원", "동작", "삼전", "자곡", "우면", "신천", "방이"})
# What may follow a short name for it to be a place: nothing, a particle, or a housing word.
_AFTER_SHORT = (
    r"(?=$|[\s,.?!~]|에서|에|의|은|는|이|가|을|를|도|랑|이랑|와|과|쪽"
    r"|근처|주변|인근|일대|권|아파트|오피스텔|원룸|빌라)"
)


# What may follow a complex's name for it to be the name and not part of a longer word ("테헤란로" is
# a road, not the complex 테헤란): nothing, a non-letter, a particle or a housing word.
_AFTER_COMPLEX = (
    r"(?=$|[^가-힣A-Za-z0-9]|에서|에|의|은|는|이|가|을|를|도|랑|와|과|하고|보다|까지|쪽|근처|주변|아파트|오피스텔|단지"
    r"|매매|전세|월세|단기|시세|호가|가격|실거래|값|몇)"
)
MIN_NAME_ALONE = 3  # a shorter complex name (현대, 우성, 장미) means a complex only beside its 동 or 구
# A short name is often an everyday word too ("제일 싼", "수정해 주세요", "청구할 수"): it is the complex
# only followed by a housing word, a particle that ends the word, or nothing.
_AFTER_SHORT_COMPLEX = (
    r"(?=\s*(?:$|[?!.,~]|아파트|오피스텔|단지|매매|전세|월세|단기|시세|호가|가격|실거래|값|몇)"
    r"|(?:은|는|이|가|도|랑|이랑|하고|와|과|의|보다|쪽|근처|주변)(?:$|[\s?!.,~]))"
)


# A complex of a series ("타워팰리스1차", "타워팰리스2차(주상복합)") is named by its series too.
_SERIES = re.compile(r"(?:\d+(?:,\d+)*\s*차)?(?:\([^)]*\))?$")


def series_of(name: str) -> str:
    """The series a complex belongs to, spacing aside: '타워팰리스1차(주상복합)' -> '타워팰리스'; a name of
    no series is its own."""
    return _SERIES.sub("", compact(name)) or compact(name)


def written_name(text: str, name: str) -> str | None:
    """How the text names the complex: by its whole name, or else by its series; None if neither."""
    if named_as_word(text, name):
        return compact(name)
    series = series_of(name)
    if series != compact(name) and len(series) >= MIN_NAME_ALONE and named_as_word(text, series):
        return series
    return None


# "은마아파트": a name right before 아파트; an adjective ("좋은", "오래된") or a kind or place is none.
_NAMED_APARTMENT = re.compile(r"(?<![가-힣A-Za-z0-9])(?P<name>[가-힣]{2,8})\s?아파트")
_EVERYDAY_BEFORE_APARTMENT = re.compile(
    r"신축|구축|새|헌|우리|저희|이|그|저|이런|그런|저런|어떤|무슨|다른|같은|근처|주변|동네|역세권|대단지|소형|중형"
    r"|대형|브랜드|고층|저층|주상복합|임대|분양|공공|민간|국민|재건축|재개발|노후|일반|서울|수도권|지방|전세|월세"
    r"|매매|나홀로|복도식|계단식|판상형|타워형|아파트|빌라|단지|구축|연식|요즘|최근|강남|강북|도심|신도시|시세"
    r"|.*(?:은|는|운|된|한|진|던|싼|큰|인|난|온|간|좋|나쁜|낡은|넓은|좁은|같은)"
    r"|.*(?:짜리|개|평|평형|평대|형|룸)"  # "방 두 개짜리 아파트", "30평대 아파트": a size, not a name
)


def compact(text: str) -> str:
    """The text without spaces: names are compared spacing aside ("잠실 엘스" is 잠실엘스)."""
    return re.sub(r"\s+", "", text)


def named_as_word(text: str, name: str) -> bool:
    """`name` is written in `text` as a word of its own, spaces inside it ignored ("잠실 엘스")."""
    chars = r"\s*".join(re.escape(c) for c in compact(name))
    after = _AFTER_SHORT_COMPLEX if len(compact(name)) < MIN_NAME_ALONE else _AFTER_COMPLEX
    return re.search(rf"(?<![가-힣A-Za-z0-9]){chars}{after}", text) is not None


@dataclass(frozen=True)
class Places:
    """Places named in a text, each list in the order first named."""

    gu: list[str] = field(default_factory=list)
    dong: list[str] = field(default_factory=list)
    stations: list[str] = field(default_factory=list)


class Gazetteer:
    """Finds places in text. Built once (its patterns compile here) and shared: it is never changed."""

    def __init__(
        self,
        dong_gu: Mapping[str, str | None],
        stations: Iterable[str],
        gu: Iterable[str] = SEOUL_GU,
        complexes: Iterable[str] = (),
        listed_gu: Iterable[str] = (),
    ):
        self.dong_gu = dict(dong_gu)  # 동 -> its 구, None when the 동 name is found in several 구
        self.listed_gu = frozenset(listed_gu)  # the 구 the listings snapshot covers
        self.stations = frozenset(stations)
        self.gu = tuple(gu)
        full = {*self.gu, *self.dong_gu, *self.stations}
        # Names that are places before they are complexes (a complex called 역삼 is not meant by
        # "역삼 전세"): every 구, 동 and station, with and without its suffix.
        self.place_names = frozenset(full | {name[:-1] for name in full})
        # Complex names that can stand alone in a question: long enough and not a place's name; a series
        # ("타워팰리스" of 타워팰리스1차, 2차 …) is such a name too.
        names = {compact(c) for c in complexes}
        self.listed_names = frozenset(names | {series_of(c) for c in names})  # short ones too (현대, 우성)
        self.complexes = frozenset(
            c
            for c in names | {series_of(c) for c in names}
            if len(c) >= MIN_NAME_ALONE and c not in self.place_names
        )
        self._patterns = self._compile()

    def complexes_named(self, text: str) -> list[str]:
        """The complexes a text names on their own ("리센츠는요?"), longest first; a complex named
        inside a longer one ("래미안" in "래미안대치팰리스") is not named again."""
        flat = compact(text) if isinstance(text, str) else ""
        found = sorted(
            (c for c in self.complexes if c in flat and named_as_word(text, c)), key=len, reverse=True
        )
        return [c for i, c in enumerate(found) if not any(c in longer for longer in found[:i])]

    def complexes_unknown(self, text: str) -> list[str]:
        """Names written as a complex's ("은마아파트", "은마 아파트") that are neither a listed complex, a
        series, a place nor an everyday word before 아파트 ("신축 아파트", "좋은 아파트")."""
        unknown = []
        for m in _NAMED_APARTMENT.finditer(text if isinstance(text, str) else ""):
            name = m["name"]
            known = (
                name in self.place_names
                or name in self.listed_names
                or any(c in name for c in self.complexes)
            )
            if not known and not _EVERYDAY_BEFORE_APARTMENT.fullmatch(name) and name not in unknown:
                unknown.append(name)
        return unknown

    def find(self, text: str) -> Places:
        """The 구, 동 and stations a text names; a 동 adds its 구."""
        if not isinstance(text, str) or not text:
            return Places()
        found: list[tuple[int, str, str]] = []  # (position, kind, full name)
        for kind, pattern, name in self._patterns:
            for m in pattern.finditer(text):
                found.append((m.start(), kind, name))
                text = text[: m.start()] + "\0" * (m.end() - m.start()) + text[m.end() :]
        places: dict[str, list[str]] = {"gu": [], "dong": [], "station": []}
        for _, kind, name in sorted(found):
            _add(places[kind], name)
            gu_of_dong = self.dong_gu.get(name) if kind == "dong" else None
            if gu_of_dong:
                _add(places["gu"], gu_of_dong)
        return Places(gu=places["gu"], dong=places["dong"], stations=places["station"])

    def _compile(self) -> list[tuple[str, re.Pattern[str], str]]:
        """Full names longest first, then short names longest first (구 before 동: "서초" is 서초구)."""
        full = [("station", s) for s in self.stations] + [("gu", g) for g in self.gu]
        full += [("dong", d) for d in self.dong_gu]
        full.sort(key=lambda item: -len(item[1]))
        patterns = [(kind, re.compile(re.escape(name)), name) for kind, name in full]
        shorts = [("gu", g) for g in self.gu] + [("dong", d) for d in sorted(self.dong_gu)]
        for kind, name in sorted(shorts, key=lambda item: -len(item[1])):
            short = name[:-1]
            if short not in AMBIGUOUS_SHORT_NAMES and len(short) >= 2:
                pattern = re.compile(rf"(?<![가-힣]){re.escape(short)}(?!역){_AFTER_SHORT}")
                patterns.append((kind, pattern, name))
        return patterns


def _add(names: list[str], name: str) -> None:
    if name not in names:
        names.append(name)


def read_gazetteer(paths: tuple[Path, ...]) -> Gazetteer:
    """Dongs, stations and complex names from listing CSVs with columns gu, dong, subway_station (and
    complex_id, name for complexes); missing files are
    skipped, so a planner without the seed data still knows the 25 구."""
    dong_gus: dict[str, set[str]] = {}
    stations: set[str] = set()
    complexes: set[str] = set()
    for path in paths:
        if not path.is_file():
            continue
        with path.open(encoding="utf-8", newline="") as rows:
            for row in csv.DictReader(rows):
                if row.get("dong") and row.get("gu"):
                    dong_gus.setdefault(row["dong"], set()).add(row["gu"])
                if (row.get("subway_station") or "").endswith("역"):
                    stations.add(row["subway_station"])
                if row.get("complex_id") and row.get("name"):
                    complexes.add(row["name"])
    # A dong found in two 구 implies neither.
    dong_gu = {dong: next(iter(gus)) if len(gus) == 1 else None for dong, gus in dong_gus.items()}
    listed_gu = {gu for gus in dong_gus.values() for gu in gus}
    return Gazetteer(dong_gu, stations, complexes=complexes, listed_gu=listed_gu)


@lru_cache(maxsize=1)
def default_gazetteer() -> Gazetteer:
    """The gazetteer of the seed listings, read once."""
    return read_gazetteer(tuple(LISTINGS_DIR / name for name in LISTING_FILES))


# A region's name, its administrative suffix if written, then nothing or a particle ("수원시면요?").
_REGION_END = (
    r"(?:특별자치시|특별자치도|특별시|광역시|시|도|군)?"
    r"(?=$|[\s,.?!~]|에서|에|의|은|는|이|가|을|를|도|랑|와|과|쪽|면|라면|로|으로|근처|아파트|빌라)"
)


@lru_cache(maxsize=1)
def _region_patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """The regions outside Seoul's 구 the rule books name (시·도 and the cities of 경기·인천: regions.toml),
    longest first, each with the pattern that finds it as a word of its own; where a home lies decides
    its tier of 최우선변제, its LTV and its taxes."""
    rules = tomllib.loads(REGIONS_FILE.read_text(encoding="utf-8"))
    words = {*rules["capital_area_words"], *rules["non_capital_words"], *rules["capital_city_words"]}
    longest_first = sorted(words - {"지방"}, key=len, reverse=True)
    return tuple((w, re.compile(rf"(?<![가-힣]){re.escape(w)}{_REGION_END}")) for w in longest_first)


def regions_named(text: str) -> list[str]:
    """The regions the rule books name that a text names as words of their own ("수원이면요?" -> ["수원"])."""
    return [word for word, pattern in _region_patterns() if pattern.search(text)]
