"""The statutes the product ships (infra/seed/legal/corpus.jsonl, one article per line) as plain data,
read once per process, and what is said of them: article references and paragraphs (항).

Every service that quotes or weighs a statute reads it through here, so an article id, a paragraph and
a reference ("주택임대차보호법 제7조②") mean the same thing everywhere.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from datetime import date
from functools import cache
from pathlib import Path

from contracts.values import CIRCLED, Citation

CORPUS = Path(__file__).resolve().parents[2] / "infra" / "seed" / "legal" / "corpus.jsonl"
# Amendment notes ("<개정 2020. 7. 31.>", "[전문개정 2008. 3. 21.]") are not the rule itself.
_NOTES = re.compile(r"\s*<(?:개정|신설)[^>]*>|\n?\[[^\]]*(?:개정|신설|이동)[^\]]*\]")
# The 주택법 and 공동주택관리법 families open each article with a 장/절 breadcrumb ("제2장 … > 제44조(…)").
_BREADCRUMB = re.compile(r"^(?:[^>\n]*> )*")


@dataclass(frozen=True, slots=True)
class StatuteArticle:
    article_id: str  # 주택임대차보호법/제7조; a version not yet in force carries @시행YYYY-MM-DD
    law: str
    number: str  # 제7조, 제6조의3
    title: str | None
    text: str  # the rule as in force: breadcrumb and amendment notes removed
    enforcement_date: str | None
    in_force: bool  # false for deleted articles, fragments and versions not yet in force


@cache
def load_articles(corpus: Path = CORPUS) -> tuple[StatuteArticle, ...]:
    with corpus.open(encoding="utf-8") as lines:
        return tuple(_article(json.loads(line)) for line in lines if line.strip())


def articles_in_force(corpus: Path = CORPUS) -> tuple[StatuteArticle, ...]:
    return tuple(a for a in load_articles(corpus) if a.in_force)


def rule_text(text: str) -> str:
    """An article's text as the rule reads: no 장/절 breadcrumb, no amendment notes."""
    return _NOTES.sub("", _BREADCRUMB.sub("", text, count=1)).strip()


def _article(row: dict) -> StatuteArticle:
    text = rule_text(row.get("text") or "")
    in_force = not (row.get("is_deleted") or row.get("is_fragment") or row.get("future_effective_date"))
    return StatuteArticle(
        article_id=row["id"],
        law=row["law_title"],
        number=row["article_number"],
        title=row.get("article_title"),
        text=text,
        enforcement_date=row.get("enforcement_date"),
        in_force=in_force and "@시행" not in row["id"],
    )


def paragraphs(text: str) -> dict[int, str]:
    """An article's 항 by number (① -> 1); an article without them is one paragraph, numbered 0."""
    marks = [i for i, ch in enumerate(text) if ch in CIRCLED]
    if not marks:
        return {0: text.strip()}
    bounds = [*marks, len(text)]
    return {CIRCLED.index(text[s]) + 1: text[s:e].strip() for s, e in zip(bounds, bounds[1:], strict=False)}


# An article's heading ("제7조(차임 등의 증감청구권) ") is not what it says.
_HEADING = re.compile(r"^제\s*\d+\s*조(?:의\s*\d+)?\s*(?:\([^)]*\))?\s*")
_SENTENCE_END = re.compile(r"(?<=다\.)\s+|\n+")
_ITEM = re.compile(r"^\s*(?:\d+\.|[가-하]\.)\s*")
_ASIDE = re.compile(r"\([^()]*\)")


@dataclass(frozen=True)
class Quote:
    paragraph: int  # 항 number, 0 for an article without numbered paragraphs
    text: str


# What a question asks for, and how a statute's sentence reads when it gives it: a period ("몇 년 안에",
# "언제까지", "얼마 안에" -> "10년", "60일 이내"), a penalty ("처벌" -> 징역·벌금·과태료), a number of people
# ("몇 명" -> "5명 이상"), an amount ("얼마예요", "비용" -> "…원").
_ASKED_FOR = (
    (
        re.compile(
            r"몇\s*(?:년|개월|달|일|주)|며칠|언제까지|기간|기한|얼마\s*(?:동안|안에|만에|이내|나\s*걸)"
        ),
        re.compile(r"\d+\s*(?:년|개월|일|시간)|지체\s*없이"),
    ),
    (re.compile(r"처벌|벌칙|벌금|과태료|징역|제재"), re.compile(r"징역|벌금|과태료")),
    (re.compile(r"몇\s*명"), re.compile(r"\d+\s*명")),
    (
        re.compile(r"얼마(?!\s*(?:동안|안에|만에|이내|나\s*걸))|금액|비용|수수료"),
        re.compile(r"\d[\d,]*\s*(?:만\s*|억\s*)?원"),
    ),
)


def asked_for(question: str) -> re.Pattern[str] | None:
    """How the sentence that answers `question` reads (a period, a penalty, a headcount, an amount),
    when the question asks for one of those; None for any other question."""
    return next((gives for asks, gives in _ASKED_FOR if asks.search(question)), None)


def quote(
    text: str, words: Collection[str], limit: int = 180, wanted: re.Pattern[str] | None = None
) -> Quote:
    """The sentence of an article that says most about `words` (with the item of a list it opens, as
    in "다음 각 호의 …: 1. 부동산의 매매계약"), trimmed to `limit` characters: what an answer quotes.
    A sentence that gives what the question asks for (`wanted`, from `asked_for`) counts first.
    Asides in parentheses go first when it is too long; they define terms, they do not state the rule."""
    paras = paragraphs(_HEADING.sub("", rule_text(text)))

    def says(part: str) -> tuple[bool, int]:
        return bool(wanted and wanted.search(part)), _weight(part, words)

    def sentences(body: str) -> list[str]:
        first = _ITEM.sub("", next(line for line in body.split("\n") if line.strip()))
        return [s.strip() for s in _SENTENCE_END.split(first) if s.strip()] or [first]

    # Ties go to the rule before its exceptions (다만 …) and to the earlier sentence (max keeps the first).
    # Asked for a figure, the sentence that gives it is sought in every paragraph, not in the one that
    # says most about the words (a long paragraph of lists says most about everything).
    candidates = [(n, s) for n, body in paras.items() for s in sentences(body)]
    if not (wanted and any(wanted.search(s) for _, s in candidates)):
        number = max(paras, key=lambda n: (_weight(paras[n], words), -n))
        candidates = [(number, s) for s in sentences(paras[number])]
    number, best = max(candidates, key=lambda c: (*says(c[1]), not c[1].startswith("다만"), -c[0]))
    lines = [_ITEM.sub("", line) for line in paras[number].split("\n") if line.strip()]
    if ("각 호" in best or "각 목" in best) and len(lines) > 1:
        best = f"{best} … {max(lines[1:], key=lambda line: says(line))}"
    best = best.lstrip(CIRCLED + " ")
    if len(best) > limit:
        best = _ASIDE.sub("", best)
    return Quote(number, best if len(best) <= limit else best[: limit - 1].rstrip() + "…")


def _weight(text: str, words: Collection[str]) -> int:
    return sum(1 for w in words if w and w in text)


def citation(article: StatuteArticle, shown: str, paragraph: int | None, said: str) -> Citation:
    """How every team cites an article: what is shown of it, the 항 it points at and the sentence an answer
    quotes. The version date travels in its own field: the corpus is a dated snapshot (see its README)."""
    return Citation(
        article_id=article.article_id,
        law=article.law,
        article=article.number,
        title=article.title,
        text=shown,
        enforcement_date=date.fromisoformat(article.enforcement_date) if article.enforcement_date else None,
        paragraph=paragraph,
        quote=said,
    )


def cite(article: StatuteArticle, paragraphs_: Iterable[int] = (), max_chars: int | None = None) -> Citation:
    """The article quoted at the given paragraphs (1 = ①), or whole, trimmed to `max_chars`; the first
    paragraph named that the article has is the one the citation points at."""
    numbered = paragraphs(article.text)
    named = [n for n in paragraphs_ if n in numbered]
    text = " ".join(numbered[n] for n in named) or article.text
    if max_chars is not None and len(text) > max_chars:
        text = text[: max_chars - 1].rstrip() + "…"
    first = named[0] if named else None
    said = quote(numbered[first] if first is not None else article.text, ())
    return citation(article, text, first, said.text)
