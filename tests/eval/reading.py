"""How the scenario scorer reads an answer's text: words (spacing and case aside), figures, and the first
sentence. The rules are those of the shared scenario checker, so a figure counts the same here and there.

Figures (a label is "<unit>[@kw1|kw2|...] [free description]"):
- manwon: Korean money written with digits, in 만원: "3억 1,500만원", "3억1500만", "3억 5천" (after 억 a
  bare 천/백 counts in 만원), "1천5백만원", "5천500만원", "31,500만원", "1.5억", "75만 원",
  "315,000,000원", "₩315,000,000". 조 is never read (제7조 is not money), nor a number with no money
  unit (a bare "75000" in a table).
- pct: a number followed by %, ％, 퍼센트 or 프로.
- count: a number followed by 개 (not 개월), 건 (not 건물/건축), 곳 or 단지.
With keywords, only figures within WINDOW characters (either side) of a keyword count.
"""

from __future__ import annotations

import re

WINDOW = 60  # characters between a figure and one of its label's keywords

_NUM = r"\d+(?:,\d{3})*(?:\.\d+)?"
_GAP = r"[ \t\u00a0]*"
_PIECE = rf"{_NUM}{_GAP}(?:[천백십]{_GAP}[억만]?|[억만])"
_MONEY = re.compile(
    rf"(?<![\d.,]){_PIECE}(?:{_GAP}{_PIECE})*(?:{_GAP}원)?|(?<![\d.,]){_NUM}{_GAP}원|₩{_GAP}{_NUM}"
)
_MONEY_PIECE = re.compile(rf"({_NUM}){_GAP}([천백십])?{_GAP}([억만])?")
_PCT = re.compile(rf"(?<![\d.,])([-−]?\d+(?:\.\d+)?){_GAP}(?:%|％|퍼센트|프로)")
_COUNT = re.compile(rf"(?<![\w.,])(\d+(?:,\d{{3}})*){_GAP}(?:개(?!월)|건(?!물|축)|곳|단지)")
_SMALL = {"천": 1000, "백": 100, "십": 10}
_GROUP = {"억": 10**8, "만": 10**4}
UNITS = ("manwon", "pct", "count")


def norm(text: str) -> str:
    """Text as a word check compares it: no whitespace, case folded, one kind of middle dot."""
    return re.sub(r"\s+", "", str(text)).replace("ㆍ", "·").replace("・", "·").casefold()


def mentions(text: str, word: str) -> bool:
    return norm(word) in norm(text)


def _won_to_manwon(expression: str) -> float:
    if not re.search(r"[억만천백십]", expression):
        return float(re.sub(r"[,원₩\s]", "", expression)) / 10**4  # plain won
    total = small = 0.0
    last_group = None
    for number, sub, group in _MONEY_PIECE.findall(expression):
        small += float(number.replace(",", "")) * _SMALL.get(sub, 1)
        if group:
            total += small * _GROUP[group]
            small, last_group = 0.0, group
    if small:  # "3억 5천": what follows 억 without a group of its own is counted in 만
        total += small * (10**4 if last_group == "억" else 1)
    return total / 10**4


def find_figures(text: str, unit: str) -> list[tuple[float, int, int]]:
    """(value, start, end) of every figure of the unit in the text; money in 만원."""
    if unit == "manwon":
        return [(_won_to_manwon(m.group(0)), m.start(), m.end()) for m in _MONEY.finditer(text)]
    if unit == "pct":
        return [(float(m.group(1).replace("−", "-")), m.start(), m.end()) for m in _PCT.finditer(text)]
    if unit == "count":
        return [(float(m.group(1).replace(",", "")), m.start(), m.end()) for m in _COUNT.finditer(text)]
    raise ValueError(f"unknown unit {unit!r} (one of {', '.join(UNITS)})")


def parse_label(label: str) -> tuple[str, list[str]]:
    """The unit and keywords of a label: "manwon@최대|상한 legal maximum" -> ("manwon", ["최대", "상한"])."""
    spec = label.split()[0] if label.split() else ""
    unit, _, keywords = spec.partition("@")
    return unit, [k for k in keywords.split("|") if k]


def figures_near(text: str, unit: str, keywords: list[str]) -> list[float]:
    """Values of the unit's figures, only those within WINDOW characters of a keyword when there are any."""
    found = find_figures(text, unit)
    if not keywords:
        return [value for value, _, _ in found]
    spans = [(m.start(), m.end()) for k in keywords for m in re.finditer(re.escape(k), text)]
    return [
        value
        for value, start, end in found
        if any(_close(start, end, k_start, k_end) for k_start, k_end in spans)
    ]


def _close(start: int, end: int, k_start: int, k_end: int) -> bool:
    after_keyword = k_end <= start and start - k_end <= WINDOW
    before_keyword = k_start >= end and k_start - end <= WINDOW
    return after_keyword or before_keyword or (k_start < end and k_end > start)


# ---------------------------------------------------------------- the first sentence

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_RULE = re.compile(r"^\s*(?:[-*_]\s*){3,}$|^\s*\|?[\s:|-]+\|[\s:|-]*$")  # --- or a table's |---|---|
_SENTENCE_END = re.compile(r"(?<=[.!?。])(?=\s|$)")


def strip_markdown(line: str) -> str:
    """One line as a person reads it on the page: no emphasis, code marks, link targets, quote or list
    marks, table pipes."""
    line = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", line)
    line = re.sub(r"^\s*(?:>\s*)+", "", line)
    line = re.sub(r"^\s*(?:[-*+•·]|\d+[.)])\s+", "", line)
    line = re.sub(r"(\*\*|__|\*|`|~~)", "", line)
    line = line.replace("|", " ")
    return re.sub(r"\s+", " ", line).strip()


def first_sentence(content: str) -> str:
    """The first sentence of the answer: in its first line that is not blank, a heading (a heading is a
    title, not a sentence) or a rule, Markdown stripped, up to the first . ! ? followed by a space or the
    line's end ("3.5%" does not end a sentence); a line without one is one sentence."""
    for raw in content.splitlines():
        if not raw.strip() or _HEADING.match(raw) or _RULE.match(raw):
            continue
        line = strip_markdown(raw)
        if line:
            return _SENTENCE_END.split(line, maxsplit=1)[0].strip()
    return ""
