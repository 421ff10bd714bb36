"""The statute text the analysis cites (법령 조문), read from the seed corpus so every quote is real text."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from contracts.values import Citation

CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫"
# Amendment notes ("<개정 2020. 7. 31.>", "[전문개정 2008. 3. 21.]") are not the rule itself.
_NOTES = re.compile(r"\s*<(?:개정|신설)[^>]*>|\n?\[[^\]]*(?:개정|신설|이동)[^\]]*\]")


@dataclass(frozen=True)
class Article:
    article_id: str
    law: str
    number: str
    title: str | None
    text: str
    enforcement_date: str | None


class StatuteBook:
    """Articles by corpus id (e.g. '주택임대차보호법/제7조'), quoted whole or by paragraph (항)."""

    def __init__(self, articles: dict[str, Article]) -> None:
        self._articles = articles

    @classmethod
    def load(cls, corpus: Path, laws: set[str] | None = None) -> StatuteBook:
        articles: dict[str, Article] = {}
        for line in corpus.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row.get("is_fragment") or row.get("future_effective_date") or row.get("is_deleted"):
                continue
            if laws is not None and row["law_title"] not in laws:
                continue
            articles[row["id"]] = Article(
                article_id=row["id"],
                law=row["law_title"],
                number=row["article_number"],
                title=row.get("article_title"),
                text=_NOTES.sub("", row["text"]).strip(),
                enforcement_date=row.get("enforcement_date"),
            )
        return cls(articles)

    def __contains__(self, article_id: str) -> bool:
        return article_id in self._articles

    def cite(self, article_id: str, paragraphs: tuple[int, ...] = (), max_chars: int = 600) -> Citation:
        """A citation quoting the given paragraphs (1 = ①), or the whole article, trimmed to `max_chars`."""
        article = self._articles[article_id]
        text = _paragraphs(article.text, paragraphs) if paragraphs else article.text
        if len(text) > max_chars:
            text = text[: max_chars - 1].rstrip() + "…"
        return Citation(
            article_id=article.article_id,
            law=article.law,
            article=article.number,
            title=article.title,
            text=text,
            enforcement_date=article.enforcement_date,
        )


def _paragraphs(text: str, wanted: tuple[int, ...]) -> str:
    """The 항 of an article marked ①, ② ...; an article without them is returned whole."""
    marks = [i for i, ch in enumerate(text) if ch in CIRCLED]
    if not marks:
        return text
    bounds = [*marks, len(text)]
    parts = {CIRCLED.index(text[s]) + 1: text[s:e].strip() for s, e in zip(bounds, bounds[1:], strict=False)}
    return " ".join(parts[n] for n in wanted if n in parts) or text
