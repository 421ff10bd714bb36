"""Which laws and articles an answer's text cites, read as a person reads it.

A law is cited when its title appears in the text (spacing aside, the longest title winning: "주택임대차보호법
시행령" is the decree, not the act as well). An article is cited when an article number (제7조, 제6조의3)
follows a law's title in the same line, each number within a short reach of the one before it
("주택임대차보호법 제7조, 제7조의2"), or follows a bare "시행령" / "시행규칙" that continues the law named
just before it ("주택임대차보호법 제7조, 시행령 제8조"). Articles are named as the corpus ids are:
`주택임대차보호법_시행령/제8조`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[2] / "infra" / "seed" / "legal" / "corpus.jsonl"
REACH = 40  # characters between a law's title (or the last article) and the next article number
_ARTICLE = re.compile(r"제\s*(\d+)\s*조(?:\s*의\s*(\d+))?")
_BARE_SUBORDINATE = re.compile(r"(?<![가-힣])(?:같은\s*법\s*|동법\s*)?(시행령|시행규칙)")


@dataclass(frozen=True)
class Cited:
    laws: frozenset[str]
    articles: frozenset[str]


@cache
def law_titles(corpus: Path = CORPUS) -> tuple[str, ...]:
    """Every law title in the corpus, longest first (so a decree is matched before its act)."""
    with corpus.open(encoding="utf-8") as lines:
        titles = {json.loads(line)["law_title"] for line in lines if line.strip()}
    return tuple(sorted(titles, key=len, reverse=True))


@cache
def _title_pattern(titles: tuple[str, ...]) -> re.Pattern[str]:
    spaced = (r"\s*".join(re.escape(ch) for ch in title.replace(" ", "")) for title in titles)
    return re.compile("|".join(f"({p})" for p in spaced))


def cited(text: str, titles: tuple[str, ...] | None = None) -> Cited:
    titles = titles or law_titles()
    marks = _marks(text, titles)
    laws, articles = set(), set()
    current, reach_end = None, -1
    for start, end, kind, value in marks:
        if kind == "law":
            current, reach_end = value, end
            laws.add(value)
        elif kind == "subordinate" and current is not None and start - reach_end <= REACH:
            base = re.sub(r"\s+(?:시행령|시행규칙)$", "", current)
            candidate = f"{base} {value}"
            if candidate in titles:
                current, reach_end = candidate, end
                laws.add(candidate)
        elif kind == "article" and current is not None and start - reach_end <= REACH:
            articles.add(f"{current.replace(' ', '_')}/{value}")
            reach_end = end
        if kind == "newline":
            current = None
    return Cited(frozenset(laws), frozenset(articles))


def _marks(text: str, titles: tuple[str, ...]) -> list[tuple[int, int, str, str]]:
    marks: list[tuple[int, int, str, str]] = []
    taken: list[tuple[int, int]] = []
    for m in _title_pattern(titles).finditer(text):
        title = titles[next(i for i, g in enumerate(m.groups()) if g)]
        marks.append((m.start(), m.end(), "law", title))
        taken.append((m.start(), m.end()))
    for m in _BARE_SUBORDINATE.finditer(text):
        if not any(s <= m.start() < e for s, e in taken):
            marks.append((m.start(), m.end(), "subordinate", m.group(1)))
    for m in _ARTICLE.finditer(text):
        number = f"제{m.group(1)}조" + (f"의{m.group(2)}" if m.group(2) else "")
        marks.append((m.start(), m.end(), "article", number))
    marks += [(m.start(), m.end(), "newline", "") for m in re.finditer(r"\n", text)]
    return sorted(marks)
