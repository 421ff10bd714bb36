"""What the search team readies at start-up: its read models (seeded when the database is fresh), the
legal index, Kiwi and the corpus embeddings.

Start-up reads what `jipsa seed` derived instead of deriving it: the legal index is built from the
stored terms of `legal_terms` (about a second of BM25 arithmetic; analysing the corpus with Kiwi took
20-60 s in every process). Kiwi itself is still needed to analyse questions: it is loaded by a
background task right after start, so neither start-up nor the first question waits for it. The corpus
embeddings of the in-process e5 model ship with the seed data and are attached before the service
answers (a fraction of a second); an endpoint's are computed by a background task the first time (then
read from `legal_embeddings`), and questions are answered lexically until then, or if it fails.
"""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

import psycopg
from psycopg_pool import AsyncConnectionPool

from services.platform.service import BackgroundLoop
from services.search.legal import Analyzer, LegalIndex, load_articles
from services.search.legal.dense import DenseConfig, DenseIndex, Embedder, ShippedVectors, corpus_vectors
from services.search.legal.terms import load_stored_terms
from services.search.seed import seed_all, sync_legal_terms, terms_memo

log = logging.getLogger("jipsa.search")


SEED_LOCK_KEY = 0x53454544  # "SEED": replicas starting together seed once


async def seed_if_empty(pool: AsyncConnectionPool, data_dir: Path | None = None) -> None:
    """The search team owns its read models: a fresh database gets them from infra/seed/ (as `jipsa
    seed` does) before the service answers anything; a seeded one gets its `legal_terms` brought up
    to date (a no-op unless the analyser changed since the last seed)."""
    async with pool.connection() as conn, conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(%s)", (SEED_LOCK_KEY,))
        seeded = await (await conn.execute("SELECT 1 FROM legal_articles LIMIT 1")).fetchone()
        if seeded is None:
            counts = await seed_all(conn, memo=terms_memo(data_dir))
            log.info("seeded the search read models: %s", counts)
        else:
            rows, written = await sync_legal_terms(conn, Analyzer(), terms_memo(data_dir))
            if written:
                log.info("legal_terms: %d of %d rows derived again", written, rows)


async def load_legal_index(pool: AsyncConnectionPool, data_dir: Path | None = None) -> LegalIndex:
    """From the `legal_articles` and `legal_terms` read models; BM25 arithmetic, kept off the loop."""
    await seed_if_empty(pool, data_dir)
    began = time.perf_counter()
    analyzer = Analyzer()
    async with pool.connection() as conn:
        articles = await load_articles(conn)
        terms = await load_stored_terms(conn, articles, analyzer.version)
    index = await asyncio.to_thread(LegalIndex, articles, analyzer, None, terms)
    log.info(
        "legal index: %d articles in %.2f s (%d field texts analysed for want of stored terms)",
        len(articles),
        time.perf_counter() - began,
        index.analysed_at_build,
    )
    return index


def warm_up_kiwi(index: LegalIndex) -> BackgroundLoop:
    async def warm(stop: asyncio.Event) -> None:
        began = time.perf_counter()
        await asyncio.to_thread(index.analyzer.warm_up)
        log.info("Kiwi ready for questions in %.1f s", time.perf_counter() - began)

    return warm


async def attach_dense(
    pool: AsyncConnectionPool, index: LegalIndex, embedder: Embedder, shipped: ShippedVectors | None = None
) -> bool:
    """Corpus vectors of the embedder's model attached to the index, so questions are fused from now on.
    Dense retrieval is optional: a database or embedder failure here is logged and leaves the lexical
    index serving alone (False); it never stops the service."""
    began = time.perf_counter()
    try:
        async with pool.connection() as conn:
            vectors = await corpus_vectors(conn, index.articles, embedder, DenseConfig(), shipped)
    except psycopg.Error as error:
        log.warning("legal embeddings unavailable (%r): answering by BM25 alone", error)
        return False
    if vectors is None:
        log.warning("legal embeddings unavailable: answering by BM25 alone")
        return False
    index.attach_dense(DenseIndex(vectors, embedder, DenseConfig()))
    log.info("legal embeddings (%s) attached in %.2f s", embedder.model, time.perf_counter() - began)
    return True


def attach_dense_in_background(
    pool: AsyncConnectionPool, index: LegalIndex, embedder: Embedder
) -> BackgroundLoop:
    """For an endpoint, whose first corpus embedding takes minutes: questions are lexical meanwhile."""

    async def attach(stop: asyncio.Event) -> None:
        await attach_dense(pool, index, embedder)

    return attach
