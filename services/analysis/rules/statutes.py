"""The statute text the analysis cites (법령 조문): the shipped corpus as services/housing/statutes.py reads
it, so every quote is real text and a paragraph (항) means what it means everywhere else."""

from __future__ import annotations

from pathlib import Path

from contracts.values import Citation
from services.housing.statutes import StatuteArticle, articles_in_force, cite


class StatuteBook:
    """Articles by corpus id (e.g. '주택임대차보호법/제7조'), quoted whole or by paragraph (항)."""

    def __init__(self, articles: dict[str, StatuteArticle]) -> None:
        self._articles = articles

    @classmethod
    def load(cls, corpus: Path, laws: set[str] | None = None) -> StatuteBook:
        return cls({a.article_id: a for a in articles_in_force(corpus) if laws is None or a.law in laws})

    def __contains__(self, article_id: str) -> bool:
        return article_id in self._articles

    def cite(self, article_id: str, paragraphs: tuple[int, ...] = (), max_chars: int = 600) -> Citation:
        """A citation quoting the given paragraphs (1 = ①), or the whole article, trimmed to `max_chars`."""
        return cite(self._articles[article_id], paragraphs, max_chars)
