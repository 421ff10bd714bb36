"""`python -m services.search`: the search team's service process."""

from __future__ import annotations

import asyncio
import logging
import time

from psycopg_pool import AsyncConnectionPool

from contracts.values import Team
from services.platform.service import Wiring, main
from services.platform.settings import InfraSettings
from services.platform.team import team_subscription
from services.search.legal import Analyzer, LegalIndex, load_articles
from services.search.seed import seed_all
from services.search.service import search_work
from services.search.tools import SearchContext, default_tools

log = logging.getLogger("jipsa.search")


SEED_LOCK_KEY = 0x53454544  # "SEED": replicas starting together seed once


async def seed_if_empty(pool: AsyncConnectionPool) -> None:
    """The search team owns its read models: a fresh database gets them from infra/seed/ (as `jipsa
    seed` does) before the service answers anything."""
    async with pool.connection() as conn, conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(%s)", (SEED_LOCK_KEY,))
        row = await (await conn.execute("SELECT count(*) AS n FROM legal_articles")).fetchone()
        if row["n"] == 0:
            counts = await seed_all(conn)
            log.info("seeded the search read models: %s", counts)


async def load_legal_index(pool: AsyncConnectionPool) -> LegalIndex:
    """From the `legal_articles` read model; analysing the corpus is CPU work, kept off the loop."""
    await seed_if_empty(pool)
    async with pool.connection() as conn:
        articles = await load_articles(conn)
    began = time.perf_counter()
    index = await asyncio.to_thread(LegalIndex, articles, Analyzer())
    log.info("legal index: %d articles in %.1f s", len(articles), time.perf_counter() - began)
    return index


async def build(pool: AsyncConnectionPool, settings: InfraSettings) -> Wiring:
    ctx = SearchContext(pool=pool, legal=await load_legal_index(pool))
    return Wiring([team_subscription(Team.SEARCH, search_work(ctx, default_tools()))])


if __name__ == "__main__":
    main("search", build)
