"""The statute articles a review cites (법령 인용), read once at start-up through the one statute reader."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from contracts.values import Citation
from services.housing.statutes import articles_in_force, cite

CITED_TEXT_CHARS = 400  # events stay small: enough of the article to read what it says


def load_statutes(
    corpus: Path, article_ids: Iterable[str], paragraphs: Mapping[str, Iterable[int]] | None = None
) -> dict[str, Citation]:
    """article_id -> Citation for the articles asked for that are in force, quoted at the paragraphs
    named for them (제3조①③), else whole."""
    wanted, paragraphs = set(article_ids), paragraphs or {}
    return {
        a.article_id: cite(a, paragraphs.get(a.article_id, ()), max_chars=CITED_TEXT_CHARS)
        for a in articles_in_force(corpus)
        if a.article_id in wanted
    }
