"""Analysed terms of the statute articles, computed once and stored, so no start-up analyses the corpus.

Kiwi needs tens of seconds for the 1,608 articles (more on a busy machine), and the terms of an article
depend only on its text and on the analyser (`Analyzer.version`). So they are derived data, kept in two
places with one job each:
- the `legal_terms` read model (article_id, field, analyser version, text hash, tokens): filled by
  `jipsa seed` beside `legal_articles`, read by the search service at start instead of analysing;
- a content-addressed memo file (text hash -> terms, one file per analyser version) under the data
  folder: it makes seeding a fresh database (a new replica's, each integration test's) and the offline
  evaluation copy terms instead of analysing again. Losing it costs time, never correctness.
A row or memo entry made by another analyser version or from another text is never used: it is
re-derived (seed) or the article is analysed on the spot (index build).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from services.search.legal.articles import Article
from services.search.legal.tokens import Analyzer

# The fields the index scores separately (search.LegalIndex), in this order.
FIELDS = ("law_title", "article_title", "body")
FieldTerms = dict[str, list[list[str] | None]]  # field -> per article, None where not stored


def field_texts(article: Article) -> dict[str, str]:
    return {
        "law_title": article.law_title,
        "article_title": article.article_title or "",
        "body": article.body,
    }


def text_hash(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


class TermsMemo:
    """text hash -> terms, one gzipped JSON file per analyser version; written atomically (a reader
    never sees half a file, and concurrent writers each leave a whole one)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def path(self, version: str) -> Path:
        return self.directory / f"legal_terms-{version}.json.gz"

    def load(self, version: str) -> dict[str, list[str]]:
        try:
            with gzip.open(self.path(version), "rt", encoding="utf-8") as f:
                return json.load(f)
        except (OSError, ValueError):  # absent or damaged: a cache, so start over
            return {}

    def save(self, version: str, memo: Mapping[str, list[str]]) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
        with os.fdopen(fd, "wb") as raw, gzip.open(raw, "wt", encoding="utf-8", compresslevel=3) as f:
            json.dump(memo, f, ensure_ascii=False, separators=(",", ":"))
        os.replace(tmp, self.path(version))


def analyse_texts(texts: Sequence[str], analyzer: Analyzer, memo: TermsMemo | None = None) -> list[list[str]]:
    """Terms of each text: from the memo where it has them, the rest analysed (and added to it)."""
    known = memo.load(analyzer.version) if memo else {}
    missing = list(dict.fromkeys(t for t in texts if text_hash(t) not in known))
    if missing:
        known.update(zip(map(text_hash, missing), analyzer.terms_many(missing), strict=True))
        if memo:
            memo.save(analyzer.version, known)
    return [known[text_hash(t)] for t in texts]


def corpus_terms(
    articles: Sequence[Article], analyzer: Analyzer, memo: TermsMemo | None = None
) -> FieldTerms:
    """Every field of every article, as LegalIndex takes them (the offline path: eval, bench)."""
    texts = [field_texts(a)[f] for f in FIELDS for a in articles]
    terms = analyse_texts(texts, analyzer, memo)
    n = len(articles)
    return {f: [*terms[i * n : (i + 1) * n]] for i, f in enumerate(FIELDS)}


async def load_stored_terms(conn: Any, articles: Sequence[Article], version: str) -> FieldTerms:
    """The `legal_terms` rows of this analyser version whose text is the article's current text;
    None where a row is missing or stale (the index analyses those itself)."""
    cursor = await conn.execute(
        "SELECT article_id, field, source_hash, tokens FROM legal_terms WHERE analyzer = %s", (version,)
    )
    stored = {(r["article_id"], r["field"]): (r["source_hash"], r["tokens"]) for r in await cursor.fetchall()}
    terms: FieldTerms = {f: [] for f in FIELDS}
    for a in articles:
        for f, text in field_texts(a).items():
            source, tokens = stored.get((a.article_id, f), (None, None))
            terms[f].append(tokens if source == text_hash(text) else None)
    return terms
