"""The statute articles a review cites (법령 인용), read once at start-up from the shipped corpus."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from contracts.values import Citation

CITED_TEXT_CHARS = 400  # events stay small: enough of the article to read what it says


def load_statutes(corpus: Path, article_ids: Iterable[str]) -> dict[str, Citation]:
    """article_id -> Citation for the articles asked for; the corpus is one article per line."""
    wanted = set(article_ids)
    found: dict[str, Citation] = {}
    with corpus.open(encoding="utf-8") as lines:
        for line in lines:
            article = json.loads(line)
            if article["id"] in wanted and not article.get("is_deleted"):
                found[article["id"]] = Citation(
                    article_id=article["id"],
                    law=article["law_title"],
                    article=article["article_number"],
                    title=article.get("article_title"),
                    text=article["text"][:CITED_TEXT_CHARS],
                )
    return found
